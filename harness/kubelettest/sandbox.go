package kubelettest

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 01-sandbox: SandboxChanged rules 1-5 (harness/kubelets/sandbox.go),
// each case worked out by hand from upstream's PodSandboxChanged
// (kubernetes/kubernetes pkg/kubelet/kuberuntime/util/util.go).
//
// Where the contract and upstream part, the contract decides: upstream
// also makes a new sandbox when the newest one's network namespace mode
// is not the pod's (hostNetwork); a sandbox's status here does not say
// it, so no case asks for it.

// upSandbox is the upstream function the cases of 01-sandbox name.
const upSandbox = "kuberuntime/util/util.go PodSandboxChanged"

// sandboxT0 is the fixed time the sandboxes of 01-sandbox are made
// around.
var sandboxT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// sandboxCase is one call of SandboxChanged.
type sandboxCase struct {
	rule      string
	why       string
	pod       api.Pod
	sandboxes []cri.PodSandboxStatus
	want      kubelets.Sandbox
}

// sandboxPod is a pod with one container, on the node's network when
// hostNetwork.
func sandboxPod(hostNetwork bool) api.Pod {
	return api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"},
		Spec: api.PodSpec{
			Containers:    []api.Container{{Name: "app", Image: "kata/http-echo"}},
			RestartPolicy: api.RestartPolicyAlways,
			HostNetwork:   hostNetwork,
		},
	}
}

// sandboxOf is one sandbox of the pod web: its attempt, state and IP
// (CreatedAt is set by sandboxList).
func sandboxOf(attempt uint32, state cri.PodSandboxState, ip string) cri.PodSandboxStatus {
	return cri.PodSandboxStatus{
		ID:       fmt.Sprintf("sb-%d", attempt),
		Metadata: cri.PodSandboxMetadata{Name: "web", UID: "uid-web", Namespace: "default", Attempt: attempt},
		State:    state,
		IP:       ip,
		Labels:   map[string]string{"io.kubernetes.pod.uid": "uid-web"},
	}
}

// sandboxList is the sandboxes given, newest first: each is made a
// minute after the next one in the list.
func sandboxList(sbs ...cri.PodSandboxStatus) []cri.PodSandboxStatus {
	for i := range sbs {
		sbs[i].CreatedAt = sandboxT0.Add(time.Duration(len(sbs)-i) * time.Minute)
	}
	return sbs
}

// sandboxStep is 01-sandbox: SandboxChanged rules 1-5.
func sandboxStep(t *suite.T, impl Impl) {
	need(t, "SandboxChanged", impl.SandboxChanged)
	const ready, notReady = cri.SandboxReady, cri.SandboxNotReady
	pod, hostPod := sandboxPod(false), sandboxPod(true)
	sb, list := sandboxOf, sandboxList
	create := func(attempt uint32, id string) kubelets.Sandbox {
		return kubelets.Sandbox{Create: true, Attempt: attempt, ID: id}
	}
	keep := func(attempt uint32, id string) kubelets.Sandbox { return kubelets.Sandbox{Attempt: attempt, ID: id} }

	cases := []sandboxCase{
		{rule: "1", why: "no sandbox yet: the first, attempt 0, no ID", pod: pod, sandboxes: nil, want: create(0, "")},
		{rule: "1", why: "an empty (not nil) list of sandboxes: the first, attempt 0", pod: pod, sandboxes: []cri.PodSandboxStatus{}, want: create(0, "")},
		{rule: "1", why: "a hostNetwork pod needs a sandbox all the same: attempt 0", pod: hostPod, sandboxes: nil, want: create(0, "")},

		{rule: "5", why: "one Ready sandbox with an IP: keep it", pod: pod,
			sandboxes: list(sb(0, ready, "10.244.0.2")), want: keep(0, "sb-0")},
		{rule: "5", why: "the newest Ready with an IP, older ones stopped: keep it, with its attempt (only the newest's state counts)", pod: pod,
			sandboxes: list(sb(2, ready, "10.244.0.4"), sb(1, notReady, ""), sb(0, notReady, "")), want: keep(2, "sb-2")},
		{rule: "5", why: "a hostNetwork pod's Ready sandbox has the node's network and needs no IP of its own: keep it", pod: hostPod,
			sandboxes: list(sb(0, ready, "")), want: keep(0, "sb-0")},
		{rule: "5", why: "a hostNetwork pod's Ready sandbox with an IP: keep it", pod: hostPod,
			sandboxes: list(sb(1, ready, "10.244.0.3"), sb(0, notReady, "")), want: keep(1, "sb-1")},
		{rule: "5", why: "kept: the attempt is the highest of all the sandboxes (upstream's maxAttempt), an older one's 3 here, not the newest's 1", pod: pod,
			sandboxes: list(sb(1, ready, "10.244.0.3"), sb(3, notReady, "")), want: keep(3, "sb-1")},

		{rule: "2", why: "two Ready sandboxes: make a new one to reconcile them, attempt one more than the highest, ID the newest's", pod: pod,
			sandboxes: list(sb(1, ready, "10.244.0.3"), sb(0, ready, "10.244.0.2")), want: create(2, "sb-1")},
		{rule: "2", why: "Ready sandboxes are counted among all, not only the first two: newest and oldest Ready", pod: pod,
			sandboxes: list(sb(2, ready, "10.244.0.4"), sb(1, notReady, ""), sb(0, ready, "10.244.0.2")), want: create(3, "sb-2")},
		{rule: "2", why: "two Ready sandboxes of a hostNetwork pod: a new one all the same", pod: hostPod,
			sandboxes: list(sb(1, ready, ""), sb(0, ready, "")), want: create(2, "sb-1")},

		{rule: "3", why: "the only sandbox is not Ready: a new one, attempt 1, ID the stopped one's", pod: pod,
			sandboxes: list(sb(0, notReady, "")), want: create(1, "sb-0")},
		{rule: "3", why: "the newest is not Ready while an older one is: the newest decides, a new one", pod: pod,
			sandboxes: list(sb(1, notReady, ""), sb(0, ready, "10.244.0.2")), want: create(2, "sb-1")},
		{rule: "3", why: "a hostNetwork pod whose sandbox is not Ready: a new one", pod: hostPod,
			sandboxes: list(sb(4, notReady, ""), sb(3, notReady, "")), want: create(5, "sb-4")},
		{rule: "3", why: "a hostNetwork pod (no IP needed, rule 4 cannot apply) whose newest sandbox is not Ready while an older one is: the newest decides, a new one", pod: hostPod,
			sandboxes: list(sb(1, notReady, ""), sb(0, ready, "")), want: create(2, "sb-1")},
		{rule: "3", why: "the new attempt is one more than the highest of all (upstream's maxAttempt), an older one's 3 here, not the newest's 1", pod: pod,
			sandboxes: list(sb(1, notReady, ""), sb(3, notReady, "")), want: create(4, "sb-1")},

		{rule: "4", why: "the newest is Ready with no IP and the pod is not hostNetwork: a new one", pod: pod,
			sandboxes: list(sb(0, ready, "")), want: create(1, "sb-0")},
		{rule: "4", why: "the newest Ready with no IP, an older one stopped: a new one, attempt one more than the newest's 1", pod: pod,
			sandboxes: list(sb(1, ready, ""), sb(0, notReady, "")), want: create(2, "sb-1")},
	}
	for _, c := range cases {
		rt := kubelets.RuntimePod{Sandboxes: c.sandboxes}
		if got := callSandboxChanged(t, impl, c.pod, rt); got != c.want {
			t.Errorf("%s = %s, want %s: rule %s (%s): %s", sandboxCall(c.pod, rt), describeSandbox(got), describeSandbox(c.want), c.rule, upSandbox, c.why)
		}
	}
}

// callSandboxChanged calls impl.SandboxChanged and fails the step when
// the call changed the pod or the runtime's state.
func callSandboxChanged(t *suite.T, impl Impl, pod api.Pod, rt kubelets.RuntimePod) kubelets.Sandbox {
	t.Helper()
	before, call := snapshot([]any{pod, rt}), sandboxCall(pod, rt)
	got := impl.SandboxChanged(pod, rt)
	unchanged(t, call, before, snapshot([]any{pod, rt}))
	return got
}

// sandboxCall prints a call of SandboxChanged.
func sandboxCall(pod api.Pod, rt kubelets.RuntimePod) string {
	return fmt.Sprintf("SandboxChanged(pod %s hostNetwork %t, sandboxes %s)", pod.Name, pod.Spec.HostNetwork, describeSandboxes(rt.Sandboxes))
}

// describeSandboxes prints sandboxes, newest first.
func describeSandboxes(sbs []cri.PodSandboxStatus) string {
	if sbs == nil {
		return "none"
	}
	parts := make([]string, len(sbs))
	for i, s := range sbs {
		ip := s.IP
		if ip == "" {
			ip = "none"
		}
		parts[i] = fmt.Sprintf("%s attempt %d %s ip %s", s.ID, s.Metadata.Attempt, s.State, ip)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// describeSandbox prints SandboxChanged's answer.
func describeSandbox(s kubelets.Sandbox) string {
	return fmt.Sprintf("{Create: %t, Attempt: %d, ID: %q}", s.Create, s.Attempt, s.ID)
}
