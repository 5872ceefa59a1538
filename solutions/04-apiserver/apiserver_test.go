package apiserver

import (
	"testing"

	"github.com/kubekata/kubekata/harness/apiservertest"
)

func TestAPIServer(t *testing.T) { apiservertest.Run(t, New) }
