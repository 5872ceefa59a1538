package kubelet

import (
	"testing"

	"github.com/kubekata/kubekata/harness/kubelettest"
)

func TestKubelet(t *testing.T) {
	kubelettest.Run(t, kubelettest.Impl{SandboxChanged: SandboxChanged, ShouldRestart: ShouldRestart, Actions: Actions, BackoffNext: BackoffNext, InBackoff: InBackoff, ContainerStatuses: ContainerStatuses, Phase: Phase, Conditions: Conditions, ProbeDue: ProbeDue, ProbeNext: ProbeNext, GracePeriod: GracePeriod, New: New})
}
