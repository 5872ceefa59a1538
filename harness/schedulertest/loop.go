package schedulertest

import "github.com/kubekata/kubekata/harness/suite"

// Steps 13-17. These are placeholders that helper B replaces (queue.go
// takes 13 and 14).

func queueOrderAndBackoff(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func unschedulablePods(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func bind(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func unschedulableAndRetry(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func assumedPods(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}
