package kubelets

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// ProbeKind names a probe.
type ProbeKind string

// The three probes.
const (
	Liveness  ProbeKind = "liveness"
	Readiness ProbeKind = "readiness"
	Startup   ProbeKind = "startup"
)

// Result is a probe's result as the results manager keeps it.
type Result string

// The results (pkg/kubelet/prober/results).
const (
	Unknown Result = "Unknown"
	Success Result = "Success"
	Failure Result = "Failure"
)

// The thresholds a probe gets when it sets none (0), as the apiserver
// defaults them (pkg/apis/core/v1/defaults.go: SetDefaults_Probe, which
// also defaults periodSeconds to 10 and timeoutSeconds to 1).
const (
	DefaultFailureThreshold int32 = 3
	DefaultSuccessThreshold int32 = 1
)

// ProbeWorker is one probe worker's state (prober/worker.go: worker):
// the result it last published to the results manager, Published
// (Unknown at first for startup, Failure for readiness, Success for
// liveness: newWorker's initialValue), the last run's result and how
// many runs in a row gave it (lastResult, resultRun), and OnHold once a
// liveness failure or any startup result was published (onHold: no more
// probing until the container is replaced).
type ProbeWorker struct {
	Kind      ProbeKind `json:"kind"`
	Published Result    `json:"published"`
	Last      Result    `json:"last,omitempty"`
	Run       int32     `json:"run,omitempty"`
	OnHold    bool      `json:"onHold,omitempty"`
}

// ------------------------------------------------------------ 8. probes

// ProbeDueFunc says whether the probe of kind runs at now for the
// container whose status is status: the checks upstream's doProbe
// (pkg/kubelet/prober/worker.go) makes before it runs the probe. It
// changes nothing it is given.
//
// Rule 1. Only a running container is probed: status.state.running is
// set. A waiting or terminated container, or one with no state, is not.
//
// Rule 2. Not before probe.initialDelaySeconds have passed since
// state.running.startedAt, counted in whole seconds rounded toward zero
// (int32(time.Since(startedAt).Seconds()) < initialDelaySeconds: not
// due). With a delay of 5, 4.9s after the start is not due and 5s is;
// a now whole seconds before startedAt (the clocks disagree) is not due,
// even without a delay. Nothing else
// about time: periodSeconds is the loop's ticker, not a question for
// ProbeDue.
//
// Rule 3. A startup probe runs only while status.started is not true
// (nil or false); a liveness or readiness probe only once it is true
// (upstream: c.Started != nil && *c.Started).
//
// The rest of doProbe is the loop's, not ProbeDue's: finding the
// container's status (none yet: wait), a new container id (publish the
// initial result again and lift the hold), a worker on hold (skip), a
// container not running (publish Failure; stop for good when it will not
// be restarted), and a pod being deleted (liveness and startup publish
// Success and stop).
type ProbeDueFunc func(kind ProbeKind, probe api.Probe, status api.ContainerStatus, now time.Time) bool

// ProbeNextFunc is one probe run's effect on worker w: the second half
// of upstream's doProbe (pkg/kubelet/prober/worker.go), after the probe
// ran and gave result, Success or Failure (prober.go: probe turns every
// other outcome into Failure, and a probe's error is thrown away before
// it reaches the worker). It changes nothing it is given.
//
// Rule 1. A worker on hold is returned unchanged, whatever the result
// (upstream does not probe it at all).
//
// Rule 2. The result joins the run: the same as w.Last makes the run one
// longer; another result becomes Last with a run of 1 (a new worker's
// Last is "").
//
// Rule 3. Published changes only once the run reaches its threshold: a
// run of failures shorter than probe.failureThreshold, or of successes
// shorter than probe.successThreshold, leaves Published as it was. A run
// at or past its threshold publishes its result, at every run (the same
// value again changes nothing).
//
// Rule 4. A threshold of 0 is the apiserver's default:
// DefaultFailureThreshold (3) and DefaultSuccessThreshold (1).
//
// Rule 5. Once a result is published, a liveness Failure or any startup
// result (Success or Failure: #117153) puts the worker on hold and
// clears the run (Run 0; Last is kept, as upstream resets resultRun
// only). A readiness result, or a liveness Success, never holds.
type ProbeNextFunc func(w ProbeWorker, probe api.Probe, result Result) ProbeWorker
