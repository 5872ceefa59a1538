package kubelet

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// When a probe runs, and what its results do: kubelets.ProbeDueFunc's
// three rules and kubelets.ProbeNextFunc's five. Upstream decides both
// in the probe worker's doProbe (pkg/kubelet/prober/worker.go).

// ProbeDue says whether the probe of kind (liveness, readiness or
// startup) runs at now for the container whose status is status. It
// changes nothing it is given.
func ProbeDue(kind kubelets.ProbeKind, probe api.Probe, status api.ContainerStatus, now time.Time) bool {
	// TODO: false unless state.running is set (rule 1); false while fewer whole seconds than initialDelaySeconds have passed since state.running.startedAt (rule 2); startup only while started is not true, liveness and readiness only once it is (rule 3) (task 8).
	panic("not implemented: ProbeDue")
}

// ProbeNext is the worker w after one run of probe gave result (Success
// or Failure): its run, the result it publishes, and whether it is on
// hold. It changes nothing it is given.
func ProbeNext(w kubelets.ProbeWorker, probe api.Probe, result kubelets.Result) kubelets.ProbeWorker {
	// TODO: a worker on hold unchanged (rule 1); count the run, same as Last or a new run of 1 (rule 2); publish only once the run reaches failureThreshold or successThreshold (rule 3), 0 meaning the defaults 3 and 1 (rule 4); then a liveness Failure or any startup result holds the worker with Run 0 (rule 5) (task 8).
	panic("not implemented: ProbeNext")
}

var _ kubelets.ProbeDueFunc = ProbeDue
var _ kubelets.ProbeNextFunc = ProbeNext
