package remote

import (
	"testing"

	"github.com/kubekata/kubekata/harness/reconciletest"
	reconcile "github.com/kubekata/kubekata/solutions/01-reconcile"
)

// The Plan round trip through the learner's program, beside the same call
// in process as the baseline: compare ns/op pairwise.

func BenchmarkPlanInProcess10(b *testing.B) { benchPlan(b, nil, 10) }
func BenchmarkPlanRemote10(b *testing.B)    { benchPlan(b, remotePlan(b), 10) }
func BenchmarkPlanInProcess100(b *testing.B) {
	benchPlan(b, nil, 100)
}
func BenchmarkPlanRemote100(b *testing.B) { benchPlan(b, remotePlan(b), 100) }

func remotePlan(b *testing.B) *Program {
	p, _ := fakeB(b, "reconcile")
	return p
}

func benchPlan(b *testing.B, p *Program, n int) {
	pods := reconciletest.Pods(reconciletest.Many(n)...)
	plan := reconcile.Plan
	if p != nil {
		plan = Plan(p)
		plan(n/2, pods, reconciletest.Now) // start the program outside the timing
	}
	b.ResetTimer()
	for b.Loop() {
		if got := plan(n/2, pods, reconciletest.Now); len(got.Delete) != n-n/2 {
			b.Fatalf("Plan(%d, %d pods) = %v, want %d deletions", n/2, n, got, n-n/2)
		}
	}
}
