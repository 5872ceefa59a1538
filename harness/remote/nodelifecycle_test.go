package remote

import (
	"context"
	"fmt"
	"math"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
	"github.com/kubekata/kubekata/harness/nodelifecycletest"
	"github.com/kubekata/kubekata/harness/suite"
	lifecycle "github.com/kubekata/kubekata/solutions/11-nodelifecycle"
)

// solutionNodeLifecycle is exercise 11's solution as its test file passes
// it.
func solutionNodeLifecycle() nodelifecycletest.Impl {
	return nodelifecycletest.Impl{
		Health: lifecycle.Health, Decide: lifecycle.Decide, SwapTaints: lifecycle.SwapTaints,
		Disruption: lifecycle.Disruption, Evict: lifecycle.Evict, NotReady: lifecycle.NotReady, New: lifecycle.New,
	}
}

func init() {
	fakes["nodelifecyclesol"] = func() Service { return NodeLifecycleService(solutionNodeLifecycle()) }
	fakes["nodelifecycle"] = func() Service {
		np := newNodeLifecycleProgram(fakeNodeLifecycle())
		return withLoopTestMethods(np.service(), np.handles, &np.controllers)
	}
}

// misbehaveNL makes a pure function misbehave as name (a node's, a
// pod's, a taint's key, a Ready status) says.
func misbehaveNL(name, fn string) {
	switch name {
	case "panic":
		panic("not implemented: " + fn)
	case "goexit":
		runtime.Goexit()
	case "exit":
		fmt.Println("the node lifecycle controller exits")
		os.Exit(22)
	case "hang":
		select {}
	}
}

func firstKey(taints []api.Taint) string {
	if len(taints) == 0 {
		return ""
	}
	return taints[0].Key
}

// nilOrLen says whether a slice is nil, or how long it is.
func nilOrLen[S ~[]E, E any](s S) string {
	if s == nil {
		return "nil"
	}
	return strconv.Itoa(len(s))
}

// taintsSeen says what a function saw of taints: nil or their number,
// and each one's key, value, effect and time added to the nanosecond.
func taintsSeen(taints []api.Taint) string {
	seen := []string{"taints " + nilOrLen(taints)}
	for _, tn := range taints {
		added := "never"
		if tn.TimeAdded != nil {
			added = stamp(tn.TimeAdded.Time)
		}
		seen = append(seen, fmt.Sprintf("%s=%s:%s@%s", tn.Key, tn.Value, tn.Effect, added))
	}
	return strings.Join(seen, " ")
}

// fakeNodeLifecycle is exercise 11's contract as the tests want it: pure
// functions that misbehave or change their input on some names and
// otherwise echo what they were given (what the learner's code sees of
// its input, not a node lifecycle controller), and a loop of the test's
// own (the garbage collector's testCollector, after a note of the
// Options it was given).
func fakeNodeLifecycle() nodelifecycletest.Impl {
	return nodelifecycletest.Impl{
		Health: func(in nodelifecycle.HealthInput) nodelifecycle.Health {
			misbehaveNL(in.Node.Name, "Health")
			defer mutateHealthInput(in)
			return healthEcho(in)
		},
		Decide: func(was api.ConditionStatus, taints []api.Taint) nodelifecycle.Decision {
			misbehaveNL(firstKey(taints), "Decide")
			defer mutateTaints(taints)
			return nodelifecycle.Decision{Action: nodelifecycle.Action(string(was) + " " + taintsSeen(taints)), Requeue: taints != nil}
		},
		SwapTaints: func(ready api.ConditionStatus, taints []api.Taint, now time.Time) ([]api.Taint, bool) {
			misbehaveNL(firstKey(taints), "SwapTaints")
			if firstKey(taints) == "mutates" && len(taints) > 1 {
				// A removal in place: the caller's array shifts.
				out := append(taints[:0], taints[1:]...)
				return out, true
			}
			if ready == api.ConditionTrue || ready == "" {
				return taints, false // the taints as given
			}
			added := api.NewTime(now)
			return append(slices.Clone(taints), api.Taint{Key: "seen", Value: string(ready), Effect: api.TaintEffectNoExecute, TimeAdded: &added}), true
		},
		Disruption: func(in nodelifecycle.DisruptionInput) nodelifecycle.Disruption {
			if len(in.Ready) > 0 {
				misbehaveNL(string(in.Ready[0]), "Disruption")
				if in.Ready[0] == "mutates" {
					defer slices.Sort(in.Ready)
				}
			}
			unhealthy := -1
			if in.Ready != nil {
				unhealthy = len(in.Ready)
			}
			return nodelifecycle.Disruption{
				State:     nodelifecycle.State(fmt.Sprintf("ready %v threshold %d", in.Ready, in.LargeClusterThreshold)),
				Unhealthy: unhealthy,
				// NaN for 0/0, an infinity for x/0.
				Rate: in.EvictionRate/in.SecondaryEvictionRate + in.UnhealthyThreshold,
			}
		},
		Evict: func(pod api.Pod, taints []api.Taint) nodelifecycle.Eviction {
			misbehaveNL(pod.Name, "Evict")
			defer mutatePod(pod, taints)
			if taints == nil {
				return nodelifecycle.Eviction{Never: true}
			}
			after := time.Duration(pod.CreationTimestamp.Nanosecond())
			for _, tl := range pod.Spec.Tolerations {
				if tl.TolerationSeconds != nil {
					after += time.Duration(*tl.TolerationSeconds) * time.Second
				}
			}
			for _, tn := range taints {
				if tn.TimeAdded != nil {
					after += time.Duration(tn.TimeAdded.Nanosecond())
				}
			}
			return nodelifecycle.Eviction{After: after}
		},
		NotReady: func(pod api.Pod, now time.Time) *api.PodStatus {
			misbehaveNL(pod.Name, "NotReady")
			if len(pod.Status.Conditions) == 0 {
				return nil
			}
			if pod.Name == "mutates" {
				// The condition set in place: the caller's changes, and
				// the status returned shares its conditions.
				pod.Status.Conditions[0].Status = api.ConditionFalse
				pod.Status.Conditions[0].LastTransitionTime = api.NewTime(now)
				pod.Name = "renamed"
				return &pod.Status
			}
			var seen []string
			for _, c := range pod.Status.Conditions {
				seen = append(seen, fmt.Sprintf("%s %s %s %s", c.Type, c.Status, stamp(c.LastProbeTime.Time), stamp(c.LastTransitionTime.Time)))
			}
			st := pod.Status
			st.Conditions = append(slices.Clone(st.Conditions), api.PodCondition{
				Type: "Seen", Status: api.ConditionFalse, Message: strings.Join(seen, "; "), LastTransitionTime: api.NewTime(now),
			})
			return &st
		},
		New: newTestNodeLifecycle,
	}
}

// healthEcho fills a Health from its input: the node's status with its
// conditions cloned and one more, Seen, whose message says every time the
// call saw to the nanosecond, stamped with Now and the Lease's renewTime;
// Observed's Ready and the Lease's renewTime are the input's own
// pointers, and ProbeTime is Now and a nanosecond. A node named "quiet"
// gets no Status.
func healthEcho(in nodelifecycle.HealthInput) nodelifecycle.Health {
	node := in.Node
	seen := []string{
		"now " + stamp(in.Now),
		"created " + stamp(node.CreationTimestamp.Time),
		"grace " + in.GracePeriod.String() + " " + in.StartupGracePeriod.String(),
		taintsSeen(node.Spec.Taints),
	}
	var renew api.Time
	switch {
	case in.Lease == nil:
		seen = append(seen, "lease nil")
	case in.Lease.Spec.RenewTime == nil:
		seen = append(seen, "lease never renewed")
	default:
		renew = api.NewTime(in.Lease.Spec.RenewTime.Time)
		seen = append(seen, "lease renewed "+stamp(renew.Time))
	}
	if o := in.Observed; o == nil {
		seen = append(seen, "observed nil")
	} else {
		seen = append(seen, "observed probe "+stamp(o.ProbeTime))
		if o.Ready != nil {
			seen = append(seen, fmt.Sprintf("observed ready %s %s %s", o.Ready.Status, stamp(o.Ready.LastHeartbeatTime.Time), stamp(o.Ready.LastTransitionTime.Time)))
		}
		if o.LeaseRenewTime != nil {
			seen = append(seen, "observed lease "+stamp(o.LeaseRenewTime.Time))
		}
	}
	h := nodelifecycle.Health{Was: api.ConditionUnknown}
	for _, c := range node.Status.Conditions {
		seen = append(seen, fmt.Sprintf("%s %s %s %s", c.Type, c.Status, stamp(c.LastHeartbeatTime.Time), stamp(c.LastTransitionTime.Time)))
		if c.Type == api.NodeReady {
			h.Was = c.Status
		}
	}
	h.Observed.ProbeTime = in.Now.Add(time.Nanosecond)
	if in.Observed != nil {
		h.Observed.Ready = in.Observed.Ready
		h.Observed.LeaseRenewTime = in.Observed.LeaseRenewTime
	}
	if in.Lease != nil && in.Lease.Spec.RenewTime != nil {
		h.Observed.LeaseRenewTime = in.Lease.Spec.RenewTime
	}
	if node.Name == "quiet" {
		return h
	}
	st := node.Status
	st.Conditions = append(slices.Clone(st.Conditions), api.NodeCondition{
		Type: "Seen", Status: api.ConditionUnknown, Message: strings.Join(seen, "; "),
		LastHeartbeatTime: api.NewTime(in.Now), LastTransitionTime: renew,
	})
	h.Status, h.Ready = &st, api.ConditionUnknown
	return h
}

// mutateHealthInput changes what Health was given when the node is
// "mutates", as a learner's Health that forgets to copy would: the node's
// labels, its first condition and taint, the Lease's renewTime and
// Observed reach the caller in one process; the node's name, Now and the
// grace periods change only the function's copy.
func mutateHealthInput(in nodelifecycle.HealthInput) {
	if in.Node.Name != "mutates" {
		return
	}
	in.Node.Labels["touched"] = "yes"
	in.Node.Name = "renamed"
	if len(in.Node.Status.Conditions) > 0 {
		in.Node.Status.Conditions[0].Reason = "Touched"
		in.Node.Status.Conditions[0].LastHeartbeatTime = api.NewTime(in.Now.Add(5))
	}
	mutateTaints(in.Node.Spec.Taints)
	if in.Lease != nil && in.Lease.Spec.RenewTime != nil {
		*in.Lease.Spec.RenewTime = api.NewMicroTime(in.Now.Add(3))
	}
	if in.Observed != nil {
		in.Observed.ProbeTime = in.Now.Add(time.Hour)
		if in.Observed.Ready != nil {
			in.Observed.Ready.Status = "Touched"
		}
	}
	in.Now = in.Now.Add(time.Hour)
	in.GracePeriod = time.Nanosecond
}

// mutateTaints changes the first taint when its key is "mutates": its
// value, and the time it was added, which the caller shares.
func mutateTaints(taints []api.Taint) {
	if firstKey(taints) != "mutates" {
		return
	}
	taints[0].Value = "touched"
	if taints[0].TimeAdded != nil {
		*taints[0].TimeAdded = api.NewTime(taints[0].TimeAdded.Add(7))
	}
}

// mutatePod changes the pod Evict was given when it is "mutates": its
// labels, its first toleration and its seconds, and the first taint reach
// the caller; its name does not.
func mutatePod(pod api.Pod, taints []api.Taint) {
	if pod.Name != "mutates" {
		return
	}
	pod.Labels["touched"] = "yes"
	pod.Name = "renamed"
	pod.Spec.Tolerations[0].Value = "touched"
	if s := pod.Spec.Tolerations[0].TolerationSeconds; s != nil {
		*s = 99
	}
	if len(taints) > 0 {
		taints[0].Value = "touched"
	}
}

// nlOptionsSeen is the ConfigMap the test loop writes of its Options.
const nlOptionsSeen = "options"

// newTestNodeLifecycle is the garbage collector's test loop, its Workers
// the Options' LargeClusterThreshold (which tells it how to fail), that
// first notes every number of the Options it was given; or the solution's
// controller for workersSolution.
func newTestNodeLifecycle(c client.Interface, opts nodelifecycle.Options) nodelifecycle.Controller {
	switch opts.LargeClusterThreshold {
	case workersSolution:
		opts.LargeClusterThreshold = 0
		return lifecycle.New(c, opts)
	case workersSites:
		return sitesLoop{opts.Clock}
	}
	var ck gc.Clock
	if opts.Clock != nil {
		ck = opts.Clock
	}
	inner := newTestCollector(c, gc.Options{Workers: opts.LargeClusterThreshold, Clock: ck})
	if inner == nil {
		return nil
	}
	return &testNodeLifecycle{c: c, opts: opts, inner: inner}
}

type testNodeLifecycle struct {
	c     client.Interface
	opts  nodelifecycle.Options
	inner gc.Controller
}

func (tl *testNodeLifecycle) Run(ctx context.Context) error {
	o := tl.opts
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if _, err := tl.c.Create(context.Background(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: nlOptionsSeen, Namespace: "default"}, Data: map[string]string{
		"monitor": o.MonitorPeriod.String(), "grace": o.GracePeriod.String(), "startup": o.StartupGracePeriod.String(),
		"rate": f(o.EvictionRate), "secondary": f(o.SecondaryEvictionRate),
		"large": strconv.Itoa(o.LargeClusterThreshold), "unhealthy": f(o.UnhealthyThreshold),
	}}); err != nil {
		return err
	}
	return tl.inner.Run(ctx)
}

// nlT0 is t0 and a half second: times the API's JSON cuts.
var nlT0 = t0.Add(1500 * time.Millisecond)

// nlTaints are a node's taints: the unreachable one added at a time
// finer than the second, and one of the admin's, never timed; the first
// one's key is key when it is not empty.
func nlTaints(key string) []api.Taint {
	added := api.NewTime(nlT0.Add(3))
	first := api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute, TimeAdded: &added}
	if key != "" {
		first.Key = key
	}
	return []api.Taint{first, {Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule}}
}

// nlNode is node name, created at nlT0, with labels, capacity, taints
// (nlTaints, the first one keyed name) and its four conditions, heartbeats
// and transitions finer than the second.
func nlNode(name string) api.Node {
	n := api.Node{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: api.ObjectMeta{Name: name, UID: api.UID("uid-" + name), Labels: map[string]string{"zone": "a"},
			CreationTimestamp: api.NewTime(nlT0)},
		Spec: api.NodeSpec{Taints: nlTaints(name)},
		Status: api.NodeStatus{
			Capacity: api.ResourceList{api.ResourceCPU: api.MustParse("4")},
		},
	}
	for i, c := range nodelifecycle.Conditions {
		st := api.ConditionFalse
		if c == api.NodeReady {
			st = api.ConditionTrue
		}
		n.Status.Conditions = append(n.Status.Conditions, api.NodeCondition{
			Type: c, Status: st, Reason: "KubeletReady",
			LastHeartbeatTime:  api.NewTime(nlT0.Add(10*time.Second + time.Duration(i+1))),
			LastTransitionTime: api.NewTime(nlT0.Add(time.Duration(i) * time.Microsecond)),
		})
	}
	return n
}

// healthInputs are Health's inputs for node name: the first pass (no
// Lease, nothing observed), a pass with a Lease renewed at a time finer
// than the microsecond and Observed (its Ready the node's, renewTime
// kept), one whose Lease was never renewed, and a node with no
// conditions; Now finer than the second.
func healthInputs(name string) []nodelifecycle.HealthInput {
	now := nlT0.Add(60*time.Second + time.Nanosecond)
	node := nlNode(name)
	renew := api.NewMicroTime(nlT0.Add(40*time.Second + 1234567))
	kept := api.NewMicroTime(nlT0.Add(20*time.Second + 7))
	ready := node.Status.Conditions[0]
	lease := &api.Lease{ObjectMeta: api.ObjectMeta{Name: name, Namespace: nodelifecycle.LeaseNamespace}, Spec: api.LeaseSpec{RenewTime: &renew}}
	bare := nlNode(name)
	bare.Status.Conditions = nil
	return []nodelifecycle.HealthInput{
		{Node: nlNode(name), Now: now, GracePeriod: nodelifecycle.DefaultGracePeriod, StartupGracePeriod: nodelifecycle.DefaultStartupGracePeriod},
		{Node: node, Lease: lease, Now: now, GracePeriod: 40*time.Second + 3, StartupGracePeriod: time.Minute,
			Observed: &nodelifecycle.Observed{ProbeTime: nlT0.Add(30*time.Second + 9), Ready: &ready, LeaseRenewTime: &kept}},
		{Node: nlNode(name), Lease: &api.Lease{ObjectMeta: api.ObjectMeta{Name: name}}, Now: now,
			Observed: &nodelifecycle.Observed{ProbeTime: nlT0}},
		{Node: bare, Now: now, GracePeriod: time.Second, StartupGracePeriod: 2 * time.Second},
	}
}

// nlTaintSets are taints to decide on: nil, empty, a node's (the first
// keyed key).
func nlTaintSets(key string) [][]api.Taint {
	return [][]api.Taint{nil, {}, nlTaints(key)}
}

// nlPod is pod name on node n1, created at a time finer than the second,
// labeled, tolerating the unreachable taint for 300s and the not-ready
// one forever, with a Ready condition True and a PodScheduled one.
func nlPod(name string) api.Pod {
	pod := *testPod(name)
	pod.CreationTimestamp = api.NewTime(nlT0.Add(11))
	pod.Spec.NodeName = "n1"
	secs := int64(300)
	pod.Spec.Tolerations = []api.Toleration{
		{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: &secs},
		{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
	}
	pod.Status.Phase = api.PodRunning
	pod.Status.Conditions = []api.PodCondition{
		{Type: api.PodReady, Status: api.ConditionTrue, Reason: "Ready", LastTransitionTime: api.NewTime(nlT0.Add(2*time.Second + 13))},
		{Type: api.PodScheduled, Status: api.ConditionTrue, LastProbeTime: api.NewTime(nlT0.Add(5)), LastTransitionTime: api.NewTime(nlT0)},
	}
	return pod
}

// disruptionInputs are Disruption's inputs, the first status first:
// nil, empty, three statuses, rates that make NaN and an infinity.
func disruptionInputs(first api.ConditionStatus) []nodelifecycle.DisruptionInput {
	return []nodelifecycle.DisruptionInput{
		{Ready: nil, EvictionRate: 0.1, SecondaryEvictionRate: 0.01, LargeClusterThreshold: 50, UnhealthyThreshold: 0.55},
		{Ready: []api.ConditionStatus{}, EvictionRate: 0.1, SecondaryEvictionRate: 0.01, LargeClusterThreshold: 50, UnhealthyThreshold: 0.55},
		{Ready: []api.ConditionStatus{first, api.ConditionTrue, ""}, EvictionRate: 1.0 / 3, SecondaryEvictionRate: 0.07, LargeClusterThreshold: 2, UnhealthyThreshold: 1e-300},
		{Ready: []api.ConditionStatus{first}, EvictionRate: 0, SecondaryEvictionRate: 0},
		{Ready: []api.ConditionStatus{first}, EvictionRate: 1, SecondaryEvictionRate: 0, UnhealthyThreshold: -0.5},
	}
}

// sameDisruption is reflect.DeepEqual with NaN equal to NaN.
func sameDisruption(a, b nodelifecycle.Disruption) bool {
	if math.IsNaN(a.Rate) && math.IsNaN(b.Rate) {
		a.Rate, b.Rate = 0, 0
	}
	return a == b
}

// The six pure functions give through the program what they give in
// process: values, times to the nanosecond both ways, nil and empty told
// apart, and a NaN or infinite rate as it is.
func TestNodeLifecyclePureRoundTrip(t *testing.T) {
	p, _ := fake(t, "nodelifecycle")
	r, local := NodeLifecycle(p), fakeNodeLifecycle()
	for _, name := range []string{"web", "quiet"} {
		for i, in := range healthInputs(name) {
			got, want := r.Health(in), local.Health(in)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Health(%s, input %d) through the program = %s\n\twant %s (in process)", name, i, jsonText(got), jsonText(want))
			}
		}
	}
	for _, was := range []api.ConditionStatus{api.ConditionTrue, api.ConditionUnknown, ""} {
		for i, taints := range nlTaintSets("") {
			if got, want := r.Decide(was, taints), local.Decide(was, taints); got != want {
				t.Errorf("Decide(%q, taints %d) through the program = %+v, want %+v (in process)", was, i, got, want)
			}
			now := nlT0.Add(90*time.Second + 17)
			gotT, gotC := r.SwapTaints(was, taints, now)
			wantT, wantC := local.SwapTaints(was, taints, now)
			if !reflect.DeepEqual(gotT, wantT) || gotC != wantC || (gotT == nil) != (wantT == nil) {
				t.Errorf("SwapTaints(%q, taints %d) through the program = %s, %v\n\twant %s, %v (in process)", was, i, jsonText(gotT), gotC, jsonText(wantT), wantC)
			}
		}
	}
	for i, in := range disruptionInputs(api.ConditionFalse) {
		if got, want := r.Disruption(in), local.Disruption(in); !sameDisruption(got, want) {
			t.Errorf("Disruption(input %d) through the program = %+v, want %+v (in process)", i, got, want)
		}
	}
	if got := r.Disruption(disruptionInputs(api.ConditionFalse)[3]).Rate; !math.IsNaN(got) {
		t.Errorf("Disruption(rates 0/0) through the program: rate %v, want NaN", got)
	}
	if got := r.Disruption(disruptionInputs(api.ConditionFalse)[4]).Rate; !math.IsInf(got, 1) {
		t.Errorf("Disruption(rates 1/0) through the program: rate %v, want +Inf", got)
	}
	for i, taints := range nlTaintSets("") {
		pod := nlPod("web")
		if got, want := r.Evict(pod, taints), local.Evict(pod, taints); got != want {
			t.Errorf("Evict(web, taints %d) through the program = %+v, want %+v (in process)", i, got, want)
		}
	}
	if got, want := r.Evict(nlPod("web"), nlTaints("")), (nodelifecycle.Eviction{After: 301*time.Second + 14}); got != want {
		t.Errorf("Evict(web, created at t0+1.5s+11ns, a taint added at t0+1.5s+3ns) through the program = %+v, want %+v: the times to the nanosecond", got, want)
	}
	bare := nlPod("bare")
	bare.Status.Conditions = nil
	for _, pod := range []api.Pod{nlPod("web"), bare} {
		now := nlT0.Add(time.Minute + 19)
		got, want := r.NotReady(pod, now), local.NotReady(pod, now)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("NotReady(%s) through the program = %s\n\twant %s (in process)", pod.Name, jsonText(got), jsonText(want))
		}
	}

	// What the program saw, to the nanosecond.
	h := r.Health(healthInputs("web")[1])
	if h.Status == nil {
		t.Fatalf("Health(web, input 1) through the program gave no status, want the echo's")
	}
	seen := h.Status.Conditions[len(h.Status.Conditions)-1].Message
	for _, want := range []string{
		"now " + stamp(nlT0.Add(60*time.Second+time.Nanosecond)),
		"created " + stamp(nlT0),
		"grace 40.000000003s 1m0s",
		"web=:NoExecute@" + stamp(nlT0.Add(3)),
		"lease renewed " + stamp(nlT0.Add(40*time.Second+1234567)),
		"observed probe " + stamp(nlT0.Add(30*time.Second+9)),
		"observed ready True " + stamp(nlT0.Add(10*time.Second+1)) + " " + stamp(nlT0),
		"observed lease " + stamp(nlT0.Add(20*time.Second+7)),
		"DiskPressure False " + stamp(nlT0.Add(10*time.Second+3)) + " " + stamp(nlT0.Add(2*time.Microsecond)),
	} {
		if !strings.Contains(seen, want) {
			t.Errorf("Health(web, input 1) through the program saw %q, want it to contain %q", seen, want)
		}
	}
	if !h.Observed.ProbeTime.Equal(nlT0.Add(60*time.Second+2)) || !h.Observed.LeaseRenewTime.Time.Equal(nlT0.Add(40*time.Second+1234567)) {
		t.Errorf("Health(web, input 1) through the program kept %s, want probe now+1ns and the Lease's renewTime to the nanosecond", jsonText(h.Observed))
	}
	if c := h.Status.Conditions[len(h.Status.Conditions)-1]; !c.LastHeartbeatTime.Time.Equal(nlT0.Add(60*time.Second + 1)) {
		t.Errorf("Health(web, input 1) through the program stamped its condition %s, want Now to the nanosecond", stamp(c.LastHeartbeatTime.Time))
	}
	if d := r.Decide(api.ConditionFalse, nil); d.Requeue || d.Action != "False taints nil" {
		t.Errorf("Decide(False, nil) through the program = %+v, want the echo of nil taints", d)
	}
	if d := r.Decide(api.ConditionFalse, []api.Taint{}); !d.Requeue || d.Action != "False taints 0" {
		t.Errorf("Decide(False, empty) through the program = %+v, want the echo of empty taints", d)
	}
	if got, _ := r.SwapTaints("", []api.Taint{}, nlT0); got == nil {
		t.Errorf("SwapTaints(\"\", empty) through the program = nil, want the empty taints as given")
	}
	if got, _ := r.SwapTaints("", nil, nlT0); got != nil {
		t.Errorf("SwapTaints(\"\", nil) through the program = %#v, want nil as given", got)
	}
	if st := r.NotReady(nlPod("web"), nlT0.Add(19)); st == nil || !st.Conditions[2].LastTransitionTime.Time.Equal(nlT0.Add(19)) ||
		!strings.Contains(st.Conditions[2].Message, "PodScheduled True "+stamp(nlT0.Add(5))) {
		t.Errorf("NotReady(web, now +19ns) through the program = %s, want the echo stamped to the nanosecond", jsonText(st))
	}
}

// Through the program, the caller's inputs change as they would in one
// process: not at all when the call left them, and through the memory
// they share with the call's arguments when it changed them; so the
// suite's check of the input before and after a call sees what it sees
// in process.
func TestNodeLifecycleInputsChangeAsInProcess(t *testing.T) {
	p, _ := fake(t, "nodelifecycle")
	r, local := NodeLifecycle(p), fakeNodeLifecycle()
	for _, name := range []string{"web", "mutates"} {
		for i := range healthInputs(name) {
			rIn, lIn := healthInputs(name)[i], healthInputs(name)[i]
			before := jsonText(rIn)
			r.Health(rIn)
			local.Health(lIn)
			if !reflect.DeepEqual(rIn, lIn) {
				t.Errorf("Health(%s, input %d): the input after the call through the program = %s\n\twant %s (in process)", name, i, jsonText(rIn), jsonText(lIn))
			}
			if changed := jsonText(rIn) != before; changed != (name == "mutates") {
				t.Errorf("Health(%s, input %d) through the program: the input changed = %v, want %v", name, i, changed, name == "mutates")
			}
		}
		for i := range nlTaintSets(name) {
			for _, fn := range []string{"Decide", "SwapTaints"} {
				rT, lT := nlTaintSets(name)[i], nlTaintSets(name)[i]
				before := jsonText(rT)
				if fn == "Decide" {
					r.Decide(api.ConditionFalse, rT)
					local.Decide(api.ConditionFalse, lT)
				} else {
					r.SwapTaints(api.ConditionFalse, rT, nlT0)
					local.SwapTaints(api.ConditionFalse, lT, nlT0)
				}
				if !reflect.DeepEqual(rT, lT) {
					t.Errorf("%s(%s, taints %d): the taints after the call through the program = %s\n\twant %s (in process)", fn, name, i, jsonText(rT), jsonText(lT))
				}
				if changed, want := jsonText(rT) != before, name == "mutates" && i == 2; changed != want {
					t.Errorf("%s(%s, taints %d) through the program: the taints changed = %v, want %v", fn, name, i, changed, want)
				}
			}
		}
		rP, lP := nlPod(name), nlPod(name)
		rT, lT := nlTaints(name), nlTaints(name)
		before := jsonText(rP) + jsonText(rT)
		r.Evict(rP, rT)
		local.Evict(lP, lT)
		if !reflect.DeepEqual(rP, lP) || !reflect.DeepEqual(rT, lT) {
			t.Errorf("Evict(%s): the pod and taints after the call through the program = %s %s\n\twant %s %s (in process)", name, jsonText(rP), jsonText(rT), jsonText(lP), jsonText(lT))
		}
		if changed := jsonText(rP)+jsonText(rT) != before; changed != (name == "mutates") {
			t.Errorf("Evict(%s) through the program: the input changed = %v, want %v", name, changed, name == "mutates")
		}
		rP, lP = nlPod(name), nlPod(name)
		before = jsonText(rP)
		r.NotReady(rP, nlT0.Add(time.Minute+1))
		local.NotReady(lP, nlT0.Add(time.Minute+1))
		if !reflect.DeepEqual(rP, lP) {
			t.Errorf("NotReady(%s): the pod after the call through the program = %s\n\twant %s (in process)", name, jsonText(rP), jsonText(lP))
		}
		if changed := jsonText(rP) != before; changed != (name == "mutates") {
			t.Errorf("NotReady(%s) through the program: the pod changed = %v, want %v", name, changed, name == "mutates")
		}
	}
	for _, first := range []api.ConditionStatus{api.ConditionFalse, "mutates"} {
		for i := range disruptionInputs(first) {
			rIn, lIn := disruptionInputs(first)[i], disruptionInputs(first)[i]
			r.Disruption(rIn)
			local.Disruption(lIn)
			if !slices.Equal(rIn.Ready, lIn.Ready) {
				t.Errorf("Disruption(%s, input %d): the statuses after the call through the program = %q, want %q (in process)", first, i, rIn.Ready, lIn.Ready)
			}
		}
	}

	// What reaches the caller, and what does not.
	in := healthInputs("mutates")[1]
	lease, observed, ready := in.Lease, in.Observed, in.Observed.Ready
	r.Health(in)
	if in.Node.Name != "mutates" || in.Node.Labels["touched"] != "yes" || in.Node.Status.Conditions[0].Reason != "Touched" ||
		!in.Node.Status.Conditions[0].LastHeartbeatTime.Time.Equal(in.Now.Add(5)) || in.Node.Spec.Taints[0].Value != "touched" ||
		!in.Node.Spec.Taints[0].TimeAdded.Time.Equal(nlT0.Add(10)) {
		t.Errorf("Health(mutates) through the program left the caller's node %s; want its label, first condition and taint changed to the nanosecond, its name as it was", jsonText(in.Node))
	}
	if in.Lease != lease || !lease.Spec.RenewTime.Time.Equal(in.Now.Add(3)) || in.Observed != observed || in.Observed.Ready != ready ||
		!observed.ProbeTime.Equal(in.Now.Add(time.Hour)) || ready.Status != "Touched" {
		t.Errorf("Health(mutates) through the program left the caller's Lease %s and Observed %s; want the same pointers, changed through them to the nanosecond", jsonText(lease), jsonText(observed))
	}
	if !in.Now.Equal(nlT0.Add(60*time.Second+1)) || in.GracePeriod != 40*time.Second+3 {
		t.Errorf("Health(mutates) through the program changed the caller's Now %s or grace %v, want them as they were (a copy's)", stamp(in.Now), in.GracePeriod)
	}
	taints := nlTaints("mutates")
	r.SwapTaints(api.ConditionFalse, taints, nlT0)
	if len(taints) != 2 || taints[0].Key != "dedicated" || taints[1].Key != "dedicated" {
		t.Errorf("SwapTaints(mutates) that removed a taint in place through the program left the caller's taints %s, want the array shifted, as in process", jsonText(taints))
	}
	statuses := []api.ConditionStatus{"mutates", api.ConditionTrue, ""}
	r.Disruption(nodelifecycle.DisruptionInput{Ready: statuses})
	if !slices.Equal(statuses, []api.ConditionStatus{"", api.ConditionTrue, "mutates"}) {
		t.Errorf("Disruption(mutates) that sorted its statuses through the program left the caller's %q, want them sorted, as in process", statuses)
	}
	pod := nlPod("mutates")
	r.NotReady(pod, nlT0.Add(time.Minute+1))
	if c := pod.Status.Conditions[0]; pod.Name != "mutates" || c.Status != api.ConditionFalse || !c.LastTransitionTime.Time.Equal(nlT0.Add(time.Minute+1)) {
		t.Errorf("NotReady(mutates) through the program left the caller's pod %s, want its Ready condition False since now to the nanosecond, its name as it was", jsonText(pod))
	}
}

// The memory a result shares with its input is the caller's, as in
// process: a change through the result shows in the input.
func TestNodeLifecycleResultsShareAsInProcess(t *testing.T) {
	p, _ := fake(t, "nodelifecycle")
	r := NodeLifecycle(p)
	taints := nlTaints("")
	got, changed := r.SwapTaints(api.ConditionTrue, taints, nlT0)
	if changed || len(got) != len(taints) || &got[0] != &taints[0] {
		t.Errorf("SwapTaints(True) that returned the taints as given through the program = %s, %v; want the caller's own slice, unchanged", jsonText(got), changed)
	}
	in := healthInputs("web")[1]
	h := r.Health(in)
	if h.Observed.Ready != in.Observed.Ready || h.Observed.LeaseRenewTime != in.Lease.Spec.RenewTime {
		t.Errorf("Health that kept Observed's Ready and the Lease's renewTime through the program gave other pointers, want the caller's own, as in process")
	}
	h.Status.Capacity[api.ResourceMemory] = api.MustParse("1Gi")
	if _, ok := in.Node.Status.Capacity[api.ResourceMemory]; !ok {
		t.Errorf("changing the capacity of the status Health returned through the program left the node's, want the change seen there, as in process (the echo shares its map)")
	}
	h.Status.Conditions[0].Reason = "scribbled"
	if in.Node.Status.Conditions[0].Reason == "scribbled" {
		t.Errorf("changing a condition of the status Health returned through the program changed the node's: the echo cloned them")
	}
	pod := nlPod("mutates")
	st := r.NotReady(pod, nlT0)
	st.Conditions[1].Reason = "scribbled"
	if pod.Status.Conditions[1].Reason != "scribbled" {
		t.Errorf("changing a condition of the status NotReady(mutates) returned through the program left the pod's, want the change seen there, as in process (it returned the pod's conditions)")
	}
}

// A pure function that panics, exits or hangs fails its call only, with
// its own text; the next call gets an answer.
func TestNodeLifecyclePureFailures(t *testing.T) {
	p, _ := fake(t, "nodelifecycle")
	p.CallTimeout = time.Second
	r := NodeLifecycle(p)
	for _, c := range []struct{ name, want string }{
		{"panic", "not implemented: Health"},
		{"goexit", "the implementation called runtime.Goexit"},
		{"exit", "the implementation's program exited (exit status 22)"},
		{"hang", "nodelifecycle.Health did not return within 1s"},
	} {
		calls := []struct {
			fn   string
			call func()
		}{
			{"Health", func() { r.Health(healthInputs(c.name)[1]) }},
			{"Decide", func() { r.Decide(api.ConditionFalse, nlTaints(c.name)) }},
			{"SwapTaints", func() { r.SwapTaints(api.ConditionFalse, nlTaints(c.name), nlT0) }},
			{"Disruption", func() { r.Disruption(disruptionInputs(api.ConditionStatus(c.name))[2]) }},
			{"Evict", func() { r.Evict(nlPod(c.name), nil) }},
			{"NotReady", func() { r.NotReady(nlPod(c.name), nlT0) }},
		}
		for _, call := range calls {
			p.CallTimeout = time.Second
			msg, ok := recovered(call.call)
			if want := strings.Replace(c.want, "Health", call.fn, 1); !ok || !strings.Contains(msg, want) {
				t.Errorf("%s(%s) panicked = %v with %q, want a panic with %q", call.fn, c.name, ok, msg, want)
			}
			p.CallTimeout = 0 // the next call may start a fresh program: the default bound
			if got := r.Evict(nlPod("web"), nil); !got.Never {
				t.Errorf("after %s(%s): Evict(web, nil) = %+v, want Never", call.fn, c.name, got)
			}
		}
	}
}

// The controller in the program is given every number of Options as it
// is and the grader's FakeClock: Now, and After counted by the grader's
// clock before it returns, fired when the grader steps it; Run's end
// abandons the waits left, in the program and in the grader.
func TestNodeLifecycleReachBacks(t *testing.T) {
	p, _ := fake(t, "nodelifecycle")
	f := client.NewFake()
	clk := informer.NewFakeClock(t0)
	c := NodeLifecycle(p).New(f, nodelifecycle.Options{
		MonitorPeriod: 5*time.Second + 1, GracePeriod: 40 * time.Second, StartupGracePeriod: time.Nanosecond,
		EvictionRate: 1.0 / 3, SecondaryEvictionRate: math.Inf(1), LargeClusterThreshold: 7, UnhealthyThreshold: 0.55,
		Clock: clk,
	})
	runCtx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(runCtx) }()

	want := map[string]string{"monitor": "5.000000001s", "grace": "40s", "startup": "1ns", "rate": "0.3333333333333333",
		"secondary": "+Inf", "large": "7", "unhealthy": "0.55"}
	if seen := configMap(t, f, nlOptionsSeen); !reflect.DeepEqual(seen.Data, want) {
		t.Errorf("the controller in the program was given %v, want %v", seen.Data, want)
	}
	if seen := configMap(t, f, "seen"); seen.Data["clock"] != "true" {
		t.Errorf("the controller in the program was given no Clock (%v), want the grader's", seen.Data)
	}
	checkLoopClock(t, p, f, clk, cancel, done)
}

// Zero Options stay zero (the implementation defaults them) and a nil
// Clock stays nil in the program; Run stays open while the grader's ctx
// lives.
func TestNodeLifecycleNilOptions(t *testing.T) {
	p, _ := fake(t, "nodelifecycle")
	f := client.NewFake()
	ctrl := NodeLifecycle(p).New(f, nodelifecycle.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()
	want := map[string]string{"monitor": "0s", "grace": "0s", "startup": "0s", "rate": "0", "secondary": "0", "large": "0", "unhealthy": "0"}
	if seen := configMap(t, f, nlOptionsSeen); !reflect.DeepEqual(seen.Data, want) {
		t.Errorf("the controller in the program was given %v, want %v", seen.Data, want)
	}
	if seen := configMap(t, f, "seen"); seen.Data["clock"] != "false" {
		t.Errorf("the controller in the program was given a Clock (%v), want nil", seen.Data)
	}
	select {
	case err := <-done:
		t.Fatalf("Run returned %v while its ctx lives, want it to stay open", err)
	default:
	}
	stopRun(t, cancel, done)
}

// A controller that fails fails its call only: New's panic is a panic,
// nil is nil, Run's error and panic come back as they are.
func TestNodeLifecycleLoopFailures(t *testing.T) {
	p, _ := fake(t, "nodelifecycle")
	impl := NodeLifecycle(p)
	newLoop := func(workers int) nodelifecycle.Controller {
		return impl.New(client.NewFake(), nodelifecycle.Options{LargeClusterThreshold: workers})
	}
	checkNewFailures(t, newLoop)
	// The test loop is the garbage collector's: its error says so.
	checkRunFailures(t, newLoop, "garbagecollector: no kinds to watch")
	if got := impl.Evict(nlPod("web"), nil); !got.Never {
		t.Errorf("Evict(web, nil) after the failures = %+v, want Never", got)
	}
}

// A controller the grader dropped is freed in the program once the
// grader's side is garbage, with the client and Clock it shared.
func TestNodeLifecycleHandlesFreed(t *testing.T) {
	p, _ := fake(t, "nodelifecycle")
	checkLoopFreed(t, p, "controller", "controllers", func() bool {
		return NodeLifecycle(p).New(client.NewFake(), nodelifecycle.Options{Clock: informer.NewFakeClock(t0)}) != nil
	})
}

// The solution's pure functions give through the program what they give
// in process.
func TestNodeLifecycleSolutionRoundTrip(t *testing.T) {
	p, _ := fake(t, "nodelifecyclesol")
	r, local := NodeLifecycle(p), solutionNodeLifecycle()
	for _, name := range []string{"web", api.TaintNodeNotReady} {
		for i, in := range healthInputs(name) {
			for _, now := range []time.Time{in.Now, in.Now.Add(-30 * time.Second), in.Now.Add(time.Hour)} {
				in.Now = now
				got, want := r.Health(in), local.Health(in)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("the solution's Health(%s, input %d, now %s) through the program = %s\n\twant %s (in process)", name, i, stamp(now), jsonText(got), jsonText(want))
				}
			}
		}
	}
	statuses := []api.ConditionStatus{api.ConditionTrue, api.ConditionFalse, api.ConditionUnknown, ""}
	for _, key := range []string{"", api.TaintNodeNotReady} {
		for i, taints := range nlTaintSets(key) {
			for _, st := range statuses {
				if got, want := r.Decide(st, taints), local.Decide(st, taints); got != want {
					t.Errorf("the solution's Decide(%q, taints %d of %q) through the program = %+v, want %+v (in process)", st, i, key, got, want)
				}
				now := nlT0.Add(time.Minute + 3)
				gotT, gotC := r.SwapTaints(st, taints, now)
				wantT, wantC := local.SwapTaints(st, taints, now)
				if !reflect.DeepEqual(gotT, wantT) || gotC != wantC || (gotT == nil) != (wantT == nil) {
					t.Errorf("the solution's SwapTaints(%q, taints %d of %q) through the program = %s, %v\n\twant %s, %v (in process)", st, i, key, jsonText(gotT), gotC, jsonText(wantT), wantC)
				}
			}
		}
	}
	for i, in := range disruptionInputs(api.ConditionFalse) {
		if got, want := r.Disruption(in), local.Disruption(in); !sameDisruption(got, want) {
			t.Errorf("the solution's Disruption(input %d) through the program = %+v, want %+v (in process)", i, got, want)
		}
	}
	bare := nlPod("bare")
	bare.Status.Conditions = nil
	for _, pod := range []api.Pod{nlPod("web"), bare} {
		for i, taints := range append(nlTaintSets(""), nlTaints(api.TaintNodeNotReady), nlTaints("dedicated")) {
			if got, want := r.Evict(pod, taints), local.Evict(pod, taints); got != want {
				t.Errorf("the solution's Evict(%s, taints %d) through the program = %+v, want %+v (in process)", pod.Name, i, got, want)
			}
		}
		now := nlT0.Add(time.Minute + 19)
		if got, want := r.NotReady(pod, now), local.NotReady(pod, now); !reflect.DeepEqual(got, want) {
			t.Errorf("the solution's NotReady(%s) through the program = %s\n\twant %s (in process)", pod.Name, jsonText(got), jsonText(want))
		}
	}
}

// The solution's controllers run in the program over the grader's fake
// and its FakeClock: a node that stops posting turns Unknown once the
// grace is over on the grader's clock, its pod not ready; it is tainted
// unreachable, and its pod, which tolerates nothing, gets its
// DisruptionTarget condition and is deleted. The grader collects garbage
// meanwhile (a controller running keeps what it shares), and no
// goroutine is left once Run returned.
func TestNodeLifecycleSolutionLoopThroughProgram(t *testing.T) {
	p, _ := fake(t, "nodelifecycle")
	f := client.NewFake()
	clk := informer.NewFakeClock(t0)
	f.Now = clk.Now
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Left out of the disruption count, the node alone does not make
	// the cluster fully disrupted, which would stop the tainting.
	node := &api.Node{
		ObjectMeta: api.ObjectMeta{Name: "n1", Labels: map[string]string{nodelifecycle.ExcludeDisruptionLabel: ""}},
		Status: api.NodeStatus{Conditions: []api.NodeCondition{{
			Type: api.NodeReady, Status: api.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: api.NewTime(t0), LastTransitionTime: api.NewTime(t0),
		}}},
	}
	pod := testPod("web")
	pod.Spec.NodeName = "n1"
	pod.Status.Phase = api.PodRunning
	pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0)}}
	for _, o := range []api.Object{node, pod} {
		if _, err := f.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	func() {
		c := NodeLifecycle(p).New(f, nodelifecycle.Options{LargeClusterThreshold: workersSolution, Clock: clk})
		go func() { done <- c.Run(ctx) }()
	}()
	getNode := func() *api.Node {
		n, err := client.For[*api.Node](f).Get(ctx, "", "n1")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	getPod := func() *api.Pod {
		got, err := client.For[*api.Pod](f).Get(ctx, "default", "web")
		if client.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// waitFor steps the grader's clock a second at a time (collecting
	// garbage each time), with a deadline, until cond holds.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				actions := f.Actions()
				t.Fatalf("within 20s: %s did not happen (the grader's clock at t0+%v); the last actions %v", what, clk.Now().Sub(t0), actions[max(len(actions)-10, 0):])
			}
			runtime.GC()
			clk.Step(time.Second)
			time.Sleep(5 * time.Millisecond) // polls the fake, with a deadline
		}
	}
	var ready api.NodeCondition
	waitFor("node n1 Ready Unknown", func() bool {
		ready = getNode().Status.Conditions[0]
		return ready.Status == api.ConditionUnknown
	})
	if at := ready.LastTransitionTime.Time; !at.After(t0.Add(nodelifecycle.DefaultGracePeriod)) || at.After(clk.Now()) {
		t.Errorf("the solution in the program turned n1 Unknown at %v on the grader's clock, want after t0+%v (the grace), and not after its time now, t0+%v", at.Sub(t0), nodelifecycle.DefaultGracePeriod, clk.Now().Sub(t0))
	}
	if ready.Reason != nodelifecycle.ReasonNodeStatusUnknown {
		t.Errorf("the solution in the program turned n1 Ready %+v, want reason %s", ready, nodelifecycle.ReasonNodeStatusUnknown)
	}
	waitFor("node n1 tainted unreachable", func() bool {
		return slices.ContainsFunc(getNode().Spec.Taints, func(tn api.Taint) bool {
			return tn.Key == api.TaintNodeUnreachable && tn.Effect == api.TaintEffectNoExecute
		})
	})
	var gone *api.Pod
	waitFor("pod web deleted", func() bool {
		gone = getPod()
		return gone == nil || gone.DeletionTimestamp != nil
	})
	if gone != nil {
		var target, notReady bool
		for _, c := range gone.Status.Conditions {
			target = target || c.Type == api.DisruptionTarget && c.Status == api.ConditionTrue && c.Reason == nodelifecycle.ReasonDeletionByTaintManager
			notReady = notReady || c.Type == api.PodReady && c.Status == api.ConditionFalse
		}
		if !target || !notReady {
			t.Errorf("the solution in the program deleted pod web with conditions %s, want Ready False and DisruptionTarget True (%s)", jsonText(gone.Status.Conditions), nodelifecycle.ReasonDeletionByTaintManager)
		}
	}
	stopRun(t, cancel, done)
	var left []string
	p.pure("nodelifecycle.Goroutines", struct{}{}, &left)
	if len(left) != 0 {
		t.Errorf("goroutines of the solution left in the program after Run returned: %d, want 0; the first:\n%s", len(left), left[0])
	}
}

// TestNodeLifecycle is exercise 11's suite against the solution through
// the program (the suite wants its test named so).
func TestNodeLifecycle(t *testing.T) {
	p, _ := fake(t, "nodelifecyclesol")
	suite.Run(t, "11-nodelifecycle", nodelifecycletest.Steps(NodeLifecycle(p)))
}

// workersSites, as Options' LargeClusterThreshold, asks the test loop
// for sitesLoop.
const workersSites = -201

// sitesLoop waits on its clock from two call sites: 1s twice from one,
// then 2s from the other, then until its ctx ends.
type sitesLoop struct{ clock nodelifecycle.Clock }

func (l sitesLoop) Run(ctx context.Context) error {
	for range 2 {
		l.clock.After(time.Second)
	}
	l.clock.After(2 * time.Second)
	<-ctx.Done()
	return nil
}

// sitesClock is a FakeClock that notes the call site of each After, as
// nodelifecycletest's clock does.
type sitesClock struct {
	*informer.FakeClock
	mu    sync.Mutex
	sites map[time.Duration][]uintptr
}

func (c *sitesClock) After(d time.Duration) <-chan time.Time {
	var pc [1]uintptr
	runtime.Callers(2, pc[:])
	c.mu.Lock()
	c.sites[d] = append(c.sites[d], pc[0])
	c.mu.Unlock()
	return c.FakeClock.After(d)
}

// The grader's clock sees the waits of the controller in the program
// parted by call site as in process: the waits of one call site in the
// program come from one call site in the grader, those of two from two.
func TestNodeLifecycleClockSites(t *testing.T) {
	p, _ := fake(t, "nodelifecycle")
	clk := &sitesClock{FakeClock: informer.NewFakeClock(t0), sites: map[time.Duration][]uintptr{}}
	c := NodeLifecycle(p).New(client.NewFake(), nodelifecycle.Options{LargeClusterThreshold: workersSites, Clock: clk})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for clk.Waiters() != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the grader's clock counts %d waits, want 3 within 10s", clk.Waiters())
		}
		time.Sleep(5 * time.Millisecond) // polls the fake clock, with a deadline
	}
	clk.mu.Lock()
	one, two := clk.sites[time.Second], clk.sites[2*time.Second]
	clk.mu.Unlock()
	if len(one) != 2 || len(two) != 1 || one[0] != one[1] || one[0] == two[0] {
		t.Errorf("the grader's clock saw the waits of 1s from %x and of 2s from %x; want the two 1s waits from one call site (one in the program) and the 2s wait from another", one, two)
	}
	endLoop(t, p, cancel, done, time.Now().Add(10*time.Second))
}

func init() {
	ownPackages["nodelifecyclemisbehaves"] = nodeLifecycleMisbehavesSource
	ownExercise["nodelifecyclemisbehaves"] = "11-nodelifecycle"
}

// nodeLifecycleMisbehavesSource is the solution of 11, except that its
// Disruption ends through runtime.Goexit (step 05's), its NotReady turns
// the caller's Ready condition False in place (which the caller sees, as
// in one process: step 08's), and its loop crashes the program (a
// goroutine's panic) when it deletes a pod (the taint eviction
// controller's, step 11's). The loop asks the solution's own functions,
// not these.
const nodeLifecycleMisbehavesSource = `package nodelifecyclemisbehaves

import (
	"context"
	"runtime"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
	lifecycle "github.com/kubekata/kubekata/solutions/11-nodelifecycle"
)

func Health(in nodelifecycle.HealthInput) nodelifecycle.Health { return lifecycle.Health(in) }

func Decide(was api.ConditionStatus, taints []api.Taint) nodelifecycle.Decision {
	return lifecycle.Decide(was, taints)
}

func SwapTaints(ready api.ConditionStatus, taints []api.Taint, now time.Time) ([]api.Taint, bool) {
	return lifecycle.SwapTaints(ready, taints, now)
}

func Disruption(in nodelifecycle.DisruptionInput) nodelifecycle.Disruption {
	runtime.Goexit()
	return nodelifecycle.Disruption{}
}

func Evict(pod api.Pod, taints []api.Taint) nodelifecycle.Eviction { return lifecycle.Evict(pod, taints) }

func NotReady(pod api.Pod, now time.Time) *api.PodStatus {
	st := lifecycle.NotReady(pod, now)
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == api.PodReady {
			pod.Status.Conditions[i].Status = api.ConditionFalse
		}
	}
	return st
}

type crasher struct{ client.Interface }

// Delete crashes when it deletes a pod.
func (c crasher) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	if kind.Kind == "Pod" {
		go panic("not implemented: deleting Pod " + name)
	}
	return c.Interface.Delete(ctx, kind, namespace, name, opts)
}

func New(c client.Interface, opts nodelifecycle.Options) nodelifecycle.Controller {
	return lifecycle.New(crasher{c}, opts)
}
`

// A Goexit in Disruption, an input NotReady changed and a loop that
// crashes its program cost exercise 11 only the steps that met them: the
// suite's check that NotReady changed nothing sees the change across the
// boundary, and the next step gets a fresh program, its client and clock
// reached back as before.
func TestNodeLifecycleMisbehaviourCostsOnlyItsSteps(t *testing.T) {
	skipShort(t)
	gradeCostsOnly(t, "nodelifecyclemisbehaves", "11-nodelifecycle", map[string]string{
		"05-disruption": "the implementation called runtime.Goexit",
		"08-not-ready":  "changed its input",
		"11-evict":      "not implemented: deleting Pod",
	})
}
