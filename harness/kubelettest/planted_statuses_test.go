package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

func init() { addBugs(statusesBugs) }

// statusesBug is a bug of statuses.go that only 05-container-statuses
// must catch (no other step calls ContainerStatuses).
func statusesBug(old, new string) planted.Bug {
	return edit("statuses.go", old, new, "05-container-statuses")
}

// statusesBugs break the rules of ContainerStatuses (1-7) and "changes
// nothing it is given" (statuses.go).
var statusesBugs = map[string]planted.Bug{
	// Rule 1: app containers of a pod with init containers wait
	// ContainerCreating.
	"statuses-app-not-pod-initializing": statusesBug(
		"if len(in.Pod.Spec.InitContainers) > 0 {",
		"if init && len(in.Pod.Spec.InitContainers) > 0 {"),
	// Rule 1: the default status has no image.
	"statuses-default-no-image": statusesBug(
		"s := api.ContainerStatus{Name: c.Name, Image: c.Image,",
		"s := api.ContainerStatus{Name: c.Name,"),
	// Rule 1: the default waiting state has no reason.
	"statuses-default-no-reason": statusesBug(
		"&api.ContainerStateWaiting{Reason: reason}}}",
		"&api.ContainerStateWaiting{Reason: reason[:0]}}}"),

	// Rule 2: a previous terminated status is not taken whole.
	"statuses-terminated-not-whole": statusesBug(
		"if old.State.Terminated != nil {",
		"if false && old.State.Terminated != nil {"),
	// Rule 2: the previous restartCount is not kept.
	"statuses-previous-restarts-dropped": statusesBug(
		"\t\t\t\ts.RestartCount = old.RestartCount\n", ""),
	// Rule 2: the previous lastState is not kept.
	"statuses-previous-last-dropped": statusesBug(
		"\t\t\t\ts.LastTerminationState = api.DeepCopyValue(old.LastTerminationState)\n", ""),
	// Rule 2: init containers look for their previous status among the
	// app containers'.
	"statuses-previous-wrong-list": statusesBug(
		"containers, previous = in.Pod.Spec.InitContainers, in.Previous.InitContainerStatuses",
		"containers = in.Pod.Spec.InitContainers"),

	// Rule 3: the oldest runtime container is taken for the newest.
	"statuses-oldest-is-state": statusesBug(
		"s = convertStatus(rts[0], old)",
		"s = convertStatus(rts[len(rts)-1], old)"),
	// Rule 3: the second newest is not the lastState.
	"statuses-no-last-from-runtime": statusesBug(
		"if len(rts) > 1 {",
		"if false && len(rts) > 1 {"),
	// Rule 3: what rule 2 gave survives the runtime's newest (merged,
	// not replaced).
	"statuses-runtime-merges-previous": statusesBug(
		"s = convertStatus(rts[0], old)",
		"restarts, last := s.RestartCount, s.LastTerminationState\n\t\t\ts = convertStatus(rts[0], old)\n\t\t\ts.RestartCount, s.LastTerminationState = max(restarts, s.RestartCount), last"),
	// Rule 3: restartCount is not the attempt.
	"statuses-restarts-not-attempt": statusesBug(
		"s := api.ContainerStatus{Name: c.Metadata.Name, RestartCount: int32(c.Metadata.Attempt),",
		"s := api.ContainerStatus{Name: c.Metadata.Name,"),
	// Rule 3: image and imageID swapped.
	"statuses-image-and-digest-swapped": statusesBug(
		"Image: c.Image.Image, ImageID: c.ImageRef,",
		"Image: c.ImageRef, ImageID: c.Image.Image,"),
	// Rule 3: containerID without the runtime's name.
	"statuses-container-id-bare": statusesBug(
		`id := kubelets.RuntimeName + "://" + c.ID`,
		`id := c.ID`),
	// Rule 3: a created container waits ContainerCreating.
	"statuses-created-is-creating": statusesBug(
		"case c.State == cri.ContainerCreated:\n\t\ts.State.Waiting = &api.ContainerStateWaiting{}",
		"case c.State == cri.ContainerCreated:\n\t\ts.State.Waiting = &api.ContainerStateWaiting{Reason: api.ContainerReasonContainerCreating}"),
	// Rule 3: a terminated state without its times.
	"statuses-terminated-no-times": statusesBug(
		"StartedAt: api.NewTime(c.StartedAt), FinishedAt: api.NewTime(c.FinishedAt), ContainerID: id}",
		"ContainerID: id}"),
	// Rule 3: the reason made up from the exit code, not the runtime's.
	"statuses-reason-from-exit-code": statusesBug(
		"ExitCode: c.ExitCode, Reason: c.Reason, Message: c.Message,",
		`ExitCode: c.ExitCode, Reason: map[bool]string{true: "Completed", false: "Error"}[c.ExitCode == 0], Message: c.Message,`),
	// Rule 3: the runtime's message dropped.
	"statuses-terminated-no-message": statusesBug(
		"ExitCode: c.ExitCode, Reason: c.Reason, Message: c.Message,",
		"ExitCode: c.ExitCode, Reason: c.Reason,"),
	// Rule 3: an unknown container is always waiting.
	"statuses-unknown-always-waiting": statusesBug(
		"case c.State == cri.ContainerUnknown && old != nil && old.State.Running != nil:",
		"case false:"),
	// Rule 3: an unknown container is terminated even when it was not
	// running.
	"statuses-unknown-always-terminated": statusesBug(
		"case c.State == cri.ContainerUnknown && old != nil && old.State.Running != nil:",
		"case c.State == cri.ContainerUnknown && old != nil:"),
	// Rule 3: an unknown container's end is not counted as a restart.
	"statuses-unknown-no-restart": statusesBug(
		"\t\ts.RestartCount = old.RestartCount + 1\n", ""),
	// Rule 3: the lastState is read from any runtime container, whatever
	// its name.
	"statuses-runtime-any-name": statusesBug(
		"if c.Metadata.Name == name {",
		"if c.Metadata.Name == name || len(out) > 0 {"),

	// Rule 4: a running container gone gets no lastState.
	"statuses-gone-no-last": statusesBug(
		"case old != nil && old.State.Running != nil && s.LastTerminationState.Terminated == nil:",
		"case false:"),
	// Rule 4: a kept terminated lastState is overwritten.
	"statuses-gone-overwrites-last": statusesBug(
		"case old != nil && old.State.Running != nil && s.LastTerminationState.Terminated == nil:",
		"case old != nil && old.State.Running != nil:"),
	// Rule 4: a restart counted while the pod is being deleted.
	"statuses-gone-restarts-while-deleting": statusesBug(
		"if in.Pod.DeletionTimestamp == nil {",
		"if true {"),
	// Rule 4: no restart counted.
	"statuses-gone-no-restart": statusesBug(
		"\t\t\t\ts.RestartCount++\n", ""),
	// Rule 4: the unknown state's message.
	"statuses-gone-wrong-message": statusesBug(
		"Message:  kubelets.MessageStatusGone,",
		"Message:  kubelets.MessageStatusUnknown,"),

	// Rule 5: in.Waiting is never read.
	"statuses-ignores-waiting": statusesBug(
		"ok && !doneInit && ShouldRestart(in.Pod, c.Name, in.Runtime) {",
		"ok && false && !doneInit {"),
	// Rule 5: every entry of in.Waiting applies, restarted or not.
	"statuses-waiting-without-should-restart": statusesBug(
		"ok && !doneInit && ShouldRestart(in.Pod, c.Name, in.Runtime) {",
		"ok && !doneInit {"),
	// Rule 5: the terminated state is lost instead of moving to lastState.
	"statuses-waiting-drops-termination": statusesBug(
		"\t\t\tif s.State.Terminated != nil {\n\t\t\t\ts.LastTerminationState = s.State\n\t\t\t}\n", ""),
	// Rule 5: an init container that exited 0 waits like the others.
	"statuses-waiting-done-init": statusesBug(
		"doneInit := init && len(rts) > 0",
		"doneInit := false && len(rts) > 0"),
	// Rule 5: the reason without its message.
	"statuses-waiting-no-message": statusesBug(
		"&api.ContainerStateWaiting{Reason: w.Reason, Message: w.Message}",
		"&api.ContainerStateWaiting{Reason: w.Reason}"),

	// Rule 6: Ready ignores the readiness probe.
	"statuses-ready-ignores-probe": statusesBug(
		"s.Ready = started && (c.ReadinessProbe == nil || in.Ready[id])",
		"s.Ready = started"),
	// Rule 6: Ready without the startup probe having passed.
	"statuses-ready-before-started": statusesBug(
		"s.Ready = started && (c.ReadinessProbe == nil || in.Ready[id])",
		"s.Ready = s.State.Running != nil && (c.ReadinessProbe == nil || in.Ready[id])"),
	// Rule 6: the probes' results read by the status's containerID.
	"statuses-probes-by-status-id": statusesBug(
		"\t\t\tid = rts[0].ID\n",
		"\t\t\tid = kubelets.RuntimeName + \"://\" + rts[0].ID\n"),
	// Rule 6: Started ignores the startup probe.
	"statuses-started-ignores-probe": statusesBug(
		"(c.StartupProbe == nil || in.Started[id])",
		"true"),
	// Rule 6: Started left nil when it is false.
	"statuses-started-nil": statusesBug(
		"\t\ts.Started = &started\n",
		"\t\tif started {\n\t\t\ts.Started = &started\n\t\t}\n"),
	// Rule 6: an init container is ready whatever its exit code.
	"statuses-init-ready-any-exit": statusesBug(
		"s.Ready = s.State.Terminated != nil && s.State.Terminated.ExitCode == 0",
		"s.Ready = s.State.Terminated != nil"),
	// Rule 6: init containers take the app containers' readiness.
	"statuses-init-ready-like-app": statusesBug(
		"\t\tif init {\n\t\t\ts.Ready",
		"\t\tif false {\n\t\t\ts.Ready"),

	// Rule 7: app containers in the spec's order.
	"statuses-app-spec-order": statusesBug(
		"if !init {",
		"if false {"),
	// Rule 7: init containers sorted by name.
	"statuses-init-sorted": statusesBug(
		"if !init {",
		"if true {"),

	// Changes its input: the reason cache's entry is used up.
	"statuses-consumes-waiting": statusesBug(
		"\t\t\ts.State = api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: w.Reason, Message: w.Message}}\n",
		"\t\t\ts.State = api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: w.Reason, Message: w.Message}}\n\t\t\tdelete(in.Waiting, c.Name)\n"),
	// Changes its input: the restart is counted on the previous status
	// itself.
	"statuses-counts-on-previous": statusesBug(
		"\t\t\t\ts.RestartCount++\n",
		"\t\t\t\told.RestartCount++\n\t\t\t\ts.RestartCount = old.RestartCount\n"),
}
