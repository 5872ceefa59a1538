package kubelet

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// The loop: kubelets.Kubelet's twelve rules. Upstream's kubelet
// (pkg/kubelet/kubelet.go: Run, syncLoop, SyncPod, SyncTerminatingPod)
// is many loops around one pod worker per pod (pod_workers.go); the kata
// keeps that shape: registration, the Lease and the node status each on
// their own clock (kubelet_node_status.go, nodelease/), the static pod
// files on theirs (config/file.go), a relist every second (pleg/generic.go)
// and one worker per pod that syncs it. Every decision is the package's
// pure functions'; this file and its siblings read, ask and write.

// Registration is tried again after 100ms, doubling to 7s
// (kubelet_node_status.go: registerWithAPIServer).
const (
	registerRetryInitial = 100 * time.Millisecond
	registerRetryMax     = 7 * time.Second
)

var (
	nodeKind  = mustKind(&api.Node{})
	podKind   = mustKind(&api.Pod{})
	leaseKind = mustKind(&api.Lease{})
)

func mustKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("kubelet: %T is not a registered kind", obj))
	}
	return k
}

// funcs are the pure functions the loop takes every decision through:
// the package's own in New, others in the loop's own tests.
type funcs struct {
	actions           kubelets.ActionsFunc
	shouldRestart     kubelets.ShouldRestartFunc
	backoffNext       kubelets.BackoffNextFunc
	inBackoff         kubelets.InBackoffFunc
	containerStatuses kubelets.ContainerStatusesFunc
	phase             kubelets.PhaseFunc
	conditions        kubelets.ConditionsFunc
	probeDue          kubelets.ProbeDueFunc
	probeNext         kubelets.ProbeNextFunc
	gracePeriod       kubelets.GracePeriodFunc
}

// kubelet is the running kubelet.
type kubelet struct {
	c       client.Interface
	opts    kubelets.Options // defaulted
	clock   kubelets.Clock
	fn      funcs
	started atomic.Bool

	// Built by Run.
	recorder *events.Recorder
	podInf   *informer.Informer
	pods     informer.Lister[*api.Pod]
	// node is the Node as registered (its UID owns the Lease and the
	// mirror pods), and created when Run created it (zero when it
	// existed); set before anything else starts.
	node    *api.Node
	created time.Time
	// runtimeVersion is the node's containerRuntimeVersion,
	// "NAME://VERSION", "" until the runtime's Version answered: set by
	// register, then by the node status loop alone.
	runtimeVersion string

	// mu guards workers, static, seen, staticRead and closed.
	mu sync.Mutex
	// workers are the pod workers by pod UID (pod_workers.go).
	workers map[api.UID]*podWorker
	// static are the static pods by UID (their hash), as last read from
	// StaticPodDir; seen keeps when each hash was first seen.
	static map[api.UID]*api.Pod
	seen   map[api.UID]string
	// staticRead is set once StaticPodDir was first read: no mirror pod
	// is taken for an orphan before.
	staticRead bool
	// closed stops new workers once Run is ending.
	closed bool
	// wg counts the pod workers; inflight the pokes sent and not yet
	// synced (0: every worker idle, which the loop's tests wait for).
	wg       sync.WaitGroup
	inflight atomic.Int64
}

// New returns the kubelet over the apiserver c, with opts defaulted
// (kubelets.Options.WithDefaults) and opts.Clock, or the system clock
// when nil. Nothing starts before Run.
func New(c client.Interface, opts kubelets.Options) kubelets.Kubelet {
	return newKubelet(c, opts, funcs{
		actions:           Actions,
		shouldRestart:     ShouldRestart,
		backoffNext:       BackoffNext,
		inBackoff:         InBackoff,
		containerStatuses: ContainerStatuses,
		phase:             Phase,
		conditions:        Conditions,
		probeDue:          ProbeDue,
		probeNext:         ProbeNext,
		gracePeriod:       GracePeriod,
	})
}

var _ kubelets.NewFunc = New

// newKubelet is New with the functions to ask, so that the loop's own
// tests can drive it with functions of their own.
func newKubelet(c client.Interface, opts kubelets.Options, fn funcs) *kubelet {
	opts = opts.WithDefaults()
	var clock kubelets.Clock = informer.RealClock{}
	if opts.Clock != nil {
		clock = opts.Clock
	}
	return &kubelet{
		c:       c,
		opts:    opts,
		clock:   clock,
		fn:      fn,
		workers: map[api.UID]*podWorker{},
		static:  map[api.UID]*api.Pod{},
		seen:    map[api.UID]string{},
	}
}

// Run registers the node (rule 1), then runs the Lease (rule 2), the
// node status (rule 3), the static pod files (rule 9), the pod informer
// and the relist (rule 4) until ctx ends. It returns once every goroutine
// it started has ended (rule 12): the loops, the informer, the pod
// workers, then the recorder, which writes the Events left.
func (k *kubelet) Run(ctx context.Context) error {
	switch {
	case k.opts.NodeName == "":
		return errors.New("kubelet: Options.NodeName is empty")
	case k.opts.Runtime == nil:
		return errors.New("kubelet: Options.Runtime is nil")
	case k.c == nil:
		return errors.New("kubelet: no client")
	case !k.started.CompareAndSwap(false, true):
		return errors.New("kubelet: Run called twice")
	}
	k.recorder = events.NewRecorder(k.c, kubelets.ComponentName, k.opts.NodeName, events.Options{Clock: k.clock})
	defer k.recorder.Shutdown()

	node, ok := k.register(ctx)
	if !ok {
		return nil // ctx ended before the node was registered
	}
	k.node = node

	k.podInf = informer.New(k.c, podKind, "", informer.Options{
		FieldSelector: "spec.nodeName=" + k.opts.NodeName,
		Clock:         k.clock,
	})
	k.pods = informer.NewLister[*api.Pod](k.podInf)
	k.podInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { k.podChanged(ctx, nil, obj.(*api.Pod)) },
		OnUpdate: func(old, obj api.Object) { k.podChanged(ctx, old.(*api.Pod), obj.(*api.Pod)) },
		OnDelete: func(obj api.Object) { k.podDeleted(ctx, obj.(*api.Pod)) },
	})

	var loops sync.WaitGroup
	goLoop := func(f func()) {
		loops.Add(1)
		go func() {
			defer loops.Done()
			f()
		}()
	}
	defer func() {
		loops.Wait()
		k.mu.Lock()
		k.closed = true
		k.mu.Unlock()
		k.wg.Wait()
	}()
	// Every loop that may start a worker (the informer's handlers, the
	// relist, the static pods) has ended before closed is set and the
	// workers are waited for: none starts after.
	goLoop(func() { _ = k.podInf.Run(ctx) }) // nil once ctx ends
	goLoop(func() { k.leaseLoop(ctx) })
	goLoop(func() { k.nodeStatusLoop(ctx) })
	if k.podInf.WaitForSync(ctx) != nil {
		return nil
	}
	// Static pods first read before the relist, so that a mirror pod of
	// a static pod is never taken for an orphan.
	k.readStaticPods(ctx)
	k.relist(ctx)
	goLoop(func() { k.staticPodLoop(ctx) })
	goLoop(func() { k.relistLoop(ctx) })
	<-ctx.Done()
	return nil
}

// relistLoop relists every RelistPeriod on the clock until ctx ends
// (pleg/generic.go: the relist period), each wait asked from this line
// alone.
func (k *kubelet) relistLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-k.clock.After(kubelets.RelistPeriod):
		}
		if ctx.Err() != nil {
			return
		}
		k.relist(ctx)
	}
}

// staticPodLoop reads StaticPodDir every FileCheckFrequency on the clock
// until ctx ends (config/file.go: the file source's period).
func (k *kubelet) staticPodLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-k.clock.After(kubelets.FileCheckFrequency):
		}
		if ctx.Err() != nil {
			return
		}
		k.readStaticPods(ctx)
	}
}

// ---------------------------------------------------------------- node

// register creates the Node (rule 1; kubelet_node_status.go:
// registerWithAPIServer, initialNode), trying again on the clock until
// it succeeds or ctx ends. A Node that exists already is taken as the
// kubelet's own; its status is written by the status loop. It records
// Starting, and NodeReady when the Node it made is Ready.
func (k *kubelet) register(ctx context.Context) (*api.Node, bool) {
	k.recorder.Event(k.nodeRef(nil), events.EventTypeNormal, kubelets.EventStartingNode, "", "Starting kubelet.")
	wait := registerRetryInitial
	for {
		n, err := k.tryRegister(ctx)
		if err == nil {
			return n, true
		}
		select {
		case <-ctx.Done():
			return nil, false
		case <-k.clock.After(wait):
		}
		wait = min(2*wait, registerRetryMax)
	}
}

// tryRegister is one registration attempt. The runtime's Version is
// asked first; when it fails the Node is registered all the same, its
// containerRuntimeVersion empty until the status loop asks again.
func (k *kubelet) tryRegister(ctx context.Context) (*api.Node, error) {
	k.askRuntimeVersion(ctx)
	now := k.clock.Now()
	want := k.initialNode(now)
	out, err := k.c.Create(ctx, want)
	if err == nil {
		n, ok := out.(*api.Node)
		if !ok {
			return nil, fmt.Errorf("kubelet: creating node %s: got %T", k.opts.NodeName, out)
		}
		k.created = now
		k.nodeReadyEvent(n) // made Ready
		return n, nil
	}
	if !client.IsAlreadyExists(err) {
		return nil, fmt.Errorf("kubelet: creating node %s: %w", k.opts.NodeName, err)
	}
	got, err := k.c.Get(ctx, nodeKind, "", k.opts.NodeName)
	if err != nil {
		return nil, fmt.Errorf("kubelet: reading node %s: %w", k.opts.NodeName, err)
	}
	n, ok := got.(*api.Node)
	if !ok {
		return nil, fmt.Errorf("kubelet: reading node %s: got %T", k.opts.NodeName, got)
	}
	return n, nil
}

// initialNode is the Node the kubelet registers (initialNode): its labels
// and its status.
func (k *kubelet) initialNode(now time.Time) *api.Node {
	labels := map[string]string{
		api.LabelHostname:   k.opts.NodeName,
		api.LabelOSStable:   runtime.GOOS,
		api.LabelArchStable: runtime.GOARCH,
	}
	for key, v := range k.opts.Labels {
		labels[key] = v
	}
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: k.opts.NodeName, Labels: labels}}
	n.Status = k.nodeStatus(api.NodeStatus{}, now)
	return n
}

// askRuntimeVersion asks the runtime's Version until it answers, then
// keeps "NAME://VERSION" as the node's containerRuntimeVersion
// (nodestatus/setters.go: VersionInfo formats the runtime's type and
// version so; kuberuntime_manager.go: NewKubeGenericRuntimeManager takes
// the type from the runtime's first Version answer). A failure leaves it
// empty, to be asked again (upstream writes "TYPE://Unknown" and asks at
// every status; the kata asks until it knows).
func (k *kubelet) askRuntimeVersion(ctx context.Context) {
	if k.runtimeVersion != "" {
		return
	}
	v, err := k.opts.Runtime.Version(ctx)
	if err != nil || v == nil {
		return
	}
	k.runtimeVersion = v.RuntimeName + "://" + v.RuntimeVersion
}

// nodeStatus is the node's status at now, made over current (the
// setters of pkg/kubelet/nodestatus/setters.go: MachineInfo,
// VersionInfo, NodeAddress, ReadyCondition): capacity, allocatable,
// nodeInfo, the addresses and the Ready condition, which keeps its
// lastTransitionTime while its status stays. Conditions of other types
// are kept as they are.
func (k *kubelet) nodeStatus(current api.NodeStatus, now time.Time) api.NodeStatus {
	st := *api.DeepCopyValue(&current)
	st.Capacity = api.DeepCopyValue(k.opts.Capacity)
	st.Allocatable = api.DeepCopyValue(k.opts.Allocatable)
	// The machine as the harness read it (Options.Machine, cAdvisor's
	// answers upstream), the platform the kubelet runs on, and the
	// versions: kubeProxyVersion is the kubelet's own in 1.32, whose
	// DisableNodeKubeProxyVersion gate is off by default (KEP-4004).
	info := &st.NodeInfo
	info.MachineID = k.opts.Machine.MachineID
	info.SystemUUID = k.opts.Machine.SystemUUID
	info.BootID = k.opts.Machine.BootID
	info.KernelVersion = k.opts.Machine.KernelVersion
	info.OSImage = k.opts.Machine.OSImage
	info.OperatingSystem = runtime.GOOS
	info.Architecture = runtime.GOARCH
	info.KubeletVersion = kubelets.Version
	info.KubeProxyVersion = kubelets.Version
	info.ContainerRuntimeVersion = k.runtimeVersion
	st.Addresses = []api.NodeAddress{
		{Type: api.NodeInternalIP, Address: k.opts.Address},
		{Type: api.NodeHostName, Address: k.opts.NodeName},
	}
	ready := api.NodeCondition{
		Type:               api.NodeReady,
		Status:             api.ConditionTrue,
		Reason:             kubelets.ReasonKubeletReady,
		Message:            kubelets.MessageKubeletReady,
		LastHeartbeatTime:  api.NewTime(now),
		LastTransitionTime: api.NewTime(now),
	}
	for i, c := range st.Conditions {
		if c.Type != api.NodeReady {
			continue
		}
		if c.Status == ready.Status {
			ready.LastTransitionTime = c.LastTransitionTime
		}
		st.Conditions[i] = ready
		return st
	}
	st.Conditions = append(st.Conditions, ready)
	return st
}

// readyStatus is the status of the Ready condition of st, "" when none.
func readyStatus(st api.NodeStatus) api.ConditionStatus {
	for _, c := range st.Conditions {
		if c.Type == api.NodeReady {
			return c.Status
		}
	}
	return ""
}

// withoutHeartbeats is st with every lastHeartbeatTime zero, to compare
// statuses on what they say (nodeStatusHasChanged).
func withoutHeartbeats(st api.NodeStatus) api.NodeStatus {
	out := *api.DeepCopyValue(&st)
	for i := range out.Conditions {
		out.Conditions[i].LastHeartbeatTime = api.Time{}
	}
	return out
}

// nodeStatusLoop writes the node's status at once, then every
// NodeStatusUpdateFrequency (rule 3; kubelet_node_status.go:
// syncNodeStatus, tryUpdateNodeStatus).
func (k *kubelet) nodeStatusLoop(ctx context.Context) {
	lastWrite := k.created // zero when the Node existed: written at once
	k.syncNodeStatus(ctx, &lastWrite)
	for {
		select {
		case <-ctx.Done():
			return
		case <-k.clock.After(kubelets.NodeStatusUpdateFrequency):
		}
		if ctx.Err() != nil {
			return
		}
		k.syncNodeStatus(ctx, &lastWrite)
	}
}

// syncNodeStatus reads the Node, asks the runtime's Version if it has
// not answered yet, makes the node's status, and writes it when it
// changed in anything but the heartbeat or when NodeStatusReportFrequency
// has passed since *lastWrite (zero: never written by this Run, as
// upstream's lastStatusReportTime).
func (k *kubelet) syncNodeStatus(ctx context.Context, lastWrite *time.Time) {
	got, err := k.c.Get(ctx, nodeKind, "", k.opts.NodeName)
	if err != nil {
		return // tried again at the next period
	}
	n, ok := got.(*api.Node)
	if !ok {
		return
	}
	k.askRuntimeVersion(ctx)
	now := k.clock.Now()
	st := k.nodeStatus(n.Status, now)
	changed := !sameJSON(withoutHeartbeats(st), withoutHeartbeats(n.Status))
	if !changed && !lastWrite.IsZero() && now.Before(lastWrite.Add(kubelets.NodeStatusReportFrequency)) {
		return
	}
	next := api.DeepCopy(n)
	next.Status = st
	if _, err := k.c.UpdateStatus(ctx, next); err != nil {
		return
	}
	*lastWrite = now
	if readyStatus(n.Status) != api.ConditionTrue {
		k.nodeReadyEvent(n)
	}
}

// nodeReadyEvent records NodeReady on the node
// (nodestatus/setters.go: ReadyCondition's recordEventFunc).
func (k *kubelet) nodeReadyEvent(n *api.Node) {
	k.recorder.Event(k.nodeRef(n), events.EventTypeNormal, kubelets.EventNodeReady, "",
		fmt.Sprintf("Node %s status is now: %s", k.opts.NodeName, kubelets.EventNodeReady))
}

// nodeRef is the object a node Event is about: n, or the node by name.
func (k *kubelet) nodeRef(n *api.Node) api.Object {
	if n != nil {
		return n
	}
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: k.opts.NodeName}}
}

// ---------------------------------------------------------------- lease

// leaseLoop makes sure the Lease exists and renews it at once, then
// every RenewInterval (rule 2; pkg/kubelet/nodelease, client-go's
// component-helpers/apimachinery/lease/controller.go: sync, which
// updates the latest Lease it wrote and, when that fails, reads it again
// or creates it).
func (k *kubelet) leaseLoop(ctx context.Context) {
	var latest *api.Lease
	k.renewLease(ctx, &latest)
	for {
		select {
		case <-ctx.Done():
			return
		case <-k.clock.After(kubelets.RenewInterval):
		}
		if ctx.Err() != nil {
			return
		}
		k.renewLease(ctx, &latest)
	}
}

// renewLease renews *latest, or reads the Lease again (creating it when
// missing) when there is none or the renewal failed.
func (k *kubelet) renewLease(ctx context.Context, latest **api.Lease) {
	if *latest != nil {
		if out, err := k.c.Update(ctx, k.newLease(*latest)); err == nil {
			*latest, _ = out.(*api.Lease)
			return
		}
		*latest = nil
	}
	got, err := k.c.Get(ctx, leaseKind, kubelets.LeaseNamespace, k.opts.NodeName)
	switch {
	case client.IsNotFound(err):
		out, err := k.c.Create(ctx, k.newLease(nil))
		if err == nil {
			*latest, _ = out.(*api.Lease)
		}
	case err == nil:
		if l, ok := got.(*api.Lease); ok {
			if out, err := k.c.Update(ctx, k.newLease(l)); err == nil {
				*latest, _ = out.(*api.Lease)
			}
		}
	}
}

// newLease is base (nil: a new Lease) with the holder, duration, renew
// time now, and the ownerReference to the Node (newLease in the lease
// controller, with the kubelet's setNodeOwnerFunc).
func (k *kubelet) newLease(base *api.Lease) *api.Lease {
	var l *api.Lease
	if base == nil {
		l = &api.Lease{ObjectMeta: api.ObjectMeta{Name: k.opts.NodeName, Namespace: kubelets.LeaseNamespace}}
	} else {
		l = api.DeepCopy(base)
	}
	holder := k.opts.NodeName
	duration := kubelets.LeaseDurationSeconds
	renew := api.NewMicroTime(k.clock.Now())
	l.Spec.HolderIdentity = &holder
	l.Spec.LeaseDurationSeconds = &duration
	l.Spec.RenewTime = &renew
	if len(l.OwnerReferences) == 0 && k.node != nil {
		l.OwnerReferences = []api.OwnerReference{{
			APIVersion: "v1", Kind: "Node", Name: k.node.Name, UID: k.node.UID,
		}}
	}
	return l
}
