package proxy

import (
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/iptables"
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
// BenchmarkSyncParse is that and Parse. The Loop's first sync (and one
// after a failed partial sync) is BenchmarkSyncFull: Rules restored into
// fresh tables, whose iptables-save Parse reads. Every later sync is
// partial, as upstream's iptables proxier since 1.28:
// BenchmarkSyncPartial is one after a single Service's endpoints
// changed, PartialRules restored over the last sync's tables, then
// iptables-save and Parse as in a full sync. Only the chains of the
// changed Service are rewritten, but KUBE-SERVICES and the filter table
// are whole in every sync, and Save and Parse read all the tables: the
// partial sync saves the render and restore of 10,000 Services' chains,
// not the rest (the two syncs without Save and Parse are exercise 14's
// course benchmarks: go test -run '^$' -bench 'PartialRules|FullSync'
// ./solutions/14-services/). The Forwarder's Apply is incremental (a Service that
// stays keeps its listener), and is not measured here: 10,000 listeners
// would measure the machine's sockets.

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

// benchApply is the end of every sync: the tables' iptables-save,
// parsed.
func benchApply(b *testing.B, tables *iptables.Tables) {
	t, err := Parse(tables.Save())
	if err != nil {
		b.Fatal(err)
	}
	if len(t.Services) != 10000 {
		b.Fatalf("Parse(Save()): %d Services, want 10000", len(t.Services))
	}
}

func BenchmarkSyncFull(b *testing.B) {
	svcs, slices := benchSyncCluster()
	b.ReportAllocs()
	for b.Loop() {
		tables := iptables.New()
		if err := tables.Restore(services.Rules(svcs, slices)); err != nil {
			b.Fatal(err)
		}
		benchApply(b, tables)
	}
}

func BenchmarkSyncPartial(b *testing.B) {
	svcs, slices := benchSyncCluster()
	tables := iptables.New()
	if err := tables.Restore(services.Rules(svcs, slices)); err != nil {
		b.Fatal(err)
	}
	// Each sync follows a change of svc-0's first endpoint, back and
	// forth: its KUBE-SVC- chain changes, one KUBE-SEP- chain comes and
	// one goes.
	changed := []string{svcs[0].Namespace + "/" + svcs[0].Name}
	addrs := []string{"10.250.0.1", slices[0].Endpoints[0].Addresses[0]}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		slices[0].Endpoints[0].Addresses = []string{addrs[i%2]}
		i++
		if err := tables.Restore(services.PartialRules(svcs, slices, changed, tables.Chains("nat"))); err != nil {
			b.Fatal(err)
		}
		benchApply(b, tables)
	}
}
