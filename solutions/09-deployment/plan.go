package deployment

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/rollout"
)

// Plan says what one sync of a Deployment writes (rollout.PlanFunc): one
// pass of upstream's syncDeployment (pkg/controller/deployment/
// deployment_controller.go) played in memory, every write assumed to
// succeed.
func Plan(in rollout.Input) rollout.Plan {
	p := newPass(in)
	p.syncDeployment()
	return p.result()
}

// pass is one sync in memory. d is the controller's own copy of the
// Deployment, whose status and annotations change as upstream changes its
// copy (each of upstream's UpdateStatus calls sends that copy); rsList are
// copies of the ReplicaSets as read, which stay as read for the whole pass
// as upstream's lister copies do. The writes are gathered for the Plan.
type pass struct {
	in     rollout.Input
	now    time.Time
	d      *api.Deployment
	rsList []*api.ReplicaSet

	create  *api.ReplicaSet
	updates []*api.ReplicaSet
	updated map[string]int // name -> index in updates
	deletes []string
	events  []rollout.Event
	requeue time.Duration

	// matches remembers, by ReplicaSet name, whether its template is the
	// Deployment's: neither template changes within a pass, and a pass
	// looks for the new ReplicaSet several times.
	matches map[string]bool
}

// errSync stops a pass the way an error stops upstream's sync: the writes
// made so far stay made, nothing after them happens.
var errSync = errors.New("deployment: sync stopped")

func newPass(in rollout.Input) *pass {
	p := &pass{in: in, now: in.Now, d: api.DeepCopy(&in.Deployment), updated: map[string]int{}}
	for i := range in.ReplicaSets {
		rs := api.DeepCopy(&in.ReplicaSets[i])
		if rs.Spec.Replicas == nil {
			// The apiserver's default (SetDefaults_ReplicaSet); the kata's
			// apiserver stores what it is sent, so the controller reads a
			// missing count as upstream's would have been stored.
			one := int32(1)
			rs.Spec.Replicas = &one
		}
		p.rsList = append(p.rsList, rs)
	}
	// FindNewReplicaSet sorts the list it is given by creation time, and
	// FindOldReplicaSets keeps that order (deployment_util.go): the old
	// ReplicaSets are oldest first everywhere below.
	sortByCreation(p.rsList)
	return p
}

// result is the Plan of the pass: the writes in the order of Plan's
// fields, with no part shared with the input.
func (p *pass) result() rollout.Plan {
	plan := rollout.Plan{Create: p.create, Delete: p.deletes, Events: p.events, RequeueAfter: p.requeue}
	for _, rs := range p.updates {
		plan.Update = append(plan.Update, *rs)
	}
	orig := &p.in.Deployment
	if rev := p.d.Annotations[api.RevisionAnnotation]; rev != orig.Annotations[api.RevisionAnnotation] {
		plan.Revision = rev
	}
	// Upstream writes the status whenever it differs from its copy's; the
	// writes of one pass come together here, against the status as given.
	if !reflect.DeepEqual(orig.Status, p.d.Status) {
		s := api.DeepCopyValue(p.d.Status)
		plan.Status = &s
	}
	return plan
}

// syncDeployment is upstream's syncDeployment (deployment_controller.go)
// once the ReplicaSets are claimed: a Deployment selecting everything is
// refused; one being deleted only has its status synced; then paused
// conditions, then a paused Deployment or a scaling event is scaled
// (sync), else the strategy rolls it out. The deprecated rollback
// annotation is not acted on (rollout.RollbackToAnnotation).
func (p *pass) syncDeployment() {
	d := p.d
	if d.Spec.Selector != nil && reflect.DeepEqual(*d.Spec.Selector, api.LabelSelector{}) {
		p.event("Warning", "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
		}
		return
	}
	if d.DeletionTimestamp != nil {
		p.syncStatusOnly()
		return
	}
	p.checkPausedConditions()
	if d.Spec.Paused {
		p.sync()
		return
	}
	scaling, err := p.isScalingEvent()
	if err != nil {
		return
	}
	if scaling {
		p.sync()
		return
	}
	switch d.Spec.Strategy.Type {
	case api.RecreateDeploymentStrategyType:
		p.rolloutRecreate()
	case api.RollingUpdateDeploymentStrategyType:
		p.rolloutRolling()
	}
	// Another strategy fails the sync upstream ("unexpected deployment
	// strategy type"): what was written so far stays.
}

// syncStatusOnly is upstream's syncStatusOnly (sync.go): revisions synced,
// status written, nothing scaled.
func (p *pass) syncStatusOnly() {
	newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(false)
	if err != nil {
		return
	}
	p.syncDeploymentStatus(withNew(oldRSs, newRS), newRS)
}

// sync is upstream's sync (sync.go), for a paused Deployment or a scaling
// event: scale, clean the history of a paused one, write the status.
func (p *pass) sync() {
	newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(false)
	if err != nil {
		return
	}
	p.scale(newRS, oldRSs)
	if p.d.Spec.Paused {
		p.cleanupDeployment(oldRSs)
	}
	p.syncDeploymentStatus(withNew(oldRSs, newRS), newRS)
}

// checkPausedConditions is upstream's checkPausedConditions (sync.go): a
// Progressing condition that says the Deployment is paused or resumed, so
// that a long pause does not count against the progress deadline. A
// reported timeout is never replaced.
func (p *pass) checkPausedConditions() {
	d := p.d
	if !hasProgressDeadline(d) {
		return
	}
	cond := getCondition(d.Status, api.DeploymentProgressing)
	if cond != nil && cond.Reason == api.TimedOutReason {
		return
	}
	pausedCondExists := cond != nil && cond.Reason == api.PausedDeployReason
	switch {
	case d.Spec.Paused && !pausedCondExists:
		setCondition(&d.Status, p.newCondition(api.DeploymentProgressing, api.ConditionUnknown, api.PausedDeployReason, "Deployment is paused"))
	case !d.Spec.Paused && pausedCondExists:
		setCondition(&d.Status, p.newCondition(api.DeploymentProgressing, api.ConditionUnknown, api.ResumedDeployReason, "Deployment is resumed"))
	}
}

// isScalingEvent is upstream's isScalingEvent (sync.go): an active
// ReplicaSet whose desired-replicas annotation is not spec.replicas.
func (p *pass) isScalingEvent() (bool, error) {
	newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(false)
	if err != nil {
		return false, err
	}
	for _, rs := range filterActive(withNew(oldRSs, newRS)) {
		desired, ok := intAnnotation(rs, api.DesiredReplicasAnnotation)
		if !ok {
			continue
		}
		if desired != specReplicas(p.d) {
			return true, nil
		}
	}
	return false, nil
}

// getAllReplicaSetsAndSyncRevision is upstream's (sync.go): the new
// ReplicaSet (its revision and annotations synced, created when asked and
// missing) and all the old ones. Upstream calls it more than once a pass
// with the same list as read; so does this, and its writes are the same
// each time.
func (p *pass) getAllReplicaSetsAndSyncRevision(createIfNotExisted bool) (*api.ReplicaSet, []*api.ReplicaSet, error) {
	oldRSs := p.findOldReplicaSets()
	newRS, err := p.getNewReplicaSet(oldRSs, createIfNotExisted)
	if err != nil {
		return nil, nil, err
	}
	return newRS, oldRSs, nil
}

// findNewReplicaSet is upstream's FindNewReplicaSet (deployment_util.go):
// the oldest ReplicaSet whose template is the Deployment's, the
// pod-template-hash label aside (several may match after an upgrade of
// upstream's hashing; the oldest wins).
func (p *pass) findNewReplicaSet() *api.ReplicaSet {
	if p.matches == nil {
		p.matches = map[string]bool{}
	}
	for _, rs := range p.rsList {
		eq, seen := p.matches[rs.Name]
		if !seen {
			eq = equalIgnoreHash(&rs.Spec.Template, &p.d.Spec.Template)
			p.matches[rs.Name] = eq
		}
		if eq {
			return rs
		}
	}
	return nil
}

// findOldReplicaSets is upstream's FindOldReplicaSets (its second result):
// every ReplicaSet but the new one, oldest first.
func (p *pass) findOldReplicaSets() []*api.ReplicaSet {
	newRS := p.findNewReplicaSet()
	var old []*api.ReplicaSet
	for _, rs := range p.rsList {
		if rs != newRS {
			old = append(old, rs)
		}
	}
	return old
}

// getNewReplicaSet is upstream's getNewReplicaSet (sync.go). An existing
// new ReplicaSet gets the Deployment's annotations, the new revision and
// minReadySeconds; if that changed it, it is written and the pass goes on
// with the written copy (the Deployment's revision waits for the next
// pass). Otherwise the Deployment takes its revision, and a Progressing
// condition if it has none. A missing one is created when asked, with the
// replicas the strategy allows.
func (p *pass) getNewReplicaSet(oldRSs []*api.ReplicaSet, createIfNotExisted bool) (*api.ReplicaSet, error) {
	d := p.d
	existing := p.findNewReplicaSet()
	newRevision := strconv.FormatInt(maxRevision(oldRSs)+1, 10)

	if existing != nil {
		rsCopy := api.DeepCopy(existing)
		annotationsUpdated := setNewReplicaSetAnnotations(d, rsCopy, newRevision, true, rollout.MaxRevisionHistoryChars)
		minReadySecondsNeedsUpdate := rsCopy.Spec.MinReadySeconds != d.Spec.MinReadySeconds
		if annotationsUpdated || minReadySecondsNeedsUpdate {
			rsCopy.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			p.update(rsCopy)
			return rsCopy, nil
		}
		// The ReplicaSet's revision, not newRevision: it may be higher
		// when old ReplicaSets were deleted since it was set.
		setDeploymentRevision(d, rsCopy.Annotations[api.RevisionAnnotation])
		// A Deployment that never had a Progressing condition starts its
		// progress clock when its new ReplicaSet is first seen.
		if hasProgressDeadline(d) && getCondition(d.Status, api.DeploymentProgressing) == nil {
			msg := fmt.Sprintf("Found new replica set %q", rsCopy.Name)
			setCondition(&d.Status, p.newCondition(api.DeploymentProgressing, api.ConditionTrue, api.FoundNewRSReason, msg))
		}
		return rsCopy, nil
	}
	if !createIfNotExisted {
		return nil, nil
	}

	// The new ReplicaSet: named after the template's hash (the name is
	// deterministic, so a second create of it fails rather than
	// duplicating it), the hash in its labels, selector and template.
	template := api.DeepCopyValue(d.Spec.Template)
	hash := rollout.TemplateHash(template, d.Status.CollisionCount)
	template.Labels = cloneAndAddLabel(d.Spec.Template.Labels, api.DefaultDeploymentUniqueLabelKey, hash)
	zero := int32(0)
	newRS := &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{
			Name:            d.Name + "-" + hash,
			Namespace:       d.Namespace,
			OwnerReferences: []api.OwnerReference{controllerRef(d)},
			Labels:          cloneAndAddLabel(template.Labels, "", ""),
		},
		Spec: api.ReplicaSetSpec{
			Replicas:        &zero,
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        cloneSelectorAndAddLabel(d.Spec.Selector, api.DefaultDeploymentUniqueLabelKey, hash),
			Template:        template,
		},
	}
	newReplicasCount, err := newRSNewReplicas(d, withNew(oldRSs, newRS), newRS)
	if err != nil {
		return nil, err
	}
	*newRS.Spec.Replicas = newReplicasCount
	setNewReplicaSetAnnotations(d, newRS, newRevision, false, rollout.MaxRevisionHistoryChars)
	p.create = api.DeepCopy(newRS)
	if newReplicasCount > 0 {
		p.event("Normal", rollout.ScalingReplicaSet, fmt.Sprintf("Scaled up replica set %s from 0 to %d", newRS.Name, newReplicasCount))
	}
	setDeploymentRevision(d, newRevision)
	if hasProgressDeadline(d) {
		msg := fmt.Sprintf("Created new replica set %q", newRS.Name)
		setCondition(&d.Status, p.newCondition(api.DeploymentProgressing, api.ConditionTrue, api.NewReplicaSetReason, msg))
	}
	return newRS, nil
}

// newRSNewReplicas is upstream's NewRSNewReplicas (deployment_util.go):
// a rolling new ReplicaSet grows by what maxSurge leaves room for, never
// past spec.replicas; a recreated one gets spec.replicas at once.
func newRSNewReplicas(d *api.Deployment, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) (int32, error) {
	replicas := specReplicas(d)
	switch d.Spec.Strategy.Type {
	case api.RollingUpdateDeploymentStrategyType:
		var s *api.IntOrString
		if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
			s = ru.MaxSurge
		}
		surge, err := api.GetScaledValueFromIntOrPercent(s, int(replicas), true)
		if err != nil {
			return 0, errSync
		}
		current := replicaCount(allRSs)
		maxTotal := replicas + clampInt32(surge)
		if current >= maxTotal {
			return *newRS.Spec.Replicas, nil
		}
		scaleUp := min(maxTotal-current, replicas-*newRS.Spec.Replicas)
		return *newRS.Spec.Replicas + scaleUp, nil
	case api.RecreateDeploymentStrategyType:
		return replicas, nil
	}
	return 0, errSync
}

// The annotations the Deployment does not copy to its ReplicaSets
// (annotationsToSkip, deployment_util.go): kubectl's, and the ones the
// controller keeps itself.
var annotationsToSkip = map[string]bool{
	rollout.LastAppliedConfigAnnotation: true,
	api.RevisionAnnotation:              true,
	api.RevisionHistoryAnnotation:       true,
	api.DesiredReplicasAnnotation:       true,
	api.MaxReplicasAnnotation:           true,
	rollout.RollbackToAnnotation:        true,
}

// setNewReplicaSetAnnotations is upstream's SetNewReplicaSetAnnotations
// (deployment_util.go): the Deployment's annotations copied, the revision
// raised to newRevision when lower (the old one then joins the
// revision-history, the oldest entries dropped to stay within
// historyLimit characters), and for a ReplicaSet being created its
// desired-replicas and max-replicas. It reports whether rs changed. A
// revision that is not a number stops it there, reporting no change, as
// upstream does.
func setNewReplicaSetAnnotations(d *api.Deployment, rs *api.ReplicaSet, newRevision string, exists bool, historyLimit int) bool {
	changed := copyDeploymentAnnotations(d, rs)
	oldRevision, ok := rs.Annotations[api.RevisionAnnotation]
	oldRevisionInt, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil {
		if oldRevision != "" {
			return false
		}
		oldRevisionInt = 0
	}
	newRevisionInt, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return false
	}
	if oldRevisionInt < newRevisionInt {
		rs.Annotations[api.RevisionAnnotation] = newRevision
		changed = true
		// A ReplicaSet that had a revision and takes a newer one is
		// rolled back to: keep its old revisions.
		if ok {
			history := rs.Annotations[api.RevisionHistoryAnnotation]
			olds := strings.Split(history, ",")
			if len(olds[0]) == 0 {
				rs.Annotations[api.RevisionHistoryAnnotation] = oldRevision
			} else {
				total := len(history) + len(oldRevision) + 1
				start := 0
				for total > historyLimit && start < len(olds) {
					total -= len(olds[start]) + 1
					start++
				}
				if total <= historyLimit {
					rs.Annotations[api.RevisionHistoryAnnotation] = strings.Join(append(olds[start:], oldRevision), ",")
				}
			}
		}
	}
	if !exists && setReplicasAnnotations(rs, specReplicas(d), specReplicas(d)+maxSurge(d)) {
		changed = true
	}
	return changed
}

// copyDeploymentAnnotations is upstream's
// copyDeploymentAnnotationsToReplicaSet: every annotation but the skipped
// ones, reporting whether rs changed.
func copyDeploymentAnnotations(d *api.Deployment, rs *api.ReplicaSet) bool {
	changed := false
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	for k, v := range d.Annotations {
		if annotationsToSkip[k] || rs.Annotations[k] == v {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	return changed
}

// setReplicasAnnotations is upstream's SetReplicasAnnotations: the
// desired-replicas and max-replicas annotations, reporting a change.
func setReplicasAnnotations(rs *api.ReplicaSet, desired, max int32) bool {
	changed := false
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	if s := strconv.Itoa(int(desired)); rs.Annotations[api.DesiredReplicasAnnotation] != s {
		rs.Annotations[api.DesiredReplicasAnnotation] = s
		changed = true
	}
	if s := strconv.Itoa(int(max)); rs.Annotations[api.MaxReplicasAnnotation] != s {
		rs.Annotations[api.MaxReplicasAnnotation] = s
		changed = true
	}
	return changed
}

// replicasAnnotationsNeedUpdate is upstream's ReplicasAnnotationsNeedUpdate.
func replicasAnnotationsNeedUpdate(rs *api.ReplicaSet, desired, max int32) bool {
	return rs.Annotations[api.DesiredReplicasAnnotation] != strconv.Itoa(int(desired)) ||
		rs.Annotations[api.MaxReplicasAnnotation] != strconv.Itoa(int(max))
}

// setDeploymentRevision is upstream's SetDeploymentRevision.
func setDeploymentRevision(d *api.Deployment, revision string) {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[api.RevisionAnnotation] = revision
}

// revision is upstream's Revision (deployment_util.go): the revision
// annotation as a number, 0 when missing, an error when not a number.
func revision(rs *api.ReplicaSet) (int64, error) {
	v, ok := rs.Annotations[api.RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

// maxRevision is upstream's MaxRevision: the highest revision, those that
// are not numbers skipped.
func maxRevision(rss []*api.ReplicaSet) int64 {
	var max int64
	for _, rs := range rss {
		if v, err := revision(rs); err == nil && v > max {
			max = v
		}
	}
	return max
}

// intAnnotation is upstream's getIntFromAnnotation: an annotation as an
// int32, false when missing or not a number.
func intAnnotation(rs *api.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// update records a write of rs, a changed copy of a ReplicaSet as read.
// Upstream writes a ReplicaSet twice in a pass only to add to its first
// write (annotations synced, then scaled, each from the object the last
// write returned); here both are one write of the final object, since
// the loop writes with the resourceVersion read.
func (p *pass) update(rs *api.ReplicaSet) {
	if i, ok := p.updated[rs.Name]; ok {
		p.updates[i] = rs
		return
	}
	p.updated[rs.Name] = len(p.updates)
	p.updates = append(p.updates, rs)
}

// event records an Event on the Deployment.
func (p *pass) event(typ, reason, message string) {
	p.events = append(p.events, rollout.Event{Type: typ, Reason: reason, Message: message})
}

// controllerRef is upstream's NewControllerRef(d, controllerKind): d
// controls the ReplicaSet and blocks its deletion in the foreground.
func controllerRef(d *api.Deployment) api.OwnerReference {
	yes := true
	return api.OwnerReference{
		APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID,
		Controller: &yes, BlockOwnerDeletion: &yes,
	}
}

// cloneAndAddLabel is upstream's CloneAndAddLabel (pkg/util/labels): a
// copy of labels with key=value (no key: a plain copy).
func cloneAndAddLabel(labels map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	for k, v := range labels {
		out[k] = v
	}
	if key != "" {
		out[key] = value
	}
	return out
}

// cloneSelectorAndAddLabel is upstream's CloneSelectorAndAddLabel: a copy
// of the selector that also requires key=value.
func cloneSelectorAndAddLabel(sel *api.LabelSelector, key, value string) *api.LabelSelector {
	out := &api.LabelSelector{}
	var labels map[string]string
	if sel != nil {
		labels = sel.MatchLabels
		if sel.MatchExpressions != nil {
			out.MatchExpressions = api.DeepCopyValue(sel.MatchExpressions)
		}
	}
	out.MatchLabels = cloneAndAddLabel(labels, key, value)
	return out
}

// hasProgressDeadline is upstream's HasProgressDeadline: a deadline set and
// not MaxInt32 (which means none).
func hasProgressDeadline(d *api.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// hasRevisionHistoryLimit is upstream's HasRevisionHistoryLimit: a limit
// set and not MaxInt32 (which means keep everything).
func hasRevisionHistoryLimit(d *api.Deployment) bool {
	return d.Spec.RevisionHistoryLimit != nil && *d.Spec.RevisionHistoryLimit != math.MaxInt32
}

// withNew is upstream's append(oldRSs, newRS) in a slice of its own (the
// new ReplicaSet may be nil; every reader skips nil).
func withNew(oldRSs []*api.ReplicaSet, newRS *api.ReplicaSet) []*api.ReplicaSet {
	out := make([]*api.ReplicaSet, 0, len(oldRSs)+1)
	return append(append(out, oldRSs...), newRS)
}

// filterActive is upstream's FilterActiveReplicaSets (pkg/controller/
// controller_utils.go): the ReplicaSets asked for pods.
func filterActive(rss []*api.ReplicaSet) []*api.ReplicaSet {
	var out []*api.ReplicaSet
	for _, rs := range rss {
		if rs != nil && *rs.Spec.Replicas > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// replicaCount is upstream's GetReplicaCountForReplicaSets: the sum of
// spec.replicas.
func replicaCount(rss []*api.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += *rs.Spec.Replicas
		}
	}
	return n
}

// byCreation is upstream's ReplicaSetsByCreationTimestamp
// (controller_utils.go): oldest first, then by name.
func byCreation(a, b *api.ReplicaSet) bool {
	if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.Name < b.Name
	}
	return a.CreationTimestamp.Before(&b.CreationTimestamp)
}

func sortByCreation(rss []*api.ReplicaSet) {
	sort.SliceStable(rss, func(i, j int) bool { return byCreation(rss[i], rss[j]) })
}

// equalIgnoreHash is upstream's EqualIgnoreHash (deployment_util.go): two
// templates equal once both lose their pod-template-hash label, compared
// as upstream's apiequality.Semantic does.
func equalIgnoreHash(a, b *api.PodTemplateSpec) bool {
	// Shallow copies with the labels swapped for copies without the
	// hash: semanticEqual only reads, so the rest may stay shared.
	ac, bc := *a, *b
	ac.Labels, bc.Labels = withoutHash(a.Labels), withoutHash(b.Labels)
	return semanticEqual(reflect.ValueOf(ac), reflect.ValueOf(bc))
}

// withoutHash is labels without the pod-template-hash label: labels
// itself when it has none, else a copy.
func withoutHash(labels map[string]string) map[string]string {
	if _, ok := labels[api.DefaultDeploymentUniqueLabelKey]; !ok {
		return labels
	}
	out := make(map[string]string, len(labels)-1)
	for k, v := range labels {
		if k != api.DefaultDeploymentUniqueLabelKey {
			out[k] = v
		}
	}
	return out
}

var (
	timeType      = reflect.TypeOf(api.Time{})
	microTimeType = reflect.TypeOf(api.MicroTime{})
	quantityType  = reflect.TypeOf(api.Quantity{})
)

// semanticEqual is apimachinery's equality.Semantic.DeepEqual: a nil and
// an empty slice or map are equal (a template that went through JSON and
// one built in Go must match), quantities compare by value and times by
// instant.
func semanticEqual(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Type() {
	case timeType:
		x, y := a.Interface().(api.Time), b.Interface().(api.Time)
		return x.Time.Equal(y.Time)
	case microTimeType:
		x, y := a.Interface().(api.MicroTime), b.Interface().(api.MicroTime)
		return x.Time.Equal(y.Time)
	case quantityType:
		return a.Interface().(api.Quantity).Cmp(b.Interface().(api.Quantity)) == 0
	}
	switch a.Kind() {
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !semanticEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if !semanticEqual(a.MapIndex(k), b.MapIndex(k)) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return semanticEqual(a.Elem(), b.Elem())
	case reflect.Struct:
		t := a.Type()
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				// A type of unexported parts compares as a whole.
				return reflect.DeepEqual(a.Interface(), b.Interface())
			}
		}
		for i := 0; i < t.NumField(); i++ {
			if !semanticEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}
