package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

func init() { addBugs(conditionsBugs) }

// conditionsBugs break the rules of Conditions (conditions.go), each
// failing 07-conditions only: no other step calls Conditions.
var conditionsBugs = map[string]planted.Bug{
	// Rule 1: the conditions of other types are dropped.
	"conditions-drops-foreign": edit("conditions.go",
		"if !slices.Contains(kubelets.OwnedConditions, c.Type) {", "if false {", "07-conditions"),
	// Rule 1: the previous conditions of the kubelet's types are kept
	// too (twice over).
	"conditions-keeps-owned": edit("conditions.go",
		"if !slices.Contains(kubelets.OwnedConditions, c.Type) {", "if true {", "07-conditions"),
	// Rule 1: PodReadyToStartContainers is dropped as if owned.
	"conditions-drops-ready-to-start": edit("conditions.go",
		"if !slices.Contains(kubelets.OwnedConditions, c.Type) {", "if !slices.Contains(kubelets.OwnedConditions, c.Type) && c.Type != api.PodReadyToStartContainers {", "07-conditions"),
	// Rule 1: ContainersReady before Ready.
	"conditions-order": edit("conditions.go",
		"readyCondition(pod.Spec, out, containersReady),\n\t\tcontainersReady,", "containersReady,\n\t\treadyCondition(pod.Spec, out, containersReady),", "07-conditions"),
	// Rule 1: the others' conditions get a new lastTransitionTime.
	"conditions-foreign-times-moved": edit("conditions.go",
		"\t\t\tout = append(out, c)\n\t\t}\n\t}\n", "\t\t\tc.LastTransitionTime = api.NewTime(now)\n\t\t\tout = append(out, c)\n\t\t}\n\t}\n", "07-conditions"),
	// Rule 1: the kubelet's own keep the previous lastProbeTime.
	"conditions-keeps-probe-time": edit("conditions.go",
		"c.LastTransitionTime = previous[i].LastTransitionTime", "c.LastTransitionTime, c.LastProbeTime = previous[i].LastTransitionTime, previous[i].LastProbeTime", "07-conditions"),
	// Rule 2: no statuses is UnknownContainerStatuses even without init
	// containers.
	"initialized-unknown-without-init": edit("conditions.go",
		"if len(statuses) == 0 && len(spec.InitContainers) > 0 {", "if len(statuses) == 0 {", "07-conditions"),
	// Rule 2: only nil is no statuses (upstream's test; the contract
	// counts an empty list as none).
	"initialized-nil-only": edit("conditions.go",
		"if len(statuses) == 0 && len(spec.InitContainers) > 0 {", "if statuses == nil && len(spec.InitContainers) > 0 {", "07-conditions"),
	// Rule 2: PodCompleted though an init container is unknown.
	"initialized-completed-ignores-unknown": edit("conditions.go",
		"case phase == api.PodSucceeded && len(unknown) == 0:\n\t\tc.Reason", "case phase == api.PodSucceeded:\n\t\tc.Reason", "07-conditions"),
	// Rule 2: no PodCompleted reason.
	"initialized-no-completed": edit("conditions.go",
		"\t\tc.Reason = kubelets.ReasonPodCompleted\n", "", "07-conditions"),
	// Rule 2: an app container that started does not make it True.
	"initialized-started-ignored": edit("conditions.go",
		"case anyAppStarted(spec, statuses):", "case false:", "07-conditions"),
	// Rule 2: a crash-looping app container counts as started.
	"initialized-started-includes-backoff": edit("conditions.go",
		"return ok && (s.State.Running != nil || s.State.Terminated != nil)", "return ok && (s.State.Running != nil || s.State.Terminated != nil || s.LastTerminationState.Terminated != nil)", "07-conditions"),
	// Rule 2: an init container with no status is named incomplete.
	"initialized-unknown-as-incomplete": edit("conditions.go",
		"unknown = append(unknown, ic.Name)", "incomplete = append(incomplete, ic.Name)", "07-conditions"),
	// Rules 2 and 3: the unknown part of a message comes last.
	"messages-unknown-last": edit("conditions.go",
		"\treturn strings.Join(parts, \", \")", "\tslices.Reverse(parts)\n\treturn strings.Join(parts, \", \")", "07-conditions"),
	// Rules 2 and 3: the parts of a message joined with "; ".
	"messages-joined-with-semicolon": edit("conditions.go",
		"\treturn strings.Join(parts, \", \")", "\treturn strings.Join(parts, \"; \")", "07-conditions"),
	// Rule 3: no statuses is not UnknownContainerStatuses.
	"containers-ready-no-unknown-statuses": edit("conditions.go",
		"if len(statuses) == 0 {\n\t\treturn notCondition(api.ContainersReady", "if false {\n\t\treturn notCondition(api.ContainersReady", "07-conditions"),
	// Rule 3: PodCompleted though an app container is unknown.
	"containers-ready-completed-ignores-unknown": edit("conditions.go",
		"case phase == api.PodSucceeded && len(unknown) == 0:\n\t\treturn", "case phase == api.PodSucceeded:\n\t\treturn", "07-conditions"),
	// Rule 3: phase Failed is not looked at.
	"containers-ready-no-pod-failed": edit("conditions.go",
		"case phase == api.PodFailed:", "case false:", "07-conditions"),
	// Rule 3: phase Failed before no statuses.
	"containers-ready-failed-before-unknown-statuses": edit("conditions.go",
		"if len(statuses) == 0 {\n\t\treturn notCondition(api.ContainersReady", "if len(statuses) == 0 && phase != api.PodFailed {\n\t\treturn notCondition(api.ContainersReady", "07-conditions"),
	// Rule 3: init containers count for ContainersReady.
	"containers-ready-counts-init": edit("conditions.go",
		"for _, c := range spec.Containers {", "for _, c := range slices.Concat(spec.InitContainers, spec.Containers) {", "07-conditions"),
	// Rule 3: a container not ready is not named.
	"containers-ready-unready-ignored": edit("conditions.go",
		"case !s.Ready:\n\t\t\tunready", "case !s.Ready && false:\n\t\t\tunready", "07-conditions"),
	// Rule 4: Ready does not follow ContainersReady.
	"ready-ignores-containers": edit("conditions.go",
		"if containersReady.Status != api.ConditionTrue {", "if false {", "07-conditions"),
	// Rule 4: the readiness gates are not looked at.
	"ready-gates-ignored": edit("conditions.go",
		"if len(msgs) > 0 {", "if false {", "07-conditions"),
	// Rule 4: a gate with no condition passes.
	"ready-gate-missing-passes": edit("conditions.go",
		"msgs = append(msgs, fmt.Sprintf(kubelets.MessageGateMissing", "_ = append(msgs, fmt.Sprintf(kubelets.MessageGateMissing", "07-conditions"),
	// Rule 4: a gate whose condition is Unknown passes.
	"ready-gate-unknown-passes": edit("conditions.go",
		"case kept[i].Status != api.ConditionTrue:", "case kept[i].Status == api.ConditionFalse:", "07-conditions"),
	// Rule 5: PodScheduled is left out.
	"scheduled-missing": edit("conditions.go",
		"\t\t{Type: api.PodScheduled, Status: api.ConditionTrue}, // Rule 5\n", "", "07-conditions"),
	// Rule 5: PodScheduled keeps the previous one's reason and message.
	"scheduled-keeps-reason": edit("conditions.go",
		"\t\tout = append(out, c)\n\t}\n\treturn out", "\t\tif i := slices.IndexFunc(previous, func(p api.PodCondition) bool { return p.Type == c.Type }); i >= 0 && c.Type == api.PodScheduled {\n\t\t\tc.Reason, c.Message = previous[i].Reason, previous[i].Message\n\t\t}\n\t\tout = append(out, c)\n\t}\n\treturn out", "07-conditions"),
	// Rule 6: every lastTransitionTime is now.
	"times-always-now": edit("conditions.go",
		"i >= 0 && previous[i].Status == c.Status {", "i >= 0 && false {", "07-conditions"),
	// Rule 6: the previous time is kept whatever the status.
	"times-always-kept": edit("conditions.go",
		"i >= 0 && previous[i].Status == c.Status {", "i >= 0 {", "07-conditions"),
	// Rule 6: a new reason or message moves the time too.
	"times-moved-by-message": edit("conditions.go",
		"i >= 0 && previous[i].Status == c.Status {", "i >= 0 && previous[i].Status == c.Status && previous[i].Reason == c.Reason && previous[i].Message == c.Message {", "07-conditions"),
	// Rule 6: a new condition has no time.
	"times-zero-when-new": edit("conditions.go",
		"c.LastTransitionTime = api.NewTime(now)\n\t\tif i", "c.LastTransitionTime = api.Time{}\n\t\tif i", "07-conditions"),
	// Changes nothing it is given: marks the previous conditions as seen.
	"conditions-changes-previous": edit("conditions.go",
		"c.LastTransitionTime = previous[i].LastTransitionTime", "c.LastTransitionTime = previous[i].LastTransitionTime\n\t\t\tprevious[i].LastTransitionTime = api.NewTime(now)", "07-conditions"),
}
