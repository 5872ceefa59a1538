package proxy

import (
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/servicestest"
	services "github.com/kubekata/kubekata/solutions/14-services"
)

// What one sync of kube-proxy costs in a kata cluster of 10,000
// Services with 10 endpoints each, measured beside the render alone in
// the same run:
//
//	go test -run '^$' -bench 'Sync|Render' -benchtime 5x ./harness/proxy/
//
// BenchmarkRender is exercise 14's reference Rules over the whole
// cluster (the learner's part, and what kata bench 14 times);
// BenchmarkSyncParse is that and Parse, which the Loop does on every
// change: the Loop's sync is a full sync, whatever changed (upstream's
// iptables proxier writes only the chains that changed since 1.28;
// exercise 14's Rules has no such contract yet). The Forwarder's Apply
// is incremental (a Service that stays keeps its listener), and is not
// measured here: 10,000 listeners would measure the machine's sockets.

func benchSyncCluster() ([]api.Service, []api.EndpointSlice) {
	return servicestest.BenchCluster(10000, 10)
}

func BenchmarkRender(b *testing.B) {
	svcs, slices := benchSyncCluster()
	b.ReportAllocs()
	for b.Loop() {
		_ = services.Rules(svcs, slices)
	}
}

func BenchmarkSyncParse(b *testing.B) {
	svcs, slices := benchSyncCluster()
	b.ReportAllocs()
	for b.Loop() {
		t, err := Parse(services.Rules(svcs, slices))
		if err != nil {
			b.Fatal(err)
		}
		if len(t.Services) != 10000 {
			b.Fatalf("Parse: %d Services, want 10000", len(t.Services))
		}
	}
}
