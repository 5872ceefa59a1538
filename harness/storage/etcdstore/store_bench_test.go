package etcdstore_test

import (
	"testing"

	"github.com/kubekata/kubekata/harness/storage/etcdstore/etcdembed"
	"github.com/kubekata/kubekata/harness/storetest"
)

// The store's benchmarks on an embedded member, beside the plain bbolt
// baseline of harness/storetest/bench.go. Run them in one go test with
// the reference store's, so that both are measured on the same machine
// at the same time:
//
//	go test -run '^$' -bench 'Put1$|Put16$|BaselineBoltUpdate1$' ./solutions/03-store ./harness/storage/etcdstore

func BenchmarkBaselineBoltUpdate1(b *testing.B) { storetest.BenchmarkBaselineBoltUpdate1(b) }
func BenchmarkPut1(b *testing.B)                { storetest.BenchmarkPut1(b, etcdembed.Open) }
func BenchmarkPut16(b *testing.B)               { storetest.BenchmarkPut16(b, etcdembed.Open) }
