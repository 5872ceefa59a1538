package kubelettest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 10: the kubelet registers its Node, holds its Lease and reports
// its node's status (rules 1-3, 11, 12), as upstream's
// pkg/kubelet/kubelet_node_status.go (registerWithAPIServer, initialNode,
// tryUpdateNodeStatus), pkg/kubelet/nodestatus/setters.go (MachineInfo,
// VersionInfo, NodeAddress, ReadyCondition) and pkg/kubelet/nodelease
// with component-helpers' lease controller do.

// registerOpts are the Options of the step's kubelets beyond NodeName.
func registerOpts(o kubelets.Options) kubelets.Options {
	o.Labels = map[string]string{"kata.dev/pool": "blue"}
	o.Capacity = api.ResourceList{"cpu": api.MustParse("2"), "memory": api.MustParse("4Gi"), "pods": api.MustParse("30")}
	o.Allocatable = api.ResourceList{"cpu": api.MustParse("1500m"), "memory": api.MustParse("3Gi"), "pods": api.MustParse("30")}
	o.Address = "192.0.2.10"
	return o
}

func registerStep(t *suite.T, impl Impl) {
	need(t, "New", impl.New)
	registerFresh(t, impl)
	registerRetried(t, impl)
	registerExisting(t, impl)
	registerVersionFails(t, impl)
}

// envRuntimeVersion is the containerRuntimeVersion of a kubelet over the
// fake runtime: NAME://VERSION of its Version.
const envRuntimeVersion = fake.RuntimeName + "://" + fake.RuntimeVersion

// wantNodeInfo is the status.nodeInfo of a kubelet built from opts over
// the fake runtime, its containerRuntimeVersion runtimeVersion: the
// machine as Options.Machine says (defaulted: the harness read this
// machine, as cAdvisor does upstream), the Go runtime's platform, the
// kubelet's version for kubelet and kube-proxy (1.32:
// DisableNodeKubeProxyVersion off by default, KEP-4004) (rule 1;
// nodestatus/setters.go MachineInfo, VersionInfo).
func wantNodeInfo(opts kubelets.Options, runtimeVersion string) api.NodeSystemInfo {
	m := opts.WithDefaults().Machine
	return api.NodeSystemInfo{MachineID: m.MachineID, SystemUUID: m.SystemUUID, BootID: m.BootID,
		KernelVersion: m.KernelVersion, OSImage: m.OSImage, ContainerRuntimeVersion: runtimeVersion,
		KubeletVersion: kubelets.Version, KubeProxyVersion: kubelets.Version,
		OperatingSystem: runtime.GOOS, Architecture: runtime.GOARCH}
}

// envJSON is v as JSON, for comparing API values in messages.
func envJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unencodable: %v", err)
	}
	return string(b)
}

// nodeReady is n's Ready condition, nil when none.
func nodeReady(st api.NodeStatus) *api.NodeCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == api.NodeReady {
			return &st.Conditions[i]
		}
	}
	return nil
}

func describeNodeReady(c *api.NodeCondition) string {
	if c == nil {
		return "no Ready condition"
	}
	return fmt.Sprintf("Ready %s reason %q message %q heartbeat %s transition %s", c.Status, c.Reason, c.Message,
		envSince(c.LastHeartbeatTime.Time), envSince(c.LastTransitionTime.Time))
}

// okCalls keeps the calls that succeeded.
func okCalls(calls []envCall) []envCall {
	return slices.DeleteFunc(slices.Clone(calls), func(c envCall) bool { return c.err != nil })
}

// getLease reads the node's Lease from the fake; nil when missing.
func (e *loopEnv) getLease() *api.Lease {
	e.t.Helper()
	l, err := client.For[*api.Lease](e.fake).Get(e.ctx, kubelets.LeaseNamespace, e.opts.NodeName)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		e.t.Fatalf("kubelettest: reading Lease %s/%s from the fake: %v", kubelets.LeaseNamespace, e.opts.NodeName, err)
	}
	return l
}

func (e *loopEnv) getNode() *api.Node {
	e.t.Helper()
	n, err := client.For[*api.Node](e.fake).Get(e.ctx, "", e.opts.NodeName)
	if err != nil {
		e.t.Fatalf("kubelettest: reading Node %s from the fake: %v", e.opts.NodeName, err)
	}
	return n
}

func describeLease(l *api.Lease) string {
	if l == nil {
		return "no Lease"
	}
	s := "holderIdentity "
	if l.Spec.HolderIdentity != nil {
		s += fmt.Sprintf("%q", *l.Spec.HolderIdentity)
	} else {
		s += "nil"
	}
	if l.Spec.LeaseDurationSeconds != nil {
		s += fmt.Sprintf(", leaseDurationSeconds %d", *l.Spec.LeaseDurationSeconds)
	} else {
		s += ", leaseDurationSeconds nil"
	}
	if l.Spec.RenewTime != nil {
		s += ", renewTime " + envSince(l.Spec.RenewTime.Time)
	} else {
		s += ", renewTime nil"
	}
	return s + ", ownerReferences " + envJSON(l.OwnerReferences)
}

// registerFresh: a kubelet on an empty apiserver.
func registerFresh(t *suite.T, impl Impl) {
	t.Helper()
	e := newEnv(t, impl, fake.Options{})
	defer e.finish()
	e.opts = registerOpts(e.opts)
	call := e.newCall()
	e.start()

	// Rule 1: the Node as registered (kubelet_node_status.go initialNode;
	// nodestatus/setters.go MachineInfo, NodeAddress, ReadyCondition).
	n := e.getNode()
	wantLabels := map[string]string{api.LabelHostname: envNode, api.LabelOSStable: runtime.GOOS, api.LabelArchStable: runtime.GOARCH, "kata.dev/pool": "blue"}
	if !maps.Equal(n.Labels, wantLabels) {
		t.Errorf("%s, Run: Node %s registered with labels %v, want %v: hostname, os and arch, with Options.Labels (rule 1; kubelet_node_status.go initialNode)", call, envNode, n.Labels, wantLabels)
	}
	if got, want := envJSON(n.Status.Capacity), envJSON(e.opts.Capacity); got != want {
		t.Errorf("%s, Run: Node %s status.capacity %s, want %s, Options.Capacity (rule 1; nodestatus/setters.go MachineInfo)", call, envNode, got, want)
	}
	if got, want := envJSON(n.Status.Allocatable), envJSON(e.opts.Allocatable); got != want {
		t.Errorf("%s, Run: Node %s status.allocatable %s, want %s, Options.Allocatable (rule 1; nodestatus/setters.go MachineInfo)", call, envNode, got, want)
	}
	wantAddrs := []api.NodeAddress{{Type: api.NodeInternalIP, Address: "192.0.2.10"}, {Type: api.NodeHostName, Address: envNode}}
	if got, want := envJSON(n.Status.Addresses), envJSON(wantAddrs); got != want {
		t.Errorf("%s, Run: Node %s status.addresses %s, want %s: InternalIP Options.Address, then Hostname (rule 1; nodestatus/setters.go NodeAddress)", call, envNode, got, want)
	}
	if got, want := envJSON(n.Status.NodeInfo), envJSON(wantNodeInfo(e.opts, envRuntimeVersion)); got != want {
		t.Errorf("%s, Run: Node %s status.nodeInfo %s, want %s: Options.Machine (defaulted), GOOS and GOARCH, kubelets.Version as kubelet and kube-proxy version, and the runtime's Version as RuntimeName://RuntimeVersion (rule 1; nodestatus/setters.go MachineInfo, VersionInfo)",
			call, envNode, got, want)
	}
	if c := nodeReady(n.Status); c == nil || c.Status != api.ConditionTrue || c.Reason != kubelets.ReasonKubeletReady || c.Message != kubelets.MessageKubeletReady ||
		!c.LastHeartbeatTime.Time.Equal(envT0) || !c.LastTransitionTime.Time.Equal(envT0) {
		t.Errorf("%s, Run at t0: Node %s registered with %s, want Ready True reason %q message %q heartbeat t0 transition t0 (rule 1; nodestatus/setters.go ReadyCondition)",
			call, envNode, describeNodeReady(c), kubelets.ReasonKubeletReady, kubelets.MessageKubeletReady)
	}

	// Rule 2: the Lease, created at t0 and owned by the Node
	// (nodelease: setNodeOwnerFunc; lease controller newLease).
	var lease *api.Lease
	e.waitStill(fmt.Sprintf("Lease %s/%s to be created (rule 2)", kubelets.LeaseNamespace, envNode), func() (bool, string) {
		lease = e.getLease()
		return lease != nil, "the kubelet's calls: " + envDescribeAPICalls(e.spy.callsOf("", "", ""))
	})
	wantOwner := []api.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: envNode, UID: n.UID}}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != envNode || lease.Spec.LeaseDurationSeconds == nil || *lease.Spec.LeaseDurationSeconds != kubelets.LeaseDurationSeconds ||
		lease.Spec.RenewTime == nil || !lease.Spec.RenewTime.Time.Equal(envT0) || envJSON(lease.OwnerReferences) != envJSON(wantOwner) {
		t.Errorf("%s, Run at t0: Lease %s/%s is %s, want holderIdentity %q, leaseDurationSeconds %d, renewTime t0, ownerReferences %s (rule 2; pkg/kubelet/nodelease, lease controller newLease)",
			call, kubelets.LeaseNamespace, envNode, describeLease(lease), envNode, kubelets.LeaseDurationSeconds, envJSON(wantOwner))
	}

	// Rule 2: renewed every RenewInterval on the clock, by Update.
	e.advanceIn(30*time.Second, 5*time.Second)
	renewals := okCalls(e.spy.callsOf("update", "leases", envNode))
	var at []string
	for _, c := range renewals {
		at = append(at, envSince(c.at))
	}
	wantAt := []string{"t0+10s", "t0+20s", "t0+30s"}
	if !slices.Equal(at, wantAt) {
		t.Errorf("%s, Run, the clock moved from t0 to t0+30s in moves of 5s: Lease renewals (update leases %s/%s) at %v, want at %v: every RenewInterval (%v) on the clock, as Update (rule 2; nodelease, lease controller sync); the kubelet's calls: %s",
			call, kubelets.LeaseNamespace, envNode, at, wantAt, kubelets.RenewInterval, envDescribeAPICalls(e.spy.callsOf("", "leases", "")))
	}
	for _, c := range renewals {
		if l, ok := c.obj.(*api.Lease); !ok || l.Spec.RenewTime == nil || !l.Spec.RenewTime.Time.Equal(c.at) || envJSON(l.OwnerReferences) != envJSON(wantOwner) {
			var got string
			if ok {
				got = describeLease(l)
			}
			t.Errorf("%s, Run: Lease renewal %s sent %s, want renewTime %s (the clock then) and ownerReferences %s (rule 2)", call, c, got, envSince(c.at), envJSON(wantOwner))
			break
		}
	}

	// Rule 3: nothing changed, so nothing written before
	// NodeStatusReportFrequency (kubelet_node_status.go
	// tryUpdateNodeStatus: nodeStatusHasChanged, the report interval).
	e.advanceIn(4*time.Minute+20*time.Second, 10*time.Second) // t0+4m50s
	if w := e.spy.callsOf("update-status", "nodes", envNode); len(w) > 0 {
		t.Errorf("%s, Run, the clock moved from t0 to %s with nothing changed: the kubelet wrote its node's status %d times (%s), want none before NodeStatusReportFrequency (%v) since its last write (rule 3; kubelet_node_status.go tryUpdateNodeStatus)",
			call, envSince(e.now()), len(w), envDescribeAPICalls(w), kubelets.NodeStatusReportFrequency)
	}
	if w := e.spy.callsOf("update", "nodes", envNode); len(w) > 0 {
		t.Errorf("%s, Run: the kubelet wrote its Node with Update: %s; want its status written with UpdateStatus only (rule 3)", call, envDescribeAPICalls(w))
	}
	e.advanceIn(5*time.Minute+20*time.Second, 10*time.Second) // t0+10m10s
	writes := okCalls(e.spy.callsOf("update-status", "nodes", envNode))
	var wat []string
	for _, c := range writes {
		wat = append(wat, envSince(c.at))
	}
	wantWat := []string{"t0+5m0s", "t0+10m0s"}
	if !slices.Equal(wat, wantWat) {
		t.Errorf("%s, Run, the clock moved from t0 to %s in moves of 10s, nothing changed: node status written (update-status nodes %s) at %v, want at %v: each NodeStatusUpdateFrequency (%v) the status is made, and written when NodeStatusReportFrequency (%v) has passed since the last write (rule 3; kubelet_node_status.go tryUpdateNodeStatus)",
			call, envSince(e.now()), envNode, wat, wantWat, kubelets.NodeStatusUpdateFrequency, kubelets.NodeStatusReportFrequency)
	}
	for _, c := range writes {
		nn, _ := c.obj.(*api.Node)
		var r *api.NodeCondition
		if nn != nil {
			r = nodeReady(nn.Status)
		}
		if r == nil || r.Status != api.ConditionTrue || !r.LastHeartbeatTime.Time.Equal(c.at) || !r.LastTransitionTime.Time.Equal(envT0) {
			t.Errorf("%s, Run: node status write %s sent %s, want Ready True heartbeat %s (now) transition t0 (kept while the status stays) (rule 3; nodestatus/setters.go ReadyCondition)", call, c, describeNodeReady(r), envSince(c.at))
			break
		}
	}

	// Rule 3: a status that differs (here: someone else changed the
	// capacity) is written back at the next NodeStatusUpdateFrequency.
	before := len(e.spy.callsOf("update-status", "nodes", envNode))
	changed := e.getNode()
	changed.Status.Capacity = api.ResourceList{"cpu": api.MustParse("2"), "memory": api.MustParse("4Gi"), "pods": api.MustParse("1")}
	if _, err := client.For[*api.Node](e.fake).UpdateStatus(e.ctx, changed); err != nil {
		t.Fatalf("kubelettest: changing Node %s's capacity in the fake: %v", envNode, err)
	}
	mark := e.now()
	e.advanceIn(10*time.Second, 5*time.Second)
	var fix []envCall
	for _, c := range okCalls(e.spy.callsOf("update-status", "nodes", envNode))[before:] {
		if nn, ok := c.obj.(*api.Node); ok && envJSON(nn.Status.Capacity) == envJSON(e.opts.Capacity) {
			fix = append(fix, c)
		}
	}
	if len(fix) == 0 {
		t.Errorf("%s, Run: at %s the Node's status.capacity was changed to pods 1 by another client; by %s the kubelet wrote no status with its capacity %s (its calls since: %s), want it written back within NodeStatusUpdateFrequency (%v), the status differing (rule 3; kubelet_node_status.go tryUpdateNodeStatus: nodeStatusHasChanged)",
			call, envSince(mark), envSince(e.now()), envJSON(e.opts.Capacity), envDescribeAPICalls(e.spy.callsOf("update-status", "nodes", envNode)[before:]), kubelets.NodeStatusUpdateFrequency)
	}

	// Rule 2: a renewal that fails is tried again at the next one.
	e.spy.fail("update", "leases", kubelets.LeaseNamespace, envNode, -1)
	e.advanceIn(25*time.Second, 5*time.Second)
	e.spy.heal()
	healed := e.now()
	e.waitFor(fmt.Sprintf("the Lease renewed again after its updates were refused from %s to %s (rule 2: a failed renewal is tried again at the next one, every RenewInterval)", envSince(healed.Add(-25*time.Second)), envSince(healed)), func() (bool, string) {
		l := e.getLease()
		return l != nil && l.Spec.RenewTime != nil && !l.Spec.RenewTime.Time.Before(healed), describeLease(l)
	})
	if l := e.getLease(); l.Spec.RenewTime.Time.After(healed.Add(kubelets.RenewInterval)) {
		t.Errorf("%s, Run: Lease updates refused until %s, then renewed at %s, want by %s: a failed renewal is tried again at the next one (rule 2)", call, envSince(healed), envSince(l.Spec.RenewTime.Time), envSince(healed.Add(kubelets.RenewInterval)))
	}

	// Rule 1: the runtime's Version asked once, and its answer kept
	// through every node status since.
	if v := envRTOnly(e.rts.calls(""), "Version"); len(v) != 1 {
		t.Errorf("%s, Run, the clock moved from t0 to %s: the runtime's Version asked %d times (%s), want once: it answered at registration, and its answer is kept (rule 1)",
			call, envSince(e.now()), len(v), envDescribeRT(v))
	}

	// Rule 11: Starting and NodeReady on the node (kubelet.go Run:
	// StartingKubelet; nodestatus/setters.go ReadyCondition).
	evs := e.waitEvent("Node", envNode, kubelets.EventStartingNode, "", "rule 11; kubelet.go Run")
	if envCountEvents(evs, kubelets.EventNodeReady, "") == 0 {
		evs = e.waitEvent("Node", envNode, kubelets.EventNodeReady, "", "rule 11; nodestatus/setters.go ReadyCondition")
	}
	for _, ev := range evs {
		if ev.Type != api.EventTypeNormal {
			t.Errorf("%s, Run: Event %s %s about Node %s, want type Normal (rule 11)", call, ev.Type, ev.Reason, envNode)
		}
	}
}

// registerRetried: creating the Node fails three times; the kubelet
// tries again on the clock and starts nothing else meanwhile.
func registerRetried(t *suite.T, impl Impl) {
	t.Helper()
	e := newEnv(t, impl, fake.Options{})
	defer e.finish()
	e.spy.fail("create", "nodes", "", envNode, 3)
	call := e.newCall()
	e.startOnly()
	e.waitFor(fmt.Sprintf("Node %s created after three refused creates (rule 1: tried again on the clock until it succeeds)", envNode), func() (bool, string) {
		return len(okCalls(e.spy.callsOf("create", "nodes", envNode))) > 0, "creates: " + envDescribeAPICalls(e.spy.callsOf("create", "nodes", envNode))
	})
	creates := e.spy.callsOf("create", "nodes", envNode)
	if len(creates) < 4 || !creates[len(creates)-1].at.After(creates[0].at) {
		t.Errorf("%s, Run, the first three creates of Node %s refused (500): creates %s, want four at least, the later ones after the clock moved: a failed registration is tried again on the clock (rule 1; kubelet_node_status.go registerWithAPIServer)", call, envNode, envDescribeAPICalls(creates))
	}
	all := e.spy.callsOf("", "", "")
	for _, c := range all {
		if c.verb == "create" && c.resource == "nodes" && c.err == nil {
			break
		}
		if c.resource == "leases" || c.resource == "pods" {
			t.Errorf("%s, Run: %s came before the Node was created, want nothing else started before registration succeeds (rule 1; kubelet.go: the node lease and pod sources start once registered); the calls: %s", call, c, envDescribeAPICalls(all))
			break
		}
	}
}

// registerExisting: the Node exists (left by an earlier kubelet, not
// Ready); the kubelet takes it and writes its status at once.
func registerExisting(t *suite.T, impl Impl) {
	t.Helper()
	e := newEnv(t, impl, fake.Options{})
	defer e.finish()
	e.opts = registerOpts(e.opts)
	old := envT0.Add(-time.Hour)
	existing := envCreate(e, &api.Node{
		ObjectMeta: api.ObjectMeta{Name: envNode, Labels: map[string]string{api.LabelHostname: envNode}},
		Status: api.NodeStatus{Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionUnknown, Reason: "NodeStatusUnknown",
			Message: "Kubelet stopped posting node status.", LastHeartbeatTime: api.NewTime(old), LastTransitionTime: api.NewTime(old)}}},
	})
	call := e.newCall()
	e.startOnly()
	var w []envCall
	e.waitStill(fmt.Sprintf("the kubelet to write the status of Node %s, which existed with Ready Unknown (rule 1: a Node that exists already is the kubelet's, its status written as rule 3 says)", envNode), func() (bool, string) {
		w = okCalls(e.spy.callsOf("update-status", "nodes", envNode))
		return len(w) > 0, "the kubelet's calls: " + envDescribeAPICalls(e.spy.callsOf("", "", ""))
	})
	nn, _ := w[0].obj.(*api.Node)
	var r *api.NodeCondition
	if nn != nil {
		r = nodeReady(nn.Status)
	}
	if r == nil || r.Status != api.ConditionTrue || r.Reason != kubelets.ReasonKubeletReady || !r.LastHeartbeatTime.Time.Equal(w[0].at) || !r.LastTransitionTime.Time.Equal(w[0].at) {
		t.Errorf("%s, Run, Node %s existing with Ready Unknown since t0-1h: first status write %s sent %s, want Ready True reason %q heartbeat and transition %s (the status changed) (rules 1 and 3; nodestatus/setters.go ReadyCondition)",
			call, envNode, w[0], describeNodeReady(r), kubelets.ReasonKubeletReady, envSince(w[0].at))
	}
	if nn != nil && envJSON(nn.Status.Capacity) != envJSON(e.opts.Capacity) {
		t.Errorf("%s, Run: first status write of the existing Node %s sent capacity %s, want %s (rules 1 and 3)", call, envNode, envJSON(nn.Status.Capacity), envJSON(e.opts.Capacity))
	}
	if nn != nil && envJSON(nn.Status.NodeInfo) != envJSON(wantNodeInfo(e.opts, envRuntimeVersion)) {
		t.Errorf("%s, Run: first status write of the existing Node %s, which had no nodeInfo, sent nodeInfo %s, want %s: the node's status is rule 1's, nodeInfo with it (rules 1 and 3; nodestatus/setters.go VersionInfo)",
			call, envNode, envJSON(nn.Status.NodeInfo), envJSON(wantNodeInfo(e.opts, envRuntimeVersion)))
	}
	var lease *api.Lease
	e.waitStill("the Lease to be created (rule 2)", func() (bool, string) {
		lease = e.getLease()
		return lease != nil, describeLease(lease)
	})
	wantOwner := []api.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: envNode, UID: existing.UID}}
	if envJSON(lease.OwnerReferences) != envJSON(wantOwner) {
		t.Errorf("%s, Run, Node %s existing (uid %s): Lease ownerReferences %s, want %s: the Lease is owned by the Node as it is (rule 2)", call, envNode, existing.UID, envJSON(lease.OwnerReferences), envJSON(wantOwner))
	}
}

// registerVersionFails: the runtime's first Version fails. The Node is
// registered at once all the same, its containerRuntimeVersion empty,
// and the answer of a later Version is written with the node's status.
func registerVersionFails(t *suite.T, impl Impl) {
	t.Helper()
	e := newEnv(t, impl, fake.Options{})
	defer e.finish()
	e.rt.Fail("Version", errors.New("fake: version: runtime not ready"))
	call := e.newCall()
	e.start()
	creates := e.spy.callsOf("create", "nodes", envNode)
	if len(creates) != 1 || !creates[0].at.Equal(envT0) {
		t.Errorf("%s, Run, the runtime's Version failing once: creates of Node %s %s, want one at t0: a Version that fails holds the registration up in nothing (rule 1)",
			call, envNode, envDescribeAPICalls(creates))
	} else if nn, ok := creates[0].obj.(*api.Node); ok {
		if got, want := envJSON(nn.Status.NodeInfo), envJSON(wantNodeInfo(e.opts, "")); got != want {
			t.Errorf("%s, Run, the runtime's Version failing once: Node %s created with nodeInfo %s, want %s: containerRuntimeVersion empty while the runtime has not answered, the rest as ever (rule 1)",
				call, envNode, got, want)
		}
	}
	e.advanceIn(kubelets.NodeStatusUpdateFrequency, 5*time.Second)
	var fixed []envCall
	for _, c := range okCalls(e.spy.callsOf("update-status", "nodes", envNode)) {
		if nn, ok := c.obj.(*api.Node); ok && nn.Status.NodeInfo.ContainerRuntimeVersion == envRuntimeVersion {
			fixed = append(fixed, c)
		}
	}
	if len(fixed) == 0 {
		t.Errorf("%s, Run, the runtime's Version failing once, at registration: by %s no node status written with containerRuntimeVersion %q (status writes: %s; the runtime's Version calls: %s), want it asked again when the node status is made, and written (rules 1 and 3)",
			call, envSince(e.now()), envRuntimeVersion, envDescribeAPICalls(e.spy.callsOf("update-status", "nodes", envNode)), envDescribeRT(envRTOnly(e.rts.calls(""), "Version")))
	}
}
