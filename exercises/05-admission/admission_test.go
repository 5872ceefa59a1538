package admission

import (
	"testing"

	"github.com/kubekata/kubekata/harness/admissiontest"
)

func TestAdmission(t *testing.T) {
	admissiontest.Run(t, admissiontest.Impl{NewRequestInfo: NewRequestInfo, NewAuthorizer: NewAuthorizer, New: New})
}
