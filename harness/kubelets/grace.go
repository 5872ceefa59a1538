package kubelets

import (
	"github.com/kubekata/kubekata/harness/api"
)

// ------------------------------------------------------ 9. grace period

// GracePeriodFunc is the seconds a container of pod gets between SIGTERM
// and SIGKILL when it is killed for reason ("" for the pod's deletion or
// stop, "LivenessProbe" or "StartupProbe" for a failed probe, as
// Kill.Reason says it), after its preStop hook took preStop seconds (0
// without a hook): upstream's killContainer and setTerminationGracePeriod
// (pkg/kubelet/kuberuntime/kuberuntime_container.go). It changes nothing
// it is given.
//
// Rule 1. The pod's metadata.deletionGracePeriodSeconds, when set, is
// the grace, whatever the reason and the probes; 0 is a value, not
// "unset" (rule 5 then raises it to the minimum).
//
// Rule 2. Else, when the pod sets spec.terminationGracePeriodSeconds, a
// kill for reason "LivenessProbe" takes the terminationGracePeriodSeconds
// of the container's livenessProbe, and one for "StartupProbe" that of
// its startupProbe, when that probe exists and sets it (longer than the
// pod's or not). The container is found by name in spec.containers, then
// spec.initContainers (kubecontainer.GetContainerSpec). Upstream looks at
// the probe only when the pod sets its own grace (the apiserver always
// defaults it to DefaultTerminationGracePeriodSeconds).
//
// Rule 3. Else the pod's spec.terminationGracePeriodSeconds: for any
// other reason, a probe that sets no grace, or a container the pod does
// not name (upstream refuses to kill that one; the contract gives the
// pod's grace).
//
// Rule 4. Neither set: MinimumGracePeriodSeconds.
//
// Rule 5. The grace less preStop, but never under
// MinimumGracePeriodSeconds (upstream: "always give containers a minimal
// shutdown window to avoid unnecessary SIGKILLs").
type GracePeriodFunc func(pod api.Pod, container, reason string, preStop int64) int64
