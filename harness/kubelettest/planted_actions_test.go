package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

func init() { addBugs(actionsBugs) }

// actionsEdit is a bug of one edit of actions.go; only 03-actions calls
// Actions, so each fails it alone.
func actionsEdit(old, new string) planted.Bug {
	return edit("actions.go", old, new, "03-actions")
}

// actionsBugs break the rules of Actions (actions.go), and "changes
// nothing it is given".
var actionsBugs = map[string]planted.Bug{
	// Rule 1: a new sandbox is not asked for: a new pod goes the way of
	// one whose sandbox stays.
	"actions-ignores-new-sandbox": actionsEdit("\tif sb.Create {\n", "\tif false {\n"),
	// Rule 1: a new sandbox does not kill the pod first.
	"actions-new-sandbox-keeps-pod": actionsEdit("KillPod: sb.Create, CreateSandbox", "KillPod: false, CreateSandbox"),
	// Rule 1: the attempt counted from the sandboxes, not SandboxChanged's.
	"actions-counts-attempt": actionsEdit("Attempt: sb.Attempt, Start", "Attempt: uint32(len(rt.Sandboxes)), Start"),

	// Rule 2: a finished Never pod gets a new sandbox all the same.
	"actions-never-pod-new-sandbox": actionsEdit("if !restart && sb.Attempt != 0 && len(rt.Containers) != 0 {", "if false {"),
	// Rule 2: a sandbox that died before any container was made is not
	// retried.
	"actions-never-pod-sandbox-not-retried": actionsEdit("if !restart && sb.Attempt != 0 && len(rt.Containers) != 0 {", "if !restart && sb.Attempt != 0 {"),
	// Rule 2: the first sandbox (attempt 0) is refused too.
	"actions-never-pod-first-sandbox-refused": actionsEdit("if !restart && sb.Attempt != 0 && len(rt.Containers) != 0 {", "if !restart && len(rt.Containers) != 0 {"),
	// Rules 2, 4 and 6: only Always restarts (OnFailure and none are
	// taken for Never).
	"actions-restart-only-always": actionsEdit("restart := pod.Spec.RestartPolicy != api.RestartPolicyNever", "restart := pod.Spec.RestartPolicy == api.RestartPolicyAlways"),

	// Rule 3: a container that succeeded is started again under
	// OnFailure (Never taken for it).
	"actions-new-sandbox-starts-succeeded": actionsEdit("if pod.Spec.RestartPolicy == api.RestartPolicyOnFailure && succeeded(", "if pod.Spec.RestartPolicy == api.RestartPolicyNever && succeeded("),
	// Rule 3: a container that succeeded is left out under Always too.
	"actions-new-sandbox-skips-succeeded-always": actionsEdit("if pod.Spec.RestartPolicy == api.RestartPolicyOnFailure && succeeded(", "if succeeded("),
	// Rule 3: a running container counts as succeeded (exit code 0).
	"actions-running-counts-as-succeeded": actionsEdit("st != nil && st.State != cri.ContainerRunning && st.ExitCode == 0", "st != nil && st.ExitCode == 0"),
	// Rule 3: a new sandbox even when nothing is left to start.
	"actions-new-sandbox-for-nothing": actionsEdit("\t\tif len(start) == 0 {\n\t\t\tif _, _, done := nextInit(pod, rt); done {\n\t\t\t\ta.CreateSandbox = false\n\t\t\t\treturn a\n\t\t\t}\n\t\t}\n", ""),
	// Rule 3: nothing left to start means no sandbox, initialization
	// done or not.
	"actions-new-sandbox-ignores-initialization": actionsEdit("if _, _, done := nextInit(pod, rt); done {", "if true {"),
	// Rule 3: the init containers do not run again in a new sandbox.
	"actions-new-sandbox-skips-init": actionsEdit("\t\tif len(pod.Spec.InitContainers) != 0 {\n\t\t\ta.NextInit", "\t\tif false {\n\t\t\ta.NextInit"),

	// Rule 4: a running app container does not mean initialized.
	"actions-init-ignores-running-app": actionsEdit("\tfor _, c := range pod.Spec.Containers {\n\t\tif st := newestNamed(rt, c.Name); st != nil && st.State == cri.ContainerRunning {\n\t\t\treturn nil, \"\", true\n\t\t}\n\t}\n", ""),
	// Rule 4: a failed init container is not seen as failed.
	"actions-init-failure-ignored": actionsEdit("st != nil && initFailed(st) {", "st != nil && false {"),
	// Rule 4: an unknown init container is not failed (it is passed over).
	"actions-init-unknown-not-failed": actionsEdit(" || st.State == cri.ContainerUnknown\n", "\n"),
	// Rule 4: a failed init container runs again under Never.
	"actions-init-failed-restarts-under-never": actionsEdit("case failed != nil && !restart:", "case false:"),
	// Rule 4: a failed init container kills the pod whatever the policy.
	"actions-init-failed-kills-pod": actionsEdit("case failed != nil && !restart:", "case failed != nil:"),
	// Rule 4: an unknown init container is not killed before it runs
	// again.
	"actions-init-unknown-not-killed": actionsEdit("if failed != nil && failed.State == cri.ContainerUnknown {", "if false {"),
	// Rule 4: a running init container counts as done.
	"actions-init-running-done": actionsEdit("case st.State == cri.ContainerRunning:\n\t\t\treturn nil, \"\", false", "case st.State == cri.ContainerRunning:\n\t\t\treturn nil, \"\", true"),
	// Rule 4: an init container that succeeded runs again instead of the
	// next.
	"actions-init-next-is-same": actionsEdit("return nil, inits[i+1].Name, false", "return nil, inits[i].Name, false"),
	// Rule 4: a created init container counts as one that ran.
	"actions-init-created-counts-as-exited": actionsEdit("case st.State == cri.ContainerExited:", "case st.State == cri.ContainerExited, st.State == cri.ContainerCreated:"),
	// Rule 4: the init containers read from the first, not the last.
	"actions-init-read-forward": actionsEdit("\tfor i := len(inits) - 1; i >= 0; i-- {\n\t\tst := newestNamed(rt, inits[i].Name)\n", "\tfor i := 0; i < len(inits); i++ {\n\t\tst := newestNamed(rt, inits[i].Name)\n"),
	// Rule 4: the app containers are looked at before initialization is
	// done.
	"actions-init-not-waited": actionsEdit("\t\treturn a\n\t}\n\n\tkeep := 0", "\t}\n\n\tkeep := 0"),
	// Rules 4 and 6: the oldest container of a name decides, not the
	// newest.
	"actions-oldest-container-decides": actionsEdit("\tfor i := range rt.Containers {\n\t\tif rt.Containers[i].Metadata.Name == name {", "\tfor i := len(rt.Containers) - 1; i >= 0; i-- {\n\t\tif rt.Containers[i].Metadata.Name == name {"),

	// Rule 5: every container not running starts again, whatever
	// ShouldRestart says.
	"actions-ignores-should-restart": actionsEdit("if ShouldRestart(pod, c.Name, rt) {", "if true {"),
	// Rule 5: an unknown container is started without being killed.
	"actions-unknown-not-killed": actionsEdit("if st != nil && st.State == cri.ContainerUnknown {\n\t\t\t\t\ta.Kill", "if false {\n\t\t\t\t\ta.Kill"),
	// Rule 5: a created container is killed too.
	"actions-created-killed": actionsEdit("if st != nil && st.State == cri.ContainerUnknown {\n\t\t\t\t\ta.Kill", "if st != nil && st.State != cri.ContainerExited {\n\t\t\t\t\ta.Kill"),
	// Rule 5: the CRI's state in the message, not upstream's "unknown".
	"actions-unknown-message-cri-state": actionsEdit("Message: `Container is in \"unknown\" state", "Message: `Container is in \"CONTAINER_UNKNOWN\" state"),

	// Rule 6: a liveness failure kills nothing.
	"actions-liveness-ignored": actionsEdit("case slices.Contains(failures, kubelets.ProbeFailure{ContainerID: st.ID, Probe: kubelets.Liveness}):", "case false:"),
	// Rule 6: a startup failure kills nothing.
	"actions-startup-ignored": actionsEdit("case slices.Contains(failures, kubelets.ProbeFailure{ContainerID: st.ID, Probe: kubelets.Startup}):", "case false:"),
	// Rule 6: startup is asked before liveness.
	"actions-startup-before-liveness": actionsEdit(
		"\t\tcase slices.Contains(failures, kubelets.ProbeFailure{ContainerID: st.ID, Probe: kubelets.Liveness}):\n\t\t\treason, message = kubelets.KillReasonLiveness, fmt.Sprintf(\"Container %s failed liveness probe\", c.Name)\n\t\tcase slices.Contains(failures, kubelets.ProbeFailure{ContainerID: st.ID, Probe: kubelets.Startup}):\n\t\t\treason, message = kubelets.KillReasonStartup, fmt.Sprintf(\"Container %s failed startup probe\", c.Name)\n",
		"\t\tcase slices.Contains(failures, kubelets.ProbeFailure{ContainerID: st.ID, Probe: kubelets.Startup}):\n\t\t\treason, message = kubelets.KillReasonStartup, fmt.Sprintf(\"Container %s failed startup probe\", c.Name)\n\t\tcase slices.Contains(failures, kubelets.ProbeFailure{ContainerID: st.ID, Probe: kubelets.Liveness}):\n\t\t\treason, message = kubelets.KillReasonLiveness, fmt.Sprintf(\"Container %s failed liveness probe\", c.Name)\n"),
	// Rule 6: any failure of the container kills it, readiness too.
	"actions-readiness-kills": actionsEdit("case slices.Contains(failures, kubelets.ProbeFailure{ContainerID: st.ID, Probe: kubelets.Liveness}):",
		"case slices.ContainsFunc(failures, func(f kubelets.ProbeFailure) bool { return f.ContainerID == st.ID && f.Probe != kubelets.Startup }):"),
	// Rule 6: a container killed for a probe is never started again.
	"actions-probe-kill-never-restarts": actionsEdit("\t\tif restart {\n\t\t\tmessage +=", "\t\tif false {\n\t\t\tmessage +="),
	// Rule 6: a container killed for a probe starts again under Never.
	"actions-probe-kill-restarts-under-never": actionsEdit("\t\tif restart {\n\t\t\tmessage +=", "\t\tif true {\n\t\t\tmessage +="),
	// Rule 6: the message does not say it will be restarted.
	"actions-probe-kill-message-short": actionsEdit("\t\t\tmessage += \", will be restarted\"\n", ""),
	// Rule 6: the liveness kill's reason is not upstream's.
	"actions-liveness-reason": actionsEdit("reason, message = kubelets.KillReasonLiveness,", "reason, message = \"Liveness\","),

	// Rule 7: a pod with nothing left to run is not killed.
	"actions-never-kills-pod": actionsEdit("if keep == 0 && len(a.Start) == 0 {", "if false {"),
	// Rule 7: a running container kept does not keep the pod.
	"actions-kills-pod-with-containers-kept": actionsEdit("if keep == 0 && len(a.Start) == 0 {", "if len(a.Start) == 0 {"),
	// Rule 7: a container killed for a probe counts as kept.
	"actions-probe-killed-counts-as-kept": actionsEdit("\t\tif restart {\n\t\t\tmessage +=", "\t\tkeep++\n\t\tif restart {\n\t\t\tmessage +="),

	// Spec order: the kills sorted by container id.
	"actions-kills-by-id": actionsEdit("\t// Rule 7: nothing kept running",
		"\tslices.SortFunc(a.Kill, func(x, y kubelets.Kill) int {\n\t\tif x.ContainerID < y.ContainerID {\n\t\t\treturn -1\n\t\t}\n\t\treturn 1\n\t})\n\t// Rule 7: nothing kept running"),
	// Spec order: the containers to start from the last to the first.
	"actions-start-reversed": actionsEdit("\t// Rule 7: nothing kept running", "\tslices.Reverse(a.Start)\n\t// Rule 7: nothing kept running"),

	// Changes nothing it is given: the killed container is marked exited
	// in the runtime's list.
	"actions-changes-runtime": actionsEdit("\t\ta.Kill = append(a.Kill, kubelets.Kill{ContainerID: st.ID, Name: c.Name, Reason: reason, Message: message})\n",
		"\t\ta.Kill = append(a.Kill, kubelets.Kill{ContainerID: st.ID, Name: c.Name, Reason: reason, Message: message})\n\t\tst.State = cri.ContainerExited\n"),
}
