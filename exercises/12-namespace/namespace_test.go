package namespace

import (
	"testing"

	"github.com/kubekata/kubekata/harness/namespacetest"
)

func TestNamespace(t *testing.T) {
	namespacetest.Run(t, namespacetest.Impl{Decide: Decide, Sweep: Sweep, GraceEstimate: GraceEstimate, Conditions: Conditions, Next: Next, Finalize: Finalize, ServiceAccountsToCreate: ServiceAccountsToCreate, New: New})
}
