package replicasettest

import "github.com/kubekata/kubekata/harness/suite"

// The pure steps until they are written: each fails.

func statusStep(t *suite.T, impl Impl) { t.Fatal("replicasettest: step not written yet") }
