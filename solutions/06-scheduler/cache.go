package scheduler

import (
	"errors"
	"slices"
	"sort"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// cache is the scheduler's view of the cluster, as upstream's
// schedulerCache (pkg/scheduler/backend/cache/cache.go; internal/cache in
// older trees): one NodeInfo per node with the pods bound to it, plus the
// pods the scheduler assumed on a node before their binding is seen.
// An assumed pod stays until its binding is seen or fails: it never
// expires, as upstream's durationToExpireAssumedPod is 0
// (pkg/scheduler/scheduler.go; kubernetes/kubernetes#106361).
//
// NodeInfos are copy-on-write: a NodeInfo the cache handed out is never
// changed again; adding or removing a pod makes a new NodeInfo for that
// node only (copying its pod list, at most ~110 entries) and marks the
// node dirty. A snapshot (the loop's slice of NodeInfos) is brought up to
// date by replacing the dirty entries only, as upstream's UpdateSnapshot
// copies the NodeInfos whose generation moved; so one pod costs one
// NodeInfo, not a rebuild of 5,000. It is safe for concurrent use: the
// informers' handlers, the loop and the binding goroutines share it.
type cache struct {
	mu sync.Mutex
	// nodes by name. A node whose pods arrived before the node itself
	// has a nil Node and nil info until the node is seen (upstream keeps
	// such a NodeInfo too, without a node).
	nodes map[string]*nodeEntry
	// pods by podKey: where each pod counts.
	pods map[string]*podState
	// dirty are the nodes whose info changed since the last snapshot;
	// reshaped says a node came or went (the snapshot's list is rebuilt).
	dirty    map[string]struct{}
	reshaped bool
}

type nodeEntry struct {
	node *api.Node
	info *framework.NodeInfo // nil while node is nil
	// pods are the pods on the node (the same as info.Pods once the node
	// is known).
	pods []*api.Pod
}

type podState struct {
	pod  *api.Pod
	node string
	// alone is what the pod uses on its own (NewNodeInfo of the node and
	// this pod only), added to and taken from its node's sums: only its
	// Requested, NonZeroRequested and UsedPorts are read, never its
	// Allocatable (which a node update does not refresh).
	alone   *framework.NodeInfo
	assumed bool
}

func newCache() *cache {
	return &cache{nodes: map[string]*nodeEntry{}, pods: map[string]*podState{}, dirty: map[string]struct{}{}}
}

func (c *cache) entry(name string) *nodeEntry {
	e := c.nodes[name]
	if e == nil {
		e = &nodeEntry{}
		c.nodes[name] = e
	}
	return e
}

func addResource(a, b framework.Resource, sign int64) framework.Resource {
	return framework.Resource{
		MilliCPU:         a.MilliCPU + sign*b.MilliCPU,
		Memory:           a.Memory + sign*b.Memory,
		EphemeralStorage: a.EphemeralStorage + sign*b.EphemeralStorage,
		AllowedPodNumber: a.AllowedPodNumber + sign*b.AllowedPodNumber,
	}
}

// addLocked counts pod on its node (upstream's NodeInfo.AddPod on a
// clone of the node's NodeInfo).
func (c *cache) addLocked(key string, pod *api.Pod, assumed bool) {
	name := pod.Spec.NodeName
	e := c.entry(name)
	st := &podState{pod: pod, node: name, assumed: assumed}
	c.pods[key] = st
	e.pods = append(slices.Clip(e.pods), pod)
	if e.node == nil {
		return
	}
	st.alone = NewNodeInfo(e.node, pod)
	ni := *e.info
	ni.Pods = e.pods
	ni.Requested = addResource(ni.Requested, st.alone.Requested, 1)
	ni.NonZeroRequested = addResource(ni.NonZeroRequested, st.alone.NonZeroRequested, 1)
	ni.UsedPorts = addPorts(slices.Clip(ni.UsedPorts), st.alone.UsedPorts)
	e.info = &ni
	c.dirty[name] = struct{}{}
}

// removeLocked takes the pod of key off its node (NodeInfo.RemovePod).
func (c *cache) removeLocked(key string) {
	st := c.pods[key]
	if st == nil {
		return
	}
	delete(c.pods, key)
	e := c.nodes[st.node]
	if e == nil {
		return
	}
	i := slices.IndexFunc(e.pods, func(p *api.Pod) bool { return podKey(p) == key })
	if i >= 0 {
		e.pods = slices.Delete(slices.Clone(e.pods), i, i+1)
	}
	if e.node == nil {
		if len(e.pods) == 0 {
			delete(c.nodes, st.node)
		}
		return
	}
	if st.alone == nil {
		// Counted before the node was known: recount the node.
		e.info = NewNodeInfo(e.node, e.pods...)
		c.dirty[st.node] = struct{}{}
		return
	}
	ni := *e.info
	ni.Pods = e.pods
	ni.Requested = addResource(ni.Requested, st.alone.Requested, -1)
	ni.NonZeroRequested = addResource(ni.NonZeroRequested, st.alone.NonZeroRequested, -1)
	if len(st.alone.UsedPorts) > 0 {
		// A set: a port the pod shared with another stays; recount
		// from the pods left (in their order, as NewNodeInfo).
		var ports []framework.HostPort
		for _, p := range e.pods {
			ports = addPorts(ports, c.pods[podKey(p)].alone.UsedPorts)
		}
		ni.UsedPorts = ports
	}
	e.info = &ni
	c.dirty[st.node] = struct{}{}
}

// addPorts adds the ports not in ports yet: UsedPorts is a set, as
// upstream's HostPortInfo (framework/types.go).
func addPorts(ports, more []framework.HostPort) []framework.HostPort {
	for _, hp := range more {
		if !slices.Contains(ports, hp) {
			ports = append(ports, hp)
		}
	}
	return ports
}

var errAlreadyCounted = errors.New("scheduler: pod is already in the cache")

// assume counts pod on node before its binding is seen (upstream's
// AssumePod), so that the next decisions see the room it takes. It
// returns the assumed pod: a copy with spec.nodeName set (the informer's
// object is never changed).
func (c *cache) assume(pod *api.Pod, node string) (*api.Pod, error) {
	key := podKey(pod)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pods[key]; ok {
		return nil, errAlreadyCounted
	}
	p := *pod // a shallow copy: nothing it shares is ever changed
	p.Spec.NodeName = node
	c.addLocked(key, &p, true)
	return &p, nil
}

// forget takes back an assumed pod whose binding failed (ForgetPod).
// A pod whose binding was already seen is left alone.
func (c *cache) forget(pod *api.Pod) {
	key := podKey(pod)
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.pods[key]; st != nil && st.assumed {
		c.removeLocked(key)
	}
}

// isAssumed says whether the pod is assumed and its binding not seen.
func (c *cache) isAssumed(pod *api.Pod) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.pods[podKey(pod)]
	return st != nil && st.assumed
}

// setPod records a pod bound to a node as the informer sees it: a new
// pod, a change, or the confirmation of an assumed pod (upstream's
// AddPod and UpdatePod, which replace the assumed pod by the real one).
func (c *cache) setPod(pod *api.Pod) {
	key := podKey(pod)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
	c.addLocked(key, pod, false)
}

// removePod forgets a pod that is gone (RemovePod).
func (c *cache) removePod(pod *api.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(podKey(pod))
}

// setNode adds or replaces a node. A known node keeps its pods' sums and
// takes the new object and allocatable only: a kubelet rewrites its
// node's status every few seconds, and recounting 110 pods each time
// would cost a cluster of thousands of nodes more than its pods do. A new
// node is counted from the pods seen on it before it.
func (c *cache) setNode(node *api.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(node.Name)
	c.dirty[node.Name] = struct{}{}
	if e.node != nil {
		ni := *e.info
		ni.Node, ni.Allocatable = node, NewNodeInfo(node).Allocatable
		e.node, e.info = node, &ni
		return
	}
	c.reshaped = true
	e.node = node
	e.info = NewNodeInfo(node, e.pods...)
	for _, p := range e.pods {
		c.pods[podKey(p)].alone = NewNodeInfo(node, p)
	}
}

// removeNode drops a node; its pods stay counted under its name, without
// a node, until they go too (upstream's RemoveNode keeps a ghost
// NodeInfo for the same reason).
func (c *cache) removeNode(node *api.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.nodes[node.Name]
	if e == nil || e.node == nil {
		return
	}
	c.reshaped = true
	if len(e.pods) == 0 {
		delete(c.nodes, node.Name)
		return
	}
	e.node, e.info = nil, nil
	for _, p := range e.pods {
		c.pods[podKey(p)].alone = nil
	}
}

// snapshot is the loop's list of NodeInfos, in node name order, and
// where each node is in it. Only the loop reads and writes it; the
// NodeInfos in it are never changed (copy-on-write), so Schedule reads
// them while the informers go on changing the cache.
type snapshot struct {
	list []*framework.NodeInfo
	pos  map[string]int
}

// updateSnapshot brings s up to date: the dirty nodes' NodeInfos are
// replaced where they are; the list is rebuilt only when nodes came or
// went.
func (c *cache) updateSnapshot(s *snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reshaped || s.pos == nil {
		names := make([]string, 0, len(c.nodes))
		for name, e := range c.nodes {
			if e.node != nil {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		s.list = make([]*framework.NodeInfo, len(names))
		s.pos = make(map[string]int, len(names))
		for i, name := range names {
			s.list[i] = c.nodes[name].info
			s.pos[name] = i
		}
		c.reshaped = false
		// A fresh map: clearing keeps the buckets of thousands of
		// nodes added at start, and every later range over the few
		// dirty nodes would walk them all.
		c.dirty = map[string]struct{}{}
		return
	}
	for name := range c.dirty {
		if i, ok := s.pos[name]; ok {
			s.list[i] = c.nodes[name].info
		}
	}
	clear(c.dirty)
}
