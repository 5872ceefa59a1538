package api

// The batch/v1 kind Job.

import "encoding/json"

// Job runs pods until a number of them succeed.
type Job struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       JobSpec   `json:"spec,omitempty"`
	Status     JobStatus `json:"status,omitempty"`
}

// JobSpec is the desired state of a Job.
type JobSpec struct {
	Parallelism             *int32          `json:"parallelism,omitempty"`
	Completions             *int32          `json:"completions,omitempty"`
	ActiveDeadlineSeconds   *int64          `json:"activeDeadlineSeconds,omitempty"`
	BackoffLimit            *int32          `json:"backoffLimit,omitempty"`
	Selector                *LabelSelector  `json:"selector,omitempty"`
	ManualSelector          *bool           `json:"manualSelector,omitempty"`
	Template                PodTemplateSpec `json:"template"`
	TTLSecondsAfterFinished *int32          `json:"ttlSecondsAfterFinished,omitempty"`
	CompletionMode          *CompletionMode `json:"completionMode,omitempty"`
	Suspend                 *bool           `json:"suspend,omitempty"`
	PodReplacementPolicy    *string         `json:"podReplacementPolicy,omitempty"`
	BackoffLimitPerIndex    *int32          `json:"backoffLimitPerIndex,omitempty"`
	MaxFailedIndexes        *int32          `json:"maxFailedIndexes,omitempty"`
	ManagedBy               *string         `json:"managedBy,omitempty"`
	// Kept opaque: nothing here interprets them.
	PodFailurePolicy json.RawMessage `json:"podFailurePolicy,omitempty"`
	SuccessPolicy    json.RawMessage `json:"successPolicy,omitempty"`
}

// CompletionMode is NonIndexed (the default) or Indexed.
type CompletionMode string

const (
	NonIndexedCompletion CompletionMode = "NonIndexed"
	IndexedCompletion    CompletionMode = "Indexed"
)

// JobStatus is the observed state of a Job.
type JobStatus struct {
	Conditions       []JobCondition `json:"conditions,omitempty"`
	StartTime        *Time          `json:"startTime,omitempty"`
	CompletionTime   *Time          `json:"completionTime,omitempty"`
	Active           int32          `json:"active,omitempty"`
	Succeeded        int32          `json:"succeeded,omitempty"`
	Failed           int32          `json:"failed,omitempty"`
	Terminating      *int32         `json:"terminating,omitempty"`
	CompletedIndexes string         `json:"completedIndexes,omitempty"`
	Ready            *int32         `json:"ready,omitempty"`
	FailedIndexes    *string        `json:"failedIndexes,omitempty"`
	// UncountedTerminatedPods is kept opaque.
	UncountedTerminatedPods json.RawMessage `json:"uncountedTerminatedPods,omitempty"`
}

// JobCondition is one condition of a Job.
type JobCondition struct {
	Type               JobConditionType `json:"type"`
	Status             ConditionStatus  `json:"status"`
	LastProbeTime      Time             `json:"lastProbeTime,omitempty"`
	LastTransitionTime Time             `json:"lastTransitionTime,omitempty"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
}

// JobConditionType is the type of a JobCondition.
type JobConditionType string

const (
	JobSuspended          JobConditionType = "Suspended"
	JobComplete           JobConditionType = "Complete"
	JobFailed             JobConditionType = "Failed"
	JobFailureTarget      JobConditionType = "FailureTarget"
	JobSuccessCriteriaMet JobConditionType = "SuccessCriteriaMet"
)

// Reasons of Job conditions.
const (
	JobReasonBackoffLimitExceeded = "BackoffLimitExceeded"
	JobReasonDeadlineExceeded     = "DeadlineExceeded"
	JobReasonCompletionsReached   = "CompletionsReached"
	JobReasonSuspended            = "JobSuspended"
)

// Labels the Job controller puts on its pods.
const (
	JobNameLabel             = "batch.kubernetes.io/job-name"
	ControllerUIDLabel       = "batch.kubernetes.io/controller-uid"
	LegacyJobNameLabel       = "job-name"
	LegacyControllerUIDLabel = "controller-uid"
)
