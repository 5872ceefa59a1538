package kubelet

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// Whether a pod needs a new sandbox: kubelets.SandboxChangedFunc's five
// rules. Upstream decides in PodSandboxChanged
// (pkg/kubelet/kuberuntime/util/util.go), the first question
// computePodActions asks.

// SandboxChanged says whether pod needs a new sandbox, from what the
// runtime has of it (rt.Sandboxes, newest first): Create, the attempt
// number to give the new one (or the highest one's when none is needed),
// and the newest sandbox's ID, "" when there is none. It changes nothing
// it is given.
func SandboxChanged(pod api.Pod, rt kubelets.RuntimePod) kubelets.Sandbox {
	// TODO: no sandbox: create attempt 0 (rule 1); more than one Ready, the newest not Ready, or the newest without an IP unless hostNetwork: create, attempt the highest + 1 (rules 2-4); else keep the newest (rule 5) (task 1).
	panic("not implemented: SandboxChanged")
}

var _ kubelets.SandboxChangedFunc = SandboxChanged
