package services

import (
	"testing"

	"github.com/kubekata/kubekata/harness/servicestest"
)

// The course's benchmark target (kata bench 14): a full sync of 10,000
// Services of 10 ready endpoints each, the size at which upstream's
// iptables proxier is known to slow down (largeClusterEndpointsThreshold
// is 1,000 endpoints), beside a baseline that only formats as many lines
// of the same length, in the same run: Rules should take at most twice as
// long.

func BenchmarkRules(b *testing.B) {
	servicestest.BenchRules(b, servicestest.Impl{Rules: Rules}, 10000, 10)
}

func BenchmarkRulesBaseline(b *testing.B) { servicestest.BenchRulesBaseline(b, 10000, 10) }

// A partial sync after one endpoint moved, restored over the tables of
// the last sync (harness/iptables), beside the full sync a restart does
// (Rules restored into fresh tables), in the same run. PartialRules
// still looks at every Service, as upstream's syncProxyRules does, and
// writes KUBE-SERVICES whole (10,066 lines instead of 420,023): expect
// about a fifth of the full sync's time (the reference: 0.18-0.23 s
// against 0.88-0.97 s here); the target is at most half.

func BenchmarkPartialRules(b *testing.B) {
	servicestest.BenchPartialRules(b, servicestest.Impl{Rules: Rules, PartialRules: PartialRules}, 10000, 10)
}

func BenchmarkFullSync(b *testing.B) {
	servicestest.BenchFullSync(b, servicestest.Impl{Rules: Rules}, 10000, 10)
}
