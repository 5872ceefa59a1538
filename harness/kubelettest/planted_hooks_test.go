package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of the lifecycle hooks (step 15's second part,
// loop_hooks.go): each breaks one rule of the hooks (kubelets.Kubelet's
// rules 4 and 8) in the reference's source (solutions/13-kubelet:
// hooks.go, pods.go, prober.go), and must fail exactly the steps it
// lists. An httpGet hook's request is a probe's (newHTTPGetRequest):
// its path, headers, host and named port are planted_probenet_test.go's
// http-path-dropped, http-headers-dropped, http-host-ignored and
// named-port-not-resolved, which fail steps 14 and 15. The
// preStop hook skipped altogether and its seconds not taken off the
// grace are planted_loop2_test.go's prestop-skipped and
// prestop-time-not-deducted.

func init() { addLoopBugs(hookBugs) }

// hooksFile is the reference's file of the hooks.
const hooksFile = "hooks.go"

// hookBugs are the planted bugs of the hooks.
var hookBugs = map[string]planted.Bug{
	// Rule 4: the postStart hook is never run.
	"poststart-never-run": edit(hooksFile,
		"\tif c.Lifecycle == nil || c.Lifecycle.PostStart == nil {\n\t\treturn \"\", false\n\t}",
		"\tif true || c.Lifecycle == nil || c.Lifecycle.PostStart == nil {\n\t\treturn \"\", false\n\t}",
		"15-terminate"),
	// Rule 4: the postStart hook runs before StartContainer, in a
	// container that is only created.
	"poststart-before-start": {Edits: []planted.Edit{
		{File: loop2Pods, Old: "\tif err := rs.StartContainer(ctx, id); err != nil {", New: "\tmsg, failed := k.postStart(ctx, pod, c, id, podIP)\n\tif err := rs.StartContainer(ctx, id); err != nil {"},
		{File: loop2Pods, Old: "\tif msg, failed := k.postStart(ctx, pod, c, id, podIP); failed {", New: "\tif failed {"},
	}, Fails: []string{"15-terminate"}},
	// Rule 4: a failed postStart leaves the container running.
	"poststart-failure-not-killed": edit(hooksFile,
		"\tk.killContainer(ctx, pod, id, c.Name, eventFailedPostStartHook, eventFailedPostStartHook)\n",
		"",
		"15-terminate"),
	// Rule 4: a failed postStart kills the container as a deletion
	// does: Killing "Stopping container web".
	"poststart-kill-message-lost": edit(hooksFile,
		"k.killContainer(ctx, pod, id, c.Name, eventFailedPostStartHook, eventFailedPostStartHook)",
		"k.killContainer(ctx, pod, id, c.Name, eventFailedPostStartHook, \"\")",
		"15-terminate"),
	// Rules 4 and 11: no FailedPostStartHook Event.
	"poststart-failure-no-event": edit(hooksFile,
		"\tk.recorder.Event(pod, events.EventTypeWarning, eventFailedPostStartHook, \"\", \"PostStartHook failed\")\n",
		"",
		"15-terminate"),
	// Rule 4: the container killed by its postStart is not Waiting
	// PostStartHookError.
	"poststart-waiting-not-kept": edit(loop2Pods,
		"\t\tw.waiting[c.Name] = kubelets.Waiting{Reason: reasonPostStartHookError, Message: msg}\n",
		"\t\t_ = msg\n",
		"15-terminate"),
	// Rules 4 and 8: an exec hook's exit code is not looked at.
	"exec-hook-exit-code-ignored": edit(hooksFile,
		"\t\t\tif res.ExitCode != 0 {",
		"\t\t\tif false && res.ExitCode != 0 {",
		"15-terminate"),
	// Rules 4 and 8: an exec hook runs with a timeout of its own.
	"exec-hook-timeout": edit(hooksFile,
		"res, err := k.opts.Runtime.ExecSync(ctx, id, cmd, 0)",
		"res, err := k.opts.Runtime.ExecSync(ctx, id, cmd, time.Second)",
		"15-terminate"),
	// Rules 4 and 8: an httpGet hook answered 400 or more fails, as a
	// probe would.
	"http-hook-status-checked": edit(hooksFile,
		"\t_ = resp.Body.Close()\n\treturn nil\n}",
		"\t_ = resp.Body.Close()\n\tif resp.StatusCode >= 400 {\n\t\treturn fmt.Errorf(\"kubelet: status %d\", resp.StatusCode)\n\t}\n\treturn nil\n}",
		"15-terminate"),
	// Rules 4 and 8: the scheme of an httpGet ignored: an HTTPS hook is
	// sent as HTTP (newHTTPGetRequest in prober.go; no probe of step 14
	// is HTTPS).
	"http-scheme-ignored": edit(loop2Prober,
		"\tscheme := strings.ToLower(string(g.Scheme))\n",
		"\tscheme := \"http\"\n",
		"15-terminate"),
	// Rule 4: an httpGet hook sends the probes' User-Agent.
	"http-hook-user-agent-of-probes": edit(hooksFile,
		"newHTTPGetRequest(ctx, g, c, podIP, hookUserAgent)",
		"newHTTPGetRequest(ctx, g, c, podIP, probeUserAgent)",
		"15-terminate"),
	// Rule 4: a tcpSocket hook passes, though upstream refuses it.
	"tcpsocket-hook-accepted": edit(hooksFile,
		"\t// tcpSocket is a probe's action, not a hook's: refused.\n",
		"\tif h.TCPSocket != nil {\n\t\treturn \"\", nil\n\t}\n",
		"15-terminate"),
	// Rule 8: a sleep hook does not wait on the kubelet's clock.
	"sleep-hook-not-on-clock": edit(hooksFile,
		"\t\tcase <-k.clock.After(time.Duration(h.Sleep.Seconds) * time.Second):",
		"\t\tcase <-time.After(0 * time.Duration(h.Sleep.Seconds)):",
		"15-terminate"),
	// Rule 8: only an exec preStop runs, as before issue 14's hooks:
	// httpGet and sleep are ignored.
	"prestop-exec-only": edit(loop2Pods,
		"spec != nil && spec.Lifecycle != nil && spec.Lifecycle.PreStop != nil {",
		"spec != nil && spec.Lifecycle != nil && spec.Lifecycle.PreStop != nil && spec.Lifecycle.PreStop.Exec != nil {",
		"15-terminate"),
	// Rule 8: a preStop hook that failed (or did not end within the
	// grace) stops nothing.
	"prestop-failure-stops-nothing": edit(loop2Pods,
		"\t\t_ = k.preStop(ctx, pod, *spec, id, grace) // a failure stops nothing: the stop goes on\n",
		"\t\tif k.preStop(ctx, pod, *spec, id, grace) != nil {\n\t\t\treturn\n\t\t}\n",
		"15-terminate"),
	// Rules 8 and 11: no FailedPreStopHook Event.
	"prestop-failure-no-event": edit(hooksFile,
		"\t\t\tk.recorder.Event(pod, events.EventTypeWarning, eventFailedPreStopHook, \"\", \"PreStopHook failed\")\n",
		"",
		"15-terminate"),
	// Rule 8: a preStop hook is waited for however long it takes.
	"prestop-not-bounded": edit(hooksFile,
		"\tcase <-k.clock.After(time.Duration(grace) * time.Second):",
		"\tcase <-k.clock.After(time.Duration(grace) * time.Hour):",
		"15-terminate"),
}
