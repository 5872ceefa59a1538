package schedulertest

import "github.com/kubekata/kubekata/harness/suite"

func bind(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func unschedulableAndRetry(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func assumedPods(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}
