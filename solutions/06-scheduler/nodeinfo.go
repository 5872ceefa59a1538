// Package scheduler is the reference of exercise 06: a kube-scheduler
// with upstream's default plugins, weights and messages
// (pkg/scheduler). In order:
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
// Steps 1 to 4 are pure functions of their arguments and change none.
// Kata simplifications: ImageLocality, PodTopologySpread and
// InterPodAffinity do not run, and nothing is preempted.
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
	ni := &framework.NodeInfo{Node: node}
	if node != nil {
		ni.Allocatable = resourceOf(node.Status.Allocatable)
	}
	if len(pods) > 0 {
		ni.Pods = make([]*api.Pod, 0, len(pods))
	}
	for _, pod := range pods {
		addPodToNodeInfo(ni, pod)
	}
	return ni
}

// resourceOf reads a resource list as upstream's framework.NewResource:
// cpu in millicores, the others in units, rounded up.
func resourceOf(rl api.ResourceList) framework.Resource {
	var r framework.Resource
	if q, ok := rl[api.ResourceCPU]; ok {
		r.MilliCPU = q.MilliValue()
	}
	if q, ok := rl[api.ResourceMemory]; ok {
		r.Memory = q.Value()
	}
	if q, ok := rl[api.ResourceEphemeralStorage]; ok {
		r.EphemeralStorage = q.Value()
	}
	if q, ok := rl[api.ResourcePods]; ok {
		r.AllowedPodNumber = q.Value()
	}
	return r
}

// addPodToNodeInfo counts pod on ni, as upstream's NodeInfo.AddPod: its
// requests, its non-zero requests (cpu and memory only, as upstream's
// NodeInfo.update) and its host ports.
func addPodToNodeInfo(ni *framework.NodeInfo, pod *api.Pod) {
	req, non0 := podRequests(pod)
	ni.Pods = append(ni.Pods, pod)
	ni.Requested.MilliCPU += req.MilliCPU
	ni.Requested.Memory += req.Memory
	ni.Requested.EphemeralStorage += req.EphemeralStorage
	ni.NonZeroRequested.MilliCPU += non0.MilliCPU
	ni.NonZeroRequested.Memory += non0.Memory
	forEachHostPort(pod, func(p framework.HostPort) {
		// UsedPorts is a set upstream (HostPortInfo): a port two pods
		// declare is counted once.
		for _, u := range ni.UsedPorts {
			if u == p {
				return
			}
		}
		ni.UsedPorts = append(ni.UsedPorts, p)
	})
}

// removePodFromNodeInfo takes pod (matched by namespace and name) off ni,
// as upstream's NodeInfo.RemovePod, and says whether it was there.
func removePodFromNodeInfo(ni *framework.NodeInfo, pod *api.Pod) bool {
	for i, p := range ni.Pods {
		if p.Namespace != pod.Namespace || p.Name != pod.Name {
			continue
		}
		// Subtract what the stored copy added: the pod given may be a
		// newer version of it.
		req, non0 := podRequests(p)
		ni.Pods = append(ni.Pods[:i:i], ni.Pods[i+1:]...)
		if len(ni.Pods) == 0 {
			ni.Pods = nil
		}
		ni.Requested.MilliCPU -= req.MilliCPU
		ni.Requested.Memory -= req.Memory
		ni.Requested.EphemeralStorage -= req.EphemeralStorage
		ni.NonZeroRequested.MilliCPU -= non0.MilliCPU
		ni.NonZeroRequested.Memory -= non0.Memory
		// A port another pod also declares stays used: recount them.
		ni.UsedPorts = nil
		for _, rest := range ni.Pods {
			forEachHostPort(rest, func(p framework.HostPort) {
				for _, u := range ni.UsedPorts {
					if u == p {
						return
					}
				}
				ni.UsedPorts = append(ni.UsedPorts, p)
			})
		}
		return true
	}
	return false
}

// amounts are one container's (or a sum's) cpu, memory and ephemeral
// storage, and whether cpu and memory were named at all: upstream's
// non-zero defaults replace a missing request, not an explicit 0.
type amounts struct {
	cpu, mem, eph  int64
	hasCPU, hasMem bool
}

func (a *amounts) add(b amounts) {
	a.cpu += b.cpu
	a.mem += b.mem
	a.eph += b.eph
	a.hasCPU = a.hasCPU || b.hasCPU
	a.hasMem = a.hasMem || b.hasMem
}

func (a *amounts) maxWith(b amounts) {
	a.cpu = max(a.cpu, b.cpu)
	a.mem = max(a.mem, b.mem)
	a.eph = max(a.eph, b.eph)
	a.hasCPU = a.hasCPU || b.hasCPU
	a.hasMem = a.hasMem || b.hasMem
}

// containerRequests reads one container's requests; defaults, when set,
// replace a missing cpu or memory request (upstream's
// NonMissingContainerRequests).
func containerRequests(c *api.Container, defaultCPU, defaultMem int64) amounts {
	var a amounts
	rl := c.Resources.Requests
	if q, ok := rl[api.ResourceCPU]; ok {
		a.cpu, a.hasCPU = q.MilliValue(), true
	} else if defaultCPU > 0 {
		a.cpu, a.hasCPU = defaultCPU, true
	}
	if q, ok := rl[api.ResourceMemory]; ok {
		a.mem, a.hasMem = q.Value(), true
	} else if defaultMem > 0 {
		a.mem, a.hasMem = defaultMem, true
	}
	if q, ok := rl[api.ResourceEphemeralStorage]; ok {
		a.eph = q.Value()
	}
	return a
}

// aggregateRequests is upstream's aggregateContainerResourcesByFn
// (k8s.io/component-helpers/resource/helpers.go): containers run
// together, so they add up; regular init containers run one at a time
// before them, so the pod needs the largest; a restartable init container
// (a sidecar, restartPolicy Always) keeps running, so it adds to the init
// containers after it and to the containers.
func aggregateRequests(pod *api.Pod, defaultCPU, defaultMem int64) amounts {
	var sum, sidecars, initMax amounts
	for i := range pod.Spec.Containers {
		sum.add(containerRequests(&pod.Spec.Containers[i], defaultCPU, defaultMem))
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		r := containerRequests(c, defaultCPU, defaultMem)
		if c.RestartPolicy != nil && *c.RestartPolicy == api.ContainerRestartPolicyAlways {
			sum.add(r)
			sidecars.add(r)
			initMax.maxWith(sidecars)
			continue
		}
		r.add(sidecars)
		initMax.maxWith(r)
	}
	sum.maxWith(initMax)
	return sum
}

// podRequests is what the pod requests (upstream's PodRequests) and the
// same with the non-zero defaults for missing cpu and memory requests
// (PodInfo.CalculateResource), each with spec.overhead added. Pod-level
// requests (spec.resources, PodLevelResources) replace the containers'
// cpu and memory, as upstream's applyPodLevelResources.
func podRequests(pod *api.Pod) (req, non0 framework.Resource) {
	a := aggregateRequests(pod, 0, 0)
	var podCPU, podMem int64
	var podHasCPU, podHasMem bool
	if pod.Spec.Resources != nil {
		if q, ok := pod.Spec.Resources.Requests[api.ResourceCPU]; ok {
			podCPU, podHasCPU = q.MilliValue(), true
		}
		if q, ok := pod.Spec.Resources.Requests[api.ResourceMemory]; ok {
			podMem, podHasMem = q.Value(), true
		}
	}
	podLevel := podHasCPU || podHasMem
	applyPodLevel := func(a *amounts) {
		if podHasCPU {
			a.cpu, a.hasCPU = podCPU, true
		}
		if podHasMem {
			a.mem, a.hasMem = podMem, true
		}
	}
	applyPodLevel(&a)

	// Without pod-level requests every container gets the defaults it
	// lacks; with them, only a resource that neither level names does
	// (getNonMissingContainerRequests).
	defCPU, defMem := defaultMilliCPURequest, defaultMemoryRequest
	if podLevel {
		defCPU, defMem = 0, 0
		if !a.hasCPU {
			defCPU = defaultMilliCPURequest
		}
		if !a.hasMem {
			defMem = defaultMemoryRequest
		}
	}
	n := a
	if defCPU > 0 || defMem > 0 {
		n = aggregateRequests(pod, defCPU, defMem)
		applyPodLevel(&n)
	}

	req = framework.Resource{MilliCPU: a.cpu, Memory: a.mem, EphemeralStorage: a.eph}
	non0 = framework.Resource{MilliCPU: n.cpu, Memory: n.mem, EphemeralStorage: n.eph}
	if oh := pod.Spec.Overhead; oh != nil {
		o := resourceOf(oh)
		o.AllowedPodNumber = 0
		for _, r := range []*framework.Resource{&req, &non0} {
			r.MilliCPU += o.MilliCPU
			r.Memory += o.Memory
			r.EphemeralStorage += o.EphemeralStorage
		}
	}
	return req, non0
}

// forEachHostPort calls fn with each host port the pod uses, as
// upstream's GetHostPorts (pkg/scheduler/util/utils.go): the ports with
// a hostPort of the restartable init containers, which run as long as
// the pod, then of the containers (a regular init container has ended
// before they start). IP and protocol are sanitized as HostPortInfo.Add
// does: "" is 0.0.0.0 and TCP.
func forEachHostPort(pod *api.Pod, fn func(framework.HostPort)) {
	each := func(c *api.Container) {
		for _, p := range c.Ports {
			if p.HostPort <= 0 {
				continue
			}
			hp := framework.HostPort{IP: p.HostIP, Protocol: string(p.Protocol), Port: p.HostPort}
			if hp.IP == "" {
				hp.IP = "0.0.0.0"
			}
			if hp.Protocol == "" {
				hp.Protocol = string(api.ProtocolTCP)
			}
			fn(hp)
		}
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == api.ContainerRestartPolicyAlways {
			each(c)
		}
	}
	for i := range pod.Spec.Containers {
		each(&pod.Spec.Containers[i])
	}
}
