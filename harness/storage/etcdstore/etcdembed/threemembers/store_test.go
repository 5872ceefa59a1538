package threemembers

import (
	"os"
	"testing"

	"go.etcd.io/etcd/server/v3/storage/wal"

	"github.com/kubekata/kubekata/harness/storage/etcdstore/etcdembed"
	"github.com/kubekata/kubekata/harness/storetest"
)

func init() {
	// As in etcdstore's own test: 1 MB write-ahead log segments instead
	// of etcd's 64 MB, since the suite copies every directory.
	wal.SegmentSizeBytes = 1 << 20
}

// runEnv turns the suite on: it takes two minutes, and its step
// 12-bad-file does not fit its 30 s deadline (each of its ~50 child
// processes starts and stops three members, and a member of several
// stops in a second: embed's Etcd.Close gives its peer server a second
// to shut down).
const runEnv = "KUBEKATA_ETCD_THREE_MEMBERS"

// TestStore is the store suite on a cluster of three members per store:
// every step, with its copies of the directory (the members keep their
// URLs in cluster.json, as they keep them in their data), its crash of a
// process running all three, its damaged files (one member's file at a
// time) and its snapshot restored into all three. TestQuorum in
// etcdstore, which always runs, stops members under a running store.
func TestStore(t *testing.T) {
	if os.Getenv(runEnv) == "" {
		t.Skipf("the store suite on three members per store takes two minutes; run it with %s=1", runEnv)
	}
	storetest.Run(t, etcdembed.OpenCluster(3))
}
