package scheduler

import (
	"fmt"
	"testing"

	"github.com/kubekata/kubekata/harness/schedulertest"
)

// BenchmarkSchedule measures one decision at 500, 5,000 and 15,000 nodes
// of upstream's SchedulingBasic shape with the suite's helpers (the
// course's own target is at 5,000, in course_bench_test.go): "fast" is
// Schedule as the loop calls it, "naive" the baseline of issue 12 in the
// same run (every node scored, every NodeInfo rebuilt for every pod). The
// cost of a fast decision must grow far slower than the node count, as
// percentageOfNodesToScore makes it.
func BenchmarkSchedule(b *testing.B) {
	for _, n := range []int{500, 5000, 15000} {
		b.Run(fmt.Sprintf("nodes=%d/fast", n), func(b *testing.B) { schedulertest.BenchSchedule(b, decisions, n) })
		b.Run(fmt.Sprintf("nodes=%d/naive", n), func(b *testing.B) { schedulertest.BenchScheduleNaive(b, decisions, n) })
	}
}
