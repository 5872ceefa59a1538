package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/rollouttest"
	deployment "github.com/kubekata/kubekata/solutions/09-deployment"
)

// solutionDeployment is exercise 09's solution as its test file passes it.
func solutionDeployment() rollouttest.Impl {
	return rollouttest.Impl{Bounds: deployment.Bounds, Plan: deployment.Plan, New: deployment.New}
}

func init() {
	fakes["deploymentsol"] = func() Service { return DeploymentService(solutionDeployment()) }
	fakes["deployment"] = func() Service {
		dp := newDeploymentProgram(fakeDeployment())
		return withLoopTestMethods(dp.service(), dp.handles, &dp.controllers)
	}
}

// misbehaveDeployment makes the pure functions misbehave as the
// Deployment's name says.
func misbehaveDeployment(d api.Deployment, fn string) {
	switch d.Name {
	case "panic":
		panic("not implemented: " + fn)
	case "goexit":
		runtime.Goexit()
	case "exit":
		fmt.Println("the deployment controller exits")
		os.Exit(19)
	case "hang":
		select {}
	}
}

// mutateInput changes what Plan was given when the Deployment is
// "mutates", as a learner's Plan that forgets to copy would: some changes
// reach the caller in one process (the Deployment's maps and what its
// pointers point at, the ReplicaSets and pods in the input's slices, and
// theirs), others change only the function's copy (the Deployment's
// name, Now, a slice appended to).
func mutateInput(in rollout.Input) {
	if in.Deployment.Name != "mutates" {
		return
	}
	d := &in.Deployment
	d.Labels["touched"] = "yes"
	d.Name = "renamed"
	*d.Spec.Replicas = 42
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		*ru.MaxSurge = api.FromString("50%")
	}
	d.Status.Conditions[0].Reason = "Touched"
	in.Now = in.Now.Add(time.Hour)
	switch len(in.ReplicaSets) {
	case 1:
		in.ReplicaSets[0].Annotations[api.RevisionAnnotation] = "99"
		*in.ReplicaSets[0].Spec.Replicas = 0
		in.ReplicaSets[0].Name = "touched"
	case 2:
		slices.Reverse(in.ReplicaSets)
	}
	if len(in.Pods) > 0 {
		in.Pods[0].Labels = nil
		in.Pods[0].Status.Conditions = append(in.Pods[0].Status.Conditions, api.PodCondition{Type: api.DisruptionTarget})
	}
	in.Pods = append(in.Pods, api.Pod{})
}

// fakeDeployment is exercise 09's contract as the tests want it: Bounds
// and Plan that misbehave or change their input on some Deployments and
// otherwise echo what they were given (boundsEcho, planEcho: what the
// learner's code sees of its input, not a Deployment controller), and a
// loop of the test's own (the garbage collector's testCollector: notes
// of what it was given) unless Workers asks for the solution's.
func fakeDeployment() rollouttest.Impl {
	return rollouttest.Impl{
		Bounds: func(d api.Deployment) rollout.Bounds {
			misbehaveDeployment(d, "Bounds")
			if d.Name == "mutates" {
				d.Labels["touched"] = "yes"
				d.Name = "renamed"
				*d.Spec.Replicas = 42
			}
			return boundsEcho(d)
		},
		Plan: func(in rollout.Input) rollout.Plan {
			misbehaveDeployment(in.Deployment, "Plan")
			defer mutateInput(in)
			return planEcho(in)
		},
		New: newTestDeployment,
	}
}

// boundsEcho is spec.replicas and maxSurge's and maxUnavailable's number
// or length, so that each crosses to the learner's code and back.
func boundsEcho(d api.Deployment) rollout.Bounds {
	var b rollout.Bounds
	if d.Spec.Replicas != nil {
		b.MaxSurge = *d.Spec.Replicas * 100
	}
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		for _, v := range []*api.IntOrString{ru.MaxSurge, ru.MaxUnavailable} {
			if v != nil {
				b.MaxSurge += int32(v.IntValue())
				b.MaxUnavailable = b.MaxUnavailable*100 + int32(len(v.StrVal))
			}
		}
	}
	return b
}

// planEcho fills every field of a Plan from its input: one Event says
// what the call saw (nil or empty slices, every time to the nanosecond);
// the ReplicaSets come back scaled by one in Update (copies that share
// their maps with the input's, as a learner's shallow copy would) and by
// name in Delete; Create, when there is none, carries the template's own
// labels; the status adds a condition stamped with Now.
func planEcho(in rollout.Input) rollout.Plan {
	d := in.Deployment
	nilOrLen := func(isNil bool, n int) string {
		if isNil {
			return "nil"
		}
		return strconv.Itoa(n)
	}
	stamp := func(t api.Time) string { return t.Format(time.RFC3339Nano) }
	seen := []string{
		"replicaSets " + nilOrLen(in.ReplicaSets == nil, len(in.ReplicaSets)),
		"pods " + nilOrLen(in.Pods == nil, len(in.Pods)),
		"now " + in.Now.Format(time.RFC3339Nano),
		"created " + stamp(d.CreationTimestamp),
	}
	if d.DeletionTimestamp != nil {
		seen = append(seen, "deleting "+stamp(*d.DeletionTimestamp))
	}
	for _, c := range d.Status.Conditions {
		seen = append(seen, fmt.Sprintf("%s %s %s", c.Type, stamp(c.LastUpdateTime), stamp(c.LastTransitionTime)))
	}
	var p rollout.Plan
	for _, rs := range in.ReplicaSets {
		seen = append(seen, rs.Name+" "+stamp(rs.CreationTimestamp))
		n := int32(1)
		if rs.Spec.Replicas != nil {
			n += *rs.Spec.Replicas
		}
		rs.Spec.Replicas = &n
		p.Update = append(p.Update, rs)
		p.Delete = append(p.Delete, rs.Name)
		p.Events = append(p.Events, rollout.Event{Type: "Normal", Reason: rollout.ScalingReplicaSet, Message: fmt.Sprintf("Scaled up replica set %s from %d to %d", rs.Name, n-1, n)})
	}
	for _, pod := range in.Pods {
		for _, c := range pod.Status.Conditions {
			seen = append(seen, fmt.Sprintf("%s %s %s", pod.Name, c.Type, stamp(c.LastTransitionTime)))
		}
	}
	p.Events = append(p.Events, rollout.Event{Type: "Normal", Reason: "Seen", Message: strings.Join(seen, "; ")})
	if len(in.ReplicaSets) == 0 {
		p.Create = &api.ReplicaSet{ObjectMeta: api.ObjectMeta{
			Name: d.Name + "-new", Namespace: d.Namespace, Labels: d.Spec.Template.Labels, CreationTimestamp: api.NewTime(in.Now),
		}}
	}
	p.Revision = strconv.Itoa(len(in.ReplicaSets) + 1)
	st := d.Status
	st.Replicas = int32(len(in.Pods))
	st.Conditions = append(slices.Clone(st.Conditions), api.DeploymentCondition{
		Type: api.DeploymentProgressing, Status: api.ConditionTrue, Reason: api.NewRSAvailableReason,
		LastUpdateTime: api.NewTime(in.Now), LastTransitionTime: api.NewTime(in.Now.Add(-time.Millisecond)),
	})
	p.Status = &st
	p.RequeueAfter = in.Now.Sub(d.CreationTimestamp.Time)
	return p
}

// newTestDeployment is the garbage collector's test loop (testCollector,
// which notes what it was given in ConfigMaps, by Workers), or the
// solution's controller for workersSolution.
func newTestDeployment(c client.Interface, opts rollout.Options) rollout.Controller {
	if opts.Workers == workersSolution {
		opts.Workers = 0
		return deployment.New(c, opts)
	}
	var ck gc.Clock
	if opts.Clock != nil {
		ck = opts.Clock
	}
	return newTestCollector(c, gc.Options{Workers: opts.Workers, Clock: ck})
}

// depT0 is t0 and a half second: times the API's JSON cuts.
var depT0 = t0.Add(1500 * time.Millisecond)

// testDeployment is Deployment name, defaulted, with a label, a
// RollingUpdate strategy with surge and unavailable, creationTimestamp
// and conditions finer than the second, and a collisionCount.
func testDeployment(name string, replicas int32, surge, unavailable string) api.Deployment {
	one := int32(1)
	ms, mu := api.ParseIntOrString(surge), api.ParseIntOrString(unavailable)
	d := api.Deployment{
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: "default", UID: api.UID("uid-" + name), Generation: 3,
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{api.RevisionAnnotation: "2"},
			CreationTimestamp: api.NewTime(depT0),
		},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1"}}},
			},
			Strategy: api.DeploymentStrategy{Type: api.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: &ms, MaxUnavailable: &mu}},
		},
		Status: api.DeploymentStatus{
			ObservedGeneration: 2, Replicas: replicas, AvailableReplicas: replicas - 1, CollisionCount: &one,
			Conditions: []api.DeploymentCondition{{
				Type: api.DeploymentProgressing, Status: api.ConditionTrue, Reason: api.ReplicaSetUpdatedReason,
				LastUpdateTime: api.NewTime(depT0.Add(time.Nanosecond)), LastTransitionTime: api.NewTime(depT0.Add(-time.Microsecond)),
			}},
		},
	}
	return rollout.WithDefaults(d)
}

// testOwnedRS is ReplicaSet name of d at revision rev with n replicas,
// created at depT0 plus created.
func testOwnedRS(d api.Deployment, name, rev string, n int32, created time.Duration) api.ReplicaSet {
	rs := *testRS(name)
	rs.Spec.Replicas = &n
	rs.Labels = map[string]string{"app": "web", api.DefaultDeploymentUniqueLabelKey: name}
	rs.Annotations = map[string]string{api.RevisionAnnotation: rev}
	rs.OwnerReferences = []api.OwnerReference{api.NewControllerRef(&d)}
	rs.CreationTimestamp = api.NewTime(depT0.Add(created))
	rs.Status = api.ReplicaSetStatus{Replicas: n, ReadyReplicas: n, AvailableReplicas: n, ObservedGeneration: rs.Generation}
	return rs
}

// testRSPod is a pod of rs, Ready since depT0 plus since.
func testRSPod(rs api.ReplicaSet, name string, since time.Duration) api.Pod {
	pod := *testPod(name)
	pod.OwnerReferences = []api.OwnerReference{api.NewControllerRef(&rs)}
	pod.Status.Phase = api.PodRunning
	pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(depT0.Add(since))}}
	return pod
}

// deploymentInputs are Plan's inputs for Deployment name: no
// ReplicaSets or pods (nil, and empty), a rollout with two ReplicaSets
// and their pods, a Recreate Deployment being deleted, a paused one with
// numeric bounds; Now finer than the second.
func deploymentInputs(name string) []rollout.Input {
	now := depT0.Add(90*time.Second + time.Nanosecond)
	d := testDeployment(name, 3, "25%", "25%")
	old, cur := testOwnedRS(d, name+"-old", "1", 2, 0), testOwnedRS(d, name+"-cur", "2", 2, 30*time.Second+7)
	rolling := rollout.Input{Deployment: d, ReplicaSets: []api.ReplicaSet{old, cur}, Now: now,
		Pods: []api.Pod{testRSPod(old, "o1", time.Millisecond), testRSPod(old, "o2", 0), testRSPod(cur, "c1", 31*time.Second+3)}}

	recreate := testDeployment(name, 2, "1", "0")
	recreate.Spec.Strategy = api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}
	gone := api.NewTime(now.Add(-time.Millisecond))
	recreate.DeletionTimestamp = &gone

	paused := testDeployment(name, 5, "2", "1")
	paused.Spec.Paused = true
	return []rollout.Input{
		{Deployment: testDeployment(name, 3, "25%", "25%"), Now: now},
		{Deployment: testDeployment(name, 3, "25%", "25%"), ReplicaSets: []api.ReplicaSet{}, Pods: []api.Pod{}, Now: now},
		rolling,
		{Deployment: recreate, ReplicaSets: []api.ReplicaSet{testOwnedRS(recreate, name+"-r", "4", 0, time.Second)}, Pods: []api.Pod{}, Now: now},
		{Deployment: paused, ReplicaSets: []api.ReplicaSet{testOwnedRS(paused, name+"-p", "", 5, 0)}, Now: now},
	}
}

// Bounds and Plan give through the program what they give in process:
// values, times to the nanosecond both ways, nil and empty inputs told
// apart, on inputs for each strategy.
func TestDeploymentPureRoundTrip(t *testing.T) {
	p, _ := fake(t, "deployment")
	r, local := Deployment(p), fakeDeployment()
	for i, in := range deploymentInputs("web") {
		if got, want := r.Bounds(in.Deployment), local.Bounds(in.Deployment); got != want {
			t.Errorf("Bounds(input %d) through the program = %+v, want %+v (in process)", i, got, want)
		}
		got, want := r.Plan(in), local.Plan(in)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Plan(input %d) through the program = %s\n\twant %s (in process)", i, jsonText(got), jsonText(want))
		}
	}
	ins := deploymentInputs("web")
	for i, want := range []string{"replicaSets nil; pods nil; ", "replicaSets 0; pods 0; "} {
		if seen := lastEvent(r.Plan(ins[i])); !strings.HasPrefix(seen, want) {
			t.Errorf("Plan(input %d) through the program saw %q, want it to start %q", i, seen, want)
		}
	}
	seen := lastEvent(r.Plan(ins[2]))
	for _, want := range []string{
		"now " + depT0.Add(90*time.Second+time.Nanosecond).Format(time.RFC3339Nano),
		"created " + depT0.Format(time.RFC3339Nano),
		"Progressing " + depT0.Add(time.Nanosecond).Format(time.RFC3339Nano) + " " + depT0.Add(-time.Microsecond).Format(time.RFC3339Nano),
		"web-cur " + depT0.Add(30*time.Second+7).Format(time.RFC3339Nano),
		"c1 Ready " + depT0.Add(31*time.Second+3).Format(time.RFC3339Nano),
	} {
		if !strings.Contains(seen, want) {
			t.Errorf("Plan(rolling) through the program saw %q, want it to contain %q", seen, want)
		}
	}
	got := r.Plan(ins[0])
	if c := got.Status.Conditions[1]; !c.LastUpdateTime.Time.Equal(ins[0].Now) || !c.LastTransitionTime.Time.Equal(ins[0].Now.Add(-time.Millisecond)) {
		t.Errorf("Plan(input 0) through the program stamped its condition %s and %s, want Now and Now-1ms to the nanosecond", c.LastUpdateTime.Format(time.RFC3339Nano), c.LastTransitionTime.Format(time.RFC3339Nano))
	}
	if got.RequeueAfter != 90*time.Second+time.Nanosecond || got.Create == nil || !got.Create.CreationTimestamp.Time.Equal(ins[0].Now) {
		t.Errorf("Plan(input 0) through the program = requeue after %v, create %+v; want 90s+1ns and a ReplicaSet created at Now", got.RequeueAfter, got.Create)
	}
}

func lastEvent(p rollout.Plan) string {
	if len(p.Events) == 0 {
		return ""
	}
	return p.Events[len(p.Events)-1].Message
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Through the program, the caller's inputs change as they would in one
// process: not at all when the call left them, and through the memory
// they share with the call's arguments when it changed them; so a check
// of the input before and after the call, as the suite's, sees what it
// sees in process.
func TestDeploymentInputsChangeAsInProcess(t *testing.T) {
	p, _ := fake(t, "deployment")
	r, local := Deployment(p), fakeDeployment()
	for _, name := range []string{"web", "mutates"} {
		for i := range deploymentInputs(name) {
			rIn, lIn := deploymentInputs(name)[i], deploymentInputs(name)[i]
			before := jsonText(rIn)
			r.Plan(rIn)
			local.Plan(lIn)
			if !reflect.DeepEqual(rIn, lIn) {
				t.Errorf("Plan(%s, input %d): the input after the call through the program = %s\n\twant %s (in process)", name, i, jsonText(rIn), jsonText(lIn))
			}
			if changed := jsonText(rIn) != before; changed != (name == "mutates") {
				t.Errorf("Plan(%s, input %d) through the program: the input changed = %v, want %v", name, i, changed, name == "mutates")
			}
			rD, lD := deploymentInputs(name)[i].Deployment, deploymentInputs(name)[i].Deployment
			r.Bounds(rD)
			local.Bounds(lD)
			if !reflect.DeepEqual(rD, lD) {
				t.Errorf("Bounds(%s, input %d): the Deployment after the call through the program = %s\n\twant %s (in process)", name, i, jsonText(rD), jsonText(lD))
			}
		}
	}
	// The rollout's ReplicaSets reversed are the caller's own, moved: the
	// pointers go with them (the suite's expected values may share them).
	in := deploymentInputs("mutates")[2]
	rss := in.ReplicaSets
	oldReplicas := rss[0].Spec.Replicas
	r.Plan(in)
	if rss[0].Name != "mutates-cur" || rss[1].Name != "mutates-old" || rss[1].Spec.Replicas != oldReplicas {
		t.Errorf("Plan(mutates) through the program left the caller's ReplicaSets %q and %q (the second's replicas at %p), want mutates-cur and mutates-old, the first one's replicas moved there (%p)",
			rss[0].Name, rss[1].Name, rss[1].Spec.Replicas, oldReplicas)
	}
	// A ReplicaSet changed in place is the caller's, changed.
	one := deploymentInputs("mutates")[3]
	r.Plan(one)
	if rs := one.ReplicaSets[0]; rs.Name != "touched" || rs.Annotations[api.RevisionAnnotation] != "99" || *rs.Spec.Replicas != 0 {
		t.Errorf("Plan(mutates) through the program left the caller's ReplicaSet %s, want it renamed touched, at revision 99 and 0 replicas", jsonText(rs))
	}
	if in.Deployment.Name != "mutates" || in.Deployment.Labels["touched"] != "yes" || *in.Deployment.Spec.Replicas != 42 ||
		in.Deployment.Spec.Strategy.RollingUpdate.MaxSurge.StrVal != "50%" || in.Deployment.Status.Conditions[0].Reason != "Touched" ||
		in.Pods[0].Labels != nil || len(in.Pods) != 3 || !in.Now.Equal(depT0.Add(90*time.Second+time.Nanosecond)) {
		t.Errorf("Plan(mutates) through the program left the caller's input %s; want the label, replicas, maxSurge, condition and pod's labels changed, the name, Now and pods' length as they were (a copy's)", jsonText(in))
	}
	d := testDeployment("mutates", 3, "1", "1")
	r.Bounds(d)
	if d.Name != "mutates" || d.Labels["touched"] != "yes" || *d.Spec.Replicas != 42 {
		t.Errorf("Bounds(mutates) through the program left the caller's Deployment %s, want the label and replicas changed, the name as it was", jsonText(d))
	}
}

// The maps a plan shares with its input are the caller's memory, as in
// process: a change through the plan shows in the input.
func TestDeploymentPlanSharesAsInProcess(t *testing.T) {
	p, _ := fake(t, "deployment")
	r := Deployment(p)
	in := deploymentInputs("web")[2]
	got := r.Plan(in)
	got.Update[0].Annotations["scribbled"] = "yes"
	if in.ReplicaSets[0].Annotations["scribbled"] != "yes" {
		t.Errorf("changing the annotations of the Update that Plan returned through the program left the input's %v, want the change seen there, as in process (the echo's Update shares its maps)", in.ReplicaSets[0].Annotations)
	}
	*got.Update[0].Spec.Replicas = 7
	if *in.ReplicaSets[0].Spec.Replicas != 2 {
		t.Errorf("changing the replicas of the Update that Plan returned through the program changed the input's to %d, want 2: the echo scaled a pointer of its own", *in.ReplicaSets[0].Spec.Replicas)
	}
	in = deploymentInputs("web")[0]
	got = r.Plan(in)
	got.Create.Labels["scribbled"] = "yes"
	if in.Deployment.Spec.Template.Labels["scribbled"] != "yes" {
		t.Errorf("changing the labels of the ReplicaSet that Plan created through the program left the template's %v, want the change seen there, as in process", in.Deployment.Spec.Template.Labels)
	}
	got.Status.Conditions[0].Reason = "scribbled"
	if in.Deployment.Status.Conditions[0].Reason == "scribbled" {
		t.Errorf("changing the conditions of the status that Plan returned through the program changed the input's: the echo cloned them")
	}
}

// A pure function that panics, exits or hangs fails its call only, with
// its own text; the next call gets an answer.
func TestDeploymentPureFailures(t *testing.T) {
	p, _ := fake(t, "deployment")
	p.CallTimeout = time.Second
	r := Deployment(p)
	for _, c := range []struct{ name, want string }{
		{"panic", "not implemented: Plan"},
		{"goexit", "the implementation called runtime.Goexit"},
		{"exit", "the implementation's program exited (exit status 19)"},
		{"hang", "deployment.Plan did not return within 1s"},
	} {
		in := deploymentInputs(c.name)[2]
		msg, ok := recovered(func() { r.Plan(in) })
		if !ok || !strings.Contains(msg, c.want) {
			t.Errorf("Plan(%s) panicked = %v with %q, want a panic with %q", c.name, ok, msg, c.want)
		}
		p.CallTimeout = 0 // the next call may start a fresh program: the default bound
		if got, want := r.Bounds(testDeployment("web", 3, "1", "25%")), (rollout.Bounds{MaxSurge: 301, MaxUnavailable: 3}); got != want {
			t.Errorf("after Plan(%s): Bounds(web) = %+v, want %+v", c.name, got, want)
		}
		p.CallTimeout = time.Second
		msg, ok = recovered(func() { r.Bounds(in.Deployment) })
		if want := strings.Replace(c.want, "Plan", "Bounds", 1); !ok || !strings.Contains(msg, want) {
			t.Errorf("Bounds(%s) panicked = %v with %q, want a panic with %q", c.name, ok, msg, want)
		}
	}
}

// The controller in the program is given Workers and the grader's
// FakeClock: Now, and After counted by the grader's clock before it
// returns, fired when the grader steps it; Run's end abandons the waits
// left, in the program and in the grader.
func TestDeploymentReachBacks(t *testing.T) {
	p, _ := fake(t, "deployment")
	f := client.NewFake()
	clk := informer.NewFakeClock(t0)
	c := Deployment(p).New(f, rollout.Options{Workers: 7, Clock: clk})
	runCtx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(runCtx) }()

	want := map[string]string{"workers": "7", "kinds": "nil", "clock": "true"}
	if seen := configMap(t, f, "seen"); !reflect.DeepEqual(seen.Data, want) {
		t.Errorf("the controller in the program was given %v, want %v", seen.Data, want)
	}
	checkLoopClock(t, p, f, clk, cancel, done)
}

// A nil Clock stays nil in the program, and Workers 0 is 0.
func TestDeploymentNilOptions(t *testing.T) {
	p, _ := fake(t, "deployment")
	f := client.NewFake()
	ctrl := Deployment(p).New(f, rollout.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()
	want := map[string]string{"workers": "0", "kinds": "nil", "clock": "false"}
	if seen := configMap(t, f, "seen"); !reflect.DeepEqual(seen.Data, want) {
		t.Errorf("the controller in the program was given %v, want %v", seen.Data, want)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
}

// A controller that fails fails its call only: New's panic is a panic,
// nil is nil, Run's error and panic come back as they are.
func TestDeploymentLoopFailures(t *testing.T) {
	p, _ := fake(t, "deployment")
	impl := Deployment(p)
	newLoop := func(workers int) rollout.Controller {
		return impl.New(client.NewFake(), rollout.Options{Workers: workers})
	}
	checkNewFailures(t, newLoop)
	// The test loop is the garbage collector's: its error says so.
	checkRunFailures(t, newLoop, "garbagecollector: no kinds to watch")
	if got, want := impl.Bounds(testDeployment("web", 3, "1", "25%")), (rollout.Bounds{MaxSurge: 301, MaxUnavailable: 3}); got != want {
		t.Errorf("Bounds(web) after the failures = %+v, want %+v", got, want)
	}
}

// A controller the grader dropped is freed in the program once the
// grader's side is garbage, with the client and Clock it shared.
func TestDeploymentHandlesFreed(t *testing.T) {
	p, _ := fake(t, "deployment")
	checkLoopFreed(t, p, "controller", "controllers", func() bool {
		return Deployment(p).New(client.NewFake(), rollout.Options{Clock: informer.NewFakeClock(t0)}) != nil
	})
}

// The solution's Bounds and Plan give through the program what they give
// in process.
func TestDeploymentSolutionRoundTrip(t *testing.T) {
	p, _ := fake(t, "deploymentsol")
	r, local := Deployment(p), solutionDeployment()
	for i, in := range deploymentInputs("web") {
		if got, want := r.Bounds(in.Deployment), local.Bounds(in.Deployment); got != want {
			t.Errorf("the solution's Bounds(input %d) through the program = %+v, want %+v (in process)", i, got, want)
		}
		got, want := r.Plan(in), local.Plan(in)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the solution's Plan(input %d) through the program = %s\n\twant %s (in process)", i, jsonText(got), jsonText(want))
		}
	}
}

// The solution's controller runs in the program over the grader's fake
// and its FakeClock: a new Deployment gets its ReplicaSet, owned by it,
// and a Progressing condition stamped with the grader's clock; the
// grader collects garbage meanwhile (a controller running keeps what it
// shares), and no goroutine is left once Run returned.
func TestDeploymentSolutionLoopThroughProgram(t *testing.T) {
	p, _ := fake(t, "deployment")
	f := client.NewFake()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	d := testDeployment("web", 3, "25%", "25%")
	d.UID, d.Status, d.Annotations = "", api.DeploymentStatus{}, nil
	created, err := f.Create(ctx, &d)
	if err != nil {
		t.Fatal(err)
	}
	uid := created.GetObjectMeta().UID
	clk := informer.NewFakeClock(t0)
	done := make(chan error, 1)
	func() {
		c := Deployment(p).New(f, rollout.Options{Workers: workersSolution, Clock: clk})
		go func() { done <- c.Run(ctx) }()
	}()
	rsKind, _ := api.LookupResource("apps", "v1", "replicasets")
	depKind, _ := api.LookupResource("apps", "v1", "deployments")
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		l, err := f.List(ctx, rsKind, "default", client.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o, err := f.Get(ctx, depKind, "default", "web")
		if err != nil {
			t.Fatal(err)
		}
		var progressing *api.DeploymentCondition
		for i, c := range o.(*api.Deployment).Status.Conditions {
			if c.Type == api.DeploymentProgressing {
				progressing = &o.(*api.Deployment).Status.Conditions[i]
			}
		}
		if len(l.Items) == 1 && progressing != nil {
			rs := l.Items[0].(*api.ReplicaSet)
			ref := api.GetControllerOf(rs)
			if ref == nil || ref.UID != uid || rs.Spec.Replicas == nil || *rs.Spec.Replicas != 3 {
				t.Errorf("the solution in the program created ReplicaSet %s owned by %+v with %v replicas, want one owned by the Deployment (uid %s) with 3", rs.Name, ref, rs.Spec.Replicas, uid)
			}
			if !progressing.LastUpdateTime.Time.Equal(t0) {
				t.Errorf("the solution in the program stamped Progressing %s, want the grader's clock's t0", progressing.LastUpdateTime.Format(time.RFC3339Nano))
			}
			break
		}
		if time.Now().After(deadline) {
			actions := f.Actions()
			t.Fatalf("within 10s: %d ReplicaSets and Progressing %v, want 1 and a condition; the last actions %v", len(l.Items), progressing, actions[max(len(actions)-10, 0):])
		}
		time.Sleep(5 * time.Millisecond) // polls the fake, with a deadline
	}
	stopRun(t, cancel, done)
	var left []string
	p.pure("deployment.Goroutines", struct{}{}, &left)
	if len(left) != 0 {
		t.Errorf("goroutines of the solution left in the program after Run returned: %d, want 0; the first:\n%s", len(left), left[0])
	}
}

// TestDeployment is exercise 09's suite against the solution through the
// program (the suite wants its test named so).
func TestDeployment(t *testing.T) {
	p, _ := fake(t, "deploymentsol")
	rollouttest.Run(t, Deployment(p))
}

func init() {
	ownPackages["deploymisbehaves"] = deployMisbehavesSource
	ownExercise["deploymisbehaves"] = "09-deployment"
}

// deployMisbehavesSource is the solution of 09, except that its Bounds
// ends through runtime.Goexit for a Recreate Deployment (step 01's), its
// Plan changes a pod of a Recreate Deployment's input (which the caller
// sees, as in one process: step 05's), and its loop crashes the program
// (a goroutine's panic) when a Create meets AlreadyExists from a
// ReplicaSet another owner controls (a hash collision, step 15's).
const deployMisbehavesSource = `package deploymisbehaves

import (
	"context"
	"runtime"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/rollout"
	deployment "github.com/kubekata/kubekata/solutions/09-deployment"
)

func Bounds(d api.Deployment) rollout.Bounds {
	if d.Spec.Strategy.Type == api.RecreateDeploymentStrategyType {
		runtime.Goexit()
	}
	return deployment.Bounds(d)
}

func Plan(in rollout.Input) rollout.Plan {
	p := deployment.Plan(in)
	if in.Deployment.Spec.Strategy.Type == api.RecreateDeploymentStrategyType && len(in.Pods) > 0 {
		in.Pods[0].Status.Phase = "Touched"
	}
	return p
}

type crasher struct{ client.Interface }

// Create crashes on a real hash collision only: a name held by a
// ReplicaSet another owner controls. A Create that meets the
// Deployment's own ReplicaSet (its cache was behind) is no collision, and
// a correct controller meets one in any step.
func (c crasher) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	out, err := c.Interface.Create(ctx, obj)
	if client.IsAlreadyExists(err) {
		m := obj.GetObjectMeta()
		held, gerr := c.Interface.Get(ctx, rsKind, m.Namespace, m.Name)
		if gerr == nil && controllerUID(held.GetObjectMeta()) != controllerUID(m) {
			go panic("not implemented: a hash collision on " + m.Name)
		}
	}
	return out, err
}

var rsKind, _ = api.KindOf(&api.ReplicaSet{})

func controllerUID(m *api.ObjectMeta) api.UID {
	for _, r := range m.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return r.UID
		}
	}
	return ""
}

func New(c client.Interface, opts rollout.Options) rollout.Controller {
	return deployment.New(crasher{c}, opts)
}
`

// An input the learner's Plan changed, a Goexit in Bounds and a loop that
// crashes its program cost exercise 09 only the steps that met them: the
// suite's check that Plan changed nothing sees the change across the
// boundary, and the next step gets a fresh program, its client and clock
// reached back as before.
func TestDeploymentMisbehaviourCostsOnlyItsSteps(t *testing.T) {
	skipShort(t)
	gradeCostsOnly(t, "deploymisbehaves", "09-deployment", map[string]string{
		"01-bounds":    "the implementation called runtime.Goexit",
		"05-recreate":  "changed its input",
		"15-collision": "not implemented: a hash collision on",
	})
}
