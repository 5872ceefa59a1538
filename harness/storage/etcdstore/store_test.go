package etcdstore_test

import (
	"testing"

	"go.etcd.io/etcd/server/v3/storage/wal"

	"github.com/kubekata/kubekata/harness/storage/etcdstore/etcdembed"
	"github.com/kubekata/kubekata/harness/storetest"
)

func init() {
	// etcd preallocates each segment of its write-ahead log, 64 MB by
	// default; the suite copies a store's directory many times, so the
	// tests cut it to 1 MB (etcd's own tests set it lower still,
	// server/storage/wal/repair_test.go).
	wal.SegmentSizeBytes = 1 << 20
}

// TestStore is the store suite on an etcd member of each store's own;
// once every step's stores are closed, no goroutine of theirs is left.
func TestStore(t *testing.T) {
	checkGoroutines(t)
	storetest.Run(t, etcdembed.Open)
}
