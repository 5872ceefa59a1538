package namespace

import (
	"fmt"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/namespaces"
)

// benchResults are the results of a pass over a namespace with 30 kinds,
// each with 10 objects left that 5 finalizers hold (each object held by
// two of them), the pods' grace pending: the pass a controller makes
// again and again while a big namespace drains.
func benchResults() []namespaces.KindResult {
	results := make([]namespaces.KindResult, 30)
	for i := range results {
		fins := make(map[string]int, 5)
		for f := range 5 {
			fins[fmt.Sprintf("example.com/finalizer-%d", f)] = 4
		}
		results[i] = namespaces.KindResult{Resource: fmt.Sprintf("kind%02ds.example.com", i), Remaining: 10, Finalizers: fins, Estimate: 30}
	}
	return results
}

// benchConditionsInput is benchResults and the conditions the previous,
// identical pass wrote: the steady state, where Conditions works out
// every message and finds nothing to write.
func benchConditionsInput() ([]api.NamespaceCondition, []namespaces.KindResult) {
	results := benchResults()
	conds, _ := Conditions(nil, results, pureT0)
	return conds, results
}

// BenchmarkConditions is one Conditions over benchConditionsInput.
func BenchmarkConditions(b *testing.B) {
	conds, results := benchConditionsInput()
	now := pureAt(60)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = Conditions(conds, results, now)
	}
}

// BenchmarkConditionsBaseline is BenchmarkConditions's baseline: deep
// copies of the same conditions and results, the least a pass does that
// reads its namespace from a cache and builds its results fresh.
func BenchmarkConditionsBaseline(b *testing.B) {
	conds, results := benchConditionsInput()
	b.ReportAllocs()
	for b.Loop() {
		_ = api.DeepCopyValue(conds)
		_ = api.DeepCopyValue(results)
	}
}

// benchLeftovers are 1,000 objects left after their deletes, each held
// by 3 finalizers out of 6 (a garbage collector's foregroundDeletion and
// two of a controller's own).
func benchLeftovers() []namespaces.Leftover {
	left := make([]namespaces.Leftover, 1000)
	for i := range left {
		left[i] = namespaces.Leftover{
			Name:       fmt.Sprintf("obj-%04d", i),
			Finalizers: []string{"foregroundDeletion", fmt.Sprintf("example.com/a-%d", i%3), fmt.Sprintf("example.com/b-%d", i%2)},
		}
	}
	return left
}

// BenchmarkSweep is one Sweep over benchLeftovers.
func BenchmarkSweep(b *testing.B) {
	left := benchLeftovers()
	b.ReportAllocs()
	for b.Loop() {
		_ = Sweep("dev", pureKindRS, left, 0)
	}
}

// BenchmarkSweepBaseline is BenchmarkSweep's baseline: a deep copy of the
// same leftovers, what building them from a List's items costs at least.
func BenchmarkSweepBaseline(b *testing.B) {
	left := benchLeftovers()
	b.ReportAllocs()
	for b.Loop() {
		_ = api.DeepCopyValue(left)
	}
}

// TestInternalBenchInputs checks that the benchmarks measure what they
// say: Conditions names every kind and finalizer and finds nothing
// changed; Sweep counts every finalizer and waits the finalizer estimate.
func TestInternalBenchInputs(t *testing.T) {
	conds, results := benchConditionsInput()
	out, changed := Conditions(conds, results, pureAt(60))
	if changed || len(out) != 5 {
		t.Errorf("Conditions(bench conditions, bench results, t0+60s) = %d conditions, changed %v, want 5, unchanged", len(out), changed)
	}
	if want := fmt.Sprintf(namespaces.MessageFinalizersRemain, "example.com/finalizer-0 in 120 resource instances, example.com/finalizer-1 in 120 resource instances, example.com/finalizer-2 in 120 resource instances, example.com/finalizer-3 in 120 resource instances, example.com/finalizer-4 in 120 resource instances"); len(out) == 5 && out[4].Message != want {
		t.Errorf("Conditions(bench) finalizers message %q, want %q", out[4].Message, want)
	}
	r := Sweep("dev", pureKindRS, benchLeftovers(), 0)
	want := map[string]int{"foregroundDeletion": 1000, "example.com/a-0": 334, "example.com/a-1": 333, "example.com/a-2": 333, "example.com/b-0": 500, "example.com/b-1": 500}
	if r.Remaining != 1000 || r.Estimate != namespaces.FinalizerEstimate || r.Err != "" || fmt.Sprint(r.Finalizers) != fmt.Sprint(want) {
		t.Errorf("Sweep(bench leftovers) = %+v, want 1000 remaining, finalizers %v, estimate 15", r, want)
	}
}
