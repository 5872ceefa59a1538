// Package reconciletest is the conformance suite of exercise 01
// (reconcile): a pure function that compares the desired number of pods
// with the pods that exist and plans what to create and what to delete,
// the core of upstream's ReplicaSet controller.
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
		{ID: "01-create-missing", Run: func(t *suite.T) { createMissing(t, plan) }},
		{ID: "02-steady-state", Run: func(t *suite.T) { steadyState(t, plan) }},
		{ID: "03-delete-extra", Run: func(t *suite.T) { deleteExtra(t, plan) }},
		{ID: "04-idempotent", Run: func(t *suite.T) { idempotent(t, plan) }},
		{ID: "05-skip-finished", Run: func(t *suite.T) { skipFinished(t, plan) }},
		{ID: "06-delete-order", Run: func(t *suite.T) { deleteOrder(t, plan) }},
	}
}

// Base is the creation time the suite's pods count from; a pod made with
// created=5 was created 5 seconds after Base.
var Base = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

// PodState describes a pod compactly, for the tables below.
type PodState struct {
	Name    string
	Node    string // "" means not scheduled yet
	Phase   api.PodPhase
	Ready   bool
	Created int // seconds after Base
	// Terminating sets metadata.deletionTimestamp: the pod is going away.
	Terminating bool
}

// Pod builds the api.Pod a PodState describes, the way the apiserver and
// the kubelet would have filled it in.
func Pod(s PodState) api.Pod {
	p := api.Pod{}
	p.Name = s.Name
	p.Namespace = "default"
	p.Labels = map[string]string{"app": "web"}
	p.CreationTimestamp = api.NewTime(Base.Add(time.Duration(s.Created) * time.Second))
	p.Spec.NodeName = s.Node
	p.Status.Phase = s.Phase
	if s.Node != "" {
		p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodScheduled, Status: api.ConditionTrue})
	}
	if s.Phase == api.PodRunning || s.Phase == api.PodUnknown {
		status := api.ConditionFalse
		if s.Ready {
			status = api.ConditionTrue
		}
		p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: status})
	}
	if s.Terminating {
		ts := api.NewTime(Base.Add(time.Hour))
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

// Shorthands for the common pod states.
func running(name string, created int) PodState {
	return PodState{Name: name, Node: "node-1", Phase: api.PodRunning, Ready: true, Created: created}
}

func pending(name string, created int) PodState {
	return PodState{Name: name, Phase: api.PodPending, Created: created}
}

func with(s PodState, f func(*PodState)) PodState { f(&s); return s }

// Describe prints pods for failure messages:
// [web-a(node-1 Running ready t+0s) web-b(unassigned Pending t+3s)].
func Describe(pods []api.Pod) string {
	parts := make([]string, len(pods))
	for i, p := range pods {
		node := p.Spec.NodeName
		if node == "" {
			node = "unassigned"
		}
		phase := string(p.Status.Phase)
		if phase == "" {
			phase = "no-phase"
		}
		desc := node + " " + phase
		for _, c := range p.Status.Conditions {
			if c.Type == api.PodReady {
				if c.Status == api.ConditionTrue {
					desc += " ready"
				} else {
					desc += " not-ready"
				}
			}
		}
		desc += fmt.Sprintf(" t+%s", p.CreationTimestamp.Sub(Base))
		if p.DeletionTimestamp != nil {
			desc += " terminating"
		}
		parts[i] = p.Name + "(" + desc + ")"
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func call(plan replicas.Func, desired int, pods []api.Pod) (replicas.Plan, string) {
	return plan(desired, pods), fmt.Sprintf("Plan(%d, %s)", desired, Describe(pods))
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
		got, callS := call(plan, c.Desired, Pods(c.Pods...))
		if got.Create != c.Want.Create || !slices.Equal(got.Delete, c.Want.Delete) {
			t.Errorf("%s\n\t= %v\n\twant %v", callS, got, c.Want)
		}
	}
}

// CreateCases are the calls of step 01.
var CreateCases = []Case{
	{2, nil, replicas.Plan{Create: 2}},
	{2, []PodState{running("web-a", 0)}, replicas.Plan{Create: 1}},
	{5, []PodState{running("web-a", 0), pending("web-b", 1)}, replicas.Plan{Create: 3}},
	{1, []PodState{}, replicas.Plan{Create: 1}},
}

func createMissing(t *suite.T, plan replicas.Func) {
	checkExact(t, plan, CreateCases)
}

// SteadyCases are the calls of step 02: nothing to do.
var SteadyCases = []Case{
	{0, nil, replicas.Plan{}},
	{2, []PodState{running("web-a", 0), running("web-b", 1)}, replicas.Plan{}},
	{3, []PodState{
		pending("web-a", 0),
		{Name: "web-b", Node: "node-2", Phase: api.PodUnknown, Created: 1},
		running("web-c", 2),
	}, replicas.Plan{}},
}

func steadyState(t *suite.T, plan replicas.Func) {
	checkExact(t, plan, SteadyCases)
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
	{2, []PodState{running("web-a", 0), running("web-b", 0), running("web-c", 0)}, 1},
	{0, []PodState{running("web-a", 0), running("web-b", 0), running("web-c", 0)}, 3},
	{1, []PodState{running("web-a", 0), running("web-b", 0), running("web-c", 0), running("web-d", 0)}, 3},
}

func deleteExtra(t *suite.T, plan replicas.Func) {
	for _, c := range ExtraCases {
		pods := Pods(c.Pods...)
		got, callS := call(plan, c.Desired, pods)
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
	{3, []PodState{running("web-a", 0)}},
	{2, []PodState{running("web-a", 0), running("web-b", 1), pending("web-c", 2), running("web-d", 3), pending("web-e", 4)}},
	{0, []PodState{running("web-a", 0), running("web-b", 1)}},
	{2, []PodState{running("web-a", 0), running("web-b", 1)}},
	{4, []PodState{pending("web-a", 0), running("web-b", 1), {Name: "web-c", Node: "node-2", Phase: api.PodRunning, Created: 2}}},
}

// ClonePods copies pods deeply enough to notice any change Plan makes.
func ClonePods(pods []api.Pod) []api.Pod {
	if pods == nil {
		return nil
	}
	out := make([]api.Pod, len(pods))
	for i, p := range pods {
		p.Labels = maps(p.Labels)
		p.Status.Conditions = slices.Clone(p.Status.Conditions)
		if p.DeletionTimestamp != nil {
			ts := *p.DeletionTimestamp
			p.DeletionTimestamp = &ts
		}
		out[i] = p
	}
	return out
}

func maps(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
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
		out = append(out, Pod(pending(fmt.Sprintf("web-new-%d", i), 100)))
	}
	return out
}

func idempotent(t *suite.T, plan replicas.Func) {
	for _, c := range IdempotentCases {
		pods := Pods(c.Pods...)
		before := ClonePods(pods)
		first, callS := call(plan, c.Desired, pods)
		if !reflect.DeepEqual(pods, before) {
			t.Errorf("%s changed its input: the pods are now %s\n\tPlan must not modify, reorder or sort the caller's slice (copy it first)", callS, Describe(pods))
			continue
		}
		if again := plan(c.Desired, pods); !reflect.DeepEqual(again, first) {
			t.Errorf("%s = %v the first time and %v the second: the same input must give the same plan", callS, first, again)
			continue
		}
		after := Apply(pods, first)
		if got, callS2 := call(plan, c.Desired, after); !got.Empty() {
			t.Errorf("%s = %v; after carrying it out, %s\n\t= %v, want {Create: 0, Delete: []}: a plan carried out leaves nothing to do", callS, first, callS2, got)
		}
	}
}

// FinishedCases are the exact calls of step 05: pods that have finished
// (Succeeded, Failed) or are already being deleted do not count.
var FinishedCases = []Case{
	{2, []PodState{running("web-a", 0), {Name: "web-b", Node: "node-1", Phase: api.PodFailed, Created: 1}}, replicas.Plan{Create: 1}},
	{2, []PodState{running("web-a", 0), {Name: "web-b", Node: "node-1", Phase: api.PodSucceeded, Created: 1}, running("web-c", 2)}, replicas.Plan{}},
	{0, []PodState{{Name: "web-a", Node: "node-1", Phase: api.PodFailed}, {Name: "web-b", Node: "node-1", Phase: api.PodSucceeded}}, replicas.Plan{}},
	{2, []PodState{running("web-a", 0), with(running("web-b", 1), func(s *PodState) { s.Terminating = true })}, replicas.Plan{Create: 1}},
	{1, []PodState{with(running("web-a", 0), func(s *PodState) { s.Terminating = true }), {Name: "web-b", Node: "node-1", Phase: api.PodFailed, Created: 1}, running("web-c", 2)}, replicas.Plan{}},
}

// FinishedExtraCases are the calls of step 05 that must delete, but only
// among the pods that still count.
var FinishedExtraCases = []struct {
	Desired   int
	Pods      []PodState
	Count     int
	Untouched []string
}{
	{1, []PodState{running("web-a", 0), running("web-b", 0), {Name: "web-c", Node: "node-1", Phase: api.PodFailed}}, 1, []string{"web-c"}},
	{0, []PodState{running("web-a", 0), {Name: "web-b", Node: "node-1", Phase: api.PodSucceeded}, with(running("web-c", 0), func(s *PodState) { s.Terminating = true })}, 1, []string{"web-b", "web-c"}},
}

func skipFinished(t *suite.T, plan replicas.Func) {
	checkExact(t, plan, FinishedCases)
	for _, c := range FinishedExtraCases {
		pods := Pods(c.Pods...)
		got, callS := call(plan, c.Desired, pods)
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

// OrderCases are the calls of step 06: the exact pods to delete, in
// order. Each isolates one rule of upstream's ActivePods ranking; the
// pods are listed out of order on purpose.
var OrderCases = []struct {
	Rule string
	Case
}{
	{"unscheduled pods go first", Case{1, []PodState{
		{Name: "web-a", Node: "node-1", Phase: api.PodPending, Created: 0},
		{Name: "web-b", Phase: api.PodPending, Created: 0},
	}, replicas.Plan{Delete: []string{"web-b"}}}},
	{"Pending, then Unknown, then Running", Case{0, []PodState{
		{Name: "web-a", Node: "node-1", Phase: api.PodRunning, Created: 0},
		{Name: "web-b", Node: "node-1", Phase: api.PodUnknown, Created: 0},
		{Name: "web-c", Node: "node-1", Phase: api.PodPending, Created: 0},
	}, replicas.Plan{Delete: []string{"web-c", "web-b", "web-a"}}}},
	{"not ready before ready", Case{1, []PodState{
		{Name: "web-a", Node: "node-1", Phase: api.PodRunning, Ready: false, Created: 0},
		{Name: "web-b", Node: "node-1", Phase: api.PodRunning, Ready: true, Created: 0},
		{Name: "web-c", Node: "node-1", Phase: api.PodRunning, Ready: true, Created: 0},
	}, replicas.Plan{Delete: []string{"web-a", "web-b"}}}},
	{"newest first", Case{1, []PodState{
		running("web-a", 2),
		running("web-b", 5),
		running("web-c", 1),
	}, replicas.Plan{Delete: []string{"web-b", "web-a"}}}},
	{"names break ties", Case{1, []PodState{
		running("web-c", 0),
		running("web-a", 0),
		running("web-b", 0),
	}, replicas.Plan{Delete: []string{"web-a", "web-b"}}}},
	{"the rules in order: scheduled, phase, readiness, age, name", Case{0, []PodState{
		running("web-g", 2),
		{Name: "web-d", Node: "node-1", Phase: api.PodRunning, Ready: false, Created: 1},
		{Name: "web-b", Node: "node-2", Phase: api.PodPending, Created: 5},
		running("web-e", 4),
		{Name: "web-c", Node: "node-1", Phase: api.PodUnknown, Created: 6},
		{Name: "web-a", Phase: api.PodPending, Created: 3},
		running("web-f", 2),
	}, replicas.Plan{Delete: []string{"web-a", "web-b", "web-c", "web-d", "web-e", "web-f", "web-g"}}}},
}

func deleteOrder(t *suite.T, plan replicas.Func) {
	for _, c := range OrderCases {
		got, callS := call(plan, c.Desired, Pods(c.Pods...))
		if got.Create != 0 || !slices.Equal(got.Delete, c.Want.Delete) {
			t.Errorf("%s: %s\n\t= %v\n\twant %v", c.Rule, callS, got, c.Want)
		}
	}
}
