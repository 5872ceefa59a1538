package storage_test

import (
	"testing"

	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/storetest"
)

// TestStore runs the conformance suite against the in-memory store; the
// on-disk steps skip.
func TestStore(t *testing.T) { storetest.Run(t, storage.OpenMemory, storetest.InMemory()) }
