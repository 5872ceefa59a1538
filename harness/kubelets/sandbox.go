package kubelets

import (
	"github.com/kubekata/kubekata/harness/api"
)

// Sandbox is SandboxChanged's answer: Create says a new sandbox is
// needed, Attempt is the attempt number to give it (or the current one's
// when none is needed), ID the current (newest) sandbox, "" when there is
// none.
type Sandbox struct {
	Create  bool   `json:"create"`
	Attempt uint32 `json:"attempt"`
	ID      string `json:"id,omitempty"`
}

// SandboxChangedFunc says whether pod needs a new sandbox, from what the
// runtime has of it (rt.Sandboxes, newest first), as upstream's
// PodSandboxChanged (pkg/kubelet/kuberuntime/util/util.go) which
// computePodActions asks first. The first rule that applies decides:
//
// Rule 1. No sandbox at all (never made, or all removed): create one,
// attempt 0, ID "".
//
// Rule 2. More than one sandbox is Ready (SANDBOX_READY): create one, to
// reconcile them (the kubelet kills the pod's sandboxes and starts over).
//
// Rule 3. The newest sandbox (rt.Sandboxes[0]) is not Ready: create one,
// whatever the older ones are.
//
// Rule 4. The newest sandbox is Ready but has no IP and the pod is not
// hostNetwork: create one (a hostNetwork pod uses the node's network
// and needs no IP of its own).
//
// Rule 5. Otherwise keep the newest: Create false.
//
// The attempt: a new sandbox (rules 2-4) gets one more than the highest
// attempt among all the pod's sandboxes, and rule 5 answers that highest
// attempt (upstream's maxAttempt; the newest's as the kubelet numbers
// them, but an older sandbox's when it is higher). ID is the newest
// sandbox's whenever there is one (rules 2-5), so that the kubelet can
// stop it before it makes the next.
//
// Where the kata simplifies on purpose: upstream also creates a new
// sandbox when the newest one's network namespace mode (node or pod) is
// not the pod's (hostNetwork); a sandbox's status here does not record
// that mode, and a pod's hostNetwork cannot change, so that rule is left
// out. A sandbox's IP is "" or set (upstream only asks for an IP when
// the runtime reported the sandbox's network at all).
type SandboxChangedFunc func(pod api.Pod, rt RuntimePod) Sandbox
