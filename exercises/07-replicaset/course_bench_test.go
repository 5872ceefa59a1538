package replicaset

import (
	"testing"

	"github.com/kubekata/kubekata/harness/replicasettest"
)

// The course's benchmark target (kata bench 07, issue 13): the whole
// loop bringing 1,000 new ReplicaSets of 10 replicas to their 10,000 pods
// on a fake apiserver, beside every write such a loop must make (the
// 10,000 pods, an Event for each and a status write per ReplicaSet) made
// directly, one after another, with no controller, in the same run: the
// loop should take at most twice as long. What it costs beyond those
// writes is the controller's own: the informers' watches, the queue,
// the copies. BenchmarkCreateDirect, the pods alone, shows the writes'
// share.

func BenchmarkConverge(b *testing.B) {
	replicasettest.BenchConverge(b, replicasettest.Impl{New: New}, 1000, 10)
}

func BenchmarkWritesDirect(b *testing.B) { replicasettest.BenchWritesDirect(b, 1000, 10) }

func BenchmarkCreateDirect(b *testing.B) { replicasettest.BenchCreateDirect(b, 1000, 10) }
