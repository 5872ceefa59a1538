package replicaset

import (
	"testing"

	"github.com/kubekata/kubekata/harness/replicasettest"
)

// The course's benchmark target (kata bench 07, issue 13): the whole
// loop bringing 1,000 new ReplicaSets of 10 replicas to their 10,000 pods
// on a fake apiserver, beside the same 10,000 pods created directly,
// one after another, with no controller, in the same run: the loop
// should take at most 1.5 times as long.

func BenchmarkConverge(b *testing.B) {
	replicasettest.BenchConverge(b, replicasettest.Impl{New: New}, 1000, 10)
}

func BenchmarkCreateDirect(b *testing.B) { replicasettest.BenchCreateDirect(b, 1000, 10) }
