package schedulertest_test

import (
	"fmt"
	"testing"

	"github.com/kubekata/kubekata/harness/schedulertest"
)

// BenchmarkSchedule runs the decision benchmarks against the reference,
// the naive baseline beside each size, so that the helpers the exercise's
// bench file calls are themselves run (`go test -run '^$' -bench
// Schedule ./harness/schedulertest/`).
func BenchmarkSchedule(b *testing.B) {
	for _, n := range []int{500, 5000, 15000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) { schedulertest.BenchSchedule(b, reference(), n) })
		b.Run(fmt.Sprintf("nodes=%d/naive", n), func(b *testing.B) { schedulertest.BenchScheduleNaive(b, reference(), n) })
	}
}
