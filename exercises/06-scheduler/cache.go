package scheduler

import (
	"errors"
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
	// TODO: return an empty cache (task 17).
	panic("not implemented: newCache")
}

func (c *cache) entry(name string) *nodeEntry {
	// TODO: return the node's entry, made when missing (task 17).
	panic("not implemented: entry")
}

func addResource(a, b framework.Resource, sign int64) framework.Resource {
	// TODO: add b times sign to a, resource by resource (task 17).
	panic("not implemented: addResource")
}

// addLocked counts pod on its node (upstream's NodeInfo.AddPod on a
// clone of the node's NodeInfo).
func (c *cache) addLocked(key string, pod *api.Pod, assumed bool) {
	// TODO: count the pod on its node: a new NodeInfo with its pods, requests and ports added, and the node marked dirty (task 17).
	panic("not implemented: addLocked")
}

// removeLocked takes the pod of key off its node (NodeInfo.RemovePod).
func (c *cache) removeLocked(key string) {
	// TODO: take the pod of key off its node: a new NodeInfo without it, and the node marked dirty (task 17).
	panic("not implemented: removeLocked")
}

// addPorts adds the ports not in ports yet: UsedPorts is a set, as
// upstream's HostPortInfo (framework/types.go).
func addPorts(ports, more []framework.HostPort) []framework.HostPort {
	// TODO: add the ports that are not there yet (task 17).
	panic("not implemented: addPorts")
}

var errAlreadyCounted = errors.New("scheduler: pod is already in the cache")

// assume counts pod on node before its binding is seen (upstream's
// AssumePod), so that the next decisions see the room it takes. It
// returns the assumed pod: a copy with spec.nodeName set (the informer's
// object is never changed).
func (c *cache) assume(pod *api.Pod, node string) (*api.Pod, error) {
	// TODO: count the pod on node before its binding is seen, and return the assumed copy; an error when the pod is already counted (task 17).
	panic("not implemented: assume")
}

// forget takes back an assumed pod whose binding failed (ForgetPod).
// A pod whose binding was already seen is left alone.
func (c *cache) forget(pod *api.Pod) {
	// TODO: take an assumed pod off its node again (task 17).
	panic("not implemented: forget")
}

// isAssumed says whether the pod is assumed and its binding not seen.
func (c *cache) isAssumed(pod *api.Pod) bool {
	// TODO: say whether the pod is assumed and not yet seen bound (task 17).
	panic("not implemented: isAssumed")
}

// setPod records a pod bound to a node as the informer sees it: a new
// pod, a change, or the confirmation of an assumed pod (upstream's
// AddPod and UpdatePod, which replace the assumed pod by the real one).
func (c *cache) setPod(pod *api.Pod) {
	// TODO: count a bound pod on its node, or confirm an assumed one, counted once (task 17).
	panic("not implemented: setPod")
}

// removePod forgets a pod that is gone (RemovePod).
func (c *cache) removePod(pod *api.Pod) {
	// TODO: take a pod off its node (task 17).
	panic("not implemented: removePod")
}

// setNode adds or replaces a node. A known node keeps its pods' sums and
// takes the new object and allocatable only: a kubelet rewrites its
// node's status every few seconds, and recounting 110 pods each time
// would cost a cluster of thousands of nodes more than its pods do. A new
// node is counted from the pods seen on it before it.
func (c *cache) setNode(node *api.Node) {
	// TODO: add or update the node, keeping the pods counted on it (tasks 16-17).
	panic("not implemented: setNode")
}

// removeNode drops a node; its pods stay counted under its name, without
// a node, until they go too (upstream's RemoveNode keeps a ghost
// NodeInfo for the same reason).
func (c *cache) removeNode(node *api.Node) {
	// TODO: take the node out of the cache (task 16).
	panic("not implemented: removeNode")
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
	// TODO: bring the snapshot's NodeInfos up to date with the cache, replacing only the nodes that changed (tasks 15-17).
	panic("not implemented: updateSnapshot")
}
