// Package rollout is the contract of exercise 09 (deployment): the
// Deployment controller of kube-controller-manager, which rolls a pod
// template out through ReplicaSets (upstream's pkg/controller/deployment
// and its util/deployment_util.go).
//
// An implementation has two pure functions and a loop:
//
//  1. Bounds resolves a Deployment's maxSurge and maxUnavailable to pod
//     counts (upstream's MaxSurge, MaxUnavailable and ResolveFenceposts).
//  2. Plan says what one sync of a Deployment writes, given the
//     Deployment, the ReplicaSets it controls, their pods and the time:
//     the new ReplicaSet to create, the ReplicaSets to update (scaled, or
//     their annotations synced), the old ones to delete, the Deployment's
//     revision and status, the Events, and when to look again (upstream's
//     syncDeployment, with sync.go, rolling.go, recreate.go and
//     progress.go).
//  3. New returns the loop: informers on Deployments, ReplicaSets and
//     pods, a work queue of Deployment keys, and workers that claim a
//     Deployment's ReplicaSets, ask Plan, and carry the plan out through
//     the API.
//
// The pure functions take plain data, so that they cross a process
// boundary as JSON (DESIGN.md rule 9); the loop takes a client.
//
// Two things upstream does elsewhere are given here: the defaults the
// apiserver applies to a Deployment (WithDefaults; the kata's apiserver
// stores a Deployment as it is sent), and the pod-template-hash
// (TemplateHash; upstream's controller.ComputeHash).
package rollout

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// Annotations and defaults, as upstream's (pkg/controller/deployment/util/
// deployment_util.go; pkg/apis/apps/v1/defaults.go).
const (
	// DefaultMaxSurge and DefaultMaxUnavailable are a RollingUpdate
	// Deployment's bounds when it gives none.
	DefaultMaxSurge       = "25%"
	DefaultMaxUnavailable = "25%"
	// DefaultRevisionHistoryLimit is how many old ReplicaSets a
	// Deployment keeps when it does not say.
	DefaultRevisionHistoryLimit int32 = 10
	// DefaultProgressDeadlineSeconds is how long a rollout may make no
	// progress before the Deployment reports ProgressDeadlineExceeded.
	DefaultProgressDeadlineSeconds int32 = 600
	// MaxRevisionHistoryChars is the longest the revision-history
	// annotation may grow (kube-controller-manager's
	// maxRevHistoryLengthInChars, 2000).
	MaxRevisionHistoryChars = 2000
	// LastAppliedConfigAnnotation is kubectl apply's annotation; it is not
	// copied from a Deployment to its ReplicaSets.
	LastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
	// RollbackToAnnotation is the deprecated rollback request; it is not
	// copied to ReplicaSets (the kata does not act on it: `kubectl rollout
	// undo` writes the old template into the Deployment instead).
	RollbackToAnnotation = "deprecated.deployment.rollback.to"
	// RestartedAtAnnotation is what `kubectl rollout restart` sets on the
	// pod template: a new template, so a new ReplicaSet.
	RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"
)

// The Deployment's revision annotations and condition reasons are in
// harness/api (apps.go): api.RevisionAnnotation, api.RevisionHistoryAnnotation,
// api.DesiredReplicasAnnotation, api.MaxReplicasAnnotation,
// api.NewReplicaSetReason, api.TimedOutReason, and so on.

// The reasons of the controller's Events, upstream's, each on the
// Deployment.
const (
	// ScalingReplicaSet, Normal: "Scaled up replica set web-5d4f8 from 0
	// to 3" or "Scaled down replica set web-7c9b6 from 3 to 2".
	ScalingReplicaSet = "ScalingReplicaSet"
	// FailedRSCreate is api.FailedRSCreateReason, Warning: "Failed to
	// create new replica set \"web-5d4f8\": ERROR".
	FailedRSCreate = api.FailedRSCreateReason
)

// WithDefaults returns a copy of d with the defaults the apiserver gives a
// Deployment upstream (SetDefaults_Deployment): replicas 1, strategy
// RollingUpdate with maxSurge and maxUnavailable 25% each (a Recreate
// Deployment gets no rollingUpdate), revisionHistoryLimit 10,
// progressDeadlineSeconds 600. What d sets is kept. The loop calls it on
// every Deployment it reads before Plan sees it; Bounds and Plan are
// given defaulted Deployments.
func WithDefaults(d api.Deployment) api.Deployment {
	out := *api.DeepCopy(&d)
	s := &out.Spec
	if s.Replicas == nil {
		one := int32(1)
		s.Replicas = &one
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = api.RollingUpdateDeploymentStrategyType
	}
	if s.Strategy.Type == api.RollingUpdateDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &api.RollingUpdateDeployment{}
		}
		if s.Strategy.RollingUpdate.MaxUnavailable == nil {
			v := api.FromString(DefaultMaxUnavailable)
			s.Strategy.RollingUpdate.MaxUnavailable = &v
		}
		if s.Strategy.RollingUpdate.MaxSurge == nil {
			v := api.FromString(DefaultMaxSurge)
			s.Strategy.RollingUpdate.MaxSurge = &v
		}
	}
	if s.RevisionHistoryLimit == nil {
		v := DefaultRevisionHistoryLimit
		s.RevisionHistoryLimit = &v
	}
	if s.ProgressDeadlineSeconds == nil {
		v := DefaultProgressDeadlineSeconds
		s.ProgressDeadlineSeconds = &v
	}
	return out
}

// safeAlphabet is upstream's alphabet for names made from numbers, with no
// vowels so that no word is spelled by accident (k8s.io/apimachinery/pkg/
// util/rand, SafeEncodeString).
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// TemplateHash is the pod-template-hash of a pod template: the value of
// the pod-template-hash label and the suffix of the new ReplicaSet's name
// ("web-" + TemplateHash(...)). As upstream's controller.ComputeHash, it is
// FNV-32a over the template, then over collisionCount's four bytes (little
// endian, in a buffer of eight) when it is not nil, written in decimal and
// mapped digit by digit onto the alphabet "bcdfghjklmnpqrstvwxz2456789".
// Upstream hashes a dump of its Go struct; the kata hashes the template's
// JSON, so the same template hashes differently here and in a real
// cluster.
func TemplateHash(template api.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	data, err := json.Marshal(template)
	if err != nil {
		// A PodTemplateSpec is plain data; Marshal fails only on a
		// broken type, which no input can cause.
		panic(fmt.Sprintf("rollout: TemplateHash: %v", err))
	}
	h.Write(data)
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	digits := fmt.Sprint(h.Sum32())
	out := make([]byte, len(digits))
	for i := 0; i < len(digits); i++ {
		out[i] = safeAlphabet[int(digits[i])%len(safeAlphabet)]
	}
	return string(out)
}

// Bounds are a Deployment's rolling-update bounds as pod counts.
type Bounds struct {
	// MaxSurge is how many pods above spec.replicas may exist during a
	// rollout.
	MaxSurge int32 `json:"maxSurge"`
	// MaxUnavailable is how many pods below spec.replicas may be
	// unavailable during a rollout.
	MaxUnavailable int32 `json:"maxUnavailable"`
}

// BoundsFunc is Bounds' type. For a defaulted Deployment d (WithDefaults),
// as upstream's MaxSurge and MaxUnavailable:
//
//  1. A Recreate Deployment has no bounds: {0, 0}.
//  2. A number is taken as it is; a percentage of spec.replicas is
//     rounded up for maxSurge and down for maxUnavailable ("25%" of 10 is
//     surge 3, unavailable 2).
//  3. When both come to 0, maxUnavailable is 1, so that the rollout can
//     move.
//  4. maxUnavailable is at most spec.replicas, and 0 when spec.replicas
//     is 0.
//
// A value that is neither a number nor a percentage makes both bounds 0,
// and rule 3 does not apply (upstream's ResolveFenceposts fails, and
// MaxSurge and MaxUnavailable then return 0).
type BoundsFunc func(d api.Deployment) Bounds

// Input is what Plan is given.
type Input struct {
	// Deployment is the Deployment as the controller's cache has it,
	// defaulted (WithDefaults).
	Deployment api.Deployment `json:"deployment"`
	// ReplicaSets are the ReplicaSets the Deployment controls once the
	// loop has claimed them (adopted the orphans that match, released
	// those that no longer do), in no particular order.
	ReplicaSets []api.ReplicaSet `json:"replicaSets"`
	// Pods are the pods those ReplicaSets control, in no particular
	// order. Only the Recreate strategy looks at them.
	Pods []api.Pod `json:"pods"`
	// Now is the time of this sync: conditions are stamped with it and
	// the progress deadline is measured to it.
	Now time.Time `json:"now"`
}

// Event is an Event Plan asks the loop to record on the Deployment.
type Event struct {
	// Type is "Normal" or "Warning".
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Plan is what one sync writes, in the order of the fields. The zero Plan
// writes nothing.
type Plan struct {
	// Create is the new ReplicaSet to create, nil for none.
	Create *api.ReplicaSet `json:"create,omitempty"`
	// Update are ReplicaSets of Input, changed, to write back in this
	// order (each a whole object with the resourceVersion it was read
	// with): scaled (spec.replicas and the desired-replicas and
	// max-replicas annotations) or with their annotations and
	// minReadySeconds synced to the Deployment.
	Update []api.ReplicaSet `json:"update,omitempty"`
	// Delete are the names of old ReplicaSets to delete (history beyond
	// revisionHistoryLimit), the lowest revision first.
	Delete []string `json:"delete,omitempty"`
	// Revision is the Deployment's new revision annotation, "" when it
	// does not change.
	Revision string `json:"revision,omitempty"`
	// Status is the Deployment's new status, nil when it does not change.
	// The loop writes Revision and Status together, through the status
	// subresource, as upstream does.
	Status *api.DeploymentStatus `json:"status,omitempty"`
	// Events are the Events to record on the Deployment, in order.
	Events []Event `json:"events,omitempty"`
	// RequeueAfter, when positive, asks the loop to sync the Deployment
	// again after this long (to see its progress deadline pass).
	RequeueAfter time.Duration `json:"requeueAfter,omitempty"`
}

// IsZero reports whether p writes nothing and asks for no requeue.
func (p Plan) IsZero() bool {
	return p.Create == nil && len(p.Update) == 0 && len(p.Delete) == 0 && p.Revision == "" &&
		p.Status == nil && len(p.Events) == 0 && p.RequeueAfter <= 0
}

// PlanFunc is Plan's type. Plan changes nothing it is given, and returns
// the writes that one pass of upstream's syncDeployment makes, every
// write assumed to succeed. Its rules, each upstream's:
//
//  1. The new ReplicaSet is the oldest of Input.ReplicaSets (by
//     creationTimestamp, then name) whose pod template equals the
//     Deployment's once both lose their pod-template-hash label; the
//     others are the old ones. Revisions are the ReplicaSets' revision
//     annotations as numbers (a missing or bad one is 0); the new
//     revision is the old ones' highest plus one.
//  2. An existing new ReplicaSet gets the Deployment's annotations
//     (except kubectl's last-applied-configuration, the revision,
//     revision-history, desired-replicas, max-replicas and rollback-to
//     annotations), the new revision when its own is lower (its old
//     revision, if it had one, appended to its revision-history,
//     comma-separated, dropping the oldest entries to stay within
//     MaxRevisionHistoryChars) and the Deployment's minReadySeconds; when
//     any of these changed it is in Update. Otherwise the Deployment's
//     Revision becomes the new ReplicaSet's revision, and a Deployment
//     with no Progressing condition gets Progressing True
//     FoundNewReplicaSet `Found new replica set "NAME"`.
//  3. A Deployment being deleted (deletionTimestamp set) gets rules 1, 2
//     and its status only (rule 11 without rule 12).
//  4. Pausing: a paused Deployment whose Progressing condition is not
//     DeploymentPaused gets Progressing Unknown DeploymentPaused
//     "Deployment is paused"; an unpaused one whose condition is
//     DeploymentPaused gets Progressing Unknown DeploymentResumed
//     "Deployment is resumed". Neither replaces ProgressDeadlineExceeded.
//  5. A paused Deployment, and one with an active ReplicaSet (spec.replicas
//     above 0) whose desired-replicas annotation differs from
//     spec.replicas (a scaling event), is scaled (rule 6), then a paused
//     one has its history cleaned (rule 10), then its status is written
//     (rule 11 without rule 12). It creates no ReplicaSet.
//  6. Scaling: when one ReplicaSet is active (or none is: the new one, or
//     else the newest old one), it gets spec.replicas. Else, when the new
//     ReplicaSet is saturated (its spec.replicas, desired-replicas
//     annotation and available replicas all equal the Deployment's
//     spec.replicas), every active old one goes to 0. Else a
//     RollingUpdate Deployment shares the difference between
//     spec.replicas + maxSurge (0 when spec.replicas is 0) and the active
//     ReplicaSets' total among them in proportion to their size, as
//     upstream's GetProportion (each ReplicaSet's new size is its size
//     × (spec.replicas + maxSurge) / its max-replicas annotation, rounded
//     half away from zero, never past what is left to add or remove), the
//     largest first (on a tie the newer first when adding, the older
//     first when removing), the rest of the difference to the first.
//  7. RollingUpdate: the new ReplicaSet is created when there is none
//     (name Deployment name + "-" + TemplateHash(template,
//     status.collisionCount); the template, labels and selector with the
//     pod-template-hash label; a controller owner reference to the
//     Deployment with blockOwnerDeletion; minReadySeconds; the
//     annotations of rule 2 with the new revision, and desired-replicas
//     and max-replicas), with the replicas rule 8 allows; then the
//     Deployment's Revision is the new revision and its Progressing
//     condition True NewReplicaSetCreated `Created new replica set
//     "NAME"`.
//  8. Scale up: a new ReplicaSet above spec.replicas is scaled down to
//     it; below, it is scaled up to at most spec.replicas + maxSurge pods
//     in all the ReplicaSets (by spec.replicas), never above
//     spec.replicas. A pass that scales the new ReplicaSet stops there
//     (status, rule 11).
//  9. Scale down: the old ReplicaSets may lose at most all pods −
//     (spec.replicas − maxUnavailable) − the new ReplicaSet's unavailable
//     pods (its spec.replicas − available). First the unavailable pods of
//     the old ReplicaSets go (oldest ReplicaSet first), then, as long as
//     the available pods of all ReplicaSets exceed spec.replicas −
//     maxUnavailable, the old ReplicaSets shrink oldest first. A pass
//     that scales an old ReplicaSet stops there (status, rule 11).
//  10. History: when the rollout is complete (the Deployment's status as
//     given says so; in rule 5's pass of a paused Deployment, whatever
//     the rollout's state), the old ReplicaSets not being deleted beyond
//     revisionHistoryLimit are deleted, lowest revision first, skipping
//     any with replicas in its spec or status or a generation its
//     controller has not observed.
//  11. Status: replicas, readyReplicas and availableReplicas summed over
//     the ReplicaSets' status, updatedReplicas the new one's,
//     unavailableReplicas the spec total minus available (never below
//     0), observedGeneration the Deployment's generation; Available True
//     MinimumReplicasAvailable "Deployment has minimum availability." when
//     availableReplicas ≥ spec.replicas − maxUnavailable, else False
//     MinimumReplicasUnavailable "Deployment does not have minimum
//     availability."; a condition whose status and reason stay keeps its
//     times, one whose status stays keeps its lastTransitionTime.
//  12. Progress: complete (updated, total and available all equal
//     spec.replicas, generation observed) gives Progressing True
//     NewReplicaSetAvailable `ReplicaSet "NAME" has successfully
//     progressed.`; any progress since the status as given (more updated,
//     ready or available, fewer old) gives True ReplicaSetUpdated
//     `ReplicaSet "NAME" is progressing.` with a new lastUpdateTime;
//     no progress for progressDeadlineSeconds since the condition's
//     lastUpdateTime gives False ProgressDeadlineExceeded `ReplicaSet
//     "NAME" has timed out progressing.`. A rollout already complete
//     (its condition NewReplicaSetAvailable and every pod updated), and
//     a paused one, is not checked. When the status does not change and
//     the Deployment has a Progressing condition that is neither
//     complete nor timed out, RequeueAfter is the time left until the
//     deadline plus a second (upstream's requeueStuckDeployment; a
//     second when less than a second is left, where upstream requeues
//     with back-off).
//  13. Recreate: every active old ReplicaSet is scaled to 0 first (that
//     pass stops there); while an old ReplicaSet still reports replicas
//     in its status, or an old pod is not Succeeded or Failed, nothing
//     more happens; then the new ReplicaSet is created (rule 7) or
//     scaled to spec.replicas.
//
// Upstream also does these, and so does the reference, but no step
// checks them: a progressDeadlineSeconds of math.MaxInt32 means no
// deadline (no Progressing condition at all), a revisionHistoryLimit of
// math.MaxInt32 keeps every old ReplicaSet, a ReplicaSet's ReplicaFailure
// condition is copied onto the Deployment, and a Deployment whose
// selector is empty gets a Warning Event SelectingAll and its
// observedGeneration only.
//
// A ReplicaSet written twice in one pass (its annotations synced, then
// scaled) is in Update once, with both changes. Every scale (a
// ReplicaSet in Update whose spec.replicas changed, or a
// created one with replicas above 0) comes with a ScalingReplicaSet Event
// "Scaled up replica set NAME from A to B" or "Scaled down ...". Status
// is nil when it equals the Deployment's, and times are Input.Now.
type PlanFunc func(in Input) Plan

// DefaultWorkers is how many Deployments are synced at once when Options
// says 0: kube-controller-manager's --concurrent-deployment-syncs.
const DefaultWorkers = 5

// ControllerName is the component the controller's Events come from, as
// upstream's ("deployment-controller").
const ControllerName = "deployment-controller"

// Clock is the time the controller reads (the same two methods as
// informer.Clock and replicas.Clock).
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Options are what the controller is built from.
type Options struct {
	// Workers is how many Deployments are synced at once; DefaultWorkers
	// when 0 or less.
	Workers int
	// Clock is the controller's time; the system clock when nil.
	Clock Clock
}

// Controller is a running Deployment controller. Its loop, as upstream's
// DeploymentController:
//
//  1. Informers on Deployments, ReplicaSets and pods in all namespaces.
//     A Deployment added, updated or deleted queues its key
//     ("namespace/name"); a ReplicaSet added, updated or deleted queues
//     the Deployment that controls it, or, for an orphan, every
//     Deployment whose selector matches its labels; a pod deleted queues
//     the Deployment that controls its ReplicaSet (Recreate waits for
//     old pods to go).
//  2. A worker takes a key, reads the Deployment from the cache (gone:
//     nothing to do, not an error) and defaults it (WithDefaults).
//  3. It claims the ReplicaSets of the Deployment's namespace as
//     upstream's ClaimReplicaSets: a ReplicaSet it controls whose labels
//     no longer match the selector is released (its owner reference
//     removed); an orphan whose labels match is adopted (a controller
//     owner reference added) unless the Deployment is being deleted;
//     both after a fresh read that shows the Deployment's uid unchanged.
//  4. It asks Plan with the claimed ReplicaSets, their pods and the
//     clock's time, and carries the plan out in the order of its fields:
//     Create, each Update, each Delete (with the ReplicaSet's uid as a
//     precondition; gone is not a failure), Revision and Status in one
//     UpdateStatus. The Events go through an events.Recorder as
//     ControllerName once Create and every Update succeeded, even when
//     a later write fails (upstream records each right after its
//     write); a Create that meets the Deployment's own ReplicaSet
//     (rule 5) announces no scale of it.
//  5. A Create refused with AlreadyExists by a ReplicaSet that the
//     Deployment does not control, or whose template differs (a hash
//     collision), raises status.collisionCount by one (UpdateStatus) and
//     fails the sync, so that the next pass hashes differently; one the
//     Deployment controls with the same template is its own, not a
//     failure. Another failure to create records a FailedRSCreate Event
//     and sets Progressing False ReplicaSetCreateError with the same
//     message, as upstream's getNewReplicaSet.
//  6. A failed sync puts the key back with the queue's per-item back-off;
//     a sync that succeeds forgets it and, if the plan asks, queues it
//     again after RequeueAfter.
//  7. Workers workers; Run starts them once every informer has synced,
//     and returns, every goroutine ended, when its context ends.
type Controller interface {
	// Run rolls the Deployments out until ctx ends, then returns once
	// every goroutine it started has ended. It returns an error only when
	// it cannot start.
	Run(ctx context.Context) error
}
