package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

func init() { addBugs(probesBugs) }

// probesBugs break the rules of ProbeDue (1-3) and ProbeNext (1-5), and
// "changes nothing it is given" (probes.go).
var probesBugs = map[string]planted.Bug{
	// ProbeDue rule 1: a container that is not running is probed all the
	// same (its started decides).
	"probes-due-not-running": edit("probes.go",
		"\tif running == nil {\n\t\treturn false\n\t}\n",
		"\tif running == nil {\n\t\treturn (status.Started != nil && *status.Started) != (kind == kubelets.Startup)\n\t}\n", "08-probes"),
	// ProbeDue rule 1: only a waiting container is skipped (a
	// terminated one is probed).
	"probes-due-terminated": edit("probes.go",
		"\tif running == nil {\n\t\treturn false\n\t}\n",
		"\tif running == nil && status.State.Terminated != nil {\n\t\trunning = &api.ContainerStateRunning{StartedAt: status.State.Terminated.StartedAt}\n\t}\n\tif running == nil {\n\t\treturn false\n\t}\n", "08-probes"),
	// ProbeDue rule 2: no initial delay.
	"probes-due-no-delay": edit("probes.go",
		"int32(now.Sub(running.StartedAt.Time).Seconds()) < probe.InitialDelaySeconds",
		"false", "08-probes"),
	// ProbeDue rule 2: the delay's last second still waits (<=).
	"probes-due-delay-off-by-one": edit("probes.go",
		"int32(now.Sub(running.StartedAt.Time).Seconds()) < probe.InitialDelaySeconds",
		"int32(now.Sub(running.StartedAt.Time).Seconds()) <= probe.InitialDelaySeconds", "08-probes"),
	// ProbeDue rule 2: seconds rounded to the nearest, not truncated.
	"probes-due-delay-rounds": edit("probes.go",
		"int32(now.Sub(running.StartedAt.Time).Seconds()) < probe.InitialDelaySeconds",
		"int32(now.Sub(running.StartedAt.Time).Round(time.Second).Seconds()) < probe.InitialDelaySeconds", "08-probes"),
	// ProbeDue rule 2: a now before startedAt counts as no time at all
	// (clamped to 0), so it is due without a delay.
	"probes-due-delay-clamped": edit("probes.go",
		"now.Sub(running.StartedAt.Time).Seconds()",
		"max(now.Sub(running.StartedAt.Time), 0).Seconds()", "08-probes"),
	// ProbeDue rule 3: the startup probe runs on after the container has
	// started.
	"probes-due-startup-forever": edit("probes.go",
		"\treturn started != (kind == kubelets.Startup)\n",
		"\treturn started || kind == kubelets.Startup\n", "08-probes"),
	// ProbeDue rule 3: liveness and readiness run before the container
	// has started.
	"probes-due-liveness-before-started": edit("probes.go",
		"\treturn started != (kind == kubelets.Startup)\n",
		"\treturn !started || kind != kubelets.Startup\n", "08-probes"),
	// ProbeDue rule 3: started nil counts as started.
	"probes-due-nil-is-started": edit("probes.go",
		"started := status.Started != nil && *status.Started",
		"started := status.Started == nil || *status.Started", "08-probes"),
	// ProbeDue rule 3: the kinds are ignored: every probe runs.
	"probes-due-ignores-started": edit("probes.go",
		"\treturn started != (kind == kubelets.Startup)\n",
		"\treturn started || !started\n", "08-probes"),

	// ProbeNext rule 1: a worker on hold goes on counting and publishing.
	"probes-next-ignores-hold": edit("probes.go",
		"\tif w.OnHold {\n\t\treturn w\n\t}\n", "", "08-probes"),
	// ProbeNext rule 1: a worker on hold is released by the next result.
	"probes-next-hold-released": edit("probes.go",
		"\tif w.OnHold {\n\t\treturn w\n\t}\n", "\tw.OnHold = false\n", "08-probes"),
	// ProbeNext rule 2: a different result does not start a new run (the
	// run goes on counting).
	"probes-next-run-not-reset": edit("probes.go",
		"\t\tw.Last, w.Run = result, 1\n", "\t\tw.Last, w.Run = result, w.Run+1\n", "08-probes"),
	// ProbeNext rule 2: every run is a run of 1.
	"probes-next-run-always-one": edit("probes.go",
		"\tif result == w.Last {\n\t\tw.Run++\n", "\tif result == w.Last {\n\t\tw.Run = 1\n", "08-probes"),
	// ProbeNext rule 2: Last is never updated.
	"probes-next-last-not-kept": edit("probes.go",
		"\t\tw.Last, w.Run = result, 1\n", "\t\tw.Run = 1\n", "08-probes"),
	// ProbeNext rule 3: no thresholds: every result is published at once.
	"probes-next-no-threshold": edit("probes.go",
		"\tif (result == kubelets.Failure && w.Run < failureThreshold) ||\n\t\t(result == kubelets.Success && w.Run < successThreshold) {\n",
		"\tif false && ((result == kubelets.Failure && w.Run < failureThreshold) ||\n\t\t(result == kubelets.Success && w.Run < successThreshold)) {\n", "08-probes"),
	// ProbeNext rule 3: the threshold must be passed, not reached.
	"probes-next-threshold-off-by-one": edit("probes.go",
		"\tif (result == kubelets.Failure && w.Run < failureThreshold) ||\n\t\t(result == kubelets.Success && w.Run < successThreshold) {\n",
		"\tif (result == kubelets.Failure && w.Run <= failureThreshold) ||\n\t\t(result == kubelets.Success && w.Run <= successThreshold) {\n", "08-probes"),
	// ProbeNext rule 3: failures counted against successThreshold.
	"probes-next-failure-uses-success-threshold": edit("probes.go",
		"failureThreshold := cmp.Or(probe.FailureThreshold, kubelets.DefaultFailureThreshold)",
		"failureThreshold := cmp.Or(probe.SuccessThreshold, kubelets.DefaultSuccessThreshold)", "08-probes"),
	// ProbeNext rule 3: successes counted against failureThreshold.
	"probes-next-success-uses-failure-threshold": edit("probes.go",
		"successThreshold := cmp.Or(probe.SuccessThreshold, kubelets.DefaultSuccessThreshold)",
		"successThreshold := cmp.Or(probe.FailureThreshold, kubelets.DefaultFailureThreshold)", "08-probes"),
	// ProbeNext rule 3: a result is published only at the threshold, not
	// past it (the run of 4 failures does not publish Failure again).
	"probes-next-publish-only-at-threshold": edit("probes.go",
		"\tw.Published = result\n",
		"\tif w.Run == failureThreshold || w.Run == successThreshold {\n\t\tw.Published = result\n\t}\n", "08-probes"),
	// ProbeNext rule 4: failureThreshold 0 is taken as is (publish at
	// once).
	"probes-next-no-failure-default": edit("probes.go",
		"cmp.Or(probe.FailureThreshold, kubelets.DefaultFailureThreshold)",
		"probe.FailureThreshold", "08-probes"),
	// ProbeNext rule 4: successThreshold 0 defaults to 3, like failures.
	"probes-next-success-default-three": edit("probes.go",
		"cmp.Or(probe.SuccessThreshold, kubelets.DefaultSuccessThreshold)",
		"cmp.Or(probe.SuccessThreshold, kubelets.DefaultFailureThreshold)", "08-probes"),
	// ProbeNext rule 4: failureThreshold 0 defaults to 1.
	"probes-next-failure-default-one": edit("probes.go",
		"cmp.Or(probe.FailureThreshold, kubelets.DefaultFailureThreshold)",
		"cmp.Or(probe.FailureThreshold, kubelets.DefaultSuccessThreshold)", "08-probes"),
	// ProbeNext rule 5: nothing puts a worker on hold.
	"probes-next-never-holds": edit("probes.go",
		"\t\tw.OnHold, w.Run = true, 0\n", "", "08-probes"),
	// ProbeNext rule 5: a readiness Failure holds too.
	"probes-next-readiness-holds": edit("probes.go",
		"(w.Kind == kubelets.Liveness && result == kubelets.Failure)",
		"(w.Kind != kubelets.Startup && result == kubelets.Failure)", "08-probes"),
	// ProbeNext rule 5: a liveness Success holds too.
	"probes-next-liveness-success-holds": edit("probes.go",
		"(w.Kind == kubelets.Liveness && result == kubelets.Failure)",
		"w.Kind == kubelets.Liveness", "08-probes"),
	// ProbeNext rule 5: only a startup Failure holds (a startup Success
	// goes on probing: the extra runs of #117153).
	"probes-next-startup-success-no-hold": edit("probes.go",
		"|| w.Kind == kubelets.Startup {",
		"|| (w.Kind == kubelets.Startup && result == kubelets.Failure) {", "08-probes"),
	// ProbeNext rule 5: the hold keeps the run.
	"probes-next-hold-keeps-run": edit("probes.go",
		"\t\tw.OnHold, w.Run = true, 0\n", "\t\tw.OnHold = true\n", "08-probes"),
	// ProbeNext rule 5: the hold clears Last as well as the run.
	"probes-next-hold-clears-last": edit("probes.go",
		"\t\tw.OnHold, w.Run = true, 0\n", "\t\tw.OnHold, w.Run, w.Last = true, 0, \"\"\n", "08-probes"),

	// ProbeDue writes its answer into the status's started (a pointer the
	// caller shares).
	"probes-due-changes-its-input": edit("probes.go",
		"\tstarted := status.Started != nil && *status.Started\n",
		"\tstarted := status.Started != nil && *status.Started\n\tif status.Started != nil {\n\t\t*status.Started = started != (kind == kubelets.Startup)\n\t}\n", "08-probes"),
	// ProbeNext sorts or rewrites the probe's exec command (a slice the
	// caller shares).
	"probes-next-changes-its-input": edit("probes.go",
		"\tw.Published = result\n",
		"\tw.Published = result\n\tif probe.Exec != nil && len(probe.Exec.Command) > 0 {\n\t\tprobe.Exec.Command[0] = string(result)\n\t}\n", "08-probes"),
}
