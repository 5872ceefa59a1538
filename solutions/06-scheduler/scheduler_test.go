package scheduler

import (
	"testing"

	"github.com/kubekata/kubekata/harness/schedulertest"
)

func TestScheduler(t *testing.T) {
	schedulertest.Run(t, schedulertest.Impl{NewNodeInfo: NewNodeInfo, Filter: Filter, Score: Score, Schedule: Schedule, NewQueue: NewQueue, New: New})
}
