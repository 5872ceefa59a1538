package scheduler

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
	"github.com/kubekata/kubekata/harness/framework"
)

// The loop's behaviours the suite (steps 15-17) does not reach: a Bind
// that fails, a Conflict on the status update, a status change that must
// not move an unschedulable pod.

// flaky wraps the fake: the first Bind and the first UpdateStatus of each
// pod fail when asked, and every call is timed.
type flaky struct {
	*client.Fake
	failBind, conflictStatus bool

	mu        sync.Mutex
	binds     map[string][]time.Time
	statusErr map[string]bool
}

func newFlaky() *flaky {
	return &flaky{Fake: client.NewFake(), binds: map[string][]time.Time{}, statusErr: map[string]bool{}}
}

func (f *flaky) Bind(ctx context.Context, namespace, pod, node string) error {
	f.mu.Lock()
	f.binds[pod] = append(f.binds[pod], time.Now())
	first := len(f.binds[pod]) == 1
	f.mu.Unlock()
	if f.failBind && first {
		return errors.New("apiserver on fire")
	}
	return f.Fake.Bind(ctx, namespace, pod, node)
}

func (f *flaky) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	name := obj.GetObjectMeta().Name
	f.mu.Lock()
	fail := f.conflictStatus && !f.statusErr[name]
	f.statusErr[name] = true
	f.mu.Unlock()
	if fail {
		// A write that got in first: the stored object moves on.
		if _, err := f.Fake.Update(ctx, obj); err != nil {
			return nil, err
		}
		return nil, client.NewConflict(podKind, name, client.ConflictMessage)
	}
	return f.Fake.UpdateStatus(ctx, obj)
}

func (f *flaky) bindTimes(pod string) []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.binds[pod]...)
}

func startLoop(t *testing.T, c client.Interface) *sched {
	t.Helper()
	s := newSched(c, framework.Options{Seed: 1})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-ran:
			if err != nil {
				t.Errorf("Run after ctx ended = %v, want nil", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return 10s after ctx ended")
		}
	})
	return s
}

// waitFor polls cond until it holds, or fails after 10s with what it
// last said.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 10s for %s; last saw %s", what, saw)
		}
		<-tick.C
	}
}

func loopNode(name, cpu string) *api.Node {
	n := cacheNode(name, cpu)
	return n
}

func loopPod(name, cpu string) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}}
	p.Spec.Containers = []api.Container{{Name: "c", Resources: api.ResourceRequirements{Requests: api.ResourceList{"cpu": api.MustParse(cpu)}}}}
	return p
}

func getPod(t *testing.T, c client.Interface, name string) *api.Pod {
	t.Helper()
	p, err := client.For[*api.Pod](c).Get(context.Background(), "default", name)
	if err != nil {
		t.Fatalf("Get(pod %s) = %v", name, err)
	}
	return p
}

func scheduledCondition(p *api.Pod) *api.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == api.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func eventsOf(t *testing.T, c client.Interface, pod string) []string {
	t.Helper()
	evs, _, err := client.For[*api.Event](c).List(context.Background(), "default", client.ListOptions{})
	if err != nil {
		t.Fatalf("List(events) = %v", err)
	}
	var out []string
	for _, e := range evs {
		if e.InvolvedObject.Name == pod {
			out = append(out, e.Type+" "+e.Reason+" "+e.Message)
		}
	}
	return out
}

func TestLoopBindFailureForgetsAndRetriesWithBackoff(t *testing.T) {
	c := newFlaky()
	c.failBind = true
	ctx := context.Background()
	if _, err := c.Create(ctx, loopNode("node-1", "1")); err != nil {
		t.Fatal(err)
	}
	startLoop(t, c)
	if _, err := c.Create(ctx, loopPod("web", "800m")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "pod web bound after its first Bind failed", func() (bool, string) {
		p := getPod(t, c, "web")
		return p.Spec.NodeName == "node-1", fmt.Sprintf("nodeName %q, binds %v", p.Spec.NodeName, c.bindTimes("web"))
	})
	times := c.bindTimes("web")
	if len(times) != 2 {
		t.Fatalf("Bind calls for web = %d, want 2 (one failed, one retried)", len(times))
	}
	// The retry waits out the 1s back-off of the first attempt (less a
	// margin for the time between the failure and its requeue).
	if gap := times[1].Sub(times[0]); gap < 900*time.Millisecond {
		t.Errorf("Bind retried %v after the failure, want after the 1s back-off", gap)
	}
	// The room was given back when the Bind failed: 800m of 1 cpu is
	// counted once, so a 300m pod does not fit.
	if _, err := c.Create(ctx, loopPod("small", "300m")); err != nil {
		t.Fatal(err)
	}
	want := `Warning FailedScheduling binding rejected: running Bind plugin "DefaultBinder": apiserver on fire`
	waitFor(t, "the FailedScheduling event of the failed Bind, and small said not to fit", func() (bool, string) {
		evs := eventsOf(t, c, "web")
		c := scheduledCondition(getPod(t, c, "small"))
		okEvent := false
		for _, e := range evs {
			okEvent = okEvent || e == want
		}
		return okEvent && c != nil && c.Reason == api.PodReasonUnschedulable && strings.Contains(c.Message, "1 Insufficient cpu"),
			fmt.Sprintf("events of web %q, condition of small %+v", evs, c)
	})
}

func TestLoopStatusConflictRetried(t *testing.T) {
	c := newFlaky()
	c.conflictStatus = true
	ctx := context.Background()
	if _, err := c.Create(ctx, loopNode("node-1", "1")); err != nil {
		t.Fatal(err)
	}
	s := startLoop(t, c)
	pod := loopPod("big", "2")
	pod.Labels = map[string]string{"app": "big"}
	if _, err := c.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "pod big PodScheduled False, Unschedulable, after a Conflict", func() (bool, string) {
		cond := scheduledCondition(getPod(t, c, "big"))
		return cond != nil && cond.Status == api.ConditionFalse && cond.Reason == api.PodReasonUnschedulable &&
			strings.HasPrefix(cond.Message, "0/1 nodes are available: 1 Insufficient cpu."), fmt.Sprintf("%+v", cond)
	})
	// Its own status write does not move it out of the unschedulable
	// set (isPodUpdated ignores the status): once the informer has seen
	// the condition, the pod waits there.
	waitFor(t, "pod big in the unschedulable set with its condition seen", func() (bool, string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		seen := false
		for _, p := range s.pending {
			cond := scheduledCondition(p)
			seen = cond != nil && cond.Status == api.ConditionFalse
		}
		a, b, u := s.queue.Len()
		cycle := s.queue.SchedulingCycle()
		return seen && a == 0 && b == 0 && u == 1 && cycle == 1, fmt.Sprintf("condition seen %v, queue %d active %d backoff %d unschedulable, %d attempts (want 1)", seen, a, b, u, cycle)
	})
}
