package api

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The two-word fast path of ScaledValue answers what the math/big path
// answers, for every value past an int64 of nanos it takes.
func TestScaledValueTwoWordsMatchesBig(t *testing.T) {
	slow := func(n *big.Int, scale Scale) int64 {
		v := scaleUp(n, int(Nano)-int(scale))
		switch {
		case v.IsInt64():
			return v.Int64()
		case v.Sign() > 0:
			return math.MaxInt64
		default:
			return math.MinInt64
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	cases := []*big.Int{
		new(big.Int).Mul(big.NewInt(32<<30), nanosPerOne), // 32Gi
		new(big.Int).Add(new(big.Int).Mul(big.NewInt(32<<30), nanosPerOne), big.NewInt(1)),
		new(big.Int).Lsh(big.NewInt(1), 127),
		new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1)),
		new(big.Int).Lsh(big.NewInt(1), 64),
	}
	for range 2000 {
		n := new(big.Int).SetUint64(r.Uint64())
		n.Lsh(n, uint(r.IntN(64)))
		n.Add(n, new(big.Int).SetUint64(r.Uint64()))
		cases = append(cases, n)
	}
	for _, n := range cases {
		for _, neg := range []bool{false, true} {
			m := new(big.Int).Set(n)
			if neg {
				m.Neg(m)
			}
			var q Quantity
			q.set(m)
			for _, scale := range []Scale{Nano, Micro, Milli, 0, Kilo, Mega, Giga} {
				if got, want := q.ScaledValue(scale), slow(m, scale); got != want {
					t.Fatalf("Quantity(%s nanos).ScaledValue(%d) = %d, want %d", m, scale, got, want)
				}
			}
		}
	}
}

func BenchmarkValue32Gi(b *testing.B) {
	q := MustParse("32Gi")
	b.ReportAllocs()
	for b.Loop() {
		if q.Value() != 32<<30 {
			b.Fatal("wrong")
		}
	}
}

// The baseline: the same read through math/big, as before the fast path.
func BenchmarkValue32GiBig(b *testing.B) {
	q := MustParse("32Gi")
	b.ReportAllocs()
	for b.Loop() {
		if v := scaleUp(q.nanos(), int(Nano)); !v.IsInt64() || v.Int64() != 32<<30 {
			b.Fatal("wrong")
		}
	}
}
