package kubelet

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// GracePeriod is the seconds a container gets between SIGTERM and SIGKILL
// (kubelets.GracePeriodFunc): upstream's killContainer and
// setTerminationGracePeriod (pkg/kubelet/kuberuntime/
// kuberuntime_container.go), without a grace override or sidecar
// ordering.
func GracePeriod(pod api.Pod, container, reason string, preStop int64) int64 {
	grace := terminationGrace(pod, container, reason)
	// Rule 5: the preStop hook's time comes off the grace, but a
	// container always gets the minimum, to spare it a needless SIGKILL.
	// (Upstream runs no hook when the grace is 0: the minimum is the
	// answer either way.)
	return max(grace-preStop, kubelets.MinimumGracePeriodSeconds)
}

// terminationGrace is setTerminationGracePeriod.
func terminationGrace(pod api.Pod, container, reason string) int64 {
	switch {
	case pod.DeletionGracePeriodSeconds != nil:
		// Rule 1: the deletion's grace wins over everything, 0 included.
		return *pod.DeletionGracePeriodSeconds
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		// Rule 2: a probe kill takes the grace of the probe that failed,
		// when it sets one (isProbeTerminationGracePeriodSecondsSet);
		// upstream looks there only when the pod sets its own.
		if p := killingProbe(pod.Spec, container, reason); p != nil && p.TerminationGracePeriodSeconds != nil {
			return *p.TerminationGracePeriodSeconds
		}
		// Rule 3: else the pod's.
		return *pod.Spec.TerminationGracePeriodSeconds
	}
	// Rule 4: neither is set (the apiserver defaults the pod's to 30).
	return kubelets.MinimumGracePeriodSeconds
}

// killingProbe is the probe whose failure reason names, of the container
// named container (kubecontainer.GetContainerSpec looks in containers,
// then initContainers); nil when there is none.
func killingProbe(spec api.PodSpec, container, reason string) *api.Probe {
	for _, list := range [][]api.Container{spec.Containers, spec.InitContainers} {
		for i := range list {
			if list[i].Name != container {
				continue
			}
			switch reason {
			case "LivenessProbe":
				return list[i].LivenessProbe
			case "StartupProbe":
				return list[i].StartupProbe
			}
			return nil
		}
	}
	return nil
}

var _ kubelets.GracePeriodFunc = GracePeriod
