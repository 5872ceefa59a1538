package kubelet

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// SandboxChanged says whether pod needs a new sandbox, with which attempt
// number, and which sandbox is its newest (kubelets.SandboxChangedFunc):
// upstream's PodSandboxChanged (pkg/kubelet/kuberuntime/util/util.go).
// rt.Sandboxes are newest first.
func SandboxChanged(pod api.Pod, rt kubelets.RuntimePod) kubelets.Sandbox {
	// Rule 1: no sandbox yet (or all were removed): the first, attempt 0.
	if len(rt.Sandboxes) == 0 {
		return kubelets.Sandbox{Create: true, Attempt: 0}
	}
	// Upstream counts the ready sandboxes and takes the highest attempt
	// over all of them, not only the newest's.
	ready, attempt := 0, uint32(0)
	for _, s := range rt.Sandboxes {
		if s.State == cri.SandboxReady {
			ready++
		}
		attempt = max(attempt, s.Metadata.Attempt)
	}
	newest := rt.Sandboxes[0]
	recreate := kubelets.Sandbox{Create: true, Attempt: attempt + 1, ID: newest.ID}
	switch {
	case ready > 1:
		return recreate // Rule 2: more than one ready: start over to reconcile them.
	case newest.State != cri.SandboxReady:
		return recreate // Rule 3: the newest is not ready (stopped, or its process died).
	case newest.IP == "" && !pod.Spec.HostNetwork:
		return recreate // Rule 4: no IP, and the pod needs one of its own.
	}
	// Rule 5: keep the newest.
	return kubelets.Sandbox{Attempt: attempt, ID: newest.ID}
}

var _ kubelets.SandboxChangedFunc = SandboxChanged
