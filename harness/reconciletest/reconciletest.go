// Package reconciletest is the conformance suite of exercise 01
// (reconcile): a pure function that compares the desired number of pods
// with the pods that exist and plans what to create and what to delete,
// the core of upstream's ReplicaSet controller (manageReplicas in
// pkg/controller/replicaset/replica_set.go) and its deletion ranking
// (ActivePodsWithRanks in pkg/controller/controller_utils.go).
//
// The exercise's test file is one line:
//
//	func TestReconcile(t *testing.T) { reconciletest.Run(t, Plan) }
package reconciletest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/suite"
)

// Run runs the graded steps of exercise 01-reconcile against plan.
func Run(t *testing.T, plan replicas.Func) {
	t.Helper()
	suite.Run(t, "01-reconcile", Steps(plan))
}

// Steps are the graded steps, in manifest order. Run is what tests call;
// Steps is exported so that the suite's own tests can run one step alone.
func Steps(plan replicas.Func) []suite.Step {
	return []suite.Step{
		{ID: "01-create-missing", Run: func(t *suite.T) { checkExact(t, plan, CreateCases) }},
		{ID: "02-steady-state", Run: func(t *suite.T) { checkExact(t, plan, SteadyCases) }},
		{ID: "03-delete-extra", Run: func(t *suite.T) { deleteExtra(t, plan) }},
		{ID: "04-idempotent", Run: func(t *suite.T) { idempotent(t, plan) }},
		{ID: "05-skip-finished", Run: func(t *suite.T) { skipFinished(t, plan) }},
		{ID: "06-delete-order", Run: func(t *suite.T) { checkOrder(t, plan, OrderCases) }},
		{ID: "07-deletion-cost", Run: func(t *suite.T) { checkOrder(t, plan, CostCases) }},
		{ID: "08-spread", Run: func(t *suite.T) { checkOrder(t, plan, SpreadCases) }},
		{ID: "09-ready-time", Run: func(t *suite.T) { checkOrder(t, plan, ReadyTimeCases) }},
		{ID: "10-restarts", Run: func(t *suite.T) { checkOrder(t, plan, RestartCases) }},
		{ID: "11-newest-first", Run: func(t *suite.T) { checkOrder(t, plan, NewestCases) }},
		{ID: "12-burst", Run: func(t *suite.T) { burst(t, plan) }},
	}
}

// Now is the time of every pass the suite plans: the now argument of
// Plan. Pod ages count back from it.
var Now = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

// NoTime, as an Age or a ReadyFor, leaves that timestamp unset (zero).
const NoTime = -1

// PodState describes a pod compactly, for the tables below.
type PodState struct {
	Name  string
	Node  string // "" means not scheduled yet
	Phase api.PodPhase
	// Ready sets the Ready condition to "True"; Running and Unknown pods
	// get a Ready condition either way.
	Ready bool
	// Age is how many seconds before Now the pod was created.
	Age int
	// ReadyFor is how many seconds before Now the pod became ready; 0
	// means when it was created.
	ReadyFor int
	// Restarts are the restart counts of its containers.
	Restarts []int32
	// Cost is its pod-deletion-cost annotation, "" for none.
	Cost string
	// UID is its metadata.uid; "" means "uid-" + Name.
	UID string
	// Terminating sets metadata.deletionTimestamp: the pod is going away.
	Terminating bool
}

func (s PodState) uid() string {
	if s.UID != "" {
		return s.UID
	}
	return "uid-" + s.Name
}

func ago(seconds int) api.Time {
	if seconds == NoTime {
		return api.Time{}
	}
	return api.NewTime(Now.Add(-time.Duration(seconds) * time.Second))
}

// Pod builds the api.Pod a PodState describes, the way the apiserver and
// the kubelet would have filled it in.
func Pod(s PodState) api.Pod {
	p := api.Pod{}
	p.Name = s.Name
	p.Namespace = "default"
	p.UID = api.UID(s.uid())
	p.Labels = map[string]string{"app": "web"}
	if s.Cost != "" {
		p.Annotations = map[string]string{replicas.PodDeletionCost: s.Cost}
	}
	p.CreationTimestamp = ago(s.Age)
	p.Spec.NodeName = s.Node
	p.Spec.Containers = []api.Container{{Name: "app", Image: "kata/http-echo"}}
	p.Status.Phase = s.Phase
	if s.Node != "" {
		p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: ago(s.Age)})
	}
	if s.Phase == api.PodRunning || s.Phase == api.PodUnknown {
		c := api.PodCondition{Type: api.PodReady, Status: api.ConditionFalse, LastTransitionTime: ago(s.Age)}
		if s.Ready {
			c.Status = api.ConditionTrue
			if s.ReadyFor != 0 {
				c.LastTransitionTime = ago(s.ReadyFor)
			}
		}
		p.Status.Conditions = append(p.Status.Conditions, c)
	}
	for i, n := range s.Restarts {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, api.ContainerStatus{Name: fmt.Sprintf("c%d", i), RestartCount: n})
	}
	if s.Terminating {
		ts := api.NewTime(Now)
		p.DeletionTimestamp = &ts
	}
	return p
}

// Pods builds a list of pods.
func Pods(states ...PodState) []api.Pod {
	pods := make([]api.Pod, len(states))
	for i, s := range states {
		pods[i] = Pod(s)
	}
	return pods
}

// Shorthands for the common pod states: on a node, Running and ready for
// ten minutes; waiting for a node; finished.
func running(name string) PodState {
	return PodState{Name: name, Node: "node-1", Phase: api.PodRunning, Ready: true, Age: 600}
}

func pending(name string) PodState {
	return PodState{Name: name, Phase: api.PodPending, Age: 600}
}

func failed(name string) PodState {
	return PodState{Name: name, Node: "node-1", Phase: api.PodFailed, Age: 600}
}

func with(s PodState, f func(*PodState)) PodState { f(&s); return s }

// Describe prints pods for failure messages, one a line:
//
//	web-a: node-1, Running, ready for 600s, created 600s ago, uid uid-web-a
func Describe(pods []api.Pod) string {
	if len(pods) == 0 {
		return "[]"
	}
	if len(pods) > 12 {
		return fmt.Sprintf("[%d pods: %s … %s]", len(pods), describeOne(pods[0]), describeOne(pods[len(pods)-1]))
	}
	var b strings.Builder
	b.WriteString("[")
	for _, p := range pods {
		b.WriteString("\n\t\t" + describeOne(p))
	}
	b.WriteString("\n\t]")
	return b.String()
}

func describeOne(p api.Pod) string {
	node := p.Spec.NodeName
	if node == "" {
		node = "no node"
	}
	phase := string(p.Status.Phase)
	if phase == "" {
		phase = "no phase"
	}
	parts := []string{node, phase}
	for _, c := range p.Status.Conditions {
		if c.Type != api.PodReady {
			continue
		}
		switch {
		case c.Status != api.ConditionTrue:
			parts = append(parts, "not ready")
		case c.LastTransitionTime.IsZero():
			parts = append(parts, "ready (no lastTransitionTime)")
		default:
			parts = append(parts, "ready for "+since(c.LastTransitionTime))
		}
	}
	if p.CreationTimestamp.IsZero() {
		parts = append(parts, "no creationTimestamp")
	} else {
		parts = append(parts, "created "+since(p.CreationTimestamp)+" ago")
	}
	var restarts []int32
	for _, c := range p.Status.ContainerStatuses {
		restarts = append(restarts, c.RestartCount)
	}
	if slices.ContainsFunc(restarts, func(n int32) bool { return n != 0 }) {
		parts = append(parts, fmt.Sprintf("restarts %v", restarts))
	}
	if v, ok := p.Annotations[replicas.PodDeletionCost]; ok {
		parts = append(parts, fmt.Sprintf("deletion cost %q", v))
	}
	parts = append(parts, "uid "+string(p.UID))
	if p.DeletionTimestamp != nil {
		parts = append(parts, "terminating")
	}
	return p.Name + ": " + strings.Join(parts, ", ")
}

func since(t api.Time) string { return Now.Sub(t.Time).String() }

// call runs plan on pods and checks, as every step does, that Plan left
// its argument exactly as it was: no pod reordered, dropped or edited.
func call(t *suite.T, plan replicas.Func, desired int, pods []api.Pod) (replicas.Plan, string, bool) {
	t.Helper()
	return callWith(t, plan, desired, pods, api.DeepCopyValue(pods))
}

// callStates is call on the pods states describe; building them twice
// is a faster copy than a deep copy of a long list.
func callStates(t *suite.T, plan replicas.Func, desired int, states []PodState) ([]api.Pod, replicas.Plan, string, bool) {
	t.Helper()
	pods := Pods(states...)
	got, callS, ok := callWith(t, plan, desired, pods, Pods(states...))
	return pods, got, callS, ok
}

func callWith(t *suite.T, plan replicas.Func, desired int, pods, before []api.Pod) (replicas.Plan, string, bool) {
	t.Helper()
	callS := fmt.Sprintf("Plan(%d, %s, now)", desired, Describe(before))
	got := plan(desired, pods, Now)
	if !reflect.DeepEqual(pods, before) {
		t.Errorf("%s changed its input: the pods are now %s\n\twant them untouched: Plan must not filter, sort or edit the caller's slice in place (work on a copy)", callS, Describe(pods))
		return got, callS, false
	}
	return got, callS, true
}

// Case is one call and the exact plan it must return.
type Case struct {
	Desired int
	Pods    []PodState
	Want    replicas.Plan
}

func checkExact(t *suite.T, plan replicas.Func, cases []Case) {
	t.Helper()
	for _, c := range cases {
		_, got, callS, ok := callStates(t, plan, c.Desired, c.Pods)
		if ok && (got.Create != c.Want.Create || !slices.Equal(got.Delete, c.Want.Delete)) {
			t.Errorf("%s\n\t= %v\n\twant %v", callS, got, c.Want)
		}
	}
}

// CreateCases are the calls of step 01.
var CreateCases = []Case{
	{2, nil, replicas.Plan{Create: 2}},
	{2, []PodState{running("web-a")}, replicas.Plan{Create: 1}},
	{5, []PodState{running("web-a"), pending("web-b")}, replicas.Plan{Create: 3}},
	{1, []PodState{}, replicas.Plan{Create: 1}},
}

// SteadyCases are the calls of step 02: nothing to do.
var SteadyCases = []Case{
	{0, nil, replicas.Plan{}},
	{2, []PodState{running("web-a"), running("web-b")}, replicas.Plan{}},
	{3, []PodState{
		pending("web-a"),
		{Name: "web-b", Node: "node-2", Phase: api.PodUnknown, Age: 60},
		running("web-c"),
	}, replicas.Plan{}},
}

// ExtraCase is a call of step 03: the plan must delete Count of the pods,
// any of them, each once, and create none.
type ExtraCase struct {
	Desired int
	Pods    []PodState
	Count   int
}

// ExtraCases are the calls of step 03.
var ExtraCases = []ExtraCase{
	{2, []PodState{running("web-a"), running("web-b"), running("web-c")}, 1},
	{0, []PodState{running("web-a"), running("web-b"), running("web-c")}, 3},
	{1, []PodState{running("web-a"), running("web-b"), running("web-c"), running("web-d")}, 3},
}

func deleteExtra(t *suite.T, plan replicas.Func) {
	for _, c := range ExtraCases {
		pods := Pods(c.Pods...)
		got, callS, ok := call(t, plan, c.Desired, pods)
		if !ok {
			continue
		}
		if err := checkDeletes(got, pods, c.Count); err != "" {
			t.Errorf("%s\n\t= %v\n\twant %s", callS, got, err)
		}
	}
}

// checkDeletes says what is wrong with a plan that must delete count of
// pods and create none, or "".
func checkDeletes(got replicas.Plan, pods []api.Pod, count int) string {
	want := fmt.Sprintf("Create 0 and %d distinct pod names of the list in Delete", count)
	if got.Create != 0 || len(got.Delete) != count {
		return want
	}
	seen := map[string]bool{}
	for _, name := range got.Delete {
		if seen[name] {
			return want + fmt.Sprintf(" (%q is named twice)", name)
		}
		seen[name] = true
		if !slices.ContainsFunc(pods, func(p api.Pod) bool { return p.Name == name }) {
			return want + fmt.Sprintf(" (there is no pod %q)", name)
		}
	}
	return ""
}

// IdempotentCases are the starting points of step 04.
var IdempotentCases = []struct {
	Desired int
	Pods    []PodState
}{
	{3, nil},
	{3, []PodState{running("web-a")}},
	{2, []PodState{running("web-a"), running("web-b"), pending("web-c"), running("web-d"), pending("web-e")}},
	{0, []PodState{running("web-a"), running("web-b")}},
	{2, []PodState{running("web-a"), running("web-b")}},
	{4, []PodState{pending("web-a"), running("web-b"), {Name: "web-c", Node: "node-2", Phase: api.PodRunning, Age: 5}}},
}

// Apply carries a plan out the way the controller would: the deleted pods
// disappear and the created ones appear, Pending and not yet scheduled.
func Apply(pods []api.Pod, p replicas.Plan) []api.Pod {
	var out []api.Pod
	for _, pod := range pods {
		if !slices.Contains(p.Delete, pod.Name) {
			out = append(out, pod)
		}
	}
	for i := range p.Create {
		out = append(out, Pod(PodState{Name: fmt.Sprintf("web-new-%d", i), Phase: api.PodPending}))
	}
	return out
}

func idempotent(t *suite.T, plan replicas.Func) {
	for _, c := range IdempotentCases {
		pods := Pods(c.Pods...)
		first, callS, ok := call(t, plan, c.Desired, pods)
		if !ok {
			continue
		}
		if again := plan(c.Desired, pods, Now); !reflect.DeepEqual(again, first) {
			t.Errorf("%s = %v the first time and %v the second: the same input must give the same plan", callS, first, again)
			continue
		}
		after := Apply(pods, first)
		if got, callS2, ok := call(t, plan, c.Desired, after); ok && !got.Empty() {
			t.Errorf("%s = %v; after carrying it out, %s\n\t= %v, want {Create: 0, Delete: []}: a plan carried out leaves nothing to do", callS, first, callS2, got)
		}
	}
}

// FinishedCases are the exact calls of step 05: pods that have finished
// (Succeeded, Failed) or are already being deleted do not count
// (FilterActivePods and IsPodActive in pkg/controller/controller_utils.go).
// Some list a finished pod before active ones, so that filtering the
// caller's slice in place shows.
var FinishedCases = []Case{
	{2, []PodState{running("web-a"), failed("web-b")}, replicas.Plan{Create: 1}},
	{2, []PodState{running("web-a"), with(failed("web-b"), func(s *PodState) { s.Phase = api.PodSucceeded }), running("web-c")}, replicas.Plan{}},
	{0, []PodState{failed("web-a"), with(failed("web-b"), func(s *PodState) { s.Phase = api.PodSucceeded })}, replicas.Plan{}},
	{2, []PodState{running("web-a"), with(running("web-b"), func(s *PodState) { s.Terminating = true })}, replicas.Plan{Create: 1}},
	{1, []PodState{with(running("web-a"), func(s *PodState) { s.Terminating = true }), failed("web-b"), running("web-c")}, replicas.Plan{}},
	{3, []PodState{failed("web-a"), running("web-b"), running("web-c")}, replicas.Plan{Create: 1}},
}

// FinishedExtraCases are the calls of step 05 that must delete, but only
// among the pods that still count.
var FinishedExtraCases = []struct {
	Desired   int
	Pods      []PodState
	Count     int
	Untouched []string
}{
	{1, []PodState{running("web-a"), running("web-b"), failed("web-c")}, 1, []string{"web-c"}},
	{0, []PodState{running("web-a"), with(failed("web-b"), func(s *PodState) { s.Phase = api.PodSucceeded }), with(running("web-c"), func(s *PodState) { s.Terminating = true })}, 1, []string{"web-b", "web-c"}},
	{1, []PodState{failed("web-a"), running("web-b"), running("web-c")}, 1, []string{"web-a"}},
}

func skipFinished(t *suite.T, plan replicas.Func) {
	checkExact(t, plan, FinishedCases)
	for _, c := range FinishedExtraCases {
		pods := Pods(c.Pods...)
		got, callS, ok := call(t, plan, c.Desired, pods)
		if !ok {
			continue
		}
		if err := checkDeletes(got, pods, c.Count); err != "" {
			t.Errorf("%s\n\t= %v\n\twant %s", callS, got, err)
			continue
		}
		for _, name := range c.Untouched {
			if slices.Contains(got.Delete, name) {
				t.Errorf("%s\n\t= %v, want %s left alone: it has finished or is already going away, so it does not count", callS, got, name)
			}
		}
	}
}

// OrderCase is a call of steps 06 to 11: the exact pods to delete, in
// order. Rule names the rule the case isolates.
type OrderCase struct {
	Rule string
	Case
}

func del(names ...string) replicas.Plan { return replicas.Plan{Delete: names} }

func checkOrder(t *suite.T, plan replicas.Func, cases []OrderCase) {
	for _, c := range cases {
		got, callS, ok := call(t, plan, c.Desired, Pods(c.Pods...))
		if ok && (got.Create != 0 || !slices.Equal(got.Delete, c.Want.Delete)) {
			t.Errorf("%s: %s\n\t= %v\n\twant %v", c.Rule, callS, got, c.Want)
		}
	}
}

// The ranking is upstream's ActivePodsWithRanks.Less
// (pkg/controller/controller_utils.go), rule by rule. Each step's cases
// are decided by the rules up to that step; the rules after it tie or
// point the other way. Every rule has a case where only it decides and
// one where the rule before it wins against it. The pods are listed out
// of order on purpose, and some lists hold a finished pod that must stay
// out of the ranking.

// OrderCases are the calls of step 06: 1. no node before a node, 2.
// Pending < Unknown < Running, 3. not ready before ready.
var OrderCases = []OrderCase{
	{"a pod with no node goes first", Case{1, []PodState{
		{Name: "web-a", Node: "node-1", Phase: api.PodPending, Age: 600},
		{Name: "web-b", Phase: api.PodPending, Age: 600},
	}, del("web-b")}},
	{"Pending, then Unknown, then Running", Case{0, []PodState{
		{Name: "web-a", Node: "node-1", Phase: api.PodRunning, Age: 600},
		{Name: "web-b", Node: "node-2", Phase: api.PodUnknown, Age: 600},
		{Name: "web-c", Node: "node-3", Phase: api.PodPending, Age: 600},
	}, del("web-c", "web-b", "web-a")}},
	{"no node beats the phase", Case{1, []PodState{
		{Name: "web-a", Node: "node-1", Phase: api.PodPending, Age: 600},
		{Name: "web-b", Phase: api.PodUnknown, Age: 600},
	}, del("web-b")}},
	{"not ready before ready", Case{2, []PodState{
		failed("web-x"),
		{Name: "web-a", Node: "node-1", Phase: api.PodRunning, Ready: true, Age: 600},
		{Name: "web-b", Node: "node-2", Phase: api.PodRunning, Ready: false, Age: 600},
		{Name: "web-c", Node: "node-3", Phase: api.PodRunning, Ready: true, Age: 600},
	}, del("web-b")}},
	{"the phase beats readiness", Case{1, []PodState{
		{Name: "web-a", Node: "node-1", Phase: api.PodRunning, Ready: false, Age: 600},
		{Name: "web-b", Node: "node-2", Phase: api.PodUnknown, Ready: true, Age: 600},
	}, del("web-b")}},
	{"the rules in order: node, phase, readiness", Case{0, []PodState{
		{Name: "web-f", Node: "node-1", Phase: api.PodRunning, Ready: true, Age: 600},
		{Name: "web-d", Node: "node-2", Phase: api.PodUnknown, Ready: true, Age: 600},
		failed("web-x"),
		{Name: "web-b", Node: "node-3", Phase: api.PodPending, Age: 600},
		{Name: "web-e", Node: "node-4", Phase: api.PodRunning, Ready: false, Age: 600},
		{Name: "web-a", Phase: api.PodPending, Age: 600},
		{Name: "web-c", Node: "node-5", Phase: api.PodUnknown, Ready: false, Age: 600},
	}, del("web-a", "web-b", "web-c", "web-d", "web-e", "web-f")}},
}

// ready is a Running, ready pod on its own node.
func ready(name, node string) PodState {
	return PodState{Name: name, Node: node, Phase: api.PodRunning, Ready: true, Age: 600}
}

func cost(s PodState, c string) PodState { s.Cost = c; return s }

// CostCases are the calls of step 07: 4. the lower
// controller.kubernetes.io/pod-deletion-cost first; a missing or invalid
// value counts as 0 (GetDeletionCostFromPodAnnotations in
// pkg/apis/core/helper/helpers.go).
var CostCases = []OrderCase{
	{"the lower deletion cost goes first", Case{1, []PodState{
		cost(ready("web-a", "node-1"), "10"),
		cost(ready("web-b", "node-2"), "-5"),
		ready("web-c", "node-3"),
	}, del("web-b", "web-c")}},
	{"readiness beats the deletion cost", Case{1, []PodState{
		cost(ready("web-a", "node-1"), "-100"),
		cost(with(ready("web-b", "node-2"), func(s *PodState) { s.Ready = false }), "100"),
	}, del("web-b")}},
	{"a value with a sign '+' is invalid and counts as 0", Case{1, []PodState{
		cost(ready("web-a", "node-1"), "3"),
		cost(ready("web-b", "node-2"), "+5"),
	}, del("web-b")}},
	{"a value with a leading zero is invalid and counts as 0", Case{1, []PodState{
		cost(ready("web-a", "node-1"), "3"),
		cost(ready("web-b", "node-2"), "007"),
	}, del("web-b")}},
	{"a value beyond int32 is invalid and counts as 0", Case{1, []PodState{
		cost(ready("web-a", "node-1"), "3"),
		cost(ready("web-b", "node-2"), "2147483648"),
	}, del("web-b")}},
	{"a value that is not a number counts as 0", Case{1, []PodState{
		cost(ready("web-a", "node-1"), "high"),
		cost(ready("web-b", "node-2"), "-1"),
	}, del("web-b")}},
}

// SpreadCases are the calls of step 08: 5. the pod whose node runs more
// active pods of the set goes first (getPodsRankedByRelatedPodsOnSameNode
// in pkg/controller/replicaset/replica_set.go).
var SpreadCases = []OrderCase{
	{"the pod on the more crowded node goes first", Case{1, []PodState{
		ready("web-a", "node-1"),
		with(ready("web-b", "node-1"), func(s *PodState) { s.Ready = false }),
		{Name: "web-c", Node: "node-2", Phase: api.PodRunning, Ready: true, Age: 600, UID: "uid-0"},
	}, del("web-b", "web-a")}},
	{"only active pods crowd a node", Case{2, []PodState{
		ready("web-a", "node-1"),
		failed("web-x"),
		with(failed("web-y"), func(s *PodState) { s.Phase = api.PodSucceeded }),
		with(ready("web-z", "node-1"), func(s *PodState) { s.Terminating = true }),
		ready("web-b", "node-2"),
		cost(ready("web-c", "node-2"), "1"),
	}, del("web-b")}},
	{"the deletion cost beats the crowd", Case{2, []PodState{
		cost(ready("web-a", "node-1"), "5"),
		cost(ready("web-b", "node-1"), "5"),
		ready("web-c", "node-2"),
	}, del("web-c")}},
}

func readyFor(s PodState, seconds int) PodState { s.ReadyFor = seconds; return s }

func uid(s PodState, u string) PodState { s.UID = u; return s }

// ReadyTimeCases are the calls of step 09: 6. of two ready pods, the one
// ready for less time goes first, compared as upstream's
// logarithmicRankDiff does: the integer part of log2 of the nanoseconds
// between the Ready condition's lastTransitionTime and now; in one bucket
// the UID decides. 100s and 130s are in one bucket (2^36 ns is 68.7s,
// 2^37 ns is 137.4s), 100s and 200s are not.
var ReadyTimeCases = []OrderCase{
	{"the pod ready for less time goes first", Case{1, []PodState{
		uid(readyFor(ready("web-a", "node-1"), 200), "uid-1"),
		uid(readyFor(ready("web-b", "node-2"), 100), "uid-2"),
	}, del("web-b")}},
	{"ready times in one log2 bucket: the UID decides", Case{1, []PodState{
		uid(readyFor(ready("web-a", "node-1"), 100), "uid-2"),
		uid(readyFor(ready("web-b", "node-2"), 130), "uid-1"),
	}, del("web-b")}},
	{"buckets count from now, the time Plan is given", Case{1, []PodState{
		uid(readyFor(ready("web-a", "node-1"), 20), "uid-2"),
		uid(readyFor(ready("web-b", "node-2"), 10), "uid-3"),
		uid(readyFor(ready("web-c", "node-3"), 600), "uid-1"),
	}, del("web-b", "web-a")}},
	{"a Ready condition with no lastTransitionTime counts as ready the shortest", Case{1, []PodState{
		readyFor(ready("web-a", "node-1"), 1),
		readyFor(ready("web-b", "node-2"), NoTime),
	}, del("web-b")}},
	{"the crowded node beats the ready time", Case{1, []PodState{
		readyFor(ready("web-a", "node-1"), 1000),
		with(ready("web-c", "node-1"), func(s *PodState) { s.Ready = false }),
		readyFor(ready("web-b", "node-2"), 10),
	}, del("web-c", "web-a")}},
}

func restarts(s PodState, n ...int32) PodState { s.Restarts = n; return s }

func notReady(s PodState) PodState { s.Ready = false; return s }

// RestartCases are the calls of step 10: 7. the pod with the most
// restarts in one container goes first (maxContainerRestarts in
// pkg/controller/controller_utils.go).
var RestartCases = []OrderCase{
	{"more restarts go first", Case{1, []PodState{
		restarts(ready("web-a", "node-1"), 1),
		restarts(ready("web-b", "node-2"), 4),
	}, del("web-b")}},
	{"the most restarts of one container count, not their sum", Case{1, []PodState{
		restarts(ready("web-a", "node-1"), 3, 3),
		restarts(ready("web-b", "node-2"), 0, 5),
	}, del("web-b")}},
	{"restarts count for pods that are not ready", Case{1, []PodState{
		restarts(notReady(ready("web-a", "node-1")), 0),
		restarts(notReady(ready("web-b", "node-2")), 2),
	}, del("web-b")}},
	{"the ready time beats restarts", Case{1, []PodState{
		restarts(readyFor(ready("web-a", "node-1"), 1000), 9),
		restarts(readyFor(ready("web-b", "node-2"), 10), 0),
	}, del("web-b")}},
	{"in one ready-time bucket the UID decides, before restarts", Case{1, []PodState{
		uid(restarts(readyFor(ready("web-a", "node-1"), 100), 7), "uid-2"),
		uid(restarts(readyFor(ready("web-b", "node-2"), 130), 0), "uid-1"),
	}, del("web-b")}},
}

func age(s PodState, seconds int) PodState { s.Age = seconds; return s }

// NewestCases are the calls of step 11: 8. the newer pod goes first, its
// creationTimestamp compared in log2 buckets as in step 09, and in one
// bucket, or at the very end, the UID decides.
var NewestCases = []OrderCase{
	{"the newer pod goes first", Case{1, []PodState{
		uid(age(notReady(ready("web-a", "node-1")), 100), "uid-1"),
		uid(age(notReady(ready("web-b", "node-2")), 10), "uid-2"),
	}, del("web-b")}},
	{"creation times in one log2 bucket: the UID decides", Case{1, []PodState{
		uid(age(notReady(ready("web-a", "node-1")), 100), "uid-2"),
		uid(age(notReady(ready("web-b", "node-2")), 130), "uid-1"),
	}, del("web-b")}},
	{"same ready time: the creation time decides", Case{1, []PodState{
		uid(readyFor(age(ready("web-a", "node-1"), 1000), 50), "uid-1"),
		uid(readyFor(age(ready("web-b", "node-2"), 200), 50), "uid-2"),
	}, del("web-b")}},
	{"no creationTimestamp counts as the newest", Case{1, []PodState{
		age(notReady(ready("web-a", "node-1")), 5),
		age(notReady(ready("web-b", "node-2")), NoTime),
	}, del("web-b")}},
	{"restarts beat the creation time", Case{1, []PodState{
		restarts(age(notReady(ready("web-a", "node-1")), 10), 0),
		restarts(age(notReady(ready("web-b", "node-2")), 1000), 2),
	}, del("web-b")}},
	{"when everything else is equal, the UID decides", Case{1, []PodState{
		uid(ready("web-a", "node-1"), "uid-3"),
		uid(ready("web-b", "node-2"), "uid-1"),
		uid(ready("web-c", "node-3"), "uid-2"),
	}, del("web-b", "web-c")}},
}

// Many builds n Running, ready pods named web-0000, web-0001, ..., one a
// node, with UIDs in the opposite order of the names.
func Many(n int) []PodState {
	out := make([]PodState, n)
	for i := range out {
		out[i] = ready(fmt.Sprintf("web-%04d", i), fmt.Sprintf("node-%04d", i))
		out[i].UID = fmt.Sprintf("uid-%04d", n-1-i)
	}
	return out
}

// burst is step 12: one pass creates or deletes at most
// replicas.BurstReplicas pods (manageReplicas in
// pkg/controller/replicaset/replica_set.go); the next pass does the rest.
func burst(t *suite.T, plan replicas.Func) {
	checkExact(t, plan, []Case{
		{700, nil, replicas.Plan{Create: 500}},
		{560, Many(60), replicas.Plan{Create: 500}},
		{561, Many(60), replicas.Plan{Create: 500}},
		{559, Many(60), replicas.Plan{Create: 499}},
	})
	// The second pass creates the rest.
	pods := Apply(nil, replicas.Plan{Create: 500})
	if got, callS, ok := call(t, plan, 700, pods); ok && (got.Create != 200 || len(got.Delete) != 0) {
		t.Errorf("%s\n\t= %v\n\twant {Create: 200, Delete: []}: the second pass creates the rest", callS, got)
	}
	for _, c := range []struct{ pods, desired, deletes int }{{501, 0, 500}, {600, 99, 500}, {600, 101, 499}} {
		pods, got, callS, ok := callStates(t, plan, c.desired, Many(c.pods))
		if !ok {
			continue
		}
		// Equal in every other way, the pods go by UID: the last names first.
		var want []string
		for i := c.pods - 1; i >= c.pods-c.deletes; i-- {
			want = append(want, pods[i].Name)
		}
		if got.Create != 0 || !slices.Equal(got.Delete, want) {
			t.Errorf("%s\n\t= {Create: %d, Delete: %d names: %s}\n\twant {Create: 0, Delete: %d names: %s}: at most %d deletions in one pass", callS, got.Create, len(got.Delete), ends(got.Delete), len(want), ends(want), replicas.BurstReplicas)
		}
	}
}

// ends prints the first and last two names of a long list.
func ends(names []string) string {
	if len(names) <= 4 {
		return fmt.Sprint(names)
	}
	return fmt.Sprintf("[%s %s … %s %s]", names[0], names[1], names[len(names)-2], names[len(names)-1])
}
