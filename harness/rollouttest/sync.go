package rollouttest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 06-10: Plan outside the plain rollout, upstream's syncDeployment
// (pkg/controller/deployment/deployment_controller.go) with sync.go
// (sync, scale, scaleReplicaSet, getNewReplicaSet, cleanupDeployment,
// calculateStatus, checkPausedConditions, isScalingEvent), progress.go
// (syncRolloutStatus, requeueStuckDeployment) and util/deployment_util.go
// (FindActiveOrLatest, IsSaturated, GetProportion, getReplicaSetFraction,
// SetNewReplicaSetAnnotations, SetDeploymentCondition,
// DeploymentComplete, DeploymentProgressing, DeploymentTimedOut,
// ReplicaSetsByRevision), read at Kubernetes 1.28 (apps/v1). Each want
// was worked out by hand from that code; each case names its rule of
// rollout.PlanFunc and the upstream function that holds it, and the cases
// where an earlier rule overrides a later one that also holds say so
// (DESIGN.md rule 11):
//
//	06-proportional  rules 5 and 6 (5 over 7 and 8: a scaling event or a pause creates no ReplicaSet)
//	07-status        rule 11, and rule 3 (over 7's create, 8's scaling, 10 and 12)
//	08-progress      rules 4 and 12
//	09-rollback      rules 1 and 2 when the template goes back to an old ReplicaSet's; a restart is a new template (rule 7)
//	10-history       rule 10, and 5 over 10's "complete" for a paused Deployment
//
// Each case compares only the parts of the plan its step is about (the
// writes, the revision, the status or a part of it, the requeue), so that
// a bug in one rule fails the steps of that rule. The ReplicaSets in
// Update and the Events are compared in no order: the rules say what is
// written, the order of the writes is upstream's accident. Conditions are
// compared by type, in no order (upstream's SetDeploymentCondition moves
// a changed condition to the end).

// Images of a Deployment's successive templates.
const (
	syncImg1 = "nginx:1.25"
	syncImg2 = "nginx:1.26"
	syncImg3 = "nginx:1.27"
	syncImg4 = "nginx:1.28"
	syncImg5 = "nginx:1.29"
	syncImg6 = "nginx:1.30"
)

// syncParts are the parts of a plan a case compares.
type syncParts uint8

const (
	// syncWrites: Create, Update, Delete and Events.
	syncWrites syncParts = 1 << iota
	// syncRevision: Plan.Revision.
	syncRevision
	// syncStatus: the whole status (nil when unchanged).
	syncStatus
	// syncCountsPart: the status' counts, observedGeneration, collisionCount
	// and Available condition (rule 11 without rule 12's Progressing).
	syncCountsPart
	// syncRequeue: Plan.RequeueAfter.
	syncRequeue
)

// syncRS is a ReplicaSet a case wants in Plan.Update: its spec.replicas
// and all its annotations.
type syncRS struct {
	name        string
	replicas    int32
	annotations map[string]string
}

// syncCreate is the ReplicaSet a case wants in Plan.Create.
type syncCreate struct {
	name     string
	replicas int32
	revision string
}

// syncWant is what a case wants of the parts it compares.
type syncWant struct {
	create   *syncCreate
	update   []syncRS
	delete   []string
	events   []rollout.Event
	revision string
	// status is the whole status for syncStatus (nil: unchanged), the
	// status to take the counts and Available from for syncCountsPart.
	status  *api.DeploymentStatus
	requeue time.Duration
}

// syncCase is one call of Plan: the rule that decides it, the upstream
// function that holds the rule, why, the input, the parts compared and
// what they should be.
type syncCase struct {
	rule     string
	upstream string
	why      string
	in       rollout.Input
	check    syncParts
	want     syncWant
}

// Upstream functions the cases name.
const (
	syncUpScale      = "scale, sync.go"
	syncUpScaleEvent = "syncDeployment, deployment_controller.go; isScalingEvent and scale, sync.go"
	syncUpActive     = "scale, sync.go; FindActiveOrLatest, util/deployment_util.go"
	syncUpSaturated  = "scale, sync.go; IsSaturated, util/deployment_util.go"
	syncUpProportion = "scale and scaleReplicaSet, sync.go; GetProportion and getReplicaSetFraction, util/deployment_util.go; ReplicaSetsBySizeNewer/Older, controller_utils.go"
	syncUpStatus     = "calculateStatus, sync.go; SetDeploymentCondition, util/deployment_util.go"
	syncUpStatusOnly = "syncDeployment, deployment_controller.go; syncStatusOnly, sync.go"
	syncUpProgress   = "syncRolloutStatus, progress.go; DeploymentComplete, DeploymentProgressing and DeploymentTimedOut, util/deployment_util.go"
	syncUpRequeue    = "syncRolloutStatus and requeueStuckDeployment, progress.go; DeploymentTimedOut, util/deployment_util.go"
	syncUpPaused     = "checkPausedConditions and sync, sync.go"
	syncUpNewRS      = "getNewReplicaSet, sync.go; FindNewReplicaSet, MaxRevision and SetNewReplicaSetAnnotations, util/deployment_util.go"
	syncUpCleanup    = "cleanupDeployment, sync.go; ReplicaSetsByRevision, util/deployment_util.go"
)

// ---------------------------------------------------------------- builders

// syncScaledTo is d with spec.replicas n: a scaling event when d's
// ReplicaSets were made for another size.
func syncScaledTo(d api.Deployment, n int32) api.Deployment {
	d.Spec.Replicas = int32p(n)
	return d
}

// syncPaused is d paused.
func syncPaused(d api.Deployment) api.Deployment {
	d.Spec.Paused = true
	return d
}

// syncTemplate is d with the template of image: a new pod template.
func syncTemplate(d api.Deployment, image string) api.Deployment {
	d.Spec.Template = templateFor(d.Name, image)
	return d
}

// syncAnnotated is d with annotations key, value, ... added.
func syncAnnotated(d api.Deployment, kv ...string) api.Deployment {
	ann := make(map[string]string, len(d.Annotations)+len(kv)/2)
	for k, v := range d.Annotations {
		ann[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		ann[kv[i]] = kv[i+1]
	}
	d.Annotations = ann
	return d
}

// syncRevisioned is d with its revision annotation rev.
func syncRevisioned(d api.Deployment, rev string) api.Deployment {
	return syncAnnotated(d, api.RevisionAnnotation, rev)
}

// syncWithStatus is d with status s.
func syncWithStatus(d api.Deployment, s api.DeploymentStatus) api.Deployment {
	d.Status = s
	return d
}

// syncRSAnnotated is rs with annotations key, value, ... set ("" removes
// the key).
func syncRSAnnotated(rs api.ReplicaSet, kv ...string) api.ReplicaSet {
	rs.Annotations = syncAnnotations(rs.Annotations, kv...)
	return rs
}

// syncAnnotations is a copy of ann with key, value, ... set ("" removes
// the key).
func syncAnnotations(ann map[string]string, kv ...string) map[string]string {
	out := make(map[string]string, len(ann)+len(kv)/2)
	for k, v := range ann {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

// syncRenamed is rs named name (uid "uid-<name>").
func syncRenamed(rs api.ReplicaSet, name string) api.ReplicaSet {
	rs.Name = name
	rs.UID = api.UID("uid-" + name)
	return rs
}

// syncUpd is rs in Plan.Update with spec.replicas n and its annotations
// with key, value, ... set ("" removes the key).
func syncUpd(rs api.ReplicaSet, n int32, kv ...string) syncRS {
	return syncRS{name: rs.Name, replicas: n, annotations: syncAnnotations(rs.Annotations, kv...)}
}

// syncScaled is rs in Plan.Update scaled to n, with the desired-replicas
// and max-replicas annotations desired and max (scaleReplicaSet,
// sync.go; SetReplicasAnnotations, util/deployment_util.go).
func syncScaled(rs api.ReplicaSet, n, desired, max int32) syncRS {
	return syncUpd(rs, n, api.DesiredReplicasAnnotation, strconv.Itoa(int(desired)), api.MaxReplicasAnnotation, strconv.Itoa(int(max)))
}

// syncEvent is the ScalingReplicaSet Event of a scale of rs from one size
// to another, as rollout.PlanFunc words it ("Scaled up replica set NAME
// from A to B"; upstream's scaleReplicaSet, sync.go, says "Scaled up
// replica set NAME to B from A" at 1.28).
func syncEvent(rs api.ReplicaSet, from, to int32) rollout.Event {
	dir := "up"
	if to < from {
		dir = "down"
	}
	return rollout.Event{Type: "Normal", Reason: rollout.ScalingReplicaSet,
		Message: fmt.Sprintf("Scaled %s replica set %s from %d to %d", dir, rs.Name, from, to)}
}

// syncEvents is a list of Events.
func syncEvents(es ...rollout.Event) []rollout.Event { return es }

// syncCond is a Deployment condition updated at updated, transitioned at
// transition.
func syncCond(typ api.DeploymentConditionType, status api.ConditionStatus, reason, message string, updated, transition time.Time) api.DeploymentCondition {
	return api.DeploymentCondition{Type: typ, Status: status, Reason: reason, Message: message,
		LastUpdateTime: api.NewTime(updated), LastTransitionTime: api.NewTime(transition)}
}

// The Available conditions of calculateStatus (sync.go).
func syncAvailable(updated, transition time.Time) api.DeploymentCondition {
	return syncCond(api.DeploymentAvailable, api.ConditionTrue, api.MinimumReplicasAvailable, "Deployment has minimum availability.", updated, transition)
}

func syncUnavailable(updated, transition time.Time) api.DeploymentCondition {
	return syncCond(api.DeploymentAvailable, api.ConditionFalse, api.MinimumReplicasUnavailable, "Deployment does not have minimum availability.", updated, transition)
}

// The Progressing conditions of progress.go, sync.go and
// checkPausedConditions, for the new ReplicaSet rs.
func syncProgressing(rs api.ReplicaSet, updated, transition time.Time) api.DeploymentCondition {
	return syncCond(api.DeploymentProgressing, api.ConditionTrue, api.ReplicaSetUpdatedReason, fmt.Sprintf("ReplicaSet %q is progressing.", rs.Name), updated, transition)
}

func syncComplete(rs api.ReplicaSet, updated, transition time.Time) api.DeploymentCondition {
	return syncCond(api.DeploymentProgressing, api.ConditionTrue, api.NewRSAvailableReason, fmt.Sprintf("ReplicaSet %q has successfully progressed.", rs.Name), updated, transition)
}

func syncTimedOut(rs api.ReplicaSet, updated, transition time.Time) api.DeploymentCondition {
	return syncCond(api.DeploymentProgressing, api.ConditionFalse, api.TimedOutReason, fmt.Sprintf("ReplicaSet %q has timed out progressing.", rs.Name), updated, transition)
}

func syncCreated(rs api.ReplicaSet, updated, transition time.Time) api.DeploymentCondition {
	return syncCond(api.DeploymentProgressing, api.ConditionTrue, api.NewReplicaSetReason, fmt.Sprintf("Created new replica set %q", rs.Name), updated, transition)
}

func syncPausedCond(updated, transition time.Time) api.DeploymentCondition {
	return syncCond(api.DeploymentProgressing, api.ConditionUnknown, api.PausedDeployReason, "Deployment is paused", updated, transition)
}

func syncResumedCond(updated, transition time.Time) api.DeploymentCondition {
	return syncCond(api.DeploymentProgressing, api.ConditionUnknown, api.ResumedDeployReason, "Deployment is resumed", updated, transition)
}

// syncCounts is a status with the counts observedGeneration, replicas,
// updated, ready, available, unavailable and conditions.
func syncCounts(gen int64, replicas, updated, ready, available, unavailable int32, conds ...api.DeploymentCondition) api.DeploymentStatus {
	return api.DeploymentStatus{
		ObservedGeneration: gen, Replicas: replicas, UpdatedReplicas: updated, ReadyReplicas: ready,
		AvailableReplicas: available, UnavailableReplicas: unavailable, Conditions: conds,
	}
}

// syncStatusP is a pointer to s.
func syncStatusP(s api.DeploymentStatus) *api.DeploymentStatus { return &s }

// syncInput is the input of a case.
func syncInput(d api.Deployment, now time.Time, rss ...api.ReplicaSet) rollout.Input {
	return rollout.Input{Deployment: d, ReplicaSets: rss, Now: now}
}

// ---------------------------------------------------------------- runner

func runSyncCases(t *suite.T, impl Impl, cases []syncCase) {
	t.Helper()
	need(t, "Plan", impl.Plan)
	for _, c := range cases {
		p := callPlan(t, impl, c.in)
		fail := func(got, want string) {
			t.Helper()
			t.Errorf("Plan(%s) = %s; got %s, want %s: rule %s (%s): %s", syncDescribeInput(c.in), describePlan(p), got, want, c.rule, c.upstream, c.why)
		}
		if c.check&syncWrites != 0 {
			if g, w := syncDescribeCreate(p.Create), syncDescribeWantCreate(c.want.create); g != w {
				fail("create "+g, "create "+w)
			}
			if g, w := syncDescribeUpdates(p.Update), syncDescribeWantUpdates(c.want.update); g != w {
				fail("update "+g, "update "+w)
			}
			if g, w := syncList(p.Delete), syncList(c.want.delete); g != w {
				fail("delete "+g, "delete "+w+" (in this order)")
			}
			if g, w := syncDescribeEvents(p.Events), syncDescribeEvents(c.want.events); g != w {
				fail("events "+g, "events "+w)
			}
		}
		if c.check&syncRevision != 0 && p.Revision != c.want.revision {
			fail(fmt.Sprintf("revision %q", p.Revision), fmt.Sprintf("revision %q", c.want.revision))
		}
		if c.check&syncStatus != 0 {
			if g, w := syncDescribeStatus(p.Status), syncDescribeStatus(c.want.status); g != w {
				fail("status "+g, "status "+w)
			}
		}
		if c.check&syncCountsPart != 0 {
			got := c.in.Deployment.Status
			if p.Status != nil {
				got = *p.Status
			}
			if g, w := syncDescribeCounts(got), syncDescribeCounts(*c.want.status); g != w {
				fail("status "+g, "status "+w)
			}
		}
		if c.check&syncRequeue != 0 && p.RequeueAfter != c.want.requeue {
			fail("requeueAfter "+p.RequeueAfter.String(), "requeueAfter "+c.want.requeue.String())
		}
	}
}

// syncList prints names in order.
func syncList(names []string) string {
	return "[" + strings.Join(names, " ") + "]"
}

func syncDescribeCreate(rs *api.ReplicaSet) string {
	if rs == nil {
		return "none"
	}
	return fmt.Sprintf("%s (replicas %s, revision %q)", rs.Name, replicasOf(rs.Spec.Replicas), rs.Annotations[api.RevisionAnnotation])
}

func syncDescribeWantCreate(c *syncCreate) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%s (replicas %d, revision %q)", c.name, c.replicas, c.revision)
}

// syncDescribeUpdates prints ReplicaSets by name: spec.replicas and every
// annotation.
func syncDescribeUpdates(rss []api.ReplicaSet) string {
	var ws []syncRS
	for _, rs := range rss {
		n := int32(-1)
		if rs.Spec.Replicas != nil {
			n = *rs.Spec.Replicas
		}
		ws = append(ws, syncRS{name: rs.Name, replicas: n, annotations: rs.Annotations})
	}
	return syncDescribeWantUpdates(ws)
}

func syncDescribeWantUpdates(ws []syncRS) string {
	var parts []string
	for _, w := range ws {
		parts = append(parts, fmt.Sprintf("%s replicas %d %s", w.name, w.replicas, syncDescribeAnnotations(w.annotations, nil)))
	}
	slices.Sort(parts)
	return "[" + strings.Join(parts, "; ") + "]"
}

// syncDescribeAnnotations prints annotations sorted by key, the keys in
// only (all when nil), long values cut short.
func syncDescribeAnnotations(ann map[string]string, only []string) string {
	var parts []string
	for k, v := range ann {
		if only != nil && !slices.Contains(only, k) {
			continue
		}
		if len(v) > 48 {
			v = fmt.Sprintf("%s...%s (%d chars)", v[:16], v[len(v)-16:], len(v))
		}
		parts = append(parts, fmt.Sprintf("%s=%q", strings.TrimPrefix(k, "deployment.kubernetes.io/"), v))
	}
	slices.Sort(parts)
	return "{" + strings.Join(parts, " ") + "}"
}

func syncDescribeEvents(es []rollout.Event) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, fmt.Sprintf("%s %s %q", e.Type, e.Reason, e.Message))
	}
	slices.Sort(parts)
	return "[" + strings.Join(parts, ", ") + "]"
}

// syncDescribeStatus prints a status with its conditions sorted by type;
// nil is "unchanged (nil)".
func syncDescribeStatus(s *api.DeploymentStatus) string {
	if s == nil {
		return "unchanged (nil)"
	}
	c := *s
	c.Conditions = slices.Clone(s.Conditions)
	slices.SortStableFunc(c.Conditions, func(a, b api.DeploymentCondition) int { return strings.Compare(string(a.Type), string(b.Type)) })
	return describeStatus(c)
}

// syncDescribeCounts prints the parts of a status that rule 11 alone
// decides: the counts, observedGeneration, collisionCount and the
// Available condition.
func syncDescribeCounts(s api.DeploymentStatus) string {
	c := s
	c.Conditions = nil
	for _, cond := range s.Conditions {
		if cond.Type == api.DeploymentAvailable {
			c.Conditions = append(c.Conditions, cond)
		}
	}
	return describeStatus(c)
}

// syncDescribeInput is describeInput with what these steps also read: the
// Deployment's generation, revision, deletion and status, and the
// ReplicaSets' revision, desired-replicas and max-replicas annotations,
// generations and deletions.
func syncDescribeInput(in rollout.Input) string {
	d := in.Deployment
	var b strings.Builder
	b.WriteString(describeInput(in))
	fmt.Fprintf(&b, "; deployment generation %d, annotations %s, revisionHistoryLimit %s, progressDeadlineSeconds %s",
		d.Generation, syncDescribeAnnotations(d.Annotations, nil), replicasOf(d.Spec.RevisionHistoryLimit), replicasOf(d.Spec.ProgressDeadlineSeconds))
	if d.DeletionTimestamp != nil {
		fmt.Fprintf(&b, ", being deleted since %s", since(d.DeletionTimestamp.Time))
	}
	if d.Spec.Template.Spec.Containers != nil {
		fmt.Fprintf(&b, ", template image %s", d.Spec.Template.Spec.Containers[0].Image)
	}
	if len(d.Spec.Template.Annotations) > 0 {
		fmt.Fprintf(&b, " annotations %s", syncDescribeAnnotations(d.Spec.Template.Annotations, nil))
	}
	fmt.Fprintf(&b, ", status as given %s", syncDescribeStatus(&d.Status))
	var rss []string
	for _, rs := range in.ReplicaSets {
		s := fmt.Sprintf("%s %s", rs.Name, syncDescribeAnnotations(rs.Annotations, nil))
		if rs.Spec.Template.Spec.Containers != nil {
			s += " image " + rs.Spec.Template.Spec.Containers[0].Image
		}
		if rs.Generation != rs.Status.ObservedGeneration {
			s += fmt.Sprintf(" generation %d observed %d", rs.Generation, rs.Status.ObservedGeneration)
		}
		if rs.DeletionTimestamp != nil {
			s += " being deleted"
		}
		rss = append(rss, s)
	}
	fmt.Fprintf(&b, "; replicaSets' annotations [%s]", strings.Join(rss, "; "))
	return b.String()
}

// ---------------------------------------------------------------- 06

// Step 06: a scaling event (an active ReplicaSet whose desired-replicas
// annotation is not spec.replicas, isScalingEvent) or a pause sends the
// Deployment to sync (sync.go), which scales (scale) and creates nothing.
// The ReplicaSets of each case were made for the Deployment as it was
// before (dOld); the Deployment is then scaled, paused or given a new
// template.
func proportionalStep(t *suite.T, impl Impl) {
	rolling := api.RollingUpdateDeploymentStrategyType
	base := func(n int32, image, surge, unavailable string) api.Deployment {
		return withStrategy(newDeployment("web", n, image), rolling, surge, unavailable)
	}
	now := at(time.Hour)

	// Two ReplicaSets of 5 each for 10 replicas with maxSurge 3, so
	// max-replicas 13.
	d10 := base(10, syncImg3, "3", "2")
	half3 := ownedRS(d10, rsSpec{image: syncImg3, revision: 3, replicas: 5, actual: -1, available: 5, created: 2 * time.Minute})
	half2 := ownedRS(d10, rsSpec{image: syncImg2, revision: 2, replicas: 5, actual: -1, available: 5, created: time.Minute})

	// The only active ReplicaSet: the new one with all 10.
	full3 := ownedRS(d10, rsSpec{image: syncImg3, revision: 3, replicas: 10, actual: -1, available: 10, created: 2 * time.Minute})
	empty2 := ownedRS(d10, rsSpec{image: syncImg2, revision: 2, replicas: 0, actual: -1, created: time.Minute})

	// Three sizes for 6 replicas, maxSurge 1.
	d6 := base(6, syncImg3, "1", "1")
	three3 := ownedRS(d6, rsSpec{image: syncImg3, revision: 3, replicas: 3, actual: -1, available: 3, created: 2 * time.Minute})
	two2 := ownedRS(d6, rsSpec{image: syncImg2, revision: 2, replicas: 2, actual: -1, available: 2, created: time.Minute})
	one1 := ownedRS(d6, rsSpec{image: syncImg1, revision: 1, replicas: 1, actual: -1, available: 1})

	// 4 replicas with maxSurge 0: an old ReplicaSet of 3, the new one of 1.
	d4 := base(4, syncImg3, "0", "1")
	old3of4 := ownedRS(d4, rsSpec{image: syncImg2, revision: 2, replicas: 3, actual: -1, available: 3, created: time.Minute})
	new1of4 := ownedRS(d4, rsSpec{image: syncImg3, revision: 3, replicas: 1, actual: -1, available: 1, created: 2 * time.Minute})

	// A saturated new ReplicaSet (5 of 5, all available, desired 5) and
	// an old one left with 2 from when the Deployment had 4.
	d5 := base(5, syncImg3, "1", "1")
	sat5 := ownedRS(d5, rsSpec{image: syncImg3, revision: 3, replicas: 5, actual: -1, available: 5, created: 2 * time.Minute})
	unsat5 := ownedRS(d5, rsSpec{image: syncImg3, revision: 3, replicas: 5, actual: -1, available: 4, created: 2 * time.Minute})
	left2 := ownedRS(base(4, syncImg3, "1", "1"), rsSpec{image: syncImg2, revision: 2, replicas: 2, actual: -1, available: 2, created: time.Minute})

	// 10 replicas with maxSurge 0 in a 7 / 3 split, the template then
	// changed (upstream's TestScale "change both size and template").
	d10z := base(10, syncImg2, "0", "1")
	seven2 := ownedRS(d10z, rsSpec{image: syncImg2, revision: 2, replicas: 7, actual: -1, available: 7, created: time.Minute})
	three1 := ownedRS(d10z, rsSpec{image: syncImg1, revision: 1, replicas: 3, actual: -1, available: 3})

	// 3 replicas, maxSurge 1: the new ReplicaSet just created with 0, the
	// old one with all 3.
	d3 := base(3, syncImg3, "1", "1")
	zero3 := ownedRS(d3, rsSpec{image: syncImg3, revision: 3, replicas: 0, actual: -1, created: 2 * time.Minute})
	all2 := ownedRS(d3, rsSpec{image: syncImg2, revision: 2, replicas: 3, actual: -1, available: 3, created: time.Minute})
	none2 := ownedRS(d3, rsSpec{image: syncImg2, revision: 2, replicas: 0, actual: -1, created: time.Minute})
	none1 := ownedRS(d3, rsSpec{image: syncImg1, revision: 1, replicas: 0, actual: -1})
	// The Deployment rolled back to the template of 1.27 (its ReplicaSet
	// made first), then scaled to 0 with everything.
	rolledBack3 := ownedRS(d3, rsSpec{image: syncImg3, revision: 3, replicas: 0, actual: -1})

	// A rollout of 10 under way (4 new, 6 old), and a long-empty
	// ReplicaSet whose desired-replicas annotation says 6.
	mid4 := ownedRS(d10, rsSpec{image: syncImg3, revision: 3, replicas: 4, actual: -1, available: 4, created: 2 * time.Minute})
	mid6 := ownedRS(d10, rsSpec{image: syncImg2, revision: 2, replicas: 6, actual: -1, available: 6, created: time.Minute})
	stale1 := syncRSAnnotated(ownedRS(d10, rsSpec{image: syncImg1, revision: 1, replicas: 0, actual: -1}),
		api.DesiredReplicasAnnotation, "6", api.MaxReplicasAnnotation, "9")

	runSyncCases(t, impl, []syncCase{
		{"6", syncUpActive,
			"one active ReplicaSet (the new one with 10, the old one has none): a scaling event 10 -> 15 gives it all 15, with desired-replicas 15 and max-replicas 15 + maxSurge 3",
			syncInput(syncScaledTo(d10, 15), now, empty2, full3), syncWrites,
			syncWant{update: []syncRS{syncScaled(full3, 15, 15, 18)}, events: syncEvents(syncEvent(full3, 10, 15))}},
		{"6", syncUpActive,
			"one active ReplicaSet: a scaling event 10 -> 4 scales it down to 4, with desired-replicas 4 and max-replicas 7",
			syncInput(syncScaledTo(d10, 4), now, full3, empty2), syncWrites,
			syncWant{update: []syncRS{syncScaled(full3, 4, 4, 7)}, events: syncEvents(syncEvent(full3, 10, 4))}},
		{"6", syncUpActive,
			"the only active ReplicaSet gets all, even an old one: 3 -> 5 scales the old ReplicaSet, the new one (0 replicas) is left as it is",
			syncInput(syncScaledTo(d3, 5), now, zero3, all2), syncWrites,
			syncWant{update: []syncRS{syncScaled(all2, 5, 5, 6)}, events: syncEvents(syncEvent(all2, 3, 5))}},
		{"5, 6", syncUpActive,
			"a paused Deployment is scaled (sync, not the rollout): with no active ReplicaSet the new one gets spec.replicas, even when an old one is newer",
			syncInput(syncPaused(d3), now, none2, rolledBack3), syncWrites,
			syncWant{update: []syncRS{syncScaled(rolledBack3, 3, 3, 4)}, events: syncEvents(syncEvent(rolledBack3, 0, 3))}},
		{"5 over 7, 6", syncUpActive,
			"a paused Deployment whose template has no ReplicaSet creates none; with no active ReplicaSet the newest old one gets spec.replicas",
			syncInput(syncPaused(syncTemplate(d3, syncImg4)), now, none2, none1), syncWrites,
			syncWant{update: []syncRS{syncScaled(none2, 3, 3, 4)}, events: syncEvents(syncEvent(none2, 0, 3))}},
		{"5 over 7, 6", syncUpActive,
			"a paused Deployment with a new template and a scale 3 -> 5 creates no ReplicaSet: the only active one, an old one, gets 5",
			syncInput(syncPaused(syncScaledTo(syncTemplate(d3, syncImg4), 5)), now, none1, all2), syncWrites,
			syncWant{update: []syncRS{syncScaled(all2, 5, 5, 6)}, events: syncEvents(syncEvent(all2, 3, 5))}},
		{"6", syncUpProportion,
			"10 -> 20 with two ReplicaSets of 5 and max-replicas 13: 23 allowed (20 + maxSurge 3), 13 to add; each gets 5×23/13 = 8.8, rounded 9 (+4), and the 5 left over go to the first, the newer of the two on a tie when adding: the new one 14, the old one 9",
			syncInput(syncScaledTo(d10, 20), now, half2, half3), syncWrites,
			syncWant{update: []syncRS{syncScaled(half3, 14, 20, 23), syncScaled(half2, 9, 20, 23)},
				events: syncEvents(syncEvent(half3, 5, 14), syncEvent(half2, 5, 9))}},
		{"6", syncUpProportion,
			"10 -> 4 with two ReplicaSets of 5: 7 allowed (4 + 3), 3 to remove; on a tie the older goes first when removing: 5×7/13 = 2.7, rounded 3 (-2), then the new one may lose only the 1 left: old 3, new 4",
			syncInput(syncScaledTo(d10, 4), now, half3, half2), syncWrites,
			syncWant{update: []syncRS{syncScaled(half2, 3, 4, 7), syncScaled(half3, 4, 4, 7)},
				events: syncEvents(syncEvent(half2, 5, 3), syncEvent(half3, 5, 4))}},
		{"6", syncUpProportion,
			"the largest first, before the newer: 4 -> 6 with maxSurge 0, an old ReplicaSet of 3 and the new one of 1: the old one gets 3×6/4 = 4.5, rounded half away from zero to 5 (+2, all there is to add), the new one nothing; its size stays but its annotations are written (scaleReplicaSet), with no Event",
			syncInput(syncScaledTo(d4, 6), now, new1of4, old3of4), syncWrites,
			syncWant{update: []syncRS{syncScaled(old3of4, 5, 6, 6), syncScaled(new1of4, 1, 6, 6)},
				events: syncEvents(syncEvent(old3of4, 3, 5))}},
		{"6", syncUpProportion,
			"scaling to 0 allows 0 pods, not 0 + maxSurge: every active ReplicaSet goes to 0, with desired-replicas 0 and max-replicas 0 + maxSurge 1",
			syncInput(syncScaledTo(d6, 0), now, one1, three3, two2), syncWrites,
			syncWant{update: []syncRS{syncScaled(three3, 0, 0, 1), syncScaled(two2, 0, 0, 1), syncScaled(one1, 0, 0, 1)},
				events: syncEvents(syncEvent(three3, 3, 0), syncEvent(two2, 2, 0), syncEvent(one1, 1, 0))}},
		{"6", syncUpSaturated,
			"a saturated new ReplicaSet (5 of 5, desired-replicas 5, all 5 available): the scaling event of the old ReplicaSet's stale desired-replicas sends every active old one to 0, the new one untouched",
			syncInput(d5, now, left2, sat5), syncWrites,
			syncWant{update: []syncRS{syncScaled(left2, 0, 5, 6)}, events: syncEvents(syncEvent(left2, 2, 0))}},
		{"6", syncUpSaturated + "; " + syncUpProportion,
			"a new ReplicaSet of 5 of 5 with one pod unavailable is not saturated: proportional scaling instead, 6 allowed (5 + 1) for 7, one to remove from the largest (the new one: 5×6/6 = 5 and 2×6/5 = 2.4 round to no change, the leftover -1 goes to the first); the old one keeps its 2 and has its annotations written",
			syncInput(d5, now, unsat5, left2), syncWrites,
			syncWant{update: []syncRS{syncScaled(unsat5, 4, 5, 6), syncScaled(left2, 2, 5, 6)}, events: syncEvents(syncEvent(unsat5, 5, 4))}},
		{"5 over 7, 6", syncUpScaleEvent + "; " + syncUpProportion,
			"a scaling event 10 -> 14 with a new template creates no ReplicaSet: the two old ones share 4 (7×14/10 = 9.8 -> 10, 3×14/10 = 4.2 -> 4; upstream's TestScale \"change both size and template\")",
			syncInput(syncScaledTo(syncTemplate(d10z, syncImg3), 14), now, three1, seven2), syncWrites,
			syncWant{update: []syncRS{syncScaled(seven2, 10, 14, 14), syncScaled(three1, 4, 14, 14)},
				events: syncEvents(syncEvent(seven2, 7, 10), syncEvent(three1, 3, 4))}},
		{"5", syncUpScaleEvent,
			"a ReplicaSet with no replicas whose desired-replicas annotation is stale is no scaling event (only active ones count): the rollout goes on, the new ReplicaSet scaled up to 13 pods in all (rule 8), not the old one by proportion",
			syncInput(d10, now, stale1, mid6, mid4), syncWrites,
			syncWant{update: []syncRS{syncScaled(mid4, 7, 10, 13)}, events: syncEvents(syncEvent(mid4, 4, 7))}},
	})
}

// ---------------------------------------------------------------- 07

// Step 07: the status every pass writes (calculateStatus, sync.go), and a
// Deployment being deleted, which gets its status only (syncDeployment,
// deployment_controller.go: syncStatusOnly).
func statusStep(t *suite.T, impl Impl) {
	rolling := api.RollingUpdateDeploymentStrategyType
	now := t0

	// A rollout of 10 (maxSurge 3, maxUnavailable 2, so at least 8
	// available) at generation 3: the new ReplicaSet has 6 (6 pods, 5
	// ready, 4 available), the old one 4 (5 pods, one of them going, 4
	// ready and available). The status as given is older.
	d := syncRevisioned(withStrategy(newDeployment("web", 10, syncImg3), rolling, "3", "2"), "3")
	d.Generation = 3
	newRS := func(actual, ready, available int32) api.ReplicaSet {
		rs := ownedRS(d, rsSpec{image: syncImg3, revision: 3, replicas: 6, actual: actual, available: available, created: 2 * time.Minute})
		rs.Status.ReadyReplicas = ready
		return rs
	}
	oldRS := func(actual, ready, available int32) api.ReplicaSet {
		rs := ownedRS(d, rsSpec{image: syncImg2, revision: 2, replicas: 4, actual: actual, available: available, created: time.Minute})
		rs.Status.ReadyReplicas = ready
		return rs
	}
	given := func(available api.DeploymentCondition) api.Deployment {
		s := syncCounts(2, 10, 3, 7, 7, 3, available, syncCond(api.DeploymentProgressing, api.ConditionTrue, api.ReplicaSetUpdatedReason, "ReplicaSet \"web\" is progressing.", at(-time.Minute), at(-10*time.Minute)))
		s.CollisionCount = int32p(1)
		return syncWithStatus(d, s)
	}
	counts := func(replicas, updated, ready, available, unavailable int32, cond api.DeploymentCondition) *api.DeploymentStatus {
		s := syncCounts(3, replicas, updated, ready, available, unavailable, cond)
		s.CollisionCount = int32p(1)
		return &s
	}
	wasUnavailable := syncUnavailable(at(-5*time.Minute), at(-5*time.Minute))
	wasAvailable := syncAvailable(at(-time.Hour), at(-2*time.Hour))
	legacy := syncCond(api.DeploymentAvailable, api.ConditionTrue, "", "", at(-time.Hour), at(-2*time.Hour))

	// A complete Deployment of 3: one ReplicaSet with 3 available, the
	// status as given says so.
	dc := syncRevisioned(withStrategy(newDeployment("web", 3, syncImg2), rolling, "1", "1"), "2")
	done := ownedRS(dc, rsSpec{image: syncImg2, revision: 2, replicas: 3, actual: -1, available: 3, created: time.Minute})
	doneOld := ownedRS(dc, rsSpec{image: syncImg1, revision: 1, replicas: 0, actual: -1})
	completeConds := []api.DeploymentCondition{syncAvailable(at(-time.Hour), at(-time.Hour)), syncComplete(done, at(-time.Hour), at(-2*time.Hour))}
	complete := syncWithStatus(dc, syncCounts(1, 3, 3, 3, 3, 0, completeConds...))
	generation2 := complete
	generation2.Generation = 2

	// A Deployment of 3 being deleted mid-rollout: the new ReplicaSet has
	// 1 of 3, the old one 2; the new one could grow (3 pods for 3 + 1).
	deleting := func(d api.Deployment) api.Deployment {
		ts := api.NewTime(at(-10 * time.Second))
		d.DeletionTimestamp = &ts
		return d
	}
	midNew := ownedRS(dc, rsSpec{image: syncImg2, revision: 2, replicas: 1, actual: -1, available: 1, created: time.Minute})
	midOld := ownedRS(dc, rsSpec{image: syncImg1, revision: 1, replicas: 2, actual: -1, available: 2})
	midGiven := syncWithStatus(dc, syncCounts(1, 3, 0, 2, 2, 1, syncCreated(midNew, at(-time.Minute), at(-time.Minute)), syncAvailable(at(-time.Hour), at(-time.Hour))))
	midGiven.Generation = 2
	limit0 := complete
	limit0.Spec.RevisionHistoryLimit = int32p(0)
	retemplated := syncTemplate(complete, syncImg3)
	retemplated.Generation = 2

	runSyncCases(t, impl, []syncCase{
		{"11", syncUpStatus,
			"replicas, readyReplicas and availableReplicas are summed over the ReplicaSets' status (6 + 5, 5 + 4, 4 + 4), updatedReplicas is the new one's status.replicas (6), unavailableReplicas the spec total 10 minus 8 available, observedGeneration the generation, collisionCount kept; 8 available >= 10 - maxUnavailable 2: Available turns True, both its times now",
			syncInput(given(wasUnavailable), now, oldRS(5, 4, 4), newRS(6, 5, 4)), syncCountsPart,
			syncWant{status: counts(11, 6, 9, 8, 2, syncAvailable(now, now))}},
		{"11", syncUpStatus,
			"7 available < 10 - 2: Available False MinimumReplicasUnavailable, and since it was already that (same status and reason) it keeps both its times",
			syncInput(given(wasUnavailable), now, newRS(6, 5, 4), oldRS(5, 4, 3)), syncCountsPart,
			syncWant{status: counts(11, 6, 9, 7, 3, wasUnavailable)}},
		{"11", syncUpStatus,
			"exactly 10 - 2 = 8 available is enough: Available stays True and keeps both its times",
			syncInput(given(wasAvailable), now, newRS(6, 5, 4), oldRS(5, 4, 4)), syncCountsPart,
			syncWant{status: counts(11, 6, 9, 8, 2, wasAvailable)}},
		{"11", syncUpStatus,
			"Available True with 7 available turns False MinimumReplicasUnavailable \"Deployment does not have minimum availability.\", both its times now",
			syncInput(given(wasAvailable), now, newRS(6, 5, 4), oldRS(5, 4, 3)), syncCountsPart,
			syncWant{status: counts(11, 6, 9, 7, 3, syncUnavailable(now, now))}},
		{"11", syncUpStatus,
			"an Available condition whose status stays True but whose reason changes keeps its lastTransitionTime; its lastUpdateTime is now",
			syncInput(given(legacy), now, newRS(6, 5, 4), oldRS(5, 4, 4)), syncCountsPart,
			syncWant{status: counts(11, 6, 9, 8, 2, syncAvailable(now, at(-2*time.Hour)))}},
		{"11", syncUpStatus,
			"unavailableReplicas is never below 0: 11 available for a spec total of 10 gives 0",
			syncInput(given(wasAvailable), now, newRS(7, 7, 7), oldRS(4, 4, 4)), syncCountsPart,
			syncWant{status: counts(11, 7, 11, 11, 0, wasAvailable)}},
		{"11", syncUpStatus,
			"a status that comes out as given is not written: Status nil, and nothing else to do for a complete Deployment",
			syncInput(complete, at(time.Hour), doneOld, done), syncWrites | syncStatus,
			syncWant{}},
		{"11", syncUpStatus,
			"a new generation observed: observedGeneration 2, every condition (unchanged status and reason) keeps its times",
			syncInput(generation2, at(time.Hour), done, doneOld), syncWrites | syncStatus,
			syncWant{status: syncStatusP(syncCounts(2, 3, 3, 3, 3, 0, completeConds...))}},
		{"3 over 8 and 12", syncUpStatusOnly,
			"a Deployment being deleted gets its status only: no scale up of its new ReplicaSet (the rollout would grow it to 2), no Progressing update for the progress made, no requeue; the counts and Available as rule 11 says",
			syncInput(deleting(midGiven), now, midOld, midNew), syncWrites | syncStatus | syncRequeue,
			syncWant{status: syncStatusP(syncCounts(2, 3, 1, 3, 3, 0, syncCreated(midNew, at(-time.Minute), at(-time.Minute)), syncAvailable(at(-time.Hour), at(-time.Hour))))}},
		{"3 over 10", syncUpStatusOnly,
			"a complete Deployment being deleted cleans no history, even with revisionHistoryLimit 0 and an old ReplicaSet without replicas",
			syncInput(deleting(limit0), at(time.Hour), done, doneOld), syncWrites | syncStatus,
			syncWant{}},
		{"3 over 7", syncUpStatusOnly,
			"a Deployment being deleted whose template has no ReplicaSet creates none; its status counts no updated replicas",
			syncInput(deleting(retemplated), at(time.Hour), done, doneOld), syncWrites | syncStatus,
			syncWant{status: syncStatusP(syncCounts(2, 3, 0, 3, 3, 0, completeConds...))}},
	})
}

// ---------------------------------------------------------------- 08

// Step 08: the Progressing condition of a rollout (syncRolloutStatus,
// progress.go), the requeue that sees its deadline pass
// (requeueStuckDeployment), and pausing (checkPausedConditions, sync.go).
func progressStep(t *suite.T, impl Impl) {
	rolling := api.RollingUpdateDeploymentStrategyType

	// A stuck rollout of 3 with maxSurge 1 and maxUnavailable 0: the new
	// ReplicaSet has 1 pod, ready but not yet available; the old one
	// keeps its 3, since 4 pods is all maxSurge allows and none of them
	// can go while the new one is unavailable. Its status is 4 pods, 1
	// updated, 4 ready, 3 available.
	d := syncRevisioned(withStrategy(newDeployment("web", 3, syncImg2), rolling, "1", "0"), "2")
	stuckNew := ownedRS(d, rsSpec{image: syncImg2, revision: 2, replicas: 1, actual: -1, available: 0, created: time.Minute})
	stuckNew.Status.ReadyReplicas = 1
	stuckOld := ownedRS(d, rsSpec{image: syncImg1, revision: 1, replicas: 3, actual: -1, available: 3})
	available := syncAvailable(at(-time.Hour), at(-time.Hour))
	stuck := func(progressing api.DeploymentCondition) api.DeploymentStatus {
		return syncCounts(1, 4, 1, 4, 3, 1, available, progressing)
	}
	stuckWith := func(d api.Deployment, progressing api.DeploymentCondition) api.Deployment {
		return syncWithStatus(d, stuck(progressing))
	}
	// given is the stuck Deployment with other counts as given.
	given := func(replicas, updated, ready, avail, unavailable int32, progressing api.DeploymentCondition) api.Deployment {
		return syncWithStatus(d, syncCounts(1, replicas, updated, ready, avail, unavailable, available, progressing))
	}
	in := func(d api.Deployment, now time.Time) rollout.Input { return syncInput(d, now, stuckOld, stuckNew) }
	updating := syncProgressing(stuckNew, t0, at(-10*time.Minute))
	lately := syncProgressing(stuckNew, at(-time.Minute), at(-10*time.Minute))
	timedOutLong := syncTimedOut(stuckNew, at(-time.Hour), at(-time.Hour))
	pausedLong := syncPausedCond(at(-time.Hour), at(-time.Hour))
	deadline60 := d
	deadline60.Spec.ProgressDeadlineSeconds = int32p(60)
	progressed := func(progressing api.DeploymentCondition) *api.DeploymentStatus {
		return syncStatusP(stuck(progressing))
	}

	// A rollout of 3 whose new ReplicaSet has just become fully available.
	doneNew := ownedRS(d, rsSpec{image: syncImg2, revision: 2, replicas: 3, actual: -1, available: 3, created: time.Minute})
	doneOld := ownedRS(d, rsSpec{image: syncImg1, revision: 1, replicas: 0, actual: -1})
	almost := syncWithStatus(d, syncCounts(1, 3, 3, 2, 2, 1, syncUnavailable(at(-30*time.Second), at(-30*time.Second)), syncProgressing(doneNew, at(-30*time.Second), at(-5*time.Minute))))

	// A complete rollout of 3 whose only ReplicaSet still has a 4th pod
	// going away: 4 pods, all updated, 3 of them ready and available.
	only := ownedRS(d, rsSpec{image: syncImg2, revision: 2, replicas: 3, actual: 4, available: 3, created: time.Minute})
	wasComplete := syncComplete(only, at(-time.Hour), at(-time.Hour))
	completeGiven := syncWithStatus(d, syncCounts(1, 4, 4, 2, 2, 1, syncUnavailable(at(-time.Minute), at(-time.Minute)), wasComplete))

	runSyncCases(t, impl, []syncCase{
		// The deadline: progressDeadlineSeconds 600 from the Progressing
		// condition's lastUpdateTime t0; timed out once now is after
		// t0 + 600s (DeploymentTimedOut: from.Add(delta).Before(now)).
		{"12", syncUpRequeue,
			"no progress, 7m left before the deadline: the status is unchanged (nil) and the Deployment is looked at again after the time left plus a second",
			syncInput(stuckWith(d, updating), at(3*time.Minute), stuckNew, stuckOld), syncStatus | syncRequeue,
			syncWant{requeue: 7*time.Minute + time.Second}},
		{"12", syncUpRequeue,
			"no progress, one second before the deadline: not timed out yet; requeue after 1s + 1s",
			in(stuckWith(d, updating), at(599*time.Second)), syncStatus | syncRequeue,
			syncWant{requeue: 2 * time.Second}},
		{"12", syncUpRequeue,
			"no progress, exactly at the deadline: not timed out (the deadline must be passed); less than a second left: requeue after a second",
			in(stuckWith(d, updating), at(600*time.Second)), syncStatus | syncRequeue,
			syncWant{requeue: time.Second}},
		{"12", syncUpProgress,
			"no progress, one second past the deadline: Progressing False ProgressDeadlineExceeded, both times now (the status changed), and no requeue",
			in(stuckWith(d, updating), at(601*time.Second)), syncStatus | syncRequeue,
			syncWant{status: progressed(syncTimedOut(stuckNew, at(601*time.Second), at(601*time.Second)))}},
		{"12", syncUpRequeue,
			"the deadline counts from the condition's lastUpdateTime (t0), not its lastTransitionTime (an hour ago): 5 minutes in, not timed out, 5m1s to wait",
			in(stuckWith(d, syncProgressing(stuckNew, t0, at(-time.Hour))), at(5*time.Minute)), syncStatus | syncRequeue,
			syncWant{requeue: 5*time.Minute + time.Second}},
		{"12", syncUpProgress,
			"the Deployment's own progressDeadlineSeconds (60): 61s without progress is past it",
			in(stuckWith(deadline60, updating), at(61*time.Second)), syncStatus | syncRequeue,
			syncWant{status: progressed(syncTimedOut(stuckNew, at(61*time.Second), at(61*time.Second)))}},
		{"12", syncUpRequeue,
			"the Deployment's own progressDeadlineSeconds (60): 30s in, 30s left, requeue after 31s",
			in(stuckWith(deadline60, updating), at(30*time.Second)), syncStatus | syncRequeue,
			syncWant{requeue: 31 * time.Second}},
		{"12", syncUpRequeue,
			"a rollout that has already timed out keeps its condition (and its times) and is not requeued",
			in(stuckWith(d, timedOutLong), t0), syncStatus | syncRequeue,
			syncWant{}},
		// Progress: any of four signals since the status as given.
		{"12", syncUpProgress,
			"more updated replicas than the status as given (0 -> 1) is progress: Progressing True ReplicaSetUpdated with lastUpdateTime now; it was True ReplicaSetUpdated already, so it keeps its lastTransitionTime (upstream replaces the condition, the same reason notwithstanding)",
			in(given(3, 0, 4, 3, 0, lately), t0), syncStatus | syncRequeue,
			syncWant{status: progressed(syncProgressing(stuckNew, t0, at(-10*time.Minute)))}},
		{"12", syncUpProgress,
			"fewer old pods than the status as given (5 - 1 -> 4 - 1) is progress",
			in(given(5, 1, 4, 3, 2, lately), t0), syncStatus | syncRequeue,
			syncWant{status: progressed(syncProgressing(stuckNew, t0, at(-10*time.Minute)))}},
		{"12", syncUpProgress,
			"more ready pods than the status as given (3 -> 4) is progress",
			in(given(4, 1, 3, 3, 1, lately), t0), syncStatus | syncRequeue,
			syncWant{status: progressed(syncProgressing(stuckNew, t0, at(-10*time.Minute)))}},
		{"12", syncUpProgress,
			"more available pods than the status as given (2 -> 3) is progress",
			in(given(4, 1, 4, 2, 2, lately), t0), syncStatus | syncRequeue,
			syncWant{status: progressed(syncProgressing(stuckNew, t0, at(-10*time.Minute)))}},
		{"12", syncUpProgress,
			"fewer ready pods (5 -> 4) is no progress: the counts change, Progressing keeps its times, and a changed status asks no requeue",
			in(given(4, 1, 5, 3, 1, lately), t0), syncStatus | syncRequeue,
			syncWant{status: progressed(lately)}},
		{"12", syncUpProgress,
			"progress after True NewReplicaSetCreated: ReplicaSetUpdated, lastTransitionTime kept from the True condition",
			in(given(4, 1, 3, 3, 1, syncCreated(stuckNew, at(-time.Minute), at(-2*time.Minute))), t0), syncStatus | syncRequeue,
			syncWant{status: progressed(syncProgressing(stuckNew, t0, at(-2*time.Minute)))}},
		{"12", syncUpProgress,
			"progress after ProgressDeadlineExceeded: True ReplicaSetUpdated again, its lastTransitionTime now (the condition was False)",
			in(given(4, 1, 3, 3, 1, timedOutLong), t0), syncStatus | syncRequeue,
			syncWant{status: progressed(syncProgressing(stuckNew, t0, t0))}},
		// Complete.
		{"12", syncUpProgress,
			"updated, total and available all 3 = spec.replicas: Progressing True NewReplicaSetAvailable `ReplicaSet \"NAME\" has successfully progressed.`, lastUpdateTime now, lastTransitionTime kept (True before); Available turns True",
			syncInput(almost, t0, doneNew, doneOld), syncStatus | syncRequeue,
			syncWant{status: syncStatusP(syncCounts(1, 3, 3, 3, 3, 0, syncAvailable(t0, t0), syncComplete(doneNew, t0, at(-5*time.Minute))))}},
		{"12", syncUpProgress,
			"a rollout already complete (NewReplicaSetAvailable, every pod updated: 4 of 4) is not checked again: one more ready pod would be progress, but Progressing keeps NewReplicaSetAvailable and its times; the counts and Available change",
			syncInput(completeGiven, t0, only), syncStatus | syncRequeue,
			syncWant{status: syncStatusP(syncCounts(1, 4, 4, 3, 3, 0, syncAvailable(t0, t0), wasComplete))}},
		// Pausing.
		{"4", syncUpPaused,
			"a paused Deployment gets Progressing Unknown DeploymentPaused \"Deployment is paused\", both times now; it is not checked against its deadline (an hour without progress) and not requeued",
			in(stuckWith(syncPaused(d), syncProgressing(stuckNew, at(-time.Hour), at(-2*time.Hour))), t0), syncStatus | syncRequeue,
			syncWant{status: progressed(syncPausedCond(t0, t0))}},
		{"4, 12", syncUpPaused,
			"a paused Deployment already DeploymentPaused for an hour: nothing changes, no deadline, no requeue",
			in(stuckWith(syncPaused(d), pausedLong), t0), syncStatus | syncRequeue,
			syncWant{}},
		{"4", syncUpPaused,
			"a timed-out Deployment paused keeps ProgressDeadlineExceeded",
			in(stuckWith(syncPaused(d), timedOutLong), t0), syncStatus | syncRequeue,
			syncWant{}},
		{"4", syncUpPaused,
			"a resumed Deployment (DeploymentPaused, no longer paused) gets Progressing Unknown DeploymentResumed \"Deployment is resumed\": lastUpdateTime now, lastTransitionTime kept (still Unknown); the deadline counts from now",
			in(stuckWith(d, pausedLong), t0), syncStatus,
			syncWant{status: progressed(syncResumedCond(t0, at(-time.Hour)))}},
		{"4", syncUpPaused,
			"a timed-out Deployment that is not paused keeps ProgressDeadlineExceeded (no DeploymentResumed)",
			in(stuckWith(d, timedOutLong), at(time.Minute)), syncStatus | syncRequeue,
			syncWant{}},
	})
}

// ---------------------------------------------------------------- 09

// Step 09: `kubectl rollout undo` writes an old ReplicaSet's template
// (without its pod-template-hash label) into the Deployment, which makes
// that ReplicaSet the new one (FindNewReplicaSet) with the next revision
// (getNewReplicaSet, SetNewReplicaSetAnnotations); `kubectl rollout
// restart` sets an annotation on the template, a template no ReplicaSet
// has.
func rollbackStep(t *suite.T, impl Impl) {
	rolling := api.RollingUpdateDeploymentStrategyType
	now := at(time.Hour)

	// Revision 2 (1.26) is running, 3 of 3, maxSurge 0 and
	// maxUnavailable 1; revision 1 (1.25) is kept with no replicas.
	d0 := syncRevisioned(withStrategy(newDeployment("web", 3, syncImg2), rolling, "0", "1"), "2")
	v1 := ownedRS(d0, rsSpec{image: syncImg1, revision: 1, replicas: 0, actual: -1})
	v2 := ownedRS(d0, rsSpec{image: syncImg2, revision: 2, replicas: 3, actual: -1, available: 3, created: time.Minute})
	d0 = syncWithStatus(d0, syncCounts(1, 3, 3, 3, 3, 0, syncAvailable(at(-time.Hour), at(-time.Hour)), syncComplete(v2, at(-time.Hour), at(-time.Hour))))
	// The undo: the template of revision 1, a new generation, and the
	// annotations kubectl leaves.
	const cause = "kubectl rollout undo deployment/web --to-revision=1"
	undone := syncAnnotated(syncTemplate(d0, syncImg1), api.ChangeCauseAnnotation, cause, rollout.LastAppliedConfigAnnotation, `{"kind":"Deployment"}`)
	undone.Generation = 2

	// The same undo with maxSurge 1 and maxUnavailable 0: room for one
	// more pod at once.
	s0 := syncRevisioned(withStrategy(newDeployment("web", 3, syncImg2), rolling, "1", "0"), "2")
	s1 := ownedRS(s0, rsSpec{image: syncImg1, revision: 1, replicas: 0, actual: -1})
	s2 := ownedRS(s0, rsSpec{image: syncImg2, revision: 2, replicas: 3, actual: -1, available: 3, created: time.Minute})
	s0 = syncWithStatus(s0, d0.Status)
	surged := syncTemplate(s0, syncImg1)
	surged.Generation = 2

	// The next pass: revision 1's ReplicaSet is revision 3 now, the old
	// one was scaled down to 2.
	v1as3 := syncRSAnnotated(v1, api.RevisionAnnotation, "3", api.RevisionHistoryAnnotation, "1", api.ChangeCauseAnnotation, cause)
	v2at2 := ownedRS(d0, rsSpec{image: syncImg2, revision: 2, replicas: 2, actual: -1, available: 2, created: time.Minute})

	// Revisions 3 (1.24), 4 (1.25, once revision 2) and 5 (1.26,
	// running): back to 1.25 again.
	r3 := ownedRS(d0, rsSpec{image: "nginx:1.24", revision: 3, replicas: 0, actual: -1, created: -time.Minute})
	r4 := syncRSAnnotated(ownedRS(d0, rsSpec{image: syncImg1, revision: 4, replicas: 0, actual: -1}), api.RevisionHistoryAnnotation, "2")
	r5 := ownedRS(d0, rsSpec{image: syncImg2, revision: 5, replicas: 3, actual: -1, available: 3, created: time.Minute})
	again := syncRevisioned(syncTemplate(d0, syncImg1), "5")
	again.Generation = 2

	// A revision history at the limit: revisions 1000 to 1399 make 1999
	// characters; the ReplicaSet is revision 10000 and the running one
	// 10001.
	var long []string
	for r := 1000; r < 1400; r++ {
		long = append(long, strconv.Itoa(r))
	}
	history := strings.Join(long, ",")
	h10000 := syncRSAnnotated(ownedRS(d0, rsSpec{image: syncImg1, replicas: 0, actual: -1}), api.RevisionAnnotation, "10000", api.RevisionHistoryAnnotation, history)
	h10001 := ownedRS(d0, rsSpec{image: syncImg2, revision: 10001, replicas: 3, actual: -1, available: 3, created: time.Minute})
	atLimit := syncRevisioned(syncTemplate(d0, syncImg1), "10001")
	trimmed := strings.Join(append(long[1:], "10000"), ",")

	// An old revision deleted after the new ReplicaSet took revision 5:
	// the old ones' highest is 3, the new one keeps 5, and so does the
	// Deployment.
	ahead := ownedRS(d0, rsSpec{image: syncImg2, revision: 5, replicas: 3, actual: -1, available: 3, created: time.Minute})
	behind := ownedRS(d0, rsSpec{image: syncImg1, revision: 3, replicas: 0, actual: -1})
	lagging := syncRevisioned(d0, "3")

	// A restart: 1.26 running (maxSurge 1, maxUnavailable 0), then the
	// template annotated with restartedAt.
	dr := syncRevisioned(withStrategy(newDeployment("web", 3, syncImg2), rolling, "1", "0"), "1")
	running := ownedRS(dr, rsSpec{image: syncImg2, revision: 1, replicas: 3, actual: -1, available: 3})
	dr = syncWithStatus(dr, syncCounts(1, 3, 3, 3, 3, 0, syncAvailable(at(-time.Hour), at(-time.Hour)), syncComplete(running, at(-time.Hour), at(-time.Hour))))
	restarted := dr
	restarted.Spec.Template = *deepCopyTemplate(dr.Spec.Template)
	restarted.Spec.Template.Annotations = map[string]string{rollout.RestartedAtAnnotation: "2026-03-14T16:09:26Z"}
	restarted.Generation = 2
	restartedName := "web-" + rollout.TemplateHash(restarted.Spec.Template, nil)

	runSyncCases(t, impl, []syncCase{
		{"1, 2", syncUpNewRS,
			"the template is revision 1's again: its ReplicaSet is the new one (templates compared without the pod-template-hash label), no ReplicaSet is created; it takes revision 3 (the old ones' highest, 2, plus one), its old revision 1 goes to revision-history, it gets the Deployment's change-cause but not kubectl's last-applied-configuration nor the Deployment's revision; since it was written, the Deployment's revision waits for the next pass. Scaling goes on as in a rollout: with maxSurge 0 the new one cannot grow, the old one goes 3 -> 2",
			syncInput(undone, now, v2, v1), syncWrites | syncRevision,
			syncWant{
				update: []syncRS{
					syncUpd(v1, 0, api.RevisionAnnotation, "3", api.RevisionHistoryAnnotation, "1", api.ChangeCauseAnnotation, cause),
					syncUpd(v2, 2),
				},
				events: syncEvents(syncEvent(v2, 3, 2)),
			}},
		{"1, 2, 8", syncUpNewRS + "; reconcileNewReplicaSet, rolling.go",
			"the template is revision 1's again with room to grow (maxSurge 1): the new ReplicaSet takes revision 3 and history \"1\", and is scaled up 0 -> 1 in the same pass (upstream scales the copy it has just written), one write of both",
			syncInput(surged, now, s1, s2), syncWrites | syncRevision,
			syncWant{
				update: []syncRS{syncUpd(s1, 1, api.RevisionAnnotation, "3", api.RevisionHistoryAnnotation, "1")},
				events: syncEvents(syncEvent(s1, 0, 1)),
			}},
		{"2, 8", syncUpNewRS,
			"the next pass: the new ReplicaSet already has revision 3 and the Deployment's annotations, so it is not written for them; the Deployment's revision becomes 3, and the new ReplicaSet is scaled up 0 -> 1 (3 pods for 3 + maxSurge 0)",
			syncInput(undone, now, v1as3, v2at2), syncWrites | syncRevision,
			syncWant{update: []syncRS{syncUpd(v1as3, 1)}, events: syncEvents(syncEvent(v1as3, 0, 1)), revision: "3"}},
		{"1, 2", syncUpNewRS,
			"rolled back to a ReplicaSet that has been rolled back to before (revision 4, revision-history \"2\"): it takes revision 6 (5 + 1) and its history becomes \"2,4\"",
			syncInput(again, now, r3, r5, r4), syncWrites | syncRevision,
			syncWant{
				update: []syncRS{syncUpd(r4, 0, api.RevisionAnnotation, "6", api.RevisionHistoryAnnotation, "2,4"), syncUpd(r5, 2)},
				events: syncEvents(syncEvent(r5, 3, 2)),
			}},
		{"2", syncUpNewRS,
			"revision-history stays within 2000 characters: 1999 characters plus \",10000\" is 2005, so the oldest entry (1000) is dropped, which makes exactly 2000",
			syncInput(atLimit, now, h10001, h10000), syncWrites | syncRevision,
			syncWant{
				update: []syncRS{syncUpd(h10000, 0, api.RevisionAnnotation, "10002", api.RevisionHistoryAnnotation, trimmed), syncUpd(h10001, 2)},
				events: syncEvents(syncEvent(h10001, 3, 2)),
			}},
		{"1, 2", syncUpNewRS,
			"a new ReplicaSet whose revision (5) is above the old ones' highest plus one (4) keeps it; the Deployment's revision becomes the ReplicaSet's (5), not 4",
			syncInput(lagging, now, behind, ahead), syncWrites | syncRevision,
			syncWant{revision: "5"}},
		{"1, 7", "getNewReplicaSet, sync.go; `kubectl rollout restart` (staging/src/k8s.io/kubectl/pkg/polymorphichelpers/objectrestarter.go)",
			"a restart annotates the template with kubectl.kubernetes.io/restartedAt: no ReplicaSet has that template, so a new one is created, named for the annotated template's hash, revision 2, with 1 replica (4 pods for 3 + maxSurge 1)",
			syncInput(restarted, now, running), syncWrites | syncRevision,
			syncWant{
				create:   &syncCreate{name: restartedName, replicas: 1, revision: "2"},
				events:   syncEvents(rollout.Event{Type: "Normal", Reason: rollout.ScalingReplicaSet, Message: fmt.Sprintf("Scaled up replica set %s from 0 to 1", restartedName)}),
				revision: "2",
			}},
	})
}

// ---------------------------------------------------------------- 10

// Step 10: old ReplicaSets beyond revisionHistoryLimit are deleted once
// the rollout is complete (rolloutRolling, rolling.go: cleanupDeployment
// when DeploymentComplete of the status as given) or while the
// Deployment is paused (sync, sync.go).
func historyStep(t *suite.T, impl Impl) {
	rolling := api.RollingUpdateDeploymentStrategyType
	now := at(time.Hour)

	// A complete Deployment of 3 at revision 6 (1.30), with revisions 1
	// to 5 kept without replicas.
	d := syncRevisioned(withStrategy(newDeployment("web", 3, syncImg6), rolling, "1", "1"), "6")
	rev := func(d api.Deployment, image string, r int, replicas, available int32) api.ReplicaSet {
		return ownedRS(d, rsSpec{image: image, revision: r, replicas: replicas, actual: -1, available: available, created: time.Duration(r) * time.Minute})
	}
	r6 := rev(d, syncImg6, 6, 3, 3)
	r5, r4, r3, r2, r1 := rev(d, syncImg5, 5, 0, 0), rev(d, syncImg4, 4, 0, 0), rev(d, syncImg3, 3, 0, 0), rev(d, syncImg2, 2, 0, 0), rev(d, syncImg1, 1, 0, 0)
	completeConds := []api.DeploymentCondition{syncAvailable(at(-time.Hour), at(-time.Hour)), syncComplete(r6, at(-time.Hour), at(-time.Hour))}
	complete := syncWithStatus(d, syncCounts(1, 3, 3, 3, 3, 0, completeConds...))
	limit := func(d api.Deployment, n int32) api.Deployment {
		d.Spec.RevisionHistoryLimit = int32p(n)
		return d
	}
	all := func(d api.Deployment, rss ...api.ReplicaSet) rollout.Input { return syncInput(d, now, rss...) }

	// Old ReplicaSets that may not go: pods still there, a spec not yet
	// observed, a deletion under way.
	r1pods := r1
	r1pods.Status.Replicas = 1
	r2unobserved := r2
	r2unobserved.Generation = 2
	r5deleting := r5
	gone := api.NewTime(at(-time.Second))
	r5deleting.DeletionTimestamp = &gone

	// A Deployment of 3 (maxSurge 0, maxUnavailable 1) stuck: the new
	// ReplicaSet has 3 pods, 1 available, so that revision 1's last
	// replica (not yet a pod) cannot be taken away; its status as given
	// still says complete.
	ds := syncRevisioned(withStrategy(newDeployment("web", 3, syncImg6), rolling, "0", "1"), "6")
	s6 := rev(ds, syncImg6, 6, 3, 1)
	s1 := ownedRS(ds, rsSpec{image: syncImg1, revision: 1, replicas: 1, actual: 0, created: time.Minute})
	s2, s3, s4, s5 := rev(ds, syncImg2, 2, 0, 0), rev(ds, syncImg3, 3, 0, 0), rev(ds, syncImg4, 4, 0, 0), rev(ds, syncImg5, 5, 0, 0)
	stale := syncWithStatus(ds, syncCounts(1, 3, 3, 3, 3, 0, syncAvailable(at(-time.Hour), at(-time.Hour)), syncComplete(s6, at(-time.Hour), at(-time.Hour))))

	// Two old ReplicaSets without a revision (adopted), the younger one
	// first by name.
	adoptedOld := syncRenamed(syncRSAnnotated(rev(d, syncImg1, 1, 0, 0), api.RevisionAnnotation, ""), "web-zzzzz")
	adoptedYoung := syncRenamed(syncRSAnnotated(rev(d, syncImg2, 2, 0, 0), api.RevisionAnnotation, ""), "web-bbbbb")
	first := syncRevisioned(complete, "1")
	firstNew := syncRSAnnotated(r6, api.RevisionAnnotation, "1")

	// Not complete as given: 2 of 3 available (the ReplicaSets have
	// moved on since).
	notYet := syncWithStatus(d, syncCounts(1, 3, 3, 2, 2, 1, syncAvailable(at(-time.Hour), at(-time.Hour)), syncProgressing(r6, at(-time.Minute), at(-time.Hour))))

	// Paused mid-rollout: the new ReplicaSet has 2 of 3, revision 5 the
	// other one (maxSurge 0).
	dp := syncPaused(syncRevisioned(withStrategy(newDeployment("web", 3, syncImg6), rolling, "0", "1"), "6"))
	p6 := rev(dp, syncImg6, 6, 2, 2)
	p5 := rev(dp, syncImg5, 5, 1, 1)
	p4, p3 := rev(dp, syncImg4, 4, 0, 0), rev(dp, syncImg3, 3, 0, 0)
	pausedMid := syncWithStatus(limit(dp, 1), syncCounts(1, 3, 2, 3, 3, 0, syncAvailable(at(-time.Hour), at(-time.Hour)), syncPausedCond(at(-time.Minute), at(-time.Minute))))

	// A scaling event 10 -> 20 mid-rollout (two ReplicaSets of 5,
	// maxSurge 3) with revisionHistoryLimit 0 and an old ReplicaSet
	// without replicas.
	d10 := limit(withStrategy(newDeployment("web", 10, syncImg3), rolling, "3", "2"), 0)
	half3 := ownedRS(d10, rsSpec{image: syncImg3, revision: 3, replicas: 5, actual: -1, available: 5, created: 3 * time.Minute})
	half2 := ownedRS(d10, rsSpec{image: syncImg2, revision: 2, replicas: 5, actual: -1, available: 5, created: 2 * time.Minute})
	empty1 := ownedRS(d10, rsSpec{image: syncImg1, revision: 1, replicas: 0, actual: -1, created: time.Minute})

	runSyncCases(t, impl, []syncCase{
		{"10", syncUpCleanup,
			"complete with 5 old ReplicaSets and revisionHistoryLimit 2: the 3 beyond it go, lowest revision first",
			all(limit(complete, 2), r3, r6, r1, r5, r2, r4), syncWrites,
			syncWant{delete: []string{r1.Name, r2.Name, r3.Name}}},
		{"10", syncUpCleanup,
			"revisionHistoryLimit 0 deletes every old ReplicaSet",
			all(limit(complete, 0), r5, r4, r3, r2, r1, r6), syncWrites,
			syncWant{delete: []string{r1.Name, r2.Name, r3.Name, r4.Name, r5.Name}}},
		{"10", syncUpCleanup,
			"the default revisionHistoryLimit 10 keeps all 5",
			all(complete, r1, r2, r3, r4, r5, r6), syncWrites,
			syncWant{}},
		{"10", syncUpCleanup,
			"an old ReplicaSet with a pod still in its status is skipped: with limit 2, the first 3 by revision are looked at (1, 2, 3) and revision 1 is kept, not replaced by revision 4",
			all(limit(complete, 2), r6, r5, r4, r3, r2, r1pods), syncWrites,
			syncWant{delete: []string{r2.Name, r3.Name}}},
		{"10", syncUpCleanup,
			"an old ReplicaSet whose generation its controller has not observed is skipped",
			all(limit(complete, 2), r1, r2unobserved, r3, r4, r5, r6), syncWrites,
			syncWant{delete: []string{r1.Name, r3.Name}}},
		{"10", syncUpCleanup,
			"an old ReplicaSet being deleted neither goes again nor counts: with limit 2, 4 cleanable (revisions 1 to 4) make 2 to delete",
			all(limit(complete, 2), r1, r2, r3, r4, r5deleting, r6), syncWrites,
			syncWant{delete: []string{r1.Name, r2.Name}}},
		{"10", syncUpCleanup,
			"an old ReplicaSet being deleted is not deleted again, even with revisionHistoryLimit 0",
			all(limit(complete, 0), r6, r5deleting, r4), syncWrites,
			syncWant{delete: []string{r4.Name}}},
		{"10", syncUpCleanup,
			"an old ReplicaSet with replicas in its spec is skipped (the rollout is stuck: it cannot be scaled down), even with the status as given saying complete",
			all(limit(stale, 2), s1, s2, s3, s4, s5, s6), syncWrites,
			syncWant{delete: []string{s2.Name, s3.Name}}},
		{"10", syncUpCleanup,
			"revisions tie (both 0: no annotation): the older by creationTimestamp goes first, whatever the names",
			all(limit(first, 1), adoptedYoung, firstNew, adoptedOld), syncWrites,
			syncWant{delete: []string{adoptedOld.Name}}},
		{"10", syncUpCleanup,
			"not complete by the status as given (2 of 3 available): nothing is deleted, even with revisionHistoryLimit 0",
			all(limit(notYet, 0), r1, r2, r6), syncWrites,
			syncWant{}},
		{"5 over 10", syncUpCleanup + "; sync, sync.go",
			"a paused Deployment has its history cleaned mid-rollout (limit 1: of revisions 5, 4, 3, the two lowest go; revision 5, active, would be kept anyway), and nothing is scaled",
			all(pausedMid, p3, p6, p5, p4), syncWrites,
			syncWant{delete: []string{p3.Name, p4.Name}}},
		{"5, 10", "sync, sync.go",
			"a scaling event is no pause: it is scaled (14 and 9 of 20 + 3, as step 06's example) but its history is not cleaned, even with revisionHistoryLimit 0",
			all(syncScaledTo(d10, 20), empty1, half2, half3), syncWrites,
			syncWant{update: []syncRS{syncScaled(half3, 14, 20, 23), syncScaled(half2, 9, 20, 23)},
				events: syncEvents(syncEvent(half3, 5, 14), syncEvent(half2, 5, 9))}},
	})
}
