package schedulertest

import "github.com/kubekata/kubekata/harness/suite"

func selectHost(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}

func fitError(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}
