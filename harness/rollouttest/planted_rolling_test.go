package rollouttest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of steps 01-05: Bounds (rollout.BoundsFunc's rules
// 1-4) and Plan's rules 1, 2, 7, 8, 9 and 13, each broken by one edit of
// the reference's source (solutions/09-deployment), each failing exactly
// the steps it lists.

func init() {
	addBugs(pureBugs, map[string]planted.Bug{
		// Bounds rule 1: a Recreate Deployment resolves its (absent)
		// rollingUpdate values: maxUnavailable 1, or what it carries.
		"recreate-has-bounds": {
			Edits: []planted.Edit{{File: "bounds.go", Old: "if !isRollingUpdate(d) || replicas == 0 {", New: "if replicas == 0 {"}},
			Fails: []string{"01-bounds"},
		},
		// Bounds rule 2: maxUnavailable's percentage rounded up.
		"unavailable-rounded-up": {
			Edits: []planted.Edit{{File: "bounds.go", Old: "uv, err := api.GetScaledValueFromIntOrPercent(u, desired, false)", New: "uv, err := api.GetScaledValueFromIntOrPercent(u, desired, true)"}},
			Fails: []string{"01-bounds", "04-scale-down"},
		},
		// Bounds rule 2: maxSurge's percentage rounded down, in Bounds and
		// in the new ReplicaSet's room to grow.
		"surge-rounded-down": {
			Edits: []planted.Edit{
				{File: "bounds.go", Old: "sv, err := api.GetScaledValueFromIntOrPercent(s, desired, true)", New: "sv, err := api.GetScaledValueFromIntOrPercent(s, desired, false)"},
				{File: "plan.go", Old: "surge, err := api.GetScaledValueFromIntOrPercent(s, int(replicas), true)", New: "surge, err := api.GetScaledValueFromIntOrPercent(s, int(replicas), false)"},
			},
			Fails: []string{"01-bounds", "02-new-replicaset", "03-scale-up", "04-scale-down"},
		},
		// Bounds rule 2 (its last sentence): a malformed maxSurge counts
		// as 0 on its own, and maxUnavailable is still resolved.
		"malformed-surge-alone": {
			Edits: []planted.Edit{{File: "bounds.go", Old: "sv, err := api.GetScaledValueFromIntOrPercent(s, desired, true)\n\tif err != nil {\n\t\treturn 0, 0, false\n\t}", New: "sv, err := api.GetScaledValueFromIntOrPercent(s, desired, true)\n\tif err != nil {\n\t\tsv = 0\n\t}"}},
			Fails: []string{"01-bounds"},
		},
		// Bounds rule 3: both at 0 leave maxUnavailable 0, and a rollout
		// with no room either way never moves.
		"both-zero-not-raised": {
			Edits: []planted.Edit{{File: "bounds.go", Old: "if sv == 0 && uv == 0 {\n\t\tuv = 1\n\t}", New: ""}},
			Fails: []string{"01-bounds", "04-scale-down"},
		},
		// Bounds rule 4: maxUnavailable not clamped to spec.replicas.
		"unavailable-not-clamped": {
			Edits: []planted.Edit{{File: "bounds.go", Old: "if unavailable > replicas {\n\t\treturn replicas\n\t}", New: ""}},
			Fails: []string{"01-bounds"},
		},
		// Bounds rules 3 and 4 in the wrong order: clamped to
		// spec.replicas first, then raised to 1 when both are 0, so 0
		// replicas give maxUnavailable 1.
		"raised-after-clamp": {
			Edits: []planted.Edit{{File: "bounds.go",
				Old: "if !isRollingUpdate(d) || replicas == 0 {\n\t\treturn 0\n\t}\n\t_, unavailable, _ := resolveFenceposts(d)\n\tif unavailable > replicas {\n\t\treturn replicas\n\t}\n\treturn unavailable",
				New: "if !isRollingUpdate(d) {\n\t\treturn 0\n\t}\n\t_, unavailable, _ := resolveFenceposts(d)\n\tif unavailable > replicas {\n\t\tunavailable = replicas\n\t}\n\tif unavailable == 0 && maxSurge(d) == 0 {\n\t\treturn 1\n\t}\n\treturn unavailable"}},
			Fails: []string{"01-bounds"},
		},

		// Plan rule 1: the newest ReplicaSet with the Deployment's
		// template is taken for the new one.
		"newest-new-replicaset": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tfor _, rs := range p.rsList {\n\t\teq, seen := p.matches[rs.Name]", New: "\tfor i := len(p.rsList) - 1; i >= 0; i-- {\n\t\trs := p.rsList[i]\n\t\teq, seen := p.matches[rs.Name]"}},
			Fails: []string{"02-new-replicaset"},
		},
		// Plan rule 1: the new ReplicaSet found by its pod-template-hash
		// label, not by its template.
		"new-replicaset-by-hash-label": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\t\teq = equalIgnoreHash(&rs.Spec.Template, &p.d.Spec.Template)\n", New: "\t\t\teq = rs.Labels[api.DefaultDeploymentUniqueLabelKey] == rollout.TemplateHash(p.d.Spec.Template, p.d.Status.CollisionCount)\n"}},
			Fails: []string{"02-new-replicaset", "07-status"},
		},
		// Plan rule 1: ReplicaSets created at the same time ordered by
		// name backwards.
		"tie-by-name-reversed": {
			Edits: []planted.Edit{{File: "plan.go", Old: "return a.Name < b.Name", New: "return a.Name > b.Name"}},
			Fails: []string{"02-new-replicaset"},
		},
		// Plan rule 1: the new revision from the newest old ReplicaSet's
		// revision, not the highest.
		"revision-of-newest-old": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if v, err := revision(rs); err == nil && v > max {", New: "if v, err := revision(rs); err == nil {"}},
			Fails: []string{"02-new-replicaset"},
		},
		// Plan rule 2: a ReplicaSet rolled back to forgets its old
		// revision.
		"revision-history-dropped": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\tif ok {\n\t\t\thistory := ", New: "\t\tif _ = ok; false {\n\t\t\thistory := "}},
			Fails: []string{"02-new-replicaset", "09-rollback"},
		},
		// Plan rule 2: minReadySeconds alone does not make the new
		// ReplicaSet out of sync.
		"min-ready-seconds-not-synced": {
			Edits: []planted.Edit{{File: "plan.go", Old: "minReadySecondsNeedsUpdate := rsCopy.Spec.MinReadySeconds != d.Spec.MinReadySeconds", New: "minReadySecondsNeedsUpdate := false"}},
			Fails: []string{"02-new-replicaset"},
		},
		// Plan rule 2: the Deployment's revision synced in the pass that
		// writes the new ReplicaSet's annotations.
		"revision-synced-with-annotations": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\t\tp.update(rsCopy)\n\t\t\treturn rsCopy, nil", New: "\t\t\tp.update(rsCopy)\n\t\t\tsetDeploymentRevision(d, rsCopy.Annotations[api.RevisionAnnotation])\n\t\t\treturn rsCopy, nil"}},
			Fails: []string{"02-new-replicaset", "09-rollback"},
		},
		// Plan rules 2 and 7: the skipped annotations copied too.
		"skipped-annotations-copied": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if annotationsToSkip[k] || rs.Annotations[k] == v {", New: "if rs.Annotations[k] == v {"}},
			Fails: []string{"02-new-replicaset", "09-rollback"},
		},

		// Plan rule 7: the selector without the pod-template-hash label.
		"no-hash-in-selector": {
			Edits: []planted.Edit{{File: "plan.go", Old: "Selector:        cloneSelectorAndAddLabel(d.Spec.Selector, api.DefaultDeploymentUniqueLabelKey, hash),", New: "Selector:        cloneSelectorAndAddLabel(d.Spec.Selector, \"\", \"\"),"}},
			Fails: []string{"02-new-replicaset"},
		},
		// Plan rule 7: status.collisionCount left out of the hash.
		"collision-count-not-hashed": {
			Edits: []planted.Edit{{File: "plan.go", Old: "hash := rollout.TemplateHash(template, d.Status.CollisionCount)", New: "hash := rollout.TemplateHash(template, nil)"}},
			Fails: []string{"02-new-replicaset"},
		},
		// Plan rule 7: the owner reference does not block the
		// Deployment's deletion in the foreground.
		"no-block-owner-deletion": {
			Edits: []planted.Edit{{File: "plan.go", Old: "Controller: &yes, BlockOwnerDeletion: &yes,", New: "Controller: &yes,"}},
			Fails: []string{"02-new-replicaset"},
		},
		// Plan rule 7: no Event for a ReplicaSet created with pods.
		"no-event-on-create": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if newReplicasCount > 0 {", New: "if false {"}},
			Fails: []string{"02-new-replicaset", "03-scale-up", "04-scale-down", "05-recreate", "09-rollback"},
		},
		// Plan rule 7: an Event for a ReplicaSet created with 0 pods.
		"event-on-create-at-zero": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if newReplicasCount > 0 {", New: "if newReplicasCount >= 0 {"}},
			Fails: []string{"02-new-replicaset", "04-scale-down"},
		},
		// Plan rule 7: no Progressing NewReplicaSetCreated condition.
		"no-created-condition": {
			Edits: []planted.Edit{{File: "plan.go", Old: "setCondition(&d.Status, p.newCondition(api.DeploymentProgressing, api.ConditionTrue, api.NewReplicaSetReason, msg))", New: "_ = msg"}},
			Fails: []string{"02-new-replicaset"},
		},

		// Plan rule 8: the new ReplicaSet grows to spec.replicas whatever
		// maxSurge allows.
		"surge-ignored": {
			Edits: []planted.Edit{
				{File: "plan.go", Old: "if current >= maxTotal {", New: "if false {"},
				{File: "plan.go", Old: "scaleUp := min(maxTotal-current, replicas-*newRS.Spec.Replicas)", New: "scaleUp := replicas - *newRS.Spec.Replicas\n\t\t_, _ = current, maxTotal"},
			},
			Fails: []string{"03-scale-up", "04-scale-down", "06-proportional", "09-rollback"},
		},
		// Plan rule 8: the new ReplicaSet grows by all maxSurge allows,
		// past spec.replicas.
		"scale-up-past-replicas": {
			Edits: []planted.Edit{{File: "plan.go", Old: "scaleUp := min(maxTotal-current, replicas-*newRS.Spec.Replicas)", New: "scaleUp := maxTotal - current"}},
			Fails: []string{"02-new-replicaset", "03-scale-up"},
		},
		// Plan rule 8: a new ReplicaSet above spec.replicas is left there.
		"new-above-replicas-kept": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tif *newRS.Spec.Replicas > replicas {\n\t\tscaled, _ := p.scaleReplicaSetAndRecordEvent(newRS, replicas)\n\t\treturn scaled\n\t}\n", New: ""}},
			Fails: []string{"03-scale-up"},
		},
		// Plan rule 8: a pass that scales the new ReplicaSet up goes on
		// to scale the old ones down.
		"old-scaled-with-new": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tif p.reconcileNewReplicaSet(allRSs, newRS) {\n\t\tp.syncRolloutStatus(allRSs, newRS)\n\t\treturn\n\t}", New: "\tp.reconcileNewReplicaSet(allRSs, newRS)"}},
			Fails: []string{"03-scale-up", "06-proportional"},
		},

		// Plan rule 9: the new ReplicaSet's unavailable pods do not
		// count against what the old ones may lose.
		"new-unavailable-ignored": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "maxScaledDown := allPodsCount - minAvailable - newRSUnavailablePodCount", New: "maxScaledDown := allPodsCount - minAvailable\n\t_ = newRSUnavailablePodCount"}},
			Fails: []string{"04-scale-down", "10-history"},
		},
		// Plan rule 9: no clean-up of the old ReplicaSets' unavailable
		// pods first.
		"no-unhealthy-cleanup": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "oldRSs, cleanupCount, err := p.cleanupUnhealthyReplicas(oldRSs, maxScaledDown)", New: "var cleanupCount int32\n\tvar err error"}},
			Fails: []string{"04-scale-down"},
		},
		// Plan rule 9: unavailable pods cleaned up newest ReplicaSet
		// first.
		"unhealthy-newest-first": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tsortByCreation(oldRSs)\n\tvar totalScaledDown int32\n\tfor i, target := range oldRSs {", New: "\tsort.SliceStable(oldRSs, func(i, j int) bool { return byCreation(oldRSs[j], oldRSs[i]) })\n\tvar totalScaledDown int32\n\tfor i, target := range oldRSs {"}},
			Fails: []string{"04-scale-down"},
		},
		// Plan rule 9: available pods taken from the newest old
		// ReplicaSet first.
		"healthy-newest-first": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tsortByCreation(oldRSs)\n\tvar totalScaledDown int32\n\ttotalScaleDownCount := ", New: "\tsort.SliceStable(oldRSs, func(i, j int) bool { return byCreation(oldRSs[j], oldRSs[i]) })\n\tvar totalScaledDown int32\n\ttotalScaleDownCount := "}},
			Fails: []string{"04-scale-down"},
		},
		// Plan rule 9: available pods taken down to spec.replicas, not
		// to spec.replicas − maxUnavailable.
		"scale-down-ignores-max-unavailable": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tminAvailable := specReplicas(p.d) - maxUnavailable(p.d)\n\tavailablePodCount := availableCount(allRSs)", New: "\tminAvailable := specReplicas(p.d)\n\tavailablePodCount := availableCount(allRSs)"}},
			Fails: []string{"04-scale-down", "09-rollback"},
		},

		// Plan rule 13: the new ReplicaSet created before the old ones
		// are scaled down.
		"recreate-creates-first": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(false)\n\tif err != nil {\n\t\treturn\n\t}\n\tallRSs := withNew(oldRSs, newRS)\n\n\tif p.scaleDownOldReplicaSetsForRecreate(", New: "newRS, oldRSs, err := p.getAllReplicaSetsAndSyncRevision(true)\n\tif err != nil {\n\t\treturn\n\t}\n\tallRSs := withNew(oldRSs, newRS)\n\n\tif p.scaleDownOldReplicaSetsForRecreate("}},
			Fails: []string{"05-recreate"},
		},
		// Plan rule 13: a pass that scales the old ReplicaSets down goes
		// on to the new one.
		"recreate-no-stop-after-scale-down": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tif p.scaleDownOldReplicaSetsForRecreate(filterActive(oldRSs)) {\n\t\tp.syncRolloutStatus(allRSs, newRS)\n\t\treturn\n\t}", New: "\tp.scaleDownOldReplicaSetsForRecreate(filterActive(oldRSs))"}},
			Fails: []string{"05-recreate"},
		},
		// Plan rule 13: no wait for the old pods to go.
		"recreate-no-wait-for-old-pods": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "if p.oldPodsRunning(newRS, oldRSs) {", New: "if false && p.oldPodsRunning(newRS, oldRSs) {"}},
			Fails: []string{"05-recreate"},
		},
		// Plan rule 13: Succeeded and Failed old pods are waited for.
		"terminal-pods-counted": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\t\tcase api.PodSucceeded, api.PodFailed:\n\t\t\tcontinue\n", New: "\t\tcase api.PodSucceeded, api.PodFailed:\n"}},
			Fails: []string{"05-recreate"},
		},
		// Plan rule 13: a pod in phase Unknown is taken for gone.
		"unknown-pods-not-counted": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "case api.PodSucceeded, api.PodFailed:", New: "case api.PodSucceeded, api.PodFailed, api.PodUnknown:"}},
			Fails: []string{"05-recreate"},
		},
		// Plan rule 13: an existing new ReplicaSet is not scaled to
		// spec.replicas.
		"recreate-new-not-scaled": {
			Edits: []planted.Edit{{File: "rolling.go", Old: "\tp.scaleReplicaSetAndRecordEvent(newRS, specReplicas(p.d))\n\tif deploymentComplete(p.d, &p.d.Status) {", New: "\tif deploymentComplete(p.d, &p.d.Status) {"}},
			Fails: []string{"05-recreate"},
		},
	})
}
