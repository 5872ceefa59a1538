package reconcile

import (
	"testing"

	"github.com/kubekata/kubekata/harness/reconciletest"
)

func TestReconcile(t *testing.T) { reconciletest.Run(t, Plan) }
