package replicaset

import (
	"testing"

	"github.com/kubekata/kubekata/harness/replicasettest"
)

func TestReplicaSet(t *testing.T) {
	replicasettest.Run(t, replicasettest.Impl{NewPod: NewPod, Claim: Claim, NewExpectations: NewExpectations, Status: Status, New: New})
}
