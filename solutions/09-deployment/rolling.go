package deployment

import (
	"fmt"
	"math"
	"sort"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/rollout"
)

// rolloutRolling is upstream's rolloutRolling (rolling.go): the new
// ReplicaSet (created if missing) is scaled up if it can be, else the old
// ones down if they can be; a pass that scales stops there. A rollout
// complete as the status says has its history cleaned.
func (p *pass) rolloutRolling() {
	newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(true)
	if err != nil {
		return
	}
	allRSs := withNew(oldRSs, newRS)

	if p.reconcileNewReplicaSet(allRSs, newRS) {
		p.syncRolloutStatus(allRSs, newRS)
		return
	}
	if p.reconcileOldReplicaSets(allRSs, filterActive(oldRSs), newRS) {
		p.syncRolloutStatus(allRSs, newRS)
		return
	}
	if deploymentComplete(p.d, &p.d.Status) {
		p.cleanupDeployment(oldRSs)
	}
	p.syncRolloutStatus(allRSs, newRS)
}

// reconcileNewReplicaSet is upstream's reconcileNewReplicaSet: a new
// ReplicaSet above spec.replicas goes down to it; below, it grows as far
// as maxSurge allows. It reports whether it scaled.
func (p *pass) reconcileNewReplicaSet(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) bool {
	replicas := specReplicas(p.d)
	if *newRS.Spec.Replicas == replicas {
		return false
	}
	if *newRS.Spec.Replicas > replicas {
		scaled, _ := p.scaleReplicaSetAndRecordEvent(newRS, replicas)
		return scaled
	}
	newReplicasCount, err := newRSNewReplicas(p.d, allRSs, newRS)
	if err != nil {
		return false
	}
	scaled, _ := p.scaleReplicaSetAndRecordEvent(newRS, newReplicasCount)
	return scaled
}

// reconcileOldReplicaSets is upstream's reconcileOldReplicaSets: the old
// ReplicaSets may lose at most all pods − minAvailable − the new
// ReplicaSet's unavailable pods (so that a new ReplicaSet whose pods do
// not come up does not drain the old ones); their unavailable pods go
// first, then available ones while more than minAvailable are available.
// It reports whether it scaled.
func (p *pass) reconcileOldReplicaSets(allRSs, oldRSs []*api.ReplicaSet, newRS *api.ReplicaSet) bool {
	if replicaCount(oldRSs) == 0 {
		return false
	}
	allPodsCount := replicaCount(allRSs)
	minAvailable := specReplicas(p.d) - maxUnavailable(p.d)
	newRSUnavailablePodCount := *newRS.Spec.Replicas - newRS.Status.AvailableReplicas
	maxScaledDown := allPodsCount - minAvailable - newRSUnavailablePodCount
	if maxScaledDown <= 0 {
		return false
	}
	oldRSs, cleanupCount, err := p.cleanupUnhealthyReplicas(oldRSs, maxScaledDown)
	if err != nil {
		// Upstream reports no scaling and goes on with the pass.
		return false
	}
	allRSs = withNew(oldRSs, newRS)
	scaledDownCount, err := p.scaleDownOldReplicaSetsForRollingUpdate(allRSs, oldRSs)
	if err != nil {
		return false
	}
	return cleanupCount+scaledDownCount > 0
}

// cleanupUnhealthyReplicas is upstream's cleanupUnhealthyReplicas: the old
// ReplicaSets, oldest first, lose their unavailable pods, at most
// maxCleanupCount in all (the ReplicaSet controller deletes unready pods
// first, so this costs no availability). It returns the old ReplicaSets as
// they are after it.
func (p *pass) cleanupUnhealthyReplicas(oldRSs []*api.ReplicaSet, maxCleanupCount int32) ([]*api.ReplicaSet, int32, error) {
	sortByCreation(oldRSs)
	var totalScaledDown int32
	for i, target := range oldRSs {
		if totalScaledDown >= maxCleanupCount {
			break
		}
		if *target.Spec.Replicas == 0 || *target.Spec.Replicas == target.Status.AvailableReplicas {
			continue
		}
		scaledDownCount := min(maxCleanupCount-totalScaledDown, *target.Spec.Replicas-target.Status.AvailableReplicas)
		newReplicasCount := *target.Spec.Replicas - scaledDownCount
		if newReplicasCount > *target.Spec.Replicas {
			// More available than asked for (a ReplicaSet just scaled
			// down): upstream refuses the scale as invalid.
			return nil, 0, fmt.Errorf("deployment: cleaning up unhealthy replicas: invalid scale of %s from %d to %d", target.Name, *target.Spec.Replicas, newReplicasCount)
		}
		_, updated := p.scaleReplicaSetAndRecordEvent(target, newReplicasCount)
		totalScaledDown += scaledDownCount
		oldRSs[i] = updated
	}
	return oldRSs, totalScaledDown, nil
}

// scaleDownOldReplicaSetsForRollingUpdate is upstream's: while more pods
// are available than minAvailable, the old ReplicaSets shrink, oldest
// first.
func (p *pass) scaleDownOldReplicaSetsForRollingUpdate(allRSs, oldRSs []*api.ReplicaSet) (int32, error) {
	minAvailable := specReplicas(p.d) - maxUnavailable(p.d)
	availablePodCount := availableCount(allRSs)
	if availablePodCount <= minAvailable {
		return 0, nil
	}
	sortByCreation(oldRSs)
	var totalScaledDown int32
	totalScaleDownCount := availablePodCount - minAvailable
	for _, target := range oldRSs {
		if totalScaledDown >= totalScaleDownCount {
			break
		}
		if *target.Spec.Replicas == 0 {
			continue
		}
		scaleDownCount := min(*target.Spec.Replicas, totalScaleDownCount-totalScaledDown)
		newReplicasCount := *target.Spec.Replicas - scaleDownCount
		if newReplicasCount > *target.Spec.Replicas {
			return 0, fmt.Errorf("deployment: scaling down old replica sets: invalid scale of %s from %d to %d", target.Name, *target.Spec.Replicas, newReplicasCount)
		}
		p.scaleReplicaSetAndRecordEvent(target, newReplicasCount)
		totalScaledDown += scaleDownCount
	}
	return totalScaledDown, nil
}

// rolloutRecreate is upstream's rolloutRecreate (recreate.go): every old
// ReplicaSet to 0 first; nothing more while an old pod runs; then the new
// ReplicaSet, created if missing, at spec.replicas.
func (p *pass) rolloutRecreate() {
	// The new ReplicaSet is not created yet, so that nothing is scaled
	// up before the old pods are gone.
	newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(false)
	if err != nil {
		return
	}
	allRSs := withNew(oldRSs, newRS)

	if p.scaleDownOldReplicaSetsForRecreate(filterActive(oldRSs)) {
		p.syncRolloutStatus(allRSs, newRS)
		return
	}
	if p.oldPodsRunning(newRS, oldRSs) {
		p.syncRolloutStatus(allRSs, newRS)
		return
	}
	if newRS == nil {
		newRS, oldRSs, err = p.getAllReplicaSetsAndSyncRevision(true)
		if err != nil {
			return
		}
		allRSs = withNew(oldRSs, newRS)
	}
	p.scaleReplicaSetAndRecordEvent(newRS, specReplicas(p.d))
	if deploymentComplete(p.d, &p.d.Status) {
		p.cleanupDeployment(oldRSs)
	}
	p.syncRolloutStatus(allRSs, newRS)
}

// scaleDownOldReplicaSetsForRecreate is upstream's: every active old
// ReplicaSet to 0, reporting whether any was scaled.
func (p *pass) scaleDownOldReplicaSetsForRecreate(oldRSs []*api.ReplicaSet) bool {
	scaled := false
	for _, rs := range oldRSs {
		if *rs.Spec.Replicas == 0 {
			continue
		}
		if ok, _ := p.scaleReplicaSetAndRecordEvent(rs, 0); ok {
			scaled = true
		}
	}
	return scaled
}

// oldPodsRunning is upstream's oldPodsRunning (recreate.go): an old
// ReplicaSet still counts pods, or a pod of one that is neither Succeeded
// nor Failed exists. Pods are grouped by the ReplicaSet that controls
// them, as upstream's getPodMapForDeployment does; others are not looked
// at.
func (p *pass) oldPodsRunning(newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) bool {
	for _, rs := range oldRSs {
		if rs.Status.Replicas > 0 {
			return true
		}
	}
	old := map[api.UID]bool{}
	for _, rs := range p.rsList {
		if newRS == nil || rs.UID != newRS.UID {
			old[rs.UID] = true
		}
	}
	for i := range p.in.Pods {
		pod := &p.in.Pods[i]
		ref := api.GetControllerOf(pod)
		if ref == nil || !old[ref.UID] {
			continue
		}
		switch pod.Status.Phase {
		case api.PodSucceeded, api.PodFailed:
			continue
		}
		return true
	}
	return false
}

// scale is upstream's scale (sync.go), on a scaling event or for a paused
// Deployment: a lone active ReplicaSet (or, with none, the newest) takes
// spec.replicas; a saturated new one leaves the old ones at 0; else a
// rolling Deployment shares what it gains or loses among its active
// ReplicaSets in proportion to their size, so that a scale in the middle
// of a rollout neither hastens nor slows it.
func (p *pass) scale(newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) {
	d := p.d
	replicas := specReplicas(d)
	if activeOrLatest := findActiveOrLatest(newRS, oldRSs); activeOrLatest != nil {
		if *activeOrLatest.Spec.Replicas != replicas {
			p.scaleReplicaSetAndRecordEvent(activeOrLatest, replicas)
		}
		return
	}
	if isSaturated(d, newRS) {
		for _, old := range filterActive(oldRSs) {
			p.scaleReplicaSetAndRecordEvent(old, 0)
		}
		return
	}
	if !isRollingUpdate(d) {
		return
	}
	allRSs := filterActive(withNew(oldRSs, newRS))
	allowedSize := int32(0)
	if replicas > 0 {
		allowedSize = replicas + maxSurge(d)
	}
	// What to add (or, negative, remove) across the active ReplicaSets:
	// the largest first; on a tie the newer first when adding and the
	// older first when removing (ReplicaSetsBySizeNewer/Older).
	toAdd := allowedSize - replicaCount(allRSs)
	switch {
	case toAdd > 0:
		sort.SliceStable(allRSs, func(i, j int) bool {
			a, b := allRSs[i], allRSs[j]
			if *a.Spec.Replicas == *b.Spec.Replicas {
				return byCreation(b, a)
			}
			return *a.Spec.Replicas > *b.Spec.Replicas
		})
	case toAdd < 0:
		sort.SliceStable(allRSs, func(i, j int) bool {
			a, b := allRSs[i], allRSs[j]
			if *a.Spec.Replicas == *b.Spec.Replicas {
				return byCreation(a, b)
			}
			return *a.Spec.Replicas > *b.Spec.Replicas
		})
	}
	var added int32
	sizes := make([]int32, len(allRSs))
	for i, rs := range allRSs {
		sizes[i] = *rs.Spec.Replicas
		if toAdd != 0 {
			proportion := getProportion(rs, d, toAdd, added)
			sizes[i] += proportion
			added += proportion
		}
	}
	for i, rs := range allRSs {
		// What rounding left over goes to the largest.
		if i == 0 && toAdd != 0 {
			sizes[i] += toAdd - added
			if sizes[i] < 0 {
				sizes[i] = 0
			}
		}
		p.scaleReplicaSet(rs, sizes[i])
	}
}

// findActiveOrLatest is upstream's FindActiveOrLatest (deployment_util.go):
// the only active ReplicaSet; with none, the new one or else the newest
// old one; with several, nil. Like upstream it sorts oldRSs newest first.
func findActiveOrLatest(newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) *api.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	sort.SliceStable(oldRSs, func(i, j int) bool { return byCreation(oldRSs[j], oldRSs[i]) })
	active := filterActive(withNew(oldRSs, newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return oldRSs[0]
	case 1:
		return active[0]
	}
	return nil
}

// isSaturated is upstream's IsSaturated: the new ReplicaSet is asked for,
// annotated with and has available all of spec.replicas.
func isSaturated(d *api.Deployment, rs *api.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, ok := intAnnotation(rs, api.DesiredReplicasAnnotation)
	if !ok {
		return false
	}
	replicas := specReplicas(d)
	return *rs.Spec.Replicas == replicas && desired == replicas && rs.Status.AvailableReplicas == replicas
}

// getProportion is upstream's GetProportion: rs's share of what is to be
// added or removed, never past what is left of it.
func getProportion(rs *api.ReplicaSet, d *api.Deployment, toAdd, added int32) int32 {
	if rs == nil || *rs.Spec.Replicas == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	fraction := getReplicaSetFraction(rs, d)
	allowed := toAdd - added
	if toAdd > 0 {
		return min(fraction, allowed)
	}
	return max(fraction, allowed)
}

// getReplicaSetFraction is upstream's getReplicaSetFraction: what rs
// would have if it kept its share of the Deployment's maximum size, the
// max-replicas annotation saying what that maximum was when rs got its
// size (the Deployment's status.replicas when the annotation is missing).
// Rounded half away from zero (upstream's integer.RoundToInt32).
func getReplicaSetFraction(rs *api.ReplicaSet, d *api.Deployment) int32 {
	replicas := specReplicas(d)
	if replicas == 0 {
		return -*rs.Spec.Replicas
	}
	deploymentReplicas := replicas + maxSurge(d)
	annotated, ok := intAnnotation(rs, api.MaxReplicasAnnotation)
	if !ok {
		annotated = d.Status.Replicas
	}
	if annotated <= 0 {
		// Upstream divides by zero here; no share is the safe reading.
		return 0
	}
	size := float64(int64(*rs.Spec.Replicas)*int64(deploymentReplicas)) / float64(annotated)
	return clampInt32(int(math.Round(size))) - *rs.Spec.Replicas
}

// scaleReplicaSetAndRecordEvent is upstream's: nothing when rs already
// has newScale, else scaleReplicaSet. It returns whether rs was scaled and
// rs as it is after.
func (p *pass) scaleReplicaSetAndRecordEvent(rs *api.ReplicaSet, newScale int32) (bool, *api.ReplicaSet) {
	if *rs.Spec.Replicas == newScale {
		return false, rs
	}
	return p.scaleReplicaSet(rs, newScale)
}

// scaleReplicaSet is upstream's scaleReplicaSet (sync.go): rs written with
// newScale and the Deployment's desired-replicas and max-replicas when
// either differs, and an Event when its size changed.
func (p *pass) scaleReplicaSet(rs *api.ReplicaSet, newScale int32) (bool, *api.ReplicaSet) {
	d := p.d
	desired, maxReplicas := specReplicas(d), specReplicas(d)+maxSurge(d)
	sizeNeedsUpdate := *rs.Spec.Replicas != newScale
	if !sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, desired, maxReplicas) {
		return false, rs
	}
	oldScale := *rs.Spec.Replicas
	rsCopy := api.DeepCopy(rs)
	*rsCopy.Spec.Replicas = newScale
	setReplicasAnnotations(rsCopy, desired, maxReplicas)
	p.update(rsCopy)
	if sizeNeedsUpdate {
		op := "down"
		if oldScale < newScale {
			op = "up"
		}
		p.event("Normal", rollout.ScalingReplicaSet, fmt.Sprintf("Scaled %s replica set %s from %d to %d", op, rsCopy.Name, oldScale, newScale))
	}
	return sizeNeedsUpdate, rsCopy
}

// cleanupDeployment is upstream's cleanupDeployment (sync.go): the old
// ReplicaSets beyond revisionHistoryLimit go, lowest revision first,
// except those not being deleted already that still have pods, are asked
// for some, or whose last change their controller has not seen.
func (p *pass) cleanupDeployment(oldRSs []*api.ReplicaSet) {
	d := p.d
	if !hasRevisionHistoryLimit(d) {
		return
	}
	var cleanable []*api.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			cleanable = append(cleanable, rs)
		}
	}
	diff := len(cleanable) - int(*d.Spec.RevisionHistoryLimit)
	if diff <= 0 {
		return
	}
	// ReplicaSetsByRevision (deployment_util.go): by revision, by age
	// when either is not a number or they are equal.
	sort.SliceStable(cleanable, func(i, j int) bool {
		a, b := cleanable[i], cleanable[j]
		ra, errA := revision(a)
		rb, errB := revision(b)
		if errA != nil || errB != nil || ra == rb {
			return byCreation(a, b)
		}
		return ra < rb
	})
	for _, rs := range cleanable[:diff] {
		if rs.Status.Replicas != 0 || *rs.Spec.Replicas != 0 || rs.Generation > rs.Status.ObservedGeneration || rs.DeletionTimestamp != nil {
			continue
		}
		p.deletes = append(p.deletes, rs.Name)
	}
}
