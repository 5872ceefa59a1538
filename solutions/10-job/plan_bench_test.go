package job

import (
	"fmt"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/jobs"
)

// benchInput is an Indexed Job of 1000 completions and parallelism 300
// with 500 pods in every state: 150 succeeded, 50 failed (the last a
// second ago, so the back-off holds; backoffLimit 100), 250 running (half of them ready,
// some with restarts), 30 pending and 20 being deleted. With 250 active
// of 300 wanted, the sync counts everything, works out completedIndexes
// and the back-off, and writes the status: the heaviest pass of a big
// Job that does not delete.
func benchInput() jobs.Input {
	j := planStarted(planIndexed(planJob("bench", 1000, 300)), planT0)
	j.Spec.BackoffLimit = planI32(100)
	var pods []api.Pod
	add := func(n int, phase api.PodPhase, edit func(i int, p api.Pod) api.Pod) {
		for i := range n {
			ix := len(pods)
			p := planPod(j, fmt.Sprintf("bench-%d", ix), phase, ix)
			pods = append(pods, edit(i, p))
		}
	}
	add(150, api.PodSucceeded, func(i int, p api.Pod) api.Pod {
		return planFinished(p, planAt(time.Duration(i)*time.Second))
	})
	add(50, api.PodFailed, func(i int, p api.Pod) api.Pod {
		return planFinished(p, planAt(time.Duration(150+i)*time.Second))
	})
	add(250, api.PodRunning, func(i int, p api.Pod) api.Pod {
		p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "main", RestartCount: int32(i % 3)}}
		if i%2 == 0 {
			p = planReady(p, planAt(time.Duration(i)*time.Second))
		}
		return p
	})
	add(30, api.PodPending, func(_ int, p api.Pod) api.Pod { return p })
	add(20, api.PodRunning, func(i int, p api.Pod) api.Pod { return planDeleting(p, planAt(time.Duration(i)*time.Second)) })
	return jobs.Input{Job: j, Pods: pods, Now: planAt(200 * time.Second)}
}

// BenchmarkPlan is one sync's decision over benchInput.
func BenchmarkPlan(b *testing.B) {
	in := benchInput()
	b.ReportAllocs()
	for b.Loop() {
		_ = Plan(in)
	}
}

// BenchmarkPlanBaseline is the baseline of BenchmarkPlan: deep copies of
// the same input's Job and pods, what the loop does to every object it
// reads from its cache before a sync, so that the ratio says how Plan
// compares with the least work a sync of that Job does anyway.
func BenchmarkPlanBaseline(b *testing.B) {
	in := benchInput()
	b.ReportAllocs()
	for b.Loop() {
		_ = api.DeepCopy(&in.Job)
		for i := range in.Pods {
			_ = api.DeepCopy(&in.Pods[i])
		}
	}
}

// TestInternalBenchInput checks that the benchmark measures the pass it
// says: no pod written, the back-off holding, the status changed.
func TestInternalBenchInput(t *testing.T) {
	in := benchInput()
	p := callPlan(t, in)
	if len(p.Create) != 0 || len(p.Delete) != 0 || p.RequeueAfter <= 0 || p.Status == nil {
		t.Errorf("Plan(bench input) = %s, want only a status and a back-off requeue", describeOut(p))
	}
	if p.Status != nil && (p.Status.Active != 280 || p.Status.Succeeded != 150 || p.Status.Failed != 70 || *p.Status.Terminating != 20) {
		t.Errorf("Plan(bench input) = %s, want active 280 succeeded 150 failed 70 terminating 20", describeOut(p))
	}
}
