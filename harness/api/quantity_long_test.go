package api

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// exactNanos is the value of str in nano units rounded away from zero,
// computed the slow way, with every digit: upstream's result
// (k8s.io/apimachinery/pkg/api/resource/quantity.go, ParseQuantity, rounds
// non-zero values up with inf.RoundUp at Nano scale).
func exactNanos(t *testing.T, sign, num, denom, suffix string) *big.Int {
	t.Helper()
	r, ok := new(big.Rat).SetString(num + "." + denom + "0")
	if !ok {
		t.Fatalf("big.Rat.SetString(%q) failed", num+"."+denom)
	}
	base, exp, _, ok := interpretSuffix(suffix)
	if !ok {
		t.Fatalf("interpretSuffix(%q) failed", suffix)
	}
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(int64(base)), big.NewInt(int64(abs32(exp))), nil))
	if exp < 0 {
		scale.Inv(scale)
	}
	r.Mul(r, scale)
	r.Mul(r, new(big.Rat).SetInt64(1e9))
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	if sign == "-" {
		q.Neg(q)
	}
	return q
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// TestParseQuantityLongFraction checks that folding the fraction digits
// past maxFractionDigits changes no value: random quantities with up to
// 400 fraction digits, where only a digit far past the bound is non-zero
// or every digit counts, parse to the exactly rounded value.
func TestParseQuantityLongFraction(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 8))
	suffixes := []string{"", "n", "m", "k", "E", "Ki", "Ei", "e100", "e-100", "e-9", "e9"}
	digits := func(n int, sparse bool) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = '0'
			if !sparse || rng.IntN(50) == 0 {
				b[i] = byte('0' + rng.IntN(10))
			}
		}
		return string(b)
	}
	for i := 0; i < 3000; i++ {
		sign := []string{"", "-"}[rng.IntN(2)]
		num := digits(rng.IntN(4), false)
		denom := digits(rng.IntN(400), rng.IntN(2) == 0)
		if rng.IntN(4) == 0 {
			// One non-zero digit just past the bound, or far past it.
			denom = strings.Repeat("0", maxFractionDigits+rng.IntN(3)) + "1" + strings.Repeat("0", rng.IntN(100))
		}
		suffix := suffixes[rng.IntN(len(suffixes))]
		if suffix == "e100" && len(strings.TrimLeft(num, "0")) > 0 {
			suffix = "e9" // keep the magnitude inside maxExponent
		}
		in := sign + num + "." + denom + suffix
		q, err := ParseQuantity(in)
		if err != nil {
			t.Fatalf("ParseQuantity(%q) = %v", in, err)
		}
		if want := exactNanos(t, sign, orZero(num), denom, suffix); q.nanos().Cmp(want) != 0 {
			t.Fatalf("ParseQuantity(%q) = %s nanos, want %s nanos", in, q.nanos(), want)
		}
	}
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// TestParseQuantityHugeInput checks that the worst inputs a 3 MiB body
// can hold are cheap: three million fraction digits (which took 13 to 40
// CPU-seconds before the bound), and three million integer digits, which
// are out of range.
func TestParseQuantityHugeInput(t *testing.T) {
	const n = 3_000_000
	tests := []struct {
		in   string
		want string
		err  error
	}{
		{"0." + strings.Repeat("3", n), "333333334n", nil}, // rounded up to the next nano unit
		{"1." + strings.Repeat("0", n) + "1", "1000000001n", nil},
		{"1." + strings.Repeat("0", n), "1", nil},
		{"1." + strings.Repeat("0", n) + "1Ki", "1024000000001n", nil},
		{strings.Repeat("9", n), "", ErrTooLarge},
		{strings.Repeat("9", n) + "Ki", "", ErrTooLarge},
	}
	for _, tt := range tests {
		start := time.Now()
		q, err := ParseQuantity(tt.in)
		took := time.Since(start)
		if err != tt.err {
			t.Errorf("ParseQuantity(<%d chars>) error = %v, want %v", len(tt.in), err, tt.err)
			continue
		}
		if err == nil && q.String() != tt.want {
			t.Errorf("ParseQuantity(<%d chars: %.12s...>) = %s, want %s", len(tt.in), tt.in, q.String(), tt.want)
		}
		// Not a timing test (the benchmark measures it): a guard
		// against the quadratic parse coming back, with room for a
		// loaded machine and the race detector.
		if took > 5*time.Second {
			t.Errorf("ParseQuantity(<%d chars>) took %v", len(tt.in), took)
		}
	}
}

// BenchmarkParseQuantityLongFraction measures the worst input a 3 MiB
// body can hold against the baseline of a one-digit quantity; compare the
// ns/op figures of one run (BenchmarkParseQuantityOneDigitBaseline).
func BenchmarkParseQuantityLongFraction(b *testing.B) {
	in := "0." + strings.Repeat("3", 3_000_000)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ParseQuantity(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseQuantityOneDigitBaseline(b *testing.B) {
	for b.Loop() {
		if _, err := ParseQuantity("3"); err != nil {
			b.Fatal(err)
		}
	}
}
