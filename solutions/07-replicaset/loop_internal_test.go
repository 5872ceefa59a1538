package replicaset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/suite"
)

// The loop's behaviours the suite (steps 06-15) does not reach: a status
// write that conflicts and is retried on a fresh read, an adoption
// refused because the apiserver (not the cache) says the ReplicaSet is
// being deleted, Run's refusals, and a clean shutdown.

const poll = 2 * time.Millisecond

// countPlan is the plain arithmetic of a Plan, enough to drive the loop:
// create what is missing, delete the last names over the count.
func countPlan(desired int, pods []api.Pod, _ time.Time) replicas.Plan {
	if d := desired - len(pods); d > 0 {
		return replicas.Plan{Create: d}
	}
	var del []string
	for _, p := range pods[desired:] {
		del = append(del, p.Name)
	}
	return replicas.Plan{Delete: del}
}

func newRS(name string, n int32) *api.ReplicaSet {
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.ReplicaSetSpec{
			Replicas: &n,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "kata/sleep"}}},
			},
		},
	}
}

// start runs a controller over c until the test ends, then checks that
// Run returned nil and left no goroutine of this package.
func start(t *testing.T, c client.Interface, opts replicas.Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(c, opts).Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v after cancel, want nil", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return within 10s of cancel")
		}
		noGoroutinesLeft(t)
	})
}

// noGoroutinesLeft waits up to 10 seconds for the goroutines of this
// package to end: a goroutine that called wg.Done may take a moment to
// return.
func noGoroutinesLeft(t *testing.T) {
	t.Helper()
	var left []string
	waitFor(t, "no goroutine of the controller left", func() (bool, string) {
		left = suite.ImplementationGoroutines()
		if len(left) == 0 {
			return true, ""
		}
		return false, fmt.Sprintf("%d left; the first:\n%s", len(left), left[0])
	})
}

// waitFor polls cond until it holds or 10 seconds pass.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 10s for %s; last seen: %s", what, saw)
		}
		<-tick.C
	}
}

func listPods(t *testing.T, c client.Interface) []*api.Pod {
	t.Helper()
	pods, _, err := client.For[*api.Pod](c).List(context.Background(), "default", client.ListOptions{})
	if err != nil {
		t.Fatalf("List(pods) = %v", err)
	}
	return pods
}

func getRS(t *testing.T, c client.Interface, name string) *api.ReplicaSet {
	t.Helper()
	rs, err := client.For[*api.ReplicaSet](c).Get(context.Background(), "default", name)
	if err != nil {
		t.Fatalf("Get(replicasets default/%s) = %v", name, err)
	}
	return rs
}

func TestRunRefusesANilPlan(t *testing.T) {
	err := New(client.NewFake(), replicas.Options{}).Run(context.Background())
	if err == nil || err.Error() != "replicaset: Options.Plan is nil" {
		t.Errorf("Run with no Plan = %v, want replicaset: Options.Plan is nil", err)
	}
}

func TestRunTwice(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ctl := New(client.NewFake(), replicas.Options{Plan: countPlan})
	if err := ctl.Run(ctx); err != nil {
		t.Fatalf("first Run on a cancelled context = %v, want nil", err)
	}
	if err := ctl.Run(ctx); err == nil {
		t.Errorf("second Run = nil, want an error")
	}
	noGoroutinesLeft(t)
}

// conflicting is the fake whose UpdateStatus of a ReplicaSet fails with
// a Conflict the first time, after another writer moved it on.
type conflicting struct {
	*client.Fake
	mu       sync.Mutex
	statuses int
}

func (f *conflicting) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	rs, ok := obj.(*api.ReplicaSet)
	if !ok {
		return f.Fake.UpdateStatus(ctx, obj)
	}
	f.mu.Lock()
	f.statuses++
	first := f.statuses == 1
	f.mu.Unlock()
	if first {
		other := api.DeepCopy(rs)
		if other.Annotations == nil {
			other.Annotations = map[string]string{}
		}
		other.Annotations["touched"] = "yes"
		if _, err := f.Fake.Update(ctx, other); err != nil {
			return nil, err
		}
		return nil, client.NewConflict(rsKind, rs.Name, client.ConflictMessage)
	}
	return f.Fake.UpdateStatus(ctx, obj)
}

func TestStatusConflictIsRetriedOnAFreshRead(t *testing.T) {
	f := &conflicting{Fake: client.NewFake()}
	if _, err := f.Create(context.Background(), newRS("web", 2)); err != nil {
		t.Fatal(err)
	}
	start(t, f, replicas.Options{Plan: countPlan})
	waitFor(t, "status.replicas 2 on rs web", func() (bool, string) {
		rs := getRS(t, f, "web")
		return rs.Status.Replicas == 2 && rs.Status.ObservedGeneration == rs.Generation,
			fmt.Sprintf("status %+v, generation %d, %d pods", rs.Status, rs.Generation, len(listPods(t, f)))
	})
	f.mu.Lock()
	n := f.statuses
	f.mu.Unlock()
	if n < 2 {
		t.Errorf("UpdateStatus calls = %d, want at least 2 (the conflict, then the retry)", n)
	}
	if rs := getRS(t, f, "web"); rs.Annotations["touched"] != "yes" {
		t.Errorf("rs annotations = %v: the conflicting write was lost", rs.Annotations)
	}
}

// deletingOnRead is the fake whose Get of a ReplicaSet says it is being
// deleted, while the informer's copy does not yet.
type deletingOnRead struct {
	*client.Fake
	mu   sync.Mutex
	gets int
}

func (f *deletingOnRead) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	o, err := f.Fake.Get(ctx, kind, namespace, name)
	if rs, ok := o.(*api.ReplicaSet); ok && err == nil {
		f.mu.Lock()
		f.gets++
		f.mu.Unlock()
		ts := api.NewTime(time.Unix(1700000000, 0))
		rs.DeletionTimestamp = &ts
	}
	return o, err
}

func TestNoAdoptionWhenTheFreshReadSaysDeleting(t *testing.T) {
	f := &deletingOnRead{Fake: client.NewFake()}
	ctx := context.Background()
	orphan := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "stray", Labels: map[string]string{"app": "web"}}}
	if _, err := f.Create(ctx, orphan); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Create(ctx, newRS("web", 1)); err != nil {
		t.Fatal(err)
	}
	start(t, f, replicas.Options{Plan: countPlan})
	waitFor(t, "a fresh GET of rs web before adopting", func() (bool, string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.gets > 0, fmt.Sprintf("%d gets; actions %v", f.gets, f.Actions())
	})
	for _, a := range f.Actions() {
		if strings.HasPrefix(a, "update pods") {
			t.Errorf("actions include %q: an orphan was adopted by a ReplicaSet the apiserver says is being deleted", a)
		}
	}
	for _, p := range listPods(t, f) {
		if ref := api.GetControllerOf(p); p.Name == "stray" && ref != nil {
			t.Errorf("pod stray has controller %s, want none", ref.Name)
		}
	}
}

// A quick end-to-end check of the loop alone (the suite's steps are the
// judge): converge, heal a deleted pod, scale down.
func TestConvergeHealScaleDown(t *testing.T) {
	f := client.NewFake()
	ctx := context.Background()
	if _, err := f.Create(ctx, newRS("web", 3)); err != nil {
		t.Fatal(err)
	}
	start(t, f, replicas.Options{Plan: countPlan})
	count := func(want int) func() (bool, string) {
		return func() (bool, string) {
			pods := listPods(t, f)
			rs := getRS(t, f, "web")
			return len(pods) == want && rs.Status.Replicas == int32(want),
				fmt.Sprintf("%d pods, status.replicas %d", len(pods), rs.Status.Replicas)
		}
	}
	waitFor(t, "3 pods", count(3))
	victim := listPods(t, f)[0].Name
	if err := f.Delete(ctx, podKind, "default", victim, client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a replacement for "+victim, count(3))
	one := int32(1)
	for {
		// The controller writes the status meanwhile: read again on a
		// Conflict.
		rs := getRS(t, f, "web")
		rs.Spec.Replicas = &one
		_, err := f.Update(ctx, rs)
		if err == nil {
			break
		}
		if !client.IsConflict(err) {
			t.Fatalf("Update(rs web, replicas 1) = %v", err)
		}
	}
	waitFor(t, "1 pod after scaling down", count(1))
}

func TestSlowStartBatch(t *testing.T) {
	for _, c := range []struct {
		count, failAt int
		wantDone      int
		wantCalls     int
	}{
		{count: 0, failAt: -1, wantDone: 0, wantCalls: 0},
		{count: 7, failAt: -1, wantDone: 7, wantCalls: 7},    // 1+2+4
		{count: 10, failAt: -1, wantDone: 10, wantCalls: 10}, // 1+2+4+3
		{count: 10, failAt: 0, wantDone: 0, wantCalls: 1},
		{count: 10, failAt: 2, wantDone: 2, wantCalls: 3}, // the batch of 2 holds call 2
		{count: 10, failAt: 3, wantDone: 6, wantCalls: 7}, // the batch of 4 holds call 3
	} {
		var mu sync.Mutex
		calls := 0
		done, err := slowStartBatch(c.count, 1, func() error {
			mu.Lock()
			defer mu.Unlock()
			calls++
			if calls-1 == c.failAt {
				return errors.New("no")
			}
			return nil
		})
		if done != c.wantDone || calls != c.wantCalls || (err != nil) != (c.failAt >= 0) {
			t.Errorf("slowStartBatch(%d, 1, fail at call %d) = %d, %v with %d calls; want %d done, %d calls",
				c.count, c.failAt, done, err, calls, c.wantDone, c.wantCalls)
		}
	}
}
