package store

import (
	"testing"

	"github.com/kubekata/kubekata/harness/storetest"
)

// The store's benchmarks, beside plain bbolt as the baseline; `kata bench
// 03` shows them with their targets. See harness/storetest/bench.go.

func BenchmarkBaselineBoltUpdate1(b *testing.B)  { storetest.BenchmarkBaselineBoltUpdate1(b) }
func BenchmarkPut1(b *testing.B)                 { storetest.BenchmarkPut1(b, Open) }
func BenchmarkBaselineBoltUpdate16(b *testing.B) { storetest.BenchmarkBaselineBoltUpdate16(b) }
func BenchmarkPut16(b *testing.B)                { storetest.BenchmarkPut16(b, Open) }
func BenchmarkWatchLatency100(b *testing.B)      { storetest.BenchmarkWatchLatency100(b, Open) }
func BenchmarkOpen100k(b *testing.B)             { storetest.BenchmarkOpen100k(b, Open) }
