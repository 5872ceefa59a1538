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
