package rollouttest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of steps 06-10 (Plan's rules 3-6 and 10-12, and
// rollback through rules 1 and 2): each breaks one rule in the
// reference's source (solutions/09-deployment) and must fail exactly the
// steps it lists.

func init() {
	addBugs(pureBugs, map[string]planted.Bug{
		// Rule 3: a Deployment being deleted is rolled out like any
		// other.
		"deleting-rolled-out": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tif d.DeletionTimestamp != nil {\n\t\tp.syncStatusOnly()\n\t\treturn\n\t}\n", New: ""}},
			Fails: []string{"07-status"},
		},
		// Rule 3: a Deployment being deleted has its progress estimated
		// (rule 12) with its status.
		"deleting-progress-checked": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tp.syncDeploymentStatus(withNew(oldRSs, newRS), newRS)\n}\n\n// sync is", New: "\tp.syncRolloutStatus(withNew(oldRSs, newRS), newRS)\n}\n\n// sync is"}},
			Fails: []string{"07-status"},
		},

		// Rule 4: a paused Deployment gets no DeploymentPaused condition.
		"no-paused-condition": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tcase d.Spec.Paused && !pausedCondExists:\n\t\tsetCondition(&d.Status, p.newCondition(api.DeploymentProgressing, api.ConditionUnknown, api.PausedDeployReason, \"Deployment is paused\"))\n", New: ""}},
			Fails: []string{"08-progress"},
		},
		// Rule 4: a resumed Deployment keeps DeploymentPaused, so its
		// deadline counts from when it was paused.
		"no-resumed-condition": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tcase !d.Spec.Paused && pausedCondExists:\n\t\tsetCondition(&d.Status, p.newCondition(api.DeploymentProgressing, api.ConditionUnknown, api.ResumedDeployReason, \"Deployment is resumed\"))\n", New: ""}},
			Fails: []string{"08-progress"},
		},
		// Rule 4: pausing replaces ProgressDeadlineExceeded.
		"pause-replaces-timeout": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tif cond != nil && cond.Reason == api.TimedOutReason {\n\t\treturn\n\t}\n\tpausedCondExists", New: "\tpausedCondExists"}},
			Fails: []string{"08-progress"},
		},

		// Rule 5: a paused Deployment is rolled out (a new ReplicaSet
		// created, progress checked, no history cleaned).
		"paused-rolled-out": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tif d.Spec.Paused {\n\t\tp.sync()\n\t\treturn\n\t}\n", New: ""}},
			Fails: []string{"06-proportional", "08-progress", "10-history"},
		},
		// Rule 5: no scaling events: a scaled Deployment is rolled out.
		"no-scaling-event": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\tif desired != specReplicas(p.d) {\n\t\t\treturn true, nil\n\t\t}", New: "\t\t_ = desired"}},
			Fails: []string{"06-proportional", "10-history"},
		},
		// Rule 5: a ReplicaSet with no replicas and a stale
		// desired-replicas annotation makes a scaling event.
		"scaling-event-counts-inactive": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tfor _, rs := range filterActive(withNew(oldRSs, newRS)) {\n\t\tdesired, ok := intAnnotation(rs, api.DesiredReplicasAnnotation)", New: "\tfor _, rs := range withNew(oldRSs, newRS) {\n\t\tif rs == nil {\n\t\t\tcontinue\n\t\t}\n\t\tdesired, ok := intAnnotation(rs, api.DesiredReplicasAnnotation)"}},
			Fails: []string{"06-proportional"},
		},
		// Rule 5: a scaling event or a pause creates the new ReplicaSet.
		"sync-creates": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tnewRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(false)\n\tif err != nil {\n\t\treturn\n\t}\n\tp.scale(newRS, oldRSs)", New: "\tnewRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(true)\n\tif err != nil {\n\t\treturn\n\t}\n\tp.scale(newRS, oldRSs)"}},
			Fails: []string{"06-proportional"},
		},
		// Rule 5: a scaling event cleans the history too.
		"scaling-event-cleans": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tif p.d.Spec.Paused {\n\t\tp.cleanupDeployment(oldRSs)\n\t}", New: "\tp.cleanupDeployment(oldRSs)"}},
			Fails: []string{"10-history"},
		},
		// Rule 5: a paused Deployment's history is not cleaned.
		"paused-not-cleaned": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tif p.d.Spec.Paused {\n\t\tp.cleanupDeployment(oldRSs)\n\t}", New: ""}},
			Fails: []string{"10-history"},
		},
		// Rules 5 and 12: a paused Deployment or a scaling event has its
		// progress estimated and its deadline checked.
		"sync-checks-progress": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\tp.cleanupDeployment(oldRSs)\n\t}\n\tp.syncDeploymentStatus(withNew(oldRSs, newRS), newRS)", New: "\t\tp.cleanupDeployment(oldRSs)\n\t}\n\tp.syncRolloutStatus(withNew(oldRSs, newRS), newRS)"}},
			Fails: []string{"08-progress"},
		},

		// Rule 6: with no active ReplicaSet the newest old one is taken
		// before the new one.
		"inactive-newest-old-first": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\t\tif newRS != nil {\n\t\t\treturn newRS\n\t\t}\n\t\treturn oldRSs[0]", New: "\t\tif len(oldRSs) > 0 {\n\t\t\treturn oldRSs[0]\n\t\t}\n\t\treturn newRS"}},
			Fails: []string{"06-proportional"},
		},
		// Rule 6: with no active ReplicaSet and no new one, the oldest
		// old one is taken.
		"inactive-oldest-old": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "sort.SliceStable(oldRSs, func(i, j int) bool { return byCreation(oldRSs[j], oldRSs[i]) })\n\tactive := ", New: "sort.SliceStable(oldRSs, func(i, j int) bool { return byCreation(oldRSs[i], oldRSs[j]) })\n\tactive := "}},
			Fails: []string{"06-proportional"},
		},
		// Rule 6: a lone active ReplicaSet is scaled in proportion, not
		// given spec.replicas.
		"lone-active-shared": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tcase 1:\n\t\treturn active[0]\n", New: "\tcase 1:\n\t\treturn nil\n"}},
			Fails: []string{"06-proportional"},
		},
		// Rule 6: a new ReplicaSet is saturated without all its pods
		// available.
		"saturated-without-available": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "desired == replicas && rs.Status.AvailableReplicas == replicas", New: "desired == replicas"}},
			Fails: []string{"06-proportional"},
		},
		// Rule 6: a saturated new ReplicaSet does not send the old ones to
		// 0 (they are scaled in proportion).
		"saturation-ignored": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tif isSaturated(d, newRS) {", New: "\tif false && isSaturated(d, newRS) {"}},
			Fails: []string{"06-proportional"},
		},
		// Rule 6: on a tie, the older first when adding.
		"tie-older-first-adding": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\t\t\tif *a.Spec.Replicas == *b.Spec.Replicas {\n\t\t\t\treturn byCreation(b, a)\n\t\t\t}", New: "\t\t\tif *a.Spec.Replicas == *b.Spec.Replicas {\n\t\t\t\treturn byCreation(a, b)\n\t\t\t}"}},
			Fails: []string{"06-proportional", "10-history"},
		},
		// Rule 6: on a tie, the newer first when removing.
		"tie-newer-first-removing": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tcase toAdd < 0:\n\t\tsort.SliceStable(allRSs, func(i, j int) bool {\n\t\t\ta, b := allRSs[i], allRSs[j]\n\t\t\tif *a.Spec.Replicas == *b.Spec.Replicas {\n\t\t\t\treturn byCreation(a, b)", New: "\tcase toAdd < 0:\n\t\tsort.SliceStable(allRSs, func(i, j int) bool {\n\t\t\ta, b := allRSs[i], allRSs[j]\n\t\t\tif *a.Spec.Replicas == *b.Spec.Replicas {\n\t\t\t\treturn byCreation(b, a)"}},
			Fails: []string{"06-proportional"},
		},
		// Rule 6: the newest first when adding, whatever the sizes.
		"newest-first-adding": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\t\t\t\treturn byCreation(b, a)\n\t\t\t}\n\t\t\treturn *a.Spec.Replicas > *b.Spec.Replicas", New: "\t\t\t\treturn byCreation(b, a)\n\t\t\t}\n\t\t\treturn byCreation(b, a)"}},
			Fails: []string{"06-proportional"},
		},
		// Rule 6: shares truncated, not rounded half away from zero.
		"share-truncated": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "clampInt32(int(math.Round(size)))", New: "clampInt32(int(math.Trunc(size)))"}},
			Fails: []string{"06-proportional", "10-history"},
		},
		// Rule 6: what rounding leaves over is dropped.
		"leftover-dropped": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\t\t\tsizes[i] += toAdd - added\n", New: ""}},
			Fails: []string{"06-proportional", "10-history"},
		},
		// Rule 6: scaling to 0 still allows maxSurge pods.
		"surge-allowed-at-zero": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tif replicas > 0 {\n\t\tallowedSize = replicas + maxSurge(d)\n\t}", New: "\tallowedSize = replicas + maxSurge(d)"}},
			Fails: []string{"06-proportional"},
		},
		// Rule 6: the shares of spec.replicas, not spec.replicas +
		// maxSurge.
		"share-without-surge": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tdeploymentReplicas := replicas + maxSurge(d)\n", New: "\tdeploymentReplicas := replicas\n"}},
			Fails: []string{"06-proportional", "10-history"},
		},
		// Rule 6: a ReplicaSet whose size stays is not written, its
		// annotations left stale.
		"annotations-only-not-written": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tif !sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, desired, maxReplicas) {", New: "\tif !sizeNeedsUpdate {"}},
			Fails: []string{"06-proportional"},
		},
		// Rule 6: a scaled ReplicaSet keeps its desired-replicas and
		// max-replicas annotations.
		"scale-keeps-annotations": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\t*rsCopy.Spec.Replicas = newScale\n\tsetReplicasAnnotations(rsCopy, desired, maxReplicas)", New: "\t*rsCopy.Spec.Replicas = newScale"}},
			Fails: []string{"03-scale-up", "04-scale-down", "06-proportional", "10-history"},
		},

		// Rule 11: updatedReplicas counts every ReplicaSet's pods.
		"updated-counts-all": {
			Edits: []planted.Edit{{File: "status.go", Old: "UpdatedReplicas:     actualCount([]*api.ReplicaSet{newRS}),", New: "UpdatedReplicas:     actualCount(allRSs),"}},
			Fails: []string{"07-status", "08-progress"},
		},
		// Rule 11: replicas from the ReplicaSets' spec, not their status.
		"replicas-from-spec": {
			Edits: []planted.Edit{{File: "status.go", Old: "Replicas:            actualCount(allRSs),", New: "Replicas:            replicaCount(allRSs),"}},
			Fails: []string{"07-status", "08-progress"},
		},
		// Rule 11: readyReplicas is the available count.
		"ready-as-available": {
			Edits: []planted.Edit{{File: "status.go", Old: "ReadyReplicas:       readyCount(allRSs),", New: "ReadyReplicas:       availableCount(allRSs),"}},
			Fails: []string{"07-status", "08-progress"},
		},
		// Rule 11: unavailableReplicas from the pods there are, not the
		// spec total.
		"unavailable-from-status": {
			Edits: []planted.Edit{{File: "status.go", Old: "unavailable := max(replicaCount(allRSs)-available, 0)", New: "unavailable := max(actualCount(allRSs)-available, 0)"}},
			Fails: []string{"07-status", "08-progress"},
		},
		// Rule 11: unavailableReplicas below 0 when more are available.
		"unavailable-negative": {
			Edits: []planted.Edit{{File: "status.go", Old: "unavailable := max(replicaCount(allRSs)-available, 0)", New: "unavailable := replicaCount(allRSs) - available"}},
			Fails: []string{"07-status"},
		},
		// Rule 11: observedGeneration left as it was.
		"generation-not-observed": {
			Edits: []planted.Edit{{File: "status.go", Old: "ObservedGeneration:  d.Generation,", New: "ObservedGeneration:  d.Status.ObservedGeneration,"}},
			Fails: []string{"07-status"},
		},
		// Rule 11: collisionCount dropped from the status.
		"collision-count-dropped": {
			Edits: []planted.Edit{{File: "status.go", Old: "\t\tCollisionCount:      d.Status.CollisionCount,\n", New: ""}},
			Fails: []string{"07-status"},
		},
		// Rule 11: exactly spec.replicas − maxUnavailable available is
		// not enough.
		"availability-strict": {
			Edits: []planted.Edit{{File: "status.go", Old: "if available >= specReplicas(d)-maxUnavailable(d) {", New: "if available > specReplicas(d)-maxUnavailable(d) {"}},
			Fails: []string{"07-status", "08-progress"},
		},
		// Rule 11: a condition whose status and reason stay is stamped
		// anew.
		"condition-restamped": {
			Edits: []planted.Edit{{File: "status.go", Old: "\tif current != nil && current.Status == c.Status && current.Reason == c.Reason {\n\t\treturn\n\t}\n", New: ""}},
			Fails: []string{"07-status", "08-progress"},
		},
		// Rule 11: a condition whose reason changes but whose status
		// stays gets a new lastTransitionTime.
		"transition-on-reason-change": {
			Edits: []planted.Edit{{File: "status.go", Old: "\tif current != nil && current.Status == c.Status {\n\t\tc.LastTransitionTime = current.LastTransitionTime\n\t}\n", New: ""}},
			Fails: []string{"07-status", "08-progress"},
		},
		// Rule 11: the status is written even when it comes out as given.
		"status-always-written": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if !reflect.DeepEqual(orig.Status, p.d.Status) {", New: "if true {"}},
			Fails: []string{"07-status", "08-progress"},
		},

		// Rule 12: a complete rollout is reported as progressing.
		"complete-not-reported": {
			Edits: []planted.Edit{{File: "status.go", Old: "\t\tcase deploymentComplete(d, &newStatus):", New: "\t\tcase false && deploymentComplete(d, &newStatus):"}},
			Fails: []string{"08-progress"},
		},
		// Rule 12: progress with the same reason keeps lastUpdateTime
		// (setCondition alone), so the deadline counts from the first
		// progress.
		"progress-not-restamped": {
			Edits: []planted.Edit{{File: "status.go", Old: "\t\t\t\tremoveCondition(&newStatus, api.DeploymentProgressing)\n\t\t\t}\n\t\t\tsetCondition(&newStatus, cond)", New: "\t\t\t}\n\t\t\tsetCondition(&newStatus, cond)"}},
			Fails: []string{"08-progress"},
		},
		// Rule 12: progress gives a new lastTransitionTime even after a
		// True condition.
		"progress-transition-renewed": {
			Edits: []planted.Edit{{File: "status.go", Old: "\t\t\t\tif currentCond.Status == api.ConditionTrue {\n\t\t\t\t\tcond.LastTransitionTime = currentCond.LastTransitionTime\n\t\t\t\t}\n", New: ""}},
			Fails: []string{"08-progress"},
		},
		// Rule 12: progress keeps the lastTransitionTime of a False
		// condition too.
		"progress-transition-from-false": {
			Edits: []planted.Edit{{File: "status.go", Old: "\t\t\t\tif currentCond.Status == api.ConditionTrue {", New: "\t\t\t\tif true {"}},
			Fails: []string{"08-progress"},
		},
		// Rule 12: more ready pods is not progress.
		"ready-not-progress": {
			Edits: []planted.Edit{{File: "status.go", Old: "\t\ts.ReadyReplicas > old.ReadyReplicas ||\n", New: ""}},
			Fails: []string{"08-progress"},
		},
		// Rule 12: fewer old pods is not progress.
		"fewer-old-not-progress": {
			Edits: []planted.Edit{{File: "status.go", Old: "\t\ts.Replicas-s.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||\n", New: ""}},
			Fails: []string{"08-progress"},
		},
		// Rule 12: a complete rollout is checked again.
		"complete-rechecked": {
			Edits: []planted.Edit{{File: "status.go", Old: "isCompleteDeployment := newStatus.Replicas == newStatus.UpdatedReplicas && currentCond != nil && currentCond.Reason == api.NewRSAvailableReason", New: "isCompleteDeployment := false"}},
			Fails: []string{"08-progress"},
		},
		// Rule 12: the deadline reached is taken for passed.
		"deadline-inclusive": {
			Edits: []planted.Edit{{File: "status.go", Old: "return cond.LastUpdateTime.Time.Add(deadline).Before(p.now)", New: "return !p.now.Before(cond.LastUpdateTime.Time.Add(deadline))"}},
			Fails: []string{"08-progress"},
		},
		// Rule 12: the deadline counted from lastTransitionTime.
		"deadline-from-transition": {
			Edits: []planted.Edit{{File: "status.go", Old: "return cond.LastUpdateTime.Time.Add(deadline).Before(p.now)", New: "return cond.LastTransitionTime.Time.Add(deadline).Before(p.now)"}},
			Fails: []string{"08-progress"},
		},
		// Rule 12: the deadline is always 600 seconds.
		"deadline-fixed": {
			Edits: []planted.Edit{{File: "status.go", Old: "\tdeadline := time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second\n", New: "\tdeadline := 600 * time.Second\n"}},
			Fails: []string{"08-progress"},
		},
		// Rule 12: the requeue without the extra second.
		"requeue-without-second": {
			Edits: []planted.Edit{{File: "status.go", Old: "\tp.requeue = after + time.Second\n", New: "\tp.requeue = after\n"}},
			Fails: []string{"08-progress"},
		},
		// Rule 12: no requeue with less than a second left.
		"no-requeue-when-close": {
			Edits: []planted.Edit{{File: "status.go", Old: "\tif after < time.Second {\n\t\tp.requeue = time.Second\n\t\treturn\n\t}", New: "\tif after < time.Second {\n\t\treturn\n\t}"}},
			Fails: []string{"08-progress"},
		},
		// Rule 12: a rollout that has timed out is requeued still.
		"timed-out-requeued": {
			Edits: []planted.Edit{{File: "status.go", Old: "if deploymentComplete(d, &newStatus) || currentCond.Reason == api.TimedOutReason {", New: "if deploymentComplete(d, &newStatus) {"}},
			Fails: []string{"08-progress"},
		},

		// Rule 10: the history cleaned whether or not the rollout is
		// complete.
		"history-cleaned-mid-rollout": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tif deploymentComplete(p.d, &p.d.Status) {\n\t\tp.cleanupDeployment(oldRSs)\n\t}\n\tp.syncRolloutStatus(allRSs, newRS)\n}\n\n// reconcileNewReplicaSet", New: "\tp.cleanupDeployment(oldRSs)\n\tp.syncRolloutStatus(allRSs, newRS)\n}\n\n// reconcileNewReplicaSet"}},
			Fails: []string{"10-history"},
		},
		// Rule 10: the highest revisions deleted first.
		"history-highest-first": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\t\treturn ra < rb\n", New: "\t\treturn ra > rb\n"}},
			Fails: []string{"10-history"},
		},
		// Rule 10: equal revisions ordered by name.
		"history-tie-by-name": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\t\tif errA != nil || errB != nil || ra == rb {\n\t\t\treturn byCreation(a, b)\n\t\t}", New: "\t\tif errA != nil || errB != nil || ra == rb {\n\t\t\treturn a.Name < b.Name\n\t\t}"}},
			Fails: []string{"10-history"},
		},
		// Rule 10: one more kept than revisionHistoryLimit.
		"history-keeps-one-more": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "diff := len(cleanable) - int(*d.Spec.RevisionHistoryLimit)", New: "diff := len(cleanable) - int(*d.Spec.RevisionHistoryLimit) - 1"}},
			Fails: []string{"10-history"},
		},
		// Rule 10: a skipped ReplicaSet's place taken by the next one.
		"history-skip-replaced": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tfor _, rs := range cleanable[:diff] {\n\t\tif rs.Status.Replicas != 0", New: "\tfor _, rs := range cleanable {\n\t\tif len(p.deletes) == diff {\n\t\t\tbreak\n\t\t}\n\t\tif rs.Status.Replicas != 0"}},
			Fails: []string{"10-history"},
		},
		// Rule 10: a ReplicaSet with pods in its status deleted.
		"history-ignores-status-replicas": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "if rs.Status.Replicas != 0 || *rs.Spec.Replicas != 0 ||", New: "if *rs.Spec.Replicas != 0 ||"}},
			Fails: []string{"10-history"},
		},
		// Rule 10: a ReplicaSet asked for replicas deleted.
		"history-ignores-spec-replicas": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "if rs.Status.Replicas != 0 || *rs.Spec.Replicas != 0 ||", New: "if rs.Status.Replicas != 0 ||"}},
			Fails: []string{"10-history"},
		},
		// Rule 10: a ReplicaSet whose spec is not yet observed deleted.
		"history-ignores-generation": {
			Edits: []planted.Edit{{File: "rolling.go", Old: " || rs.Generation > rs.Status.ObservedGeneration || rs.DeletionTimestamp != nil {", New: " || rs.DeletionTimestamp != nil {"}},
			Fails: []string{"10-history"},
		},
		// Rule 10: ReplicaSets being deleted count as cleanable.
		"history-counts-deleting": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "if rs != nil && rs.DeletionTimestamp == nil {\n\t\t\tcleanable = append(cleanable, rs)", New: "if rs != nil {\n\t\t\tcleanable = append(cleanable, rs)"}},
			Fails: []string{"10-history"},
		},
		// Rule 10: ReplicaSets being deleted are deleted again.
		"history-deletes-deleting": {
			Edits: []planted.Edit{
				{File: "rolling.go", Old: "if rs != nil && rs.DeletionTimestamp == nil {\n\t\t\tcleanable = append(cleanable, rs)", New: "if rs != nil {\n\t\t\tcleanable = append(cleanable, rs)"},
				{File: "rolling.go", Old: " || rs.Generation > rs.Status.ObservedGeneration || rs.DeletionTimestamp != nil {", New: " || rs.Generation > rs.Status.ObservedGeneration {"},
			},
			Fails: []string{"10-history"},
		},

		// Rollback (rule 2): the old revision is not kept in
		// revision-history.
		"rollback-history-not-kept": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\tif ok {\n\t\t\thistory := rs.Annotations[api.RevisionHistoryAnnotation]", New: "\t\tif false && ok {\n\t\t\thistory := rs.Annotations[api.RevisionHistoryAnnotation]"}},
			Fails: []string{"02-new-replicaset", "09-rollback"},
		},
		// Rollback (rule 2): the old revision put first in the history.
		"rollback-history-prepended": {
			Edits: []planted.Edit{{File: "plan.go", Old: "strings.Join(append(olds[start:], oldRevision), \",\")", New: "strings.Join(append([]string{oldRevision}, olds[start:]...), \",\")"}},
			Fails: []string{"02-new-replicaset", "09-rollback"},
		},
		// Rollback (rule 2): a history of exactly the limit is cut
		// further.
		"rollback-history-limit-strict": {
			Edits: []planted.Edit{{File: "plan.go", Old: "for total > historyLimit && start < len(olds) {", New: "for total >= historyLimit && start < len(olds) {"}},
			Fails: []string{"09-rollback"},
		},
		// Rollback (rule 2): the history grows past the limit.
		"rollback-history-unlimited": {
			Edits: []planted.Edit{{File: "plan.go", Old: "for total > historyLimit && start < len(olds) {", New: "for false {"}},
			Fails: []string{"09-rollback"},
		},
		// Rollback (rule 2): the Deployment's revision set in the pass
		// that writes the new ReplicaSet's.
		"rollback-revision-same-pass": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\t\tp.update(rsCopy)\n\t\t\treturn rsCopy, nil", New: "\t\t\tp.update(rsCopy)\n\t\t\tsetDeploymentRevision(d, rsCopy.Annotations[api.RevisionAnnotation])\n\t\t\treturn rsCopy, nil"}},
			Fails: []string{"02-new-replicaset", "09-rollback"},
		},
		// Rules 1 and 2: the Deployment takes the new revision (the old
		// ones' highest plus one), not its new ReplicaSet's.
		"deployment-takes-max-plus-one": {
			Edits: []planted.Edit{{File: "plan.go", Old: "setDeploymentRevision(d, rsCopy.Annotations[api.RevisionAnnotation])", New: "setDeploymentRevision(d, newRevision)"}},
			Fails: []string{"02-new-replicaset", "09-rollback"},
		},
		// Rollback (rule 2): the written new ReplicaSet is not scaled in
		// the same pass.
		"rollback-not-scaled-same-pass": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tallRSs := withNew(oldRSs, newRS)\n\n\tif p.reconcileNewReplicaSet(allRSs, newRS) {", New: "\tallRSs := withNew(oldRSs, newRS)\n\n\tif _, written := p.updated[newRS.Name]; written {\n\t\tp.syncRolloutStatus(allRSs, newRS)\n\t\treturn\n\t}\n\tif p.reconcileNewReplicaSet(allRSs, newRS) {"}},
			Fails: []string{"09-rollback"},
		},
		// Restart (rules 1 and 7): the template's annotations ignored
		// when looking for the new ReplicaSet.
		"template-annotations-ignored": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tac.Labels, bc.Labels = withoutHash(a.Labels), withoutHash(b.Labels)\n", New: "\tac.Labels, bc.Labels = withoutHash(a.Labels), withoutHash(b.Labels)\n\tac.Annotations, bc.Annotations = nil, nil\n"}},
			Fails: []string{"09-rollback"},
		},
	})
}
