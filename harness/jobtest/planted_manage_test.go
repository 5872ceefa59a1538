package jobtest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of steps 01-05: Plan's rules 1, 2 and 13 (the counts
// and the status), 5-7 (the pods wanted, deleted and created), 8 (the
// failure back-off) and 9 (the pod made from the template), each broken
// by one edit of the reference's source (solutions/10-job), each failing
// exactly the steps it lists.

func init() {
	addBugs(pureBugs, map[string]planted.Bug{
		// Rule 6: an Indexed Job's duplicates and pods with no valid
		// index go only when too many pods are active, where upstream's
		// activePodsForRemoval collects them on every pass.
		"surplus-indexes-only-when-too-many": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if rm := podsToDelete(c.active, int(max(p.active-want, 0)), s); len(rm) > 0 {", New: "if rm := podsToDelete(c.active, int(max(p.active-want, 0)), s); len(rm) > 0 && p.active > want {"}},
			Fails: []string{"04-indexed"},
		},
		// Rule 9: the pod's owner reference does not block the Job's
		// deletion in the foreground.
		"pod-without-block-owner-deletion": {
			Edits: []planted.Edit{{File: "pod.go", Old: "Controller: &yes, BlockOwnerDeletion: &yes,", New: "Controller: &yes,"}},
			Fails: []string{"01-new-pod"},
		},
		// Rule 9: the template's name carried to the pod, which the
		// apiserver would then not name from generateName.
		"pod-named-as-template": {
			Edits: []planted.Edit{{File: "pod.go", Old: "\t\t\tNamespace:    j.Namespace,\n", New: "\t\t\tNamespace:    j.Namespace,\n\t\t\tName:         t.Name,\n"}},
			Fails: []string{"01-new-pod"},
		},
		// Rule 9: the template's finalizers left out.
		"pod-without-finalizers": {
			Edits: []planted.Edit{{File: "pod.go", Old: "Finalizers:   slices.Clone(t.Finalizers),", New: "Finalizers:   nil,"}},
			Fails: []string{"01-new-pod"},
		},
		// Rule 9 and Plan's first sentence: the pod's labels are the
		// template's map, so the index label is written into the Job.
		"pod-labels-shared-with-template": {
			Edits: []planted.Edit{{File: "pod.go", Old: "Labels:       maps.Clone(t.Labels),", New: "Labels:       t.Labels,"}},
			Fails: []string{"01-new-pod", "04-indexed", "08-complete"},
		},
		// Rule 9: an Indexed Job's pod named "NAME-", without its index.
		"pod-generate-name-without-index": {
			Edits: []planted.Edit{{File: "pod.go", Old: "GenerateName: generateName(j.Name, index),", New: "GenerateName: generateName(j.Name, -1),"}},
			Fails: []string{"01-new-pod", "04-indexed"},
		},
		// Rule 9: no completion index label (the annotation only).
		"pod-without-index-label": {
			Edits: []planted.Edit{{File: "pod.go", Old: "\tp.Labels[jobs.CompletionIndexAnnotation] = ix\n", New: ""}},
			Fails: []string{"01-new-pod"},
		},
		// Rule 9: no hostname per index.
		"pod-without-hostname": {
			Edits: []planted.Edit{{File: "pod.go", Old: "\tp.Spec.Hostname = j.Name + \"-\" + ix\n", New: ""}},
			Fails: []string{"01-new-pod"},
		},
		// Rule 9: JOB_COMPLETION_INDEX in the first container only.
		"index-env-first-container-only": {
			Edits: []planted.Edit{{File: "pod.go", Old: "\tfor i := range p.Spec.Containers {\n\t\taddIndexEnv(&p.Spec.Containers[i])\n\t}", New: "\taddIndexEnv(&p.Spec.Containers[0])"}},
			Fails: []string{"01-new-pod"},
		},
		// Rule 9: JOB_COMPLETION_INDEX not in the init containers.
		"index-env-not-in-init-containers": {
			Edits: []planted.Edit{{File: "pod.go", Old: "\tfor i := range p.Spec.InitContainers {\n\t\taddIndexEnv(&p.Spec.InitContainers[i])\n\t}\n", New: ""}},
			Fails: []string{"01-new-pod"},
		},
		// Rule 9: JOB_COMPLETION_INDEX added to a container that sets it
		// already.
		"index-env-added-twice": {
			Edits: []planted.Edit{{File: "pod.go", Old: "\tfor _, e := range c.Env {\n\t\tif e.Name == jobs.CompletionIndexEnv {\n\t\t\treturn\n\t\t}\n\t}\n", New: ""}},
			Fails: []string{"01-new-pod"},
		},
		// Rule 9: JOB_COMPLETION_INDEX read from the annotation, as
		// upstream did before PodIndexLabel.
		"index-env-from-annotation": {
			Edits: []planted.Edit{{File: "pod.go", Old: "const indexEnvFieldPath = \"metadata.labels['\"", New: "const indexEnvFieldPath = \"metadata.annotations['\""}},
			Fails: []string{"01-new-pod"},
		},

		// Rule 1: a Job with a Complete condition True is synced.
		"complete-job-synced": {
			Edits: []planted.Edit{{File: "count.go", Old: "return hasTrueCondition(j.Status.Conditions, api.JobComplete) || hasTrueCondition(j.Status.Conditions, api.JobFailed)", New: "return hasTrueCondition(j.Status.Conditions, api.JobFailed)"}},
			Fails: []string{"02-count", "08-complete", "10-ttl"},
		},
		// Rule 1: a Complete or Failed condition finishes the Job whatever
		// its status.
		"finished-by-false-condition": {
			Edits: []planted.Edit{{File: "count.go", Old: "return hasTrueCondition(j.Status.Conditions, api.JobComplete) || hasTrueCondition(j.Status.Conditions, api.JobFailed)", New: "return findCondition(j.Status.Conditions, api.JobComplete) != nil || findCondition(j.Status.Conditions, api.JobFailed) != nil"}},
			Fails: []string{"02-count"},
		},
		// Rule 2: a pod being deleted is active until it finishes.
		"deleting-pod-active": {
			Edits: []planted.Edit{{File: "pod.go", Old: "return p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed && p.DeletionTimestamp == nil", New: "return p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed"}},
			Fails: []string{"02-count", "04-indexed", "05-backoff", "06-backoff-limit", "08-complete"},
		},
		// Rule 2: a Ready pod counts as ready while it is being deleted.
		"deleting-pod-ready": {
			Edits: []planted.Edit{{File: "count.go", Old: "\t\tswitch {\n\t\tcase activePod(p):\n\t\t\tc.active = append(c.active, p)\n\t\t\tif podReady(p) {\n\t\t\t\tc.ready++\n\t\t\t}\n", New: "\t\tif podReady(p) && p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed {\n\t\t\tc.ready++\n\t\t}\n\t\tswitch {\n\t\tcase activePod(p):\n\t\t\tc.active = append(c.active, p)\n"}},
			Fails: []string{"02-count"},
		},
		// Rule 2: only phase Failed is a failure; a pod deleted before it
		// finished is not.
		"deleting-pod-not-failed": {
			Edits: []planted.Edit{{File: "pod.go", Old: "\treturn p.DeletionTimestamp != nil && p.Status.Phase != api.PodSucceeded\n", New: "\treturn false\n"}},
			Fails: []string{"02-count", "05-backoff", "06-backoff-limit", "08-complete"},
		},
		// Rule 2: a Succeeded pod being deleted counts as failed too.
		"deleting-succeeded-pod-failed": {
			Edits: []planted.Edit{{File: "pod.go", Old: "\treturn p.DeletionTimestamp != nil && p.Status.Phase != api.PodSucceeded\n", New: "\treturn p.DeletionTimestamp != nil\n"}},
			Fails: []string{"02-count"},
		},
		// Rule 2: a Failed pod being deleted counts twice, as Failed and
		// as deleted.
		"deleting-failed-pod-counted-twice": {
			Edits: []planted.Edit{{File: "count.go", Old: "\t\tif failedPod(p) {\n\t\t\tc.failed++\n\t\t}\n", New: "\t\tif failedPod(p) {\n\t\t\tc.failed++\n\t\t}\n\t\tif p.Status.Phase == api.PodFailed && p.DeletionTimestamp != nil {\n\t\t\tc.failed++\n\t\t}\n"}},
			Fails: []string{"02-count", "06-backoff-limit"},
		},
		// Rule 2: an Indexed Job counts every Succeeded pod of a valid
		// index, two of one index twice.
		"succeeded-index-counted-twice": {
			Edits: []planted.Edit{{File: "count.go", Old: "if ix := jobs.Index(p); ix >= 0 && ix < int(completions) && !seen[ix] {", New: "if ix := jobs.Index(p); ix >= 0 && ix < int(completions) {"}},
			Fails: []string{"02-count", "08-complete"},
		},
		// Rule 2: a Succeeded pod of an Indexed Job without an index
		// counts as index -1.
		"succeeded-without-index-counted": {
			Edits: []planted.Edit{{File: "count.go", Old: "if ix := jobs.Index(p); ix >= 0 && ix < int(completions) && !seen[ix] {", New: "if ix := jobs.Index(p); ix < int(completions) && !seen[ix] {"}},
			Fails: []string{"02-count"},
		},
		// Rule 2: a succeeded index at or above completions counts.
		"succeeded-index-out-of-range": {
			Edits: []planted.Edit{{File: "count.go", Old: "if ix := jobs.Index(p); ix >= 0 && ix < int(completions) && !seen[ix] {", New: "if ix := jobs.Index(p); ix >= 0 && !seen[ix] {"}},
			Fails: []string{"02-count", "04-indexed"},
		},
		// Rule 2: two consecutive indexes written as a run, "3-4".
		"completed-indexes-pair-as-run": {
			Edits: []planted.Edit{{File: "count.go", Old: "case j-i >= 2:", New: "case j-i >= 1:"}},
			Fails: []string{"02-count"},
		},
		// Rule 2: completedIndexes in the order the pods were given.
		"completed-indexes-unsorted": {
			Edits: []planted.Edit{{File: "count.go", Old: "\t\tslices.Sort(c.succeededIndexes)\n", New: "\t\t_ = slices.Clip(c.succeededIndexes)\n"}},
			Fails: []string{"02-count"},
		},
		// Rule 2: a Job with no startTime gets its creation time.
		"start-time-from-creation": {
			Edits: []planted.Edit{{File: "plan.go", Old: "t := api.NewTime(now)\n\t\tst.StartTime = &t", New: "t := api.NewTime(j.CreationTimestamp.Time)\n\t\tst.StartTime = &t"}},
			Fails: []string{"02-count", "07-deadline", "09-in-flight"},
		},
		// Rule 2: startTime set to Now at every sync.
		"start-time-reset": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if st.StartTime == nil {\n\t\tt := api.NewTime(now)", New: "if true {\n\t\tt := api.NewTime(now)"}},
			Fails: []string{"02-count", "07-deadline", "08-complete", "09-in-flight"},
		},
		// Rule 13: ready left nil when it is 0.
		"ready-nil-at-zero": {
			Edits: []planted.Edit{{File: "plan.go", Old: "st.Ready = int32Ptr(p.ready)", New: "st.Ready = nil\n\tif p.ready > 0 {\n\t\tst.Ready = int32Ptr(p.ready)\n\t}"}},
			Fails: []string{"02-count", "03-parallelism", "04-indexed"},
		},
		// Rule 13: terminating left nil when it is 0.
		"terminating-nil-at-zero": {
			Edits: []planted.Edit{{File: "plan.go", Old: "st.Terminating = int32Ptr(p.terminating)", New: "st.Terminating = nil\n\tif p.terminating > 0 {\n\t\tst.Terminating = int32Ptr(p.terminating)\n\t}"}},
			Fails: []string{"02-count"},
		},
		// Rule 13: the status written even when it does not change.
		"status-always-written": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if !sameStatus(&st, &j.Status) {", New: "if true {"}},
			Fails: []string{"02-count"},
		},

		// Rule 5: wantActive leaves out the pods that succeeded.
		"want-active-ignores-succeeded": {
			Edits: []planted.Edit{{File: "plan.go", Old: "return max(min(*s.completions-succeeded, s.parallelism), 0)", New: "return max(min(*s.completions, s.parallelism), 0)"}},
			Fails: []string{"03-parallelism", "08-complete"},
		},
		// Rule 5: wantActive below 0 when more pods succeeded than
		// completions.
		"want-active-below-zero": {
			Edits: []planted.Edit{{File: "plan.go", Old: "return max(min(*s.completions-succeeded, s.parallelism), 0)", New: "return min(*s.completions-succeeded, s.parallelism)"}},
			Fails: []string{"03-parallelism"},
		},
		// Rule 5: a Job without completions keeps parallelism pods after
		// a success.
		"work-queue-refilled-after-success": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\tif succeeded > 0 {\n\t\t\treturn active\n\t\t}\n", New: ""}},
			Fails: []string{"03-parallelism", "08-complete"},
		},
		// Rule 6: more than 500 pods deleted in one pass.
		"deletes-not-capped": {
			Edits: []planted.Edit{{File: "plan.go", Old: "for _, pod := range rm[:min(len(rm), jobs.MaxPodCreateDeletePerSync)] {", New: "for _, pod := range rm {"}},
			Fails: []string{"03-parallelism"},
		},
		// Rule 7: more than 500 pods created in one pass.
		"creates-not-capped": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tdiff = min(diff, jobs.MaxPodCreateDeletePerSync)\n", New: ""}},
			Fails: []string{"03-parallelism"},
		},
		// Rule 13: a ready pod deleted in this pass still counts ready.
		"deleted-pod-still-ready": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tp.terminating++\n\tif podReady(pod) {\n\t\tp.ready--\n\t}\n", New: "\tp.terminating++\n"}},
			Fails: []string{"03-parallelism", "04-indexed"},
		},
		// Rule 13: a pod deleted in this pass is not counted terminating.
		"deleted-pod-not-terminating": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tp.active--\n\tp.terminating++\n", New: "\tp.active--\n"}},
			Fails: []string{"03-parallelism", "04-indexed", "06-backoff-limit", "07-deadline"},
		},
		// Rule 13: the pods created are not counted active.
		"created-pods-not-active": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tp.active += int32(len(p.create))\n", New: ""}},
			Fails: []string{"03-parallelism", "04-indexed", "05-backoff"},
		},

		// Rule 6, ActivePods 1: a pod on a node deleted first.
		"order-scheduled-first": {
			Edits: []planted.Edit{{File: "pod.go", Old: "\t\treturn a.Spec.NodeName == \"\"\n", New: "\t\treturn a.Spec.NodeName != \"\"\n"}},
			Fails: []string{"03-parallelism", "04-indexed"},
		},
		// Rule 6, ActivePods 2: Running before Pending.
		"order-phase-reversed": {
			Edits: []planted.Edit{{File: "pod.go", Old: "ra != rb {\n\t\treturn ra < rb\n\t}", New: "ra != rb {\n\t\treturn ra > rb\n\t}"}},
			Fails: []string{"03-parallelism"},
		},
		// Rule 6, ActivePods 3: ready before not ready.
		"order-ready-first": {
			Edits: []planted.Edit{{File: "pod.go", Old: "\t\treturn !readyA\n", New: "\t\treturn readyA\n"}},
			Fails: []string{"03-parallelism", "04-indexed"},
		},
		// Rule 6, ActivePods 4: ready for longer first.
		"order-ready-longer-first": {
			Edits: []planted.Edit{{File: "pod.go", Old: "\t\tif !ta.Equal(tb) {\n\t\t\treturn afterOrZero(ta, tb)\n\t\t}\n\t}\n\t// 5.", New: "\t\tif !ta.Equal(tb) {\n\t\t\treturn afterOrZero(tb, ta)\n\t\t}\n\t}\n\t// 5."}},
			Fails: []string{"03-parallelism"},
		},
		// Rule 6, ActivePods 5: fewer restarts first.
		"order-fewer-restarts-first": {
			Edits: []planted.Edit{{File: "pod.go", Old: "\t\treturn ra > rb\n", New: "\t\treturn ra < rb\n"}},
			Fails: []string{"03-parallelism"},
		},
		// Rule 6, ActivePods 6: older first.
		"order-older-first": {
			Edits: []planted.Edit{{File: "pod.go", Old: "!ta.Equal(tb) {\n\t\treturn afterOrZero(ta, tb)\n\t}\n\treturn a.Name < b.Name", New: "!ta.Equal(tb) {\n\t\treturn afterOrZero(tb, ta)\n\t}\n\treturn a.Name < b.Name"}},
			Fails: []string{"03-parallelism"},
		},
		// Rule 6, the kata's tie: the later name first.
		"order-name-reversed": {
			Edits: []planted.Edit{{File: "pod.go", Old: "return a.Name < b.Name", New: "return a.Name > b.Name"}},
			Fails: []string{"03-parallelism"},
		},
		// Rule 6, ActivePods 2 before 1: the phase decides before the
		// node.
		"order-phase-before-node": {
			Edits: []planted.Edit{{File: "pod.go",
				Old: "\tif (a.Spec.NodeName == \"\") != (b.Spec.NodeName == \"\") {\n\t\treturn a.Spec.NodeName == \"\"\n\t}\n\t// 2. Pending < Unknown < Running.\n\tif ra, rb := phaseRank[a.Status.Phase], phaseRank[b.Status.Phase]; ra != rb {\n\t\treturn ra < rb\n\t}\n",
				New: "\tif ra, rb := phaseRank[a.Status.Phase], phaseRank[b.Status.Phase]; ra != rb {\n\t\treturn ra < rb\n\t}\n\tif (a.Spec.NodeName == \"\") != (b.Spec.NodeName == \"\") {\n\t\treturn a.Spec.NodeName == \"\"\n\t}\n"}},
			Fails: []string{"03-parallelism"},
		},
		// Rule 6, ActivePods 3 before 2: readiness decides before the
		// phase.
		"order-ready-before-phase": {
			Edits: []planted.Edit{{File: "pod.go",
				Old: "\tif ra, rb := phaseRank[a.Status.Phase], phaseRank[b.Status.Phase]; ra != rb {\n\t\treturn ra < rb\n\t}\n\t// 3. Not ready before ready.\n\treadyA, readyB := podReady(a), podReady(b)\n\tif readyA != readyB {\n\t\treturn !readyA\n\t}\n",
				New: "\treadyA, readyB := podReady(a), podReady(b)\n\tif readyA != readyB {\n\t\treturn !readyA\n\t}\n\tif ra, rb := phaseRank[a.Status.Phase], phaseRank[b.Status.Phase]; ra != rb {\n\t\treturn ra < rb\n\t}\n"}},
			Fails: []string{"03-parallelism"},
		},
		// Rule 6, ActivePods 4 before 3: the Ready condition's time
		// decides whatever its status.
		"order-ready-time-before-ready": {
			Edits: []planted.Edit{{File: "pod.go",
				Old: "\treadyA, readyB := podReady(a), podReady(b)\n\tif readyA != readyB {\n\t\treturn !readyA\n\t}\n",
				New: "\tif ca, cb := readyCondition(a), readyCondition(b); ca != nil && cb != nil && !ca.LastTransitionTime.Time.Equal(cb.LastTransitionTime.Time) {\n\t\treturn afterOrZero(ca.LastTransitionTime.Time, cb.LastTransitionTime.Time)\n\t}\n\treadyA, readyB := podReady(a), podReady(b)\n\tif readyA != readyB {\n\t\treturn !readyA\n\t}\n"}},
			Fails: []string{"03-parallelism"},
		},
		// Rule 6, ActivePods 5 before 4: restarts decide before the time
		// ready.
		"order-restarts-before-ready-time": {
			Edits: []planted.Edit{{File: "pod.go",
				Old: "\t// 4. Of two ready pods, the one ready for less time first.\n",
				New: "\tif ra, rb := maxRestarts(a), maxRestarts(b); ra != rb {\n\t\treturn ra > rb\n\t}\n"}},
			Fails: []string{"03-parallelism"},
		},
		// Rule 6, ActivePods 6 before 5: age decides before restarts.
		"order-age-before-restarts": {
			Edits: []planted.Edit{{File: "pod.go",
				Old: "\t// 5. More restarts first: it is the less healthy.\n",
				New: "\tif ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time; !ta.Equal(tb) {\n\t\treturn afterOrZero(ta, tb)\n\t}\n"}},
			Fails: []string{"03-parallelism"},
		},

		// Rule 6: a pass that deletes creates too.
		"delete-and-create-in-one-pass": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\t\tp.deletePod(pod)\n\t\t}\n\t\treturn\n\t}\n\tdiff := want - p.active", New: "\t\t\tp.deletePod(pod)\n\t\t}\n\t}\n\tdiff := want - p.active"}},
			Fails: []string{"04-indexed"},
		},
		// Rule 6: an Indexed Job's duplicates go only in ActivePods
		// order, with the others.
		"duplicates-not-removed-first": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if ix < 0 || ix >= completions || !last {", New: "_ = last\n\t\tif ix < 0 || ix >= completions {"}},
			Fails: []string{"04-indexed"},
		},
		// Rule 6: of the pods of one index, the one first in ActivePods
		// order stays.
		"duplicate-first-kept": {
			Edits: []planted.Edit{{File: "plan.go", Old: "last := i+1 == len(byIndex) || jobs.Index(byIndex[i+1]) != ix", New: "last := i == 0 || jobs.Index(byIndex[i-1]) != ix"}},
			Fails: []string{"04-indexed"},
		},
		// Rule 6: a pod without an index goes only in ActivePods order.
		"no-index-pod-kept": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if ix < 0 || ix >= completions || !last {", New: "if ix >= completions || !last {"}},
			Fails: []string{"04-indexed"},
		},
		// Rule 6: a pod of an index at or above completions goes only in
		// ActivePods order.
		"out-of-range-pod-kept": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if ix < 0 || ix >= completions || !last {", New: "if ix < 0 || !last {"}},
			Fails: []string{"04-indexed"},
		},
		// Rule 6: no more pods without a valid index or duplicated are
		// deleted than are too many.
		"surplus-cut-to-too-many": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\trm = append(rm, left[:atLeast-len(rm)]...)\n\t}\n\treturn rm", New: "\t\trm = append(rm, left[:atLeast-len(rm)]...)\n\t}\n\treturn rm[:atLeast]"}},
			Fails: []string{"04-indexed"},
		},
		// Rule 7: the highest free indexes first.
		"highest-free-index": {
			Edits: []planted.Edit{{File: "plan.go", Old: "for ix := 0; ix < completions && len(out) < n; ix++ {", New: "for ix := completions - 1; ix >= 0 && len(out) < n; ix-- {"}},
			Fails: []string{"01-new-pod", "04-indexed"},
		},
		// Rule 7: an index that an active pod holds is created again.
		"active-index-recreated": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tfor _, pod := range c.active {\n\t\ttaken[jobs.Index(pod)] = true\n\t}\n", New: ""}},
			Fails: []string{"04-indexed"},
		},
		// Rule 7: an index that succeeded is created again.
		"succeeded-index-recreated": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tfor _, ix := range c.succeededIndexes {\n\t\ttaken[ix] = true\n\t}\n", New: ""}},
			Fails: []string{"01-new-pod", "04-indexed"},
		},

		// Rule 8: no back-off at all.
		"no-backoff": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if left := backoffLeft(pods, now); left > 0 {", New: "if left := backoffLeft(pods, now); left < 0 {"}},
			Fails: []string{"05-backoff", "07-deadline"},
		},
		// Rule 8: the back-off not doubled per failure.
		"backoff-not-doubled": {
			Edits: []planted.Edit{{File: "backoff.go", Old: "\t\td *= 2\n", New: "\t\td *= 1\n"}},
			Fails: []string{"05-backoff"},
		},
		// Rule 8: the back-off not capped at MaxPodFailureBackOff.
		"backoff-not-capped": {
			Edits: []planted.Edit{{File: "backoff.go", Old: "\t\tif d >= jobs.MaxPodFailureBackOff {\n\t\t\td = jobs.MaxPodFailureBackOff\n\t\t\tbreak\n\t\t}\n", New: ""}},
			Fails: []string{"05-backoff"},
		},
		// Rule 8: every failure counts, also those before the last
		// success.
		"backoff-counts-all-failures": {
			Edits: []planted.Edit{{File: "backoff.go", Old: "\t\tif succeeded && !t.After(lastSuccess) {\n\t\t\tcontinue\n\t\t}\n", New: ""}},
			Fails: []string{"05-backoff"},
		},
		// Rule 8: a failure at the time of the last success counts.
		"backoff-counts-failure-at-success": {
			Edits: []planted.Edit{{File: "backoff.go", Old: "if succeeded && !t.After(lastSuccess) {", New: "if succeeded && t.Before(lastSuccess) {"}},
			Fails: []string{"05-backoff"},
		},
		// Rule 8: the back-off counted from the first failure given, not
		// the last to finish.
		"backoff-from-first-failure-given": {
			Edits: []planted.Edit{{File: "backoff.go", Old: "if n == 1 || t.After(lastFailure) {", New: "if n == 1 {"}},
			Fails: []string{"05-backoff"},
		},
		// Rule 7: a back-off asks for a requeue when no pod is wanted.
		"backoff-requeue-without-need": {
			Edits: []planted.Edit{{File: "plan.go",
				Old: "\tdiff := want - p.active\n\tif diff <= 0 {\n\t\treturn\n\t}\n",
				New: "\tp.requeue(backoffLeft(pods, now))\n\tdiff := want - p.active\n\tif diff <= 0 {\n\t\treturn\n\t}\n"}},
			Fails: []string{"05-backoff"},
		},
		// Rule 8: a pod finished when its first container did.
		"finish-time-first-container": {
			Edits: []planted.Edit{{File: "backoff.go", Old: "if !found || term.FinishedAt.After(last) {", New: "if !found {"}},
			Fails: []string{"05-backoff"},
		},
		// Rule 8: a pod with a container still running finished when the
		// others did.
		"finish-time-some-containers": {
			Edits: []planted.Edit{{File: "backoff.go", Old: "\t\tif term == nil || term.FinishedAt.IsZero() {\n\t\t\treturn time.Time{}, false\n\t\t}", New: "\t\tif term == nil || term.FinishedAt.IsZero() {\n\t\t\tcontinue\n\t\t}"}},
			Fails: []string{"05-backoff"},
		},
		// Rule 8: a Ready condition True taken as the finish.
		"finish-time-ready-true": {
			Edits: []planted.Edit{{File: "backoff.go", Old: "if c := readyCondition(p); c != nil && c.Status == api.ConditionFalse && !c.LastTransitionTime.IsZero() {", New: "if c := readyCondition(p); c != nil && !c.LastTransitionTime.IsZero() {"}},
			Fails: []string{"05-backoff"},
		},
		// Rule 8: the Ready=False time taken before the containers'.
		"finish-time-ready-before-containers": {
			Edits: []planted.Edit{{File: "backoff.go",
				Old: "\tif t, ok := containersFinished(p); ok {\n\t\treturn t\n\t}\n\tif c := readyCondition(p); c != nil && c.Status == api.ConditionFalse && !c.LastTransitionTime.IsZero() {\n\t\treturn c.LastTransitionTime.Time\n\t}\n",
				New: "\tif c := readyCondition(p); c != nil && c.Status == api.ConditionFalse && !c.LastTransitionTime.IsZero() {\n\t\treturn c.LastTransitionTime.Time\n\t}\n\tif t, ok := containersFinished(p); ok {\n\t\treturn t\n\t}\n"}},
			Fails: []string{"05-backoff"},
		},
		// Rule 8: the deletion taken before the Ready=False time.
		"finish-time-deletion-before-ready": {
			Edits: []planted.Edit{{File: "backoff.go",
				Old: "\tif c := readyCondition(p); c != nil && c.Status == api.ConditionFalse && !c.LastTransitionTime.IsZero() {\n\t\treturn c.LastTransitionTime.Time\n\t}\n\tif p.DeletionTimestamp != nil {",
				New: "\tif p.DeletionTimestamp != nil {\n\t\treturn p.DeletionTimestamp.Add(-time.Duration(*p.DeletionGracePeriodSeconds) * time.Second)\n\t}\n\tif c := readyCondition(p); c != nil && c.Status == api.ConditionFalse && !c.LastTransitionTime.IsZero() {\n\t\treturn c.LastTransitionTime.Time\n\t}\n\tif p.DeletionTimestamp != nil {"}},
			Fails: []string{"05-backoff"},
		},
		// Rule 8: a deleted pod finished at its deletionTimestamp, the
		// grace period not taken off.
		"finish-time-deletion-without-grace": {
			Edits: []planted.Edit{{File: "backoff.go", Old: "return p.DeletionTimestamp.Add(-time.Duration(grace) * time.Second)", New: "_ = grace\n\t\treturn p.DeletionTimestamp.Time"}},
			Fails: []string{"05-backoff"},
		},
	})
}
