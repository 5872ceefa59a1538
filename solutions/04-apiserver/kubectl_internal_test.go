package apiserver

import (
	"testing"

	"github.com/kubekata/kubekata/harness/apiservertest"
)

// TestKubectl checks the reference against the real kubectl (skipped
// when it is not installed). It lives only here: it is not graded.
func TestKubectl(t *testing.T) { apiservertest.RunKubectl(t, New) }
