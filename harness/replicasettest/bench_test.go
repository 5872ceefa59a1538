package replicasettest_test

import (
	"fmt"
	"testing"

	"github.com/kubekata/kubekata/harness/replicasettest"
)

// BenchmarkConverge runs the loop benchmark against the reference beside
// its baseline, so that the helpers the exercise's bench file calls are
// themselves run (`go test -run '^$' -bench Converge
// ./harness/replicasettest/`): issue 13's 1,000 ReplicaSets of 10, and a
// small cluster; beside the pods created directly (the issue's
// baseline), every write the controller must make (pods, their Events,
// the status writes), made directly.
func BenchmarkConverge(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("rs=%d/size=10", n), func(b *testing.B) { replicasettest.BenchConverge(b, reference(), n, 10) })
		b.Run(fmt.Sprintf("rs=%d/size=10/direct", n), func(b *testing.B) { replicasettest.BenchCreateDirect(b, n, 10) })
		b.Run(fmt.Sprintf("rs=%d/size=10/writes", n), func(b *testing.B) { replicasettest.BenchWritesDirect(b, n, 10) })
	}
}
