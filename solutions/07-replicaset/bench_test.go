package replicaset

import (
	"fmt"
	"testing"

	"github.com/kubekata/kubekata/harness/replicasettest"
)

// BenchmarkConvergeShape measures the loop on the same 10,000 pods as the
// course's BenchmarkConverge (course_bench_test.go: 1,000 ReplicaSets of
// 10) in another shape, beside its baseline in the same run (the pods
// created straight through the fake): 10,000 ReplicaSets of 1, where the
// cost per ReplicaSet (syncs, status writes, events) weighs most.
//
// Not 10 of 1,000: the fake names a pod with 5 random characters after
// its generateName and does not retry a name already taken (the
// apiserver retries, RetryGenerateName in k8s.io/apiserver's
// registry/generic/registry/store.go), so 1,000 pods of one prefix
// collide every few runs and fail the benchmark.
func BenchmarkConvergeShape(b *testing.B) {
	for _, s := range []struct{ rs, size int }{{10000, 1}} {
		name := fmt.Sprintf("rs=%d/size=%d", s.rs, s.size)
		b.Run(name, func(b *testing.B) {
			replicasettest.BenchConverge(b, replicasettest.Impl{New: New}, s.rs, s.size)
		})
		b.Run(name+"/direct", func(b *testing.B) { replicasettest.BenchCreateDirect(b, s.rs, s.size) })
	}
}
