package proxy

// Pick walks the rules of a KUBE-SVC- chain as the kernel walks them for
// a new connection: rule i matches when rand() < its Probability (the
// statistic module's --mode random, xt_statistic.c), an unconditional
// rule (Probability 1) matches without a draw, and the first rule that
// matches wins. It returns the index of that endpoint, or false when no
// rule matched (then the connection falls out of the chain: no DNAT).
// rand returns numbers in [0, 1), as math/rand/v2's Float64.
//
// Upstream's probabilities are 1/(n-i) for endpoint i of n, the last
// one unconditional (writeServiceToEndpointRules in
// pkg/proxy/iptables/proxier.go): endpoint i is reached with what the
// rules before it left, (n-i)/n, and taken with 1/(n-i) of that, so each
// gets 1/n.
func Pick(endpoints []Endpoint, rand func() float64) (int, bool) {
	for i, e := range endpoints {
		if e.Probability >= 1 || rand() < e.Probability {
			return i, true
		}
	}
	return -1, false
}
