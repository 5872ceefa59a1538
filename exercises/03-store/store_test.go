package store

import (
	"testing"

	"github.com/kubekata/kubekata/harness/storetest"
)

func TestStore(t *testing.T) { storetest.Run(t, Open) }
