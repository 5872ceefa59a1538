// Package scheduler is your kube-scheduler (seed 000 §2.4): it finds the
// pods that have no node, keeps the nodes that can take each (filter),
// ranks them (score), and binds the pod to the best one through the
// apiserver, with upstream's plugins, weights and messages
// (k8s.io/kubernetes/pkg/scheduler). In order:
//
//  1. count what the pods on each node use (NewNodeInfo, nodeinfo.go);
//  2. keep the nodes the pod fits, through the filter plugins in
//     upstream's order (Filter, filter.go and one file per plugin);
//  3. rank them through the scoring plugins, normalized and weighted
//     (Score, score.go);
//  4. decide: filter as many nodes as percentageOfNodesToScore asks,
//     score, take the best, ties broken fairly (Schedule, schedule.go),
//     or say why no node fits as upstream says it (fiterror.go);
//  5. queue the pods to schedule, backing off those that failed
//     (NewQueue, queue.go);
//  6. run the loop: watch pods and nodes, decide over a cache that counts
//     assumed pods, bind, report (New, scheduler.go and cache.go).
//
// Read README.md beside this file for the tasks: every function that
// panics with "not implemented" is one of yours, and its TODO and the
// README say which task needs it. The types, the plugins' names and
// messages, and upstream's constants are given; you may change any of
// it, only the behaviour is graded.
package scheduler

// Shared with the loop (queue.go, scheduler.go, cache.go), defined in the
// core's files: addPodToNodeInfo and removePodFromNodeInfo keep a cached
// NodeInfo current as pods are bound, assumed and deleted;
// errNoNodesAvailable (schedule.go) is Schedule's error when there are no
// nodes. The core uses podPriority (queue.go, the loop's): a pod's
// spec.priority, nil as 0.

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// Upstream's defaults for a container that requests no cpu or no memory,
// counted in NonZeroRequested only (pkg/scheduler/util/pod_resources.go):
// without them, pods with no requests would all look free and pile up on
// one node.
const (
	defaultMilliCPURequest int64 = 100
	defaultMemoryRequest   int64 = 200 * 1024 * 1024
)

// NewNodeInfo sums what the pods bound to node use and reads its
// allocatable, as upstream's NewNodeInfo, SetNode and AddPod
// (pkg/scheduler/framework/types.go).
func NewNodeInfo(node *api.Node, pods ...*api.Pod) *framework.NodeInfo {
	// TODO: return the node's NodeInfo: its allocatable, and each pod counted with addPodToNodeInfo, in the order given (task 1).
	panic("not implemented: NewNodeInfo")
}

// resourceOf reads a resource list as upstream's framework.NewResource:
// cpu in millicores, the others in units, rounded up.
func resourceOf(rl api.ResourceList) framework.Resource {
	// TODO: read cpu (in millicores), memory, ephemeral-storage and pods from the resource list (task 1).
	panic("not implemented: resourceOf")
}

// addPodToNodeInfo counts pod on ni, as upstream's NodeInfo.AddPod: its
// requests, its non-zero requests (cpu and memory only, as upstream's
// NodeInfo.update) and its host ports.
func addPodToNodeInfo(ni *framework.NodeInfo, pod *api.Pod) {
	// TODO: append the pod to ni.Pods and add its requests, its non-zero requests (cpu and memory) and its host ports, each port once (task 1).
	panic("not implemented: addPodToNodeInfo")
}

// removePodFromNodeInfo takes pod (matched by namespace and name) off ni,
// as upstream's NodeInfo.RemovePod, and says whether it was there.
func removePodFromNodeInfo(ni *framework.NodeInfo, pod *api.Pod) bool {
	// TODO: take the pod with the same namespace and name off ni, subtracting what it added and recounting the host ports the other pods still use; say whether it was there (task 12, and the loop's cache).
	panic("not implemented: removePodFromNodeInfo")
}

// amounts are one container's (or a sum's) cpu, memory and ephemeral
// storage, and whether cpu and memory were named at all: upstream's
// non-zero defaults replace a missing request, not an explicit 0.
type amounts struct {
	cpu, mem, eph  int64
	hasCPU, hasMem bool
}

func (a *amounts) add(b amounts) {
	// TODO: add b to a, resource by resource, and remember which of cpu and memory were named (task 1).
	panic("not implemented: add")
}

func (a *amounts) maxWith(b amounts) {
	// TODO: keep the larger of a and b for each resource, and remember which of cpu and memory were named (task 1).
	panic("not implemented: maxWith")
}

// containerRequests reads one container's requests; defaults, when set,
// replace a missing cpu or memory request (upstream's
// NonMissingContainerRequests).
func containerRequests(c *api.Container, defaultCPU, defaultMem int64) amounts {
	// TODO: read one container's cpu, memory and ephemeral-storage requests; a missing cpu or memory request counts the default given, when it is above 0 (task 1).
	panic("not implemented: containerRequests")
}

// aggregateRequests is upstream's aggregateContainerResourcesByFn
// (k8s.io/component-helpers/resource/helpers.go): containers run
// together, so they add up; regular init containers run one at a time
// before them, so the pod needs the largest; a restartable init container
// (a sidecar, restartPolicy Always) keeps running, so it adds to the init
// containers after it and to the containers.
func aggregateRequests(pod *api.Pod, defaultCPU, defaultMem int64) amounts {
	// TODO: sum the containers, take the larger of that and each init container (a regular one runs with the sidecars started before it; a sidecar also adds to the containers' sum), as upstream's PodRequests (task 1).
	panic("not implemented: aggregateRequests")
}

// podRequests is what the pod requests (upstream's PodRequests) and the
// same with the non-zero defaults for missing cpu and memory requests
// (PodInfo.CalculateResource), each with spec.overhead added. Pod-level
// requests (spec.resources, PodLevelResources) replace the containers'
// cpu and memory, as upstream's applyPodLevelResources.
func podRequests(pod *api.Pod) (req, non0 framework.Resource) {
	// TODO: return the pod's requests and the same with the non-zero defaults (100m cpu, 200Mi memory per container that names none), each with spec.overhead added (task 1).
	panic("not implemented: podRequests")
}

// forEachHostPort calls fn with each host port the pod uses, as
// upstream's GetHostPorts (pkg/scheduler/util/utils.go): the ports with
// a hostPort of the restartable init containers, which run as long as
// the pod, then of the containers (a regular init container has ended
// before they start). IP and protocol are sanitized as HostPortInfo.Add
// does: "" is 0.0.0.0 and TCP.
func forEachHostPort(pod *api.Pod, fn func(framework.HostPort)) {
	// TODO: call fn with every hostPort above 0 of the sidecars and the containers (not the regular init containers), IP 0.0.0.0 and protocol TCP when empty (task 1).
	panic("not implemented: forEachHostPort")
}
