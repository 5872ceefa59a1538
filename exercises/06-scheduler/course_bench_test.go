package scheduler

import (
	"testing"

	"github.com/kubekata/kubekata/harness/schedulertest"
)

// The course's benchmark targets (kata bench 06), on upstream's
// SchedulingBasic shape (nodes of 4 cpu, 32Gi and 110 pods; pods of 100m
// and 500Mi): one decision over 5,000 nodes as the loop makes it, beside
// the naive way (every node scored, every NodeInfo rebuilt for every
// pod) in the same run; and the whole loop placing 10,000 pods on 5,000
// nodes through a fake apiserver.

var decisions = schedulertest.Impl{NewNodeInfo: NewNodeInfo, Schedule: Schedule}

func BenchmarkSchedule5000(b *testing.B) { schedulertest.BenchSchedule(b, decisions, 5000) }

func BenchmarkScheduleNaive5000(b *testing.B) {
	schedulertest.BenchScheduleNaive(b, decisions, 5000)
}

func BenchmarkSchedulingBasic5000(b *testing.B) {
	schedulertest.BenchSchedulingBasic(b, schedulertest.Impl{New: New}, 5000, 10000)
}
