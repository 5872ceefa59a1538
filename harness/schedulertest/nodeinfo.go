package schedulertest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 01: NewNodeInfo sums what the pods on a node use. A pod's requests
// are upstream's PodRequests (staging/src/k8s.io/component-helpers/
// resource/helpers.go AggregateContainerRequests): the containers' sum,
// raised to any init container's (a regular init container runs with the
// sidecars started before it; sidecars, restartPolicy Always, also run
// with the containers), plus spec.overhead. NonZeroRequested counts 100m
// and 200Mi for a container that requests no cpu or no memory
// (pkg/scheduler/framework/types.go PodInfo.CalculateResource,
// getNonMissingContainerRequests; pkg/scheduler/util/pod_resources.go
// DefaultMilliCPURequest, DefaultMemoryRequest). NodeInfo.AddPod sums
// over every pod and collects host ports (types.go updateUsedPorts;
// pkg/scheduler/util/utils.go GetHostPorts: the containers' and the
// sidecars', not the regular init containers'; HostPortInfo.Add defaults
// IP 0.0.0.0 and protocol TCP).

// nodeInfoCase is one call of NewNodeInfo and what it must return.
type nodeInfoCase struct {
	what      string
	node      *api.Node
	pods      []*api.Pod
	requested framework.Resource
	// nonZero is checked for cpu and memory, the two resources upstream
	// keeps a non-zero sum of.
	nonZero cpuMemPair
	ports   []framework.HostPort
}

type cpuMemPair struct{ milliCPU, memory int64 }

func nodeInfo(t *suite.T, impl Impl) {
	need(t, "NewNodeInfo", impl.NewNodeInfo)
	alloc := framework.Resource{MilliCPU: 4000, Memory: 32 * gi, EphemeralStorage: 100 * gi, AllowedPodNumber: 110}

	overhead := newPod("kata", ctr("app", "cpu", "100m", "memory", "64Mi"))
	overhead.Spec.Overhead = resources("cpu", "250m", "memory", "120Mi")

	initMax := newPod("migrate", ctr("app", "cpu", "200m", "memory", "100Mi"), ctr("log", "cpu", "300m", "memory", "100Mi"))
	initMax.Spec.InitContainers = []api.Container{ctr("schema", "cpu", "1", "memory", "50Mi"), ctr("seed", "cpu", "100m", "memory", "1Gi")}

	// A sidecar started before a regular init container runs beside it:
	// that init container needs 500m + 200m; the sidecar also runs with
	// the app: 400m + 200m, memory 300Mi + 100Mi.
	sidecarFirst := newPod("mesh", ctr("app", "cpu", "400m", "memory", "300Mi"))
	sidecarFirst.Spec.InitContainers = []api.Container{sidecar("proxy", "cpu", "200m", "memory", "100Mi"), ctr("init", "cpu", "500m", "memory", "50Mi")}
	// The same sidecar started after the init container does not add to it.
	sidecarAfter := newPod("mesh", ctr("app", "cpu", "400m", "memory", "300Mi"))
	sidecarAfter.Spec.InitContainers = []api.Container{ctr("init", "cpu", "500m", "memory", "50Mi"), sidecar("proxy", "cpu", "200m", "memory", "100Mi")}

	// Non-zero defaults, per resource and per container.
	bare := newPod("bare", ctr("app"))
	cpuOnly := newPod("cpu-only", ctr("app", "cpu", "300m"))
	memOnly := newPod("mem-only", ctr("app", "memory", "1Gi"))
	twoBare := newPod("two-bare", ctr("app"), ctr("log"))
	initCPU := newPod("init-cpu", ctr("app"))
	initCPU.Spec.InitContainers = []api.Container{ctr("init", "cpu", "500m")}

	ports := newPod("dns", ctr("web"), ctr("dns"))
	ports.Spec.Containers[0].Ports = []api.ContainerPort{
		{Name: "http", ContainerPort: 80, HostPort: 8080},
		{Name: "metrics", ContainerPort: 9090}, // no hostPort: not a host port
	}
	ports.Spec.Containers[1].Ports = []api.ContainerPort{{Name: "dns", ContainerPort: 53, HostPort: 53, Protocol: api.ProtocolUDP, HostIP: "10.0.0.1"}}
	// A regular init container ends before the containers start: its
	// host port is not held. A sidecar's is.
	ports.Spec.InitContainers = []api.Container{ctr("probe"), sidecar("proxy")}
	ports.Spec.InitContainers[0].Ports = []api.ContainerPort{{ContainerPort: 7000, HostPort: 7000}}
	ports.Spec.InitContainers[1].Ports = []api.ContainerPort{{ContainerPort: 7001, HostPort: 7001, Protocol: api.ProtocolSCTP}}

	cases := []nodeInfoCase{
		{
			what: "an empty node: its allocatable only",
			node: newNode("node-1", alloc),
		},
		{
			what: "requests are summed over every pod, and every container of a pod",
			node: newNode("node-1", alloc),
			pods: []*api.Pod{
				newPod("a", ctr("app", "cpu", "100m", "memory", "128Mi")),
				newPod("b", ctr("app", "cpu", "250m", "memory", "256Mi"), ctr("log", "cpu", "500m", "ephemeral-storage", "2Gi")),
				newPod("c", ctr("app", "cpu", "1", "memory", "1Gi")),
			},
			requested: framework.Resource{MilliCPU: 100 + 250 + 500 + 1000, Memory: (128 + 256 + 1024) * mi, EphemeralStorage: 2 * gi},
			// b's log container requests no memory: 200Mi.
			nonZero: cpuMemPair{1850, (128 + 256 + 200 + 1024) * mi},
		},
		{
			what:      "init containers run one at a time: the pod needs the largest, not their sum",
			node:      newNode("node-1", alloc),
			pods:      []*api.Pod{initMax},
			requested: cpuMem(1000, 1*gi),
			nonZero:   cpuMemPair{1000, 1 * gi},
		},
		{
			what:      "a sidecar started before an init container runs beside it, and beside the containers",
			node:      newNode("node-1", alloc),
			pods:      []*api.Pod{sidecarFirst},
			requested: cpuMem(700, 400*mi),
			nonZero:   cpuMemPair{700, 400 * mi},
		},
		{
			what:      "a sidecar started after an init container does not run beside it",
			node:      newNode("node-1", alloc),
			pods:      []*api.Pod{sidecarAfter},
			requested: cpuMem(600, 400*mi),
			nonZero:   cpuMemPair{600, 400 * mi},
		},
		{
			what:      "spec.overhead is added to the pod's requests",
			node:      newNode("node-1", alloc),
			pods:      []*api.Pod{overhead},
			requested: cpuMem(350, 184*mi),
			nonZero:   cpuMemPair{350, 184 * mi},
		},
		{
			what:      "a container without a cpu or memory request counts 100m or 200Mi in NonZeroRequested, per resource",
			node:      newNode("node-1", alloc),
			pods:      []*api.Pod{bare, cpuOnly, memOnly, twoBare},
			requested: cpuMem(300, 1*gi),
			nonZero:   cpuMemPair{100 + 300 + 100 + 200, (200 + 200 + 1024 + 400) * mi},
		},
		{
			what:      "the non-zero defaults apply to init containers too",
			node:      newNode("node-1", alloc),
			pods:      []*api.Pod{initCPU},
			requested: cpuMem(500, 0),
			nonZero:   cpuMemPair{500, 200 * mi},
		},
		{
			what:      "host ports of containers and sidecars (not of regular init containers), with IP 0.0.0.0 and protocol TCP when not given",
			node:      newNode("node-1", alloc),
			pods:      []*api.Pod{ports},
			nonZero:   cpuMemPair{300, 600 * mi},
			requested: framework.Resource{},
			ports: []framework.HostPort{
				{IP: "0.0.0.0", Protocol: "TCP", Port: 8080},
				{IP: "10.0.0.1", Protocol: "UDP", Port: 53},
				{IP: "0.0.0.0", Protocol: "SCTP", Port: 7001},
			},
		},
	}
	for _, c := range cases {
		checkNodeInfo(t, impl, c, alloc)
	}
}

func checkNodeInfo(t *suite.T, impl Impl, c nodeInfoCase, alloc framework.Resource) {
	t.Helper()
	podNames := make([]string, len(c.pods))
	for i, p := range c.pods {
		podNames[i] = fmt.Sprintf("%q", p.Name)
	}
	call := fmt.Sprintf("NewNodeInfo(node %q, pods [%s])", c.node.Name, strings.Join(podNames, " "))
	unchanged := keep(t, call, c.node, c.pods)
	got := impl.NewNodeInfo(c.node, c.pods...)
	unchanged()
	if got == nil {
		t.Errorf("%s = nil, want a NodeInfo (%s)", call, c.what)
		return
	}
	if got.Node == nil || got.Node.Name != c.node.Name {
		t.Errorf("%s.Node = %v, want node %q", call, got.Node, c.node.Name)
	}
	gotPods := make([]string, len(got.Pods))
	for i, p := range got.Pods {
		if p == nil {
			gotPods[i] = "nil"
			continue
		}
		gotPods[i] = fmt.Sprintf("%q", p.Name)
	}
	if !slices.Equal(gotPods, podNames) {
		t.Errorf("%s.Pods = [%s], want [%s] (the pods given, in their order)", call, strings.Join(gotPods, " "), strings.Join(podNames, " "))
	}
	if got.Allocatable != alloc {
		t.Errorf("%s.Allocatable = %s, want %s (node.status.allocatable: cpu in millicores, memory and ephemeral-storage in bytes, pods)", call, fmtResource(got.Allocatable), fmtResource(alloc))
	}
	if got.Requested != c.requested {
		t.Errorf("%s.Requested = %s, want %s: %s", call, fmtResource(got.Requested), fmtResource(c.requested), c.what)
	}
	if nz := (cpuMemPair{got.NonZeroRequested.MilliCPU, got.NonZeroRequested.Memory}); nz != c.nonZero {
		t.Errorf("%s.NonZeroRequested = {MilliCPU:%d (%dm) Memory:%d (%s)}, want {MilliCPU:%d (%dm) Memory:%d (%s)}: %s", call,
			nz.milliCPU, nz.milliCPU, nz.memory, fmtBytes(nz.memory), c.nonZero.milliCPU, c.nonZero.milliCPU, c.nonZero.memory, fmtBytes(c.nonZero.memory), c.what)
	}
	if gotPorts, wantPorts := portSet(got.UsedPorts), portSet(c.ports); !slices.Equal(gotPorts, wantPorts) {
		t.Errorf("%s.UsedPorts = %v, want %v (in any order): %s", call, gotPorts, wantPorts, c.what)
	}
}

// portSet writes host ports sorted and without duplicates, for comparing
// them in any order.
func portSet(ports []framework.HostPort) []string {
	out := make([]string, 0, len(ports))
	for _, p := range ports {
		out = append(out, fmt.Sprintf("%s/%s:%d", p.Protocol, p.IP, p.Port))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// fmtResource writes a Resource's fields with their values in units too:
// {MilliCPU:1850 (1850m) Memory:1476395008 (1408Mi) ...}.
func fmtResource(r framework.Resource) string {
	return fmt.Sprintf("{MilliCPU:%d (%dm) Memory:%d (%s) EphemeralStorage:%d (%s) AllowedPodNumber:%d}",
		r.MilliCPU, r.MilliCPU, r.Memory, fmtBytes(r.Memory), r.EphemeralStorage, fmtBytes(r.EphemeralStorage), r.AllowedPodNumber)
}

// fmtBytes writes bytes in the largest binary unit that divides them.
func fmtBytes(b int64) string {
	switch {
	case b == 0:
		return "0"
	case b%gi == 0:
		return fmt.Sprintf("%dGi", b/gi)
	case b%mi == 0:
		return fmt.Sprintf("%dMi", b/mi)
	case b%ki == 0:
		return fmt.Sprintf("%dKi", b/ki)
	}
	return fmt.Sprintf("%d", b)
}
