package kubelet

import (
	"cmp"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// ProbeDue says whether a probe runs now (kubelets.ProbeDueFunc): the
// checks of upstream's doProbe (pkg/kubelet/prober/worker.go) before it
// calls the prober.
func ProbeDue(kind kubelets.ProbeKind, probe api.Probe, status api.ContainerStatus, now time.Time) bool {
	// Rule 1: only a running container is probed (doProbe publishes
	// Failure for the others; that is the loop's).
	running := status.State.Running
	if running == nil {
		return false
	}
	// Rule 2: "Probe disabled for InitialDelaySeconds", in whole seconds
	// as upstream truncates them.
	if int32(now.Sub(running.StartedAt.Time).Seconds()) < probe.InitialDelaySeconds {
		return false
	}
	// Rule 3: startup until the container has started, the others after.
	started := status.Started != nil && *status.Started
	return started != (kind == kubelets.Startup)
}

// ProbeNext is one probe run's effect on its worker
// (kubelets.ProbeNextFunc): the end of upstream's doProbe. w is a value,
// so the worker returned is a copy; probe is only read.
func ProbeNext(w kubelets.ProbeWorker, probe api.Probe, result kubelets.Result) kubelets.ProbeWorker {
	// Rule 1: on hold until the container is replaced.
	if w.OnHold {
		return w
	}
	// Rule 2: lastResult and resultRun.
	if result == w.Last {
		w.Run++
	} else {
		w.Last, w.Run = result, 1
	}
	// Rules 3 and 4: below its threshold a run leaves the published result
	// unchanged (SetDefaults_Probe gives 0 its default).
	failureThreshold := cmp.Or(probe.FailureThreshold, kubelets.DefaultFailureThreshold)
	successThreshold := cmp.Or(probe.SuccessThreshold, kubelets.DefaultSuccessThreshold)
	if (result == kubelets.Failure && w.Run < failureThreshold) ||
		(result == kubelets.Success && w.Run < successThreshold) {
		return w
	}
	w.Published = result
	// Rule 5: a failed liveness probe means a restart, and a startup probe
	// has said all it will (#117153): stop until a new container.
	if (w.Kind == kubelets.Liveness && result == kubelets.Failure) || w.Kind == kubelets.Startup {
		w.OnHold, w.Run = true, 0
	}
	return w
}

var _ kubelets.ProbeDueFunc = ProbeDue
var _ kubelets.ProbeNextFunc = ProbeNext
