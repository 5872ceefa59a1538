package proxy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pickShares draws Pick n times and returns the share of each endpoint
// and of "no match" (the last element).
func pickShares(eps []Endpoint, draws int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	counts := make([]int, len(eps)+1)
	for range draws {
		i, ok := Pick(eps, r.Float64)
		if !ok {
			i = len(eps)
		}
		counts[i]++
	}
	shares := make([]float64, len(counts))
	for i, c := range counts {
		shares[i] = float64(c) / float64(draws)
	}
	return shares
}

// upstreamEndpoints are n endpoints with the probabilities upstream
// writes: 1/(n-i) printed with 10 decimals, the last unconditional.
func upstreamEndpoints(n int) []Endpoint {
	eps := make([]Endpoint, n)
	for i := range eps {
		p := 1.0
		if i < n-1 {
			p, _ = strconv.ParseFloat(fmt.Sprintf("%0.10f", 1.0/float64(n-i)), 64)
		}
		eps[i] = Endpoint{Addr: fmt.Sprintf("127.244.0.%d:80", i+1), Probability: p}
	}
	return eps
}

// TestPickUniform: upstream's probabilities give each of n endpoints 1/n.
func TestPickUniform(t *testing.T) {
	const draws = 30000
	for n := 1; n <= 6; n++ {
		shares := pickShares(upstreamEndpoints(n), draws, uint64(n))
		for i := range n {
			assert.InEpsilon(t, 1/float64(n), shares[i], 0.05,
				"Pick over %d endpoints with upstream's 1/(n-i), %d draws: endpoint %d got %.4f, want %.4f ± 5%%", n, draws, i, shares[i], 1/float64(n))
		}
		assert.Zero(t, shares[n], "Pick over %d endpoints: no match in %.4f of draws, want never (the last rule is unconditional)", n, shares[n])
	}
}

// TestPickSkewed: probability 1/n on every rule (a classic slip for
// 1/(n-i)) gives endpoint i (1/n)(1-1/n)^i and the last, unconditional,
// everything left, (1-1/n)^(n-1): for 3 endpoints 1/3, 2/9 and 4/9.
func TestPickSkewed(t *testing.T) {
	const draws = 30000
	for _, n := range []int{3, 5} {
		eps := upstreamEndpoints(n)
		for i := range n - 1 {
			eps[i].Probability = 1 / float64(n)
		}
		shares := pickShares(eps, draws, 42)
		left := 1.0
		for i := range n {
			want := left / float64(n)
			if i == n-1 {
				want = left
			}
			left -= want
			assert.InEpsilon(t, want, shares[i], 0.06,
				"Pick over %d endpoints, each rule 1/%d: endpoint %d got %.4f, want %.4f", n, n, i, shares[i], want)
		}
		assert.InEpsilon(t, math.Pow(1-1/float64(n), float64(n-1)), shares[n-1], 0.06, "the last endpoint's share")
		assert.Greater(t, shares[n-1], 1.25/float64(n),
			"Pick over %d endpoints, each rule 1/%d: the last got %.4f, want it visibly above the fair %.4f", n, n, shares[n-1], 1/float64(n))
	}
}

// TestPickWalk: the first rule that matches wins; an unconditional rule
// draws nothing; when no rule matches there is no endpoint.
func TestPickWalk(t *testing.T) {
	script := func(vs ...float64) (func() float64, *int) {
		calls := 0
		return func() float64 {
			require.Less(t, calls, len(vs), "Pick drew more numbers than the test scripted")
			calls++
			return vs[calls-1]
		}, &calls
	}
	eps := []Endpoint{{Addr: "a", Probability: 0.25}, {Addr: "b", Probability: 0.5}, {Addr: "c", Probability: 1}}
	for _, tc := range []struct {
		draws     []float64
		want      int
		wantCalls int
	}{
		{[]float64{0.1}, 0, 1},
		{[]float64{0.25, 0.4999}, 1, 2}, // rand() < p: 0.25 does not match 0.25
		{[]float64{0.9, 0.5}, 2, 2},     // the last rule draws nothing
	} {
		r, calls := script(tc.draws...)
		got, ok := Pick(eps, r)
		assert.True(t, ok, "Pick(%v, draws %v)", eps, tc.draws)
		assert.Equal(t, tc.want, got, "Pick(%v, draws %v)", eps, tc.draws)
		assert.Equal(t, tc.wantCalls, *calls, "Pick(%v, draws %v): numbers drawn", eps, tc.draws)
	}

	r, _ := script(0.5, 0.5)
	got, ok := Pick([]Endpoint{{Addr: "a", Probability: 0.5}, {Addr: "b", Probability: 0.25}}, r)
	assert.False(t, ok, "Pick with no rule matching: got %d, want false", got)
	got, ok = Pick(nil, func() float64 { t.Fatal("Pick(nil) drew a number"); return 0 })
	assert.False(t, ok, "Pick(nil): got %d, want false", got)
}
