package kubelet

import (
	"github.com/kubekata/kubekata/harness/api"
)

// How long a container gets between SIGTERM and SIGKILL:
// kubelets.GracePeriodFunc's five rules. Upstream works it out in
// killContainer and setTerminationGracePeriod
// (pkg/kubelet/kuberuntime/kuberuntime_container.go).

// GracePeriod is the seconds the container named container of pod gets
// when killed for reason ("" for the pod's deletion or stop,
// "LivenessProbe", "StartupProbe"), after its preStop hook took preStop
// seconds. It changes nothing it is given.
func GracePeriod(pod api.Pod, container, reason string, preStop int64) int64 {
	// TODO: deletionGracePeriodSeconds when set, 0 too (rule 1); else, when the pod sets terminationGracePeriodSeconds, the failed probe's own when it sets one (rule 2), else the pod's (rule 3); else MinimumGracePeriodSeconds (rule 4); then less preStop, never under MinimumGracePeriodSeconds (rule 5) (task 9).
	panic("not implemented: GracePeriod")
}
