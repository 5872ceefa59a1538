package lifecycle

import (
	"testing"

	"github.com/kubekata/kubekata/harness/nodelifecycletest"
)

func TestNodeLifecycle(t *testing.T) {
	nodelifecycletest.Run(t, nodelifecycletest.Impl{Health: Health, Decide: Decide, SwapTaints: SwapTaints, Disruption: Disruption, Evict: Evict, NotReady: NotReady, New: New})
}
