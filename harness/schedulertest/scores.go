package schedulertest

import "github.com/kubekata/kubekata/harness/suite"

func leastAllocated(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func balancedAllocation(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func taintAndAffinityScores(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}
