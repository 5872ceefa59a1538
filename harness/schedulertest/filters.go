package schedulertest

import "github.com/kubekata/kubekata/harness/suite"

func nodeUnschedulableAndName(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func resourcesFit(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func nodeAffinity(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func taintToleration(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func nodePorts(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func filterOrder(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}
