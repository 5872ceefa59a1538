package deployment

import (
	"testing"

	"github.com/kubekata/kubekata/harness/rollouttest"
)

func TestDeployment(t *testing.T) {
	rollouttest.Run(t, rollouttest.Impl{Bounds: Bounds, Plan: Plan, New: New})
}
