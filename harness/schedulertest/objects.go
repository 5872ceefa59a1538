package schedulertest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/suite"
)

// The objects the pure steps (01-12) build by hand: pods, nodes and
// NodeInfos written as numbers, so that a step about one plugin does not
// depend on the learner's NewNodeInfo.

// Quantities used throughout, in bytes.
const (
	ki = int64(1) << 10
	mi = int64(1) << 20
	gi = int64(1) << 30
)

// newPod returns pod name in namespace default with containers cs.
func newPod(name string, cs ...api.Container) *api.Pod {
	return &api.Pod{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name)},
		Spec:       api.PodSpec{Containers: cs},
	}
}

// ctr returns a container requesting resources given as name, quantity
// pairs ("cpu", "500m", "memory", "1Gi"); no pairs: no requests.
func ctr(name string, requests ...string) api.Container {
	c := api.Container{Name: name, Image: "registry.k8s.io/pause:3.10"}
	if len(requests) > 0 {
		c.Resources.Requests = resources(requests...)
	}
	return c
}

// sidecar is ctr with restartPolicy Always: a restartable init container.
func sidecar(name string, requests ...string) api.Container {
	c := ctr(name, requests...)
	always := api.ContainerRestartPolicyAlways
	c.RestartPolicy = &always
	return c
}

// resources is a ResourceList from name, quantity pairs.
func resources(pairs ...string) api.ResourceList {
	if len(pairs)%2 != 0 {
		panic("schedulertest: resources wants name, quantity pairs")
	}
	rl := api.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		rl[api.ResourceName(pairs[i])] = api.MustParse(pairs[i+1])
	}
	return rl
}

// withPods returns n placeholder pods (no requests) named prefix-0, ...:
// what a NodeInfo's Pods holds when a step only needs their number.
func withPods(prefix string, n int) []*api.Pod {
	pods := make([]*api.Pod, n)
	for i := range pods {
		pods[i] = newPod(fmt.Sprintf("%s-%d", prefix, i), ctr("app"))
		pods[i].Spec.NodeName = prefix
	}
	return pods
}

// newNode returns node name whose status.allocatable is alloc (cpu in
// millicores, memory and ephemeral storage in bytes, pods), so that a
// NodeInfo rebuilt from the node agrees with the literal one.
func newNode(name string, alloc framework.Resource) *api.Node {
	n := &api.Node{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: api.ObjectMeta{Name: name, UID: api.UID("uid-" + name), Labels: map[string]string{api.LabelHostname: name}},
	}
	n.Status.Allocatable = api.ResourceList{
		api.ResourceCPU:              *api.NewMilliQuantity(alloc.MilliCPU, api.DecimalSI),
		api.ResourceMemory:           *api.NewQuantity(alloc.Memory, api.BinarySI),
		api.ResourceEphemeralStorage: *api.NewQuantity(alloc.EphemeralStorage, api.BinarySI),
		api.ResourcePods:             *api.NewQuantity(alloc.AllowedPodNumber, api.DecimalSI),
	}
	n.Status.Capacity = n.Status.Allocatable
	return n
}

// roomy is a node's allocatable with room for anything the steps ask:
// 32 cpu, 128Gi memory, 1Ti ephemeral storage, 110 pods.
var roomy = framework.Resource{MilliCPU: 32000, Memory: 128 * gi, EphemeralStorage: 1024 * gi, AllowedPodNumber: 110}

// info is a NodeInfo written as numbers: the node, what its pods request
// and its allocatable (taken from the node's status, which newNode
// filled).
func info(node *api.Node, alloc, requested, nonZero framework.Resource, pods ...*api.Pod) *framework.NodeInfo {
	return &framework.NodeInfo{Node: node, Pods: pods, Requested: requested, NonZeroRequested: nonZero, Allocatable: alloc}
}

// emptyInfo is a NodeInfo of an empty node with allocatable alloc.
func emptyInfo(name string, alloc framework.Resource) *framework.NodeInfo {
	return info(newNode(name, alloc), alloc, framework.Resource{}, framework.Resource{})
}

// cpuMem is a Resource of cpu (millicores) and memory (bytes) only.
func cpuMem(milliCPU, memory int64) framework.Resource {
	return framework.Resource{MilliCPU: milliCPU, Memory: memory}
}

// keep deep-copies the inputs of a call and returns a check that they are
// unchanged after it: every function of the exercise leaves its inputs
// alone (the scheduler's NodeInfos and the informer's pods are shared).
func keep(t *suite.T, call string, inputs ...any) func() {
	copies := make([]any, len(inputs))
	for i, in := range inputs {
		copies[i] = api.DeepCopyValue(in)
	}
	return func() {
		t.Helper()
		for i, in := range inputs {
			if reflect.DeepEqual(in, copies[i]) {
				continue
			}
			got, _ := json.Marshal(in)
			want, _ := json.Marshal(copies[i])
			d := suite.Diff(string(got), string(want))
			if d == "" {
				d = "(the same JSON: a pointer, a nil against an empty slice or map, or an unexported field changed)"
			}
			t.Errorf("%s changed its input %d (%T): it must leave its inputs as it found them (copy before changing); got, want:\n%s", call, i+1, in, d)
		}
	}
}

// fmtStatus writes a status as the failure messages show it:
// nil, or Unschedulable ["Insufficient cpu"] from NodeResourcesFit.
func fmtStatus(s *framework.Status) string {
	if s == nil {
		return "nil"
	}
	if s.Code == framework.Success && len(s.Reasons) == 0 && s.Plugin == "" {
		return "Success"
	}
	out := fmt.Sprintf("%v %q", s.Code, s.Reasons)
	if s.Plugin != "" {
		out += " from " + s.Plugin
	} else {
		out += " (no Plugin)"
	}
	return out
}

// sameStatus says whether got is want: nil and any successful status are
// the same (the pod fits); otherwise code, reasons in order and plugin.
func sameStatus(got, want *framework.Status) bool {
	if want == nil || want.IsSuccess() {
		return got.IsSuccess()
	}
	if got.IsSuccess() {
		return false
	}
	return got.Code == want.Code && slices.Equal(got.Reasons, want.Reasons) && got.Plugin == want.Plugin
}

// fails is the status a filter plugin returns.
func fails(code framework.Code, plugin string, reasons ...string) *framework.Status {
	return &framework.Status{Code: code, Reasons: reasons, Plugin: plugin}
}

// The filter plugins' names and reasons, as upstream writes them.
const (
	// pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go
	pluginNodeUnschedulable = "NodeUnschedulable"
	reasonUnschedulable     = "node(s) were unschedulable"
	// pkg/scheduler/framework/plugins/nodename/node_name.go
	pluginNodeName = "NodeName"
	reasonNodeName = "node(s) didn't match the requested node name"
	// pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go
	pluginTaintToleration = "TaintToleration"
	// pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go ErrReasonPod
	pluginNodeAffinity = "NodeAffinity"
	reasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector"
	// pkg/scheduler/framework/plugins/nodeports/node_ports.go ErrReason
	pluginNodePorts = "NodePorts"
	reasonNodePorts = "node(s) didn't have free ports for the requested pod ports"
	// pkg/scheduler/framework/plugins/noderesources/fit.go
	pluginNodeResourcesFit = "NodeResourcesFit"
	// pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go
	pluginBalancedAllocation = "NodeResourcesBalancedAllocation"
)

// untolerated is TaintToleration's reason for taint key=value.
func untolerated(key, value string) string {
	return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", key, value)
}

// names lists the node names of infos, for messages.
func names(infos []*framework.NodeInfo) string {
	out := make([]string, len(infos))
	for i, n := range infos {
		out[i] = fmt.Sprintf("%q", n.Name())
	}
	return "[" + strings.Join(out, " ") + "]"
}
