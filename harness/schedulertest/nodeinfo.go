package schedulertest

import "github.com/kubekata/kubekata/harness/suite"

func nodeInfo(t *suite.T, impl Impl) {
	t.Fatal("schedulertest: step not written yet")
}
