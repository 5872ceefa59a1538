// Package jobs is the contract of exercise 10 (job): the Job controller
// and the TTL-after-finished controller of kube-controller-manager, which
// run pods to completion and clean finished Jobs up (upstream's
// pkg/controller/job and pkg/controller/ttlafterfinished).
//
// An implementation has two pure functions and a loop:
//
//  1. Plan says what one sync of a Job writes, given the Job, the pods it
//     controls and the time: the pods to create, the pods to delete, the
//     Job's new status, the Events, and when to look again (upstream's
//     syncJob with manageJob, backoff_utils.go and indexed_job_utils.go).
//  2. Cleanup says whether a finished Job's time to live is over, and if
//     not, how long is left (upstream's ttlafterfinished controller,
//     processTTL and timeLeft).
//  3. New returns the loop: informers on Jobs and pods, a work queue of
//     Job keys for the Job controller and one for the TTL controller, and
//     workers that ask Plan and Cleanup and carry out what they say
//     through the API.
//
// The pure functions take plain data, so that they cross a process
// boundary as JSON (DESIGN.md rule 9); the loop takes a client.
//
// What the apiserver does upstream to a Job it stores (defaults, and the
// selector and pod labels generated from the Job's uid) is given here as
// WithDefaults: the kata's apiserver stores a Job as it is sent.
//
// Where the kata simplifies on purpose: upstream puts the
// batch.kubernetes.io/job-tracking finalizer on every pod and counts a
// finished pod through status.uncountedTerminatedPods before letting it
// go, so that a pod deleted before it was counted still counts; the kata
// counts the pods it sees, as upstream did before 1.26, so a finished pod
// that is deleted leaves the counts. An Indexed Job's failed pods count
// whatever their index (upstream counts those below completions only). A
// failing Job that is being deleted, or whose pods are in flight, deletes
// no pod (upstream deletes its active pods in both cases). The Warning
// TooManySucceededPods is not recorded. Suspend, podFailurePolicy,
// successPolicy, backoffLimitPerIndex and podReplacementPolicy Failed are
// not acted on.
package jobs

import (
	"context"
	"strconv"
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// Numbers, as upstream's (pkg/controller/job/job_controller.go,
// pkg/apis/batch/v1/defaults.go).
const (
	// DefaultBackoffLimit is how many pods may fail before the Job fails,
	// when spec.backoffLimit is not given.
	DefaultBackoffLimit int32 = 6
	// PodFailureBackOff is how long the controller waits before it
	// replaces a failed pod after one failure; each further failure since
	// the last success doubles it, up to MaxPodFailureBackOff
	// (DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff; the
	// Kubernetes documentation says six minutes, the code ten).
	PodFailureBackOff    = 10 * time.Second
	MaxPodFailureBackOff = 10 * time.Minute
	// MaxPodCreateDeletePerSync caps the pods one sync creates or deletes.
	MaxPodCreateDeletePerSync = 500
)

// Names on a Job's pods, upstream's (k8s.io/api/batch/v1).
const (
	// CompletionIndexAnnotation (and the label of the same name) is the
	// completion index of a pod of an Indexed Job, in decimal.
	CompletionIndexAnnotation = "batch.kubernetes.io/job-completion-index"
	// CompletionIndexEnv is the environment variable through which every
	// container of an Indexed Job's pod reads its index.
	CompletionIndexEnv = "JOB_COMPLETION_INDEX"
)

// The reasons and messages of the Job's conditions and Events, upstream's.
const (
	// ReasonCompletionsReached and MessageCompletionsReached are on the
	// SuccessCriteriaMet and Complete conditions of a Job that succeeded.
	ReasonCompletionsReached  = api.JobReasonCompletionsReached
	MessageCompletionsReached = "Reached expected number of succeeded pods"
	// ReasonBackoffLimitExceeded and MessageBackoffLimitExceeded are on
	// the FailureTarget and Failed conditions of a Job whose pods failed
	// too often, and on its Warning Event.
	ReasonBackoffLimitExceeded  = api.JobReasonBackoffLimitExceeded
	MessageBackoffLimitExceeded = "Job has reached the specified backoff limit"
	// ReasonDeadlineExceeded and MessageDeadlineExceeded are those of a
	// Job that ran longer than activeDeadlineSeconds.
	ReasonDeadlineExceeded  = api.JobReasonDeadlineExceeded
	MessageDeadlineExceeded = "Job was active longer than specified deadline"
	// Completed, Normal, "Job completed": the Job got its Complete
	// condition.
	Completed        = "Completed"
	MessageCompleted = "Job completed"
	// The Events of the loop's pod writes, on the Job, as the ReplicaSet
	// controller's (controller_utils.go RealPodControl):
	// SuccessfulCreate, Normal, "Created pod: NAME"; FailedCreate,
	// Warning, "Error creating: ERROR"; SuccessfulDelete, Normal,
	// "Deleted pod: NAME"; FailedDelete, Warning, "Error deleting: ERROR".
	SuccessfulCreate = "SuccessfulCreate"
	FailedCreate     = "FailedCreate"
	SuccessfulDelete = "SuccessfulDelete"
	FailedDelete     = "FailedDelete"
)

// ControllerName and TTLControllerName are the components the Events come
// from, as upstream's.
const (
	ControllerName    = "job-controller"
	TTLControllerName = "ttl-after-finished-controller"
)

// WithDefaults returns a copy of j with what the apiserver gives a Job
// upstream (SetDefaults_Job, and the Job strategy's generateSelector
// unless spec.manualSelector is true): parallelism 1, and completions 1
// when neither is given; backoffLimit DefaultBackoffLimit;
// completionMode NonIndexed; the template's labels job-name and
// batch.kubernetes.io/job-name (the Job's name) and controller-uid and
// batch.kubernetes.io/controller-uid (its uid), each unless the template
// has it; and the selector's matchLabels
// batch.kubernetes.io/controller-uid (the uid) unless it has it. What j
// sets is kept. The loop calls it on every Job it reads before Plan and
// Cleanup see it.
func WithDefaults(j api.Job) api.Job {
	out := *api.DeepCopy(&j)
	s := &out.Spec
	if s.Completions == nil && s.Parallelism == nil {
		one := int32(1)
		s.Completions = &one
	}
	if s.Parallelism == nil {
		one := int32(1)
		s.Parallelism = &one
	}
	if s.BackoffLimit == nil {
		v := DefaultBackoffLimit
		s.BackoffLimit = &v
	}
	if s.CompletionMode == nil {
		m := api.NonIndexedCompletion
		s.CompletionMode = &m
	}
	if s.ManualSelector != nil && *s.ManualSelector {
		return out
	}
	if s.Template.Labels == nil {
		s.Template.Labels = map[string]string{}
	}
	for k, v := range map[string]string{
		api.LegacyJobNameLabel:       out.Name,
		api.JobNameLabel:             out.Name,
		api.LegacyControllerUIDLabel: string(out.UID),
		api.ControllerUIDLabel:       string(out.UID),
	} {
		if _, ok := s.Template.Labels[k]; !ok {
			s.Template.Labels[k] = v
		}
	}
	if s.Selector == nil {
		s.Selector = &api.LabelSelector{}
	}
	if s.Selector.MatchLabels == nil {
		s.Selector.MatchLabels = map[string]string{}
	}
	if _, ok := s.Selector.MatchLabels[api.ControllerUIDLabel]; !ok {
		s.Selector.MatchLabels[api.ControllerUIDLabel] = string(out.UID)
	}
	return out
}

// Index is the completion index of a pod (its CompletionIndexAnnotation),
// or -1 when it has none or it is not a number of 0 or more (upstream's
// getCompletionIndex).
func Index(p *api.Pod) int {
	v, ok := p.Annotations[CompletionIndexAnnotation]
	if !ok {
		return -1
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return -1
	}
	return i
}

// Input is what Plan is given.
type Input struct {
	// Job is the Job as the controller's cache has it, defaulted
	// (WithDefaults).
	Job api.Job `json:"job"`
	// Pods are the pods the Job controls (a controller owner reference
	// with its uid), in every phase, being deleted or not, in no
	// particular order.
	Pods []api.Pod `json:"pods"`
	// Now is the time of this sync.
	Now time.Time `json:"now"`
	// InFlight says that pods this controller created or deleted for the
	// Job have not all shown up (or gone) in its cache yet (upstream's
	// expectations): Plan then creates and deletes nothing and does not
	// finish the Job.
	InFlight bool `json:"inFlight,omitempty"`
}

// Event is an Event Plan asks the loop to record on the Job.
type Event struct {
	// Type is "Normal" or "Warning".
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Plan is what one sync writes, in the order of the fields. The zero Plan
// writes nothing.
type Plan struct {
	// Delete are the names of pods of Input to delete, in order.
	Delete []string `json:"delete,omitempty"`
	// Create are the pods to create, in order, each with a generateName
	// and no name (the apiserver names them).
	Create []api.Pod `json:"create,omitempty"`
	// Status is the Job's new status, nil when it does not change.
	Status *api.JobStatus `json:"status,omitempty"`
	// Events are the Events to record on the Job, in order.
	Events []Event `json:"events,omitempty"`
	// RequeueAfter, when positive, asks the loop to sync the Job again
	// after this long (a pod failure back-off or the active deadline).
	RequeueAfter time.Duration `json:"requeueAfter,omitempty"`
}

// IsZero reports whether p writes nothing and asks for no requeue.
func (p Plan) IsZero() bool {
	return len(p.Delete) == 0 && len(p.Create) == 0 && p.Status == nil && len(p.Events) == 0 && p.RequeueAfter <= 0
}

// PlanFunc is Plan's type. Plan changes nothing it is given, and returns
// the writes that one pass of upstream's syncJob makes, every write
// assumed to succeed. Its rules, each upstream's:
//
//  1. Finished: a Job with a Complete or Failed condition of status True
//     gets the zero Plan (IsJobFinished).
//  2. Counting: a pod is active when it is neither Succeeded nor Failed
//     and not being deleted (FilterActivePods); terminating when it is
//     being deleted and neither Succeeded nor Failed; failed when it is
//     Failed, or being deleted and not Succeeded (isPodFailed);
//     succeeded when it is Succeeded. An Indexed Job counts as succeeded
//     the distinct indexes below spec.completions of its Succeeded pods,
//     and its status.completedIndexes lists them in order, a run of
//     three or more consecutive indexes as "first-last" ("1,3-5,7,8";
//     upstream's orderedIntervals). status.ready is the active pods with a Ready
//     condition True. startTime is set to Now when the Job has none.
//  3. Failure: with no FailureTarget or SuccessCriteriaMet condition
//     yet, the Job fails when failed > spec.backoffLimit, or, for a
//     template with restartPolicy OnFailure, when the restartCounts of
//     the containers (init and app) of its Pending and Running pods add
//     up to at least backoffLimit (more than 0 when it is 0)
//     (pastBackoffLimitOnFailure): reason BackoffLimitExceeded. Else it
//     fails when activeDeadlineSeconds is set and Now − startTime ≥
//     activeDeadlineSeconds: reason DeadlineExceeded. Else, with
//     activeDeadlineSeconds set, RequeueAfter is the time left until the
//     deadline.
//  4. A failing Job (rule 3, or a FailureTarget condition True already)
//     deletes every active pod (Delete), which then count as failed and
//     terminating. It gets FailureTarget True with the reason and message
//     (once), and, when no pod is active or terminating after the
//     deletions, Failed True with the same reason and message and a
//     Warning Event with them.
//  5. Wanted: with completions set, wantActive is completions −
//     succeeded, at most parallelism, at least 0; without, it is
//     parallelism until a pod has succeeded, then the active count (let
//     the rest finish).
//  6. Too many: an Indexed Job deletes, whatever the counts, every
//     active pod with no index or an index ≥ completions, and of the
//     active pods that share an index all but the one last in
//     ActivePods order (appendDuplicatedIndexPodsForRemoval). Then, while
//     fewer than active − wantActive pods are chosen, the other active
//     pods are, in upstream's ActivePods order (not on a node first;
//     then Pending, Unknown, Running; not Ready before Ready; Ready for
//     less time first; more restarts first; newer first; the kata breaks
//     the last tie by name, "pod-1" before "pod-2"). At most
//     MaxPodCreateDeletePerSync. A pass that deletes creates nothing.
//  7. Too few: when wantActive − active > 0,
//     and the failure back-off (rule 8) is not over, nothing is created
//     and RequeueAfter is the time left. Else that many pods are created
//     (at most MaxPodCreateDeletePerSync): an Indexed Job creates the
//     lowest indexes below completions that no active pod holds and no
//     pod succeeded in (firstPendingIndexes).
//  8. Back-off: the failures after the last success are the failed
//     pods (rule 2) that finished after the last Succeeded pod finished
//     (all of them when none succeeded). With n such failures the
//     back-off is PodFailureBackOff doubled n−1 times, at most
//     MaxPodFailureBackOff, counted from the last failure's finish; none
//     when n is 0. A pod finished at the latest finishedAt of its
//     containers' terminated states when every container has one; else
//     at its Ready condition's lastTransitionTime when that condition is
//     False; else at its deletionTimestamp minus its
//     deletionGracePeriodSeconds; else at its creationTimestamp
//     (getFinishedTime).
//  9. A pod to create is the template's metadata (labels, annotations,
//     finalizers) and spec, with generateName the Job's name + "-" and a
//     controller owner reference to the Job (apiVersion batch/v1, kind
//     Job, blockOwnerDeletion). A pod of an Indexed Job also has the
//     CompletionIndexAnnotation annotation and label, hostname
//     "NAME-INDEX", generateName "NAME-INDEX-", and, in every container
//     and init container that lacks it, the CompletionIndexEnv variable
//     from the field metadata.labels['batch.kubernetes.io/job-completion-index'].
//  10. Success: when no failure (rule 4) and, with completions set,
//     succeeded ≥ completions, or, without, succeeded > 0, and no pod is
//     active after this pass, the Job gets SuccessCriteriaMet True
//     CompletionsReached "Reached expected number of succeeded pods"
//     (once), and, when no pod is terminating either, Complete True with
//     the same reason and message, completionTime Now, and a Normal
//     Event Completed "Job completed". A Job with SuccessCriteriaMet
//     already creates no pod, deletes its active ones (rule 4's way), and
//     goes on to Complete the same way, whatever its counts.
//  11. InFlight: nothing is created or deleted, and the Job is neither
//     failed nor completed (no FailureTarget, Failed, SuccessCriteriaMet
//     or Complete added); the counts are written as they are.
//  12. A Job being deleted (deletionTimestamp set) creates and deletes
//     nothing; its status is still written.
//  13. Status: active, ready, terminating (as counts after this pass's
//     deletions and creations: a deleted pod is terminating, a created
//     one active), succeeded, failed, startTime, completionTime,
//     completedIndexes (Indexed only) and the conditions; a new
//     condition has lastProbeTime and lastTransitionTime Now, and is
//     appended after the others. Status is nil when it equals the
//     Job's.
//
// RequeueAfter is the least of rule 3's and rule 7's when both ask.
type PlanFunc func(in Input) Plan

// Cleanup is what the TTL controller does with a Job now.
type Cleanup struct {
	// Delete says that the Job's time to live is over: delete it.
	Delete bool `json:"delete,omitempty"`
	// After, when positive, is how long until it is over: look again
	// then.
	After time.Duration `json:"after,omitempty"`
}

// CleanupFunc is Cleanup's type. For a defaulted Job j and the time now,
// as upstream's ttlafterfinished controller:
//
//  1. A Job with no ttlSecondsAfterFinished, one not finished (no
//     Complete or Failed condition True), and one being deleted, gets the
//     zero Cleanup.
//  2. A finished Job finished at the lastTransitionTime of its Complete
//     or Failed condition; it expires ttlSecondsAfterFinished seconds
//     later. At or past that time Delete is true; before, After is the
//     time left.
//  3. A finished Job whose condition has no lastTransitionTime gets the
//     zero Cleanup (upstream reports an error and does not delete).
type CleanupFunc func(j api.Job, now time.Time) Cleanup

// DefaultWorkers is how many Jobs are synced at once when Options says 0:
// kube-controller-manager's --concurrent-job-syncs; the TTL controller
// has as many (--concurrent-ttl-after-finished-syncs).
const DefaultWorkers = 5

// Clock is the time the controller reads (the same two methods as
// informer.Clock and replicas.Clock).
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Options are what the controller is built from.
type Options struct {
	// Workers is how many Jobs each controller syncs at once;
	// DefaultWorkers when 0 or less.
	Workers int
	// Clock is the controllers' time; the system clock when nil.
	Clock Clock
}

// Controller is a running Job controller and TTL-after-finished
// controller. Its loop, as upstream's:
//
//  1. Informers on Jobs and pods in all namespaces. A Job added, updated
//     or deleted queues its key ("namespace/name") for the Job
//     controller; a pod added, updated or deleted queues the Job that
//     controls it (a controller owner reference of kind Job). A Job added
//     or updated that is finished, has ttlSecondsAfterFinished and is not
//     being deleted queues its key for the TTL controller.
//  2. A Job worker takes a key and reads the Job from the cache (gone:
//     its expectations are dropped, nothing to do, not an error),
//     defaults it (WithDefaults), and asks Plan with the pods of its
//     namespace that it controls, the clock's time and whether its
//     expectations are unmet (InFlight). It never changes a cached
//     object.
//  3. It carries the plan out in the order of its fields. Before the
//     deletions it expects that many pod deletions, before the creations
//     that many pod creations; the informer's pod deletions and
//     additions meet them, and a write that fails (or is not tried)
//     lowers them at once. Deletes: each pod deleted (gone is not a
//     failure). Creates: in batches of 1, 2, 4, ... (slow start), each
//     batch at once; after a batch with a failure, the pods not yet tried
//     are not. Each pod write records its Event (SuccessfulCreate,
//     FailedCreate, SuccessfulDelete, FailedDelete) as ControllerName.
//  4. When every delete and create succeeded, the status is written
//     with UpdateStatus, then the plan's Events are recorded; when one
//     failed, the status is not written and the sync fails (upstream
//     writes the status it has, then fails; the kata's next sync counts
//     again from the pods).
//  5. A failed sync puts the key back with the queue's per-item
//     back-off, 1s doubling to a minute (DefaultJobApiBackOff,
//     MaxJobApiBackOff; the TTL queue has the controllers' default
//     limiter); a sync that succeeds forgets it and, if the plan asks,
//     queues it again after RequeueAfter on the clock.
//  6. A TTL worker takes a key, reads the Job from the cache (gone:
//     nothing to do), defaults it and asks Cleanup with the clock's time:
//     After queues the key again after that long; Delete reads the Job
//     afresh from the apiserver, asks Cleanup again with the fresh Job
//     (its ttl may have changed): After queues the key again after that
//     long; Delete deletes the Job with propagationPolicy Foreground and
//     the Job's uid as a precondition (gone is not a failure), so that
//     its pods go first.
//  7. Workers workers for each controller; Run starts them once every
//     informer has synced, and returns, every goroutine ended, when its
//     context ends.
type Controller interface {
	// Run runs the Jobs and cleans them up until ctx ends, then returns
	// once every goroutine it started has ended. It returns an error only
	// when it cannot start.
	Run(ctx context.Context) error
}
