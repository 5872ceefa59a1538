package api

// The apps/v1 kinds: Deployment and ReplicaSet.

// DefaultDeploymentUniqueLabelKey is the label a Deployment adds to the
// ReplicaSets and pods it creates, holding a hash of the pod template.
const DefaultDeploymentUniqueLabelKey = "pod-template-hash"

// ---------------------------------------------------------------- ReplicaSet

// ReplicaSet keeps a number of identical pods running.
type ReplicaSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       ReplicaSetSpec   `json:"spec,omitempty"`
	Status     ReplicaSetStatus `json:"status,omitempty"`
}

// ReplicaSetSpec is the desired state of a ReplicaSet.
type ReplicaSetSpec struct {
	Replicas        *int32          `json:"replicas,omitempty"`
	MinReadySeconds int32           `json:"minReadySeconds,omitempty"`
	Selector        *LabelSelector  `json:"selector"`
	Template        PodTemplateSpec `json:"template,omitempty"`
}

// ReplicaSetStatus is the observed state of a ReplicaSet.
type ReplicaSetStatus struct {
	Replicas             int32                 `json:"replicas"`
	FullyLabeledReplicas int32                 `json:"fullyLabeledReplicas,omitempty"`
	ReadyReplicas        int32                 `json:"readyReplicas,omitempty"`
	AvailableReplicas    int32                 `json:"availableReplicas,omitempty"`
	TerminatingReplicas  *int32                `json:"terminatingReplicas,omitempty"`
	ObservedGeneration   int64                 `json:"observedGeneration,omitempty"`
	Conditions           []ReplicaSetCondition `json:"conditions,omitempty"`
}

// ReplicaSetCondition is one condition of a ReplicaSet.
type ReplicaSetCondition struct {
	Type               ReplicaSetConditionType `json:"type"`
	Status             ConditionStatus         `json:"status"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}

// ReplicaSetConditionType is the type of a ReplicaSetCondition.
type ReplicaSetConditionType string

// ReplicaSetReplicaFailure: pods could not be created or deleted.
const ReplicaSetReplicaFailure ReplicaSetConditionType = "ReplicaFailure"

// ---------------------------------------------------------------- Deployment

// Deployment rolls out a pod template through ReplicaSets.
type Deployment struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       DeploymentSpec   `json:"spec,omitempty"`
	Status     DeploymentStatus `json:"status,omitempty"`
}

// DeploymentSpec is the desired state of a Deployment.
type DeploymentSpec struct {
	Replicas                *int32             `json:"replicas,omitempty"`
	Selector                *LabelSelector     `json:"selector"`
	Template                PodTemplateSpec    `json:"template"`
	Strategy                DeploymentStrategy `json:"strategy,omitempty"`
	MinReadySeconds         int32              `json:"minReadySeconds,omitempty"`
	RevisionHistoryLimit    *int32             `json:"revisionHistoryLimit,omitempty"`
	Paused                  bool               `json:"paused,omitempty"`
	ProgressDeadlineSeconds *int32             `json:"progressDeadlineSeconds,omitempty"`
}

// DeploymentStrategy is how old pods are replaced by new ones.
type DeploymentStrategy struct {
	Type          DeploymentStrategyType   `json:"type,omitempty"`
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// DeploymentStrategyType is Recreate or RollingUpdate (the default).
type DeploymentStrategyType string

const (
	RecreateDeploymentStrategyType      DeploymentStrategyType = "Recreate"
	RollingUpdateDeploymentStrategyType DeploymentStrategyType = "RollingUpdate"
)

// RollingUpdateDeployment bounds a rolling update: how many pods may be
// missing (maxUnavailable) and how many extra may exist (maxSurge), each
// a number or a percentage (default 25%).
type RollingUpdateDeployment struct {
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
	MaxSurge       *IntOrString `json:"maxSurge,omitempty"`
}

// DeploymentStatus is the observed state of a Deployment.
type DeploymentStatus struct {
	ObservedGeneration  int64                 `json:"observedGeneration,omitempty"`
	Replicas            int32                 `json:"replicas,omitempty"`
	UpdatedReplicas     int32                 `json:"updatedReplicas,omitempty"`
	ReadyReplicas       int32                 `json:"readyReplicas,omitempty"`
	AvailableReplicas   int32                 `json:"availableReplicas,omitempty"`
	UnavailableReplicas int32                 `json:"unavailableReplicas,omitempty"`
	TerminatingReplicas *int32                `json:"terminatingReplicas,omitempty"`
	Conditions          []DeploymentCondition `json:"conditions,omitempty"`
	CollisionCount      *int32                `json:"collisionCount,omitempty"`
}

// DeploymentCondition is one condition of a Deployment.
type DeploymentCondition struct {
	Type               DeploymentConditionType `json:"type"`
	Status             ConditionStatus         `json:"status"`
	LastUpdateTime     Time                    `json:"lastUpdateTime,omitempty"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}

// DeploymentConditionType is the type of a DeploymentCondition.
type DeploymentConditionType string

const (
	DeploymentAvailable      DeploymentConditionType = "Available"
	DeploymentProgressing    DeploymentConditionType = "Progressing"
	DeploymentReplicaFailure DeploymentConditionType = "ReplicaFailure"
)

// Reasons of Deployment conditions, as the upstream controller sets them.
const (
	NewReplicaSetReason        = "NewReplicaSetCreated"
	FoundNewRSReason           = "FoundNewReplicaSet"
	NewRSAvailableReason       = "NewReplicaSetAvailable"
	ReplicaSetUpdatedReason    = "ReplicaSetUpdated"
	TimedOutReason             = "ProgressDeadlineExceeded"
	PausedDeployReason         = "DeploymentPaused"
	ResumedDeployReason        = "DeploymentResumed"
	MinimumReplicasAvailable   = "MinimumReplicasAvailable"
	MinimumReplicasUnavailable = "MinimumReplicasUnavailable"
	FailedRSCreateReason       = "ReplicaSetCreateError"
	RevisionAnnotation         = "deployment.kubernetes.io/revision"
	RevisionHistoryAnnotation  = "deployment.kubernetes.io/revision-history"
	DesiredReplicasAnnotation  = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation      = "deployment.kubernetes.io/max-replicas"
	ChangeCauseAnnotation      = "kubernetes.io/change-cause"
)
