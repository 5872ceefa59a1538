package admission

import (
	"testing"

	"github.com/kubekata/kubekata/harness/admissiontest"
)

// The course's benchmark targets (kata bench 05): one RBAC decision over
// 1,000 Roles and RoleBindings plus the bootstrap policy, and the same
// loop with an authorizer that allows everything, in the same run.

func BenchmarkAuthorize1000(b *testing.B) { admissiontest.BenchAuthorize(b, NewAuthorizer, 1000) }

func BenchmarkBaselineAllowAll(b *testing.B) { admissiontest.BenchAllowAll(b) }
