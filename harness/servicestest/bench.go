package servicestest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/iptables"
)

// BenchCluster is a cluster of services Services, each one port with
// endpoints ready endpoints in one slice: the input of a full sync.
func BenchCluster(services, endpoints int) ([]api.Service, []api.EndpointSlice) {
	tcp := api.ProtocolTCP
	name := "http"
	port := int32(8080)
	ready := true
	svcs := make([]api.Service, services)
	slices := make([]api.EndpointSlice, services)
	for i := range svcs {
		n := "svc-" + strconv.Itoa(i)
		svcs[i] = api.Service{
			ObjectMeta: api.ObjectMeta{Name: n, Namespace: "default"},
			Spec: api.ServiceSpec{ClusterIP: fmt.Sprintf("10.96.%d.%d", i/250, i%250+1),
				Ports: []api.ServicePort{{Name: name, Protocol: tcp, Port: 80, TargetPort: api.FromInt32(port)}}},
		}
		eps := make([]api.Endpoint, endpoints)
		for j := range eps {
			k := i*endpoints + j
			eps[j] = api.Endpoint{
				Addresses:  []string{fmt.Sprintf("10.%d.%d.%d", 100+k/62500, k/250%250, k%250+1)},
				Conditions: api.EndpointConditions{Ready: &ready},
			}
		}
		slices[i] = api.EndpointSlice{
			ObjectMeta:  api.ObjectMeta{Name: n + "-abcde", Namespace: "default", Labels: map[string]string{api.LabelServiceName: n}},
			AddressType: api.AddressTypeIPv4, Endpoints: eps,
			Ports: []api.EndpointPort{{Name: &name, Protocol: &tcp, Port: &port}},
		}
	}
	return svcs, slices
}

// BenchRules measures one full sync of BenchCluster(services,
// endpoints): the text of every rule, as a proxy that restarts writes it.
func BenchRules(b *testing.B, impl Impl, services, endpoints int) {
	svcs, slices := BenchCluster(services, endpoints)
	want := ruleLines(services, endpoints)
	var lines int
	for b.Loop() {
		lines = strings.Count(impl.Rules(svcs, slices), "\n")
	}
	if lines != want {
		b.Fatalf("Rules(%d services of %d ready endpoints) = %d lines, want %d", services, endpoints, lines, want)
	}
	b.ReportMetric(float64(lines), "lines")
}

// BenchRulesBaseline writes as many lines as BenchRules's sync, each as
// long as a DNAT rule and made with one fmt.Sprintf, and does nothing
// else: the floor of any renderer that formats its lines. A Rules within
// twice its time spends little on the rest (finding each Service's
// slices, sorting, hashing chain names); one that looks through every
// slice for every Service is quadratic and far beyond.
func BenchRulesBaseline(b *testing.B, services, endpoints int) {
	want := ruleLines(services, endpoints)
	var lines int
	for b.Loop() {
		var sb strings.Builder
		for i := range want {
			sb.WriteString(fmt.Sprintf("-A KUBE-SEP-%016d -m comment --comment default/svc-%d:http -m tcp -p tcp -j DNAT --to-destination 10.100.%d.%d:8080\n",
				i, i%services, i/250%250, i%250+1))
		}
		lines = strings.Count(sb.String(), "\n")
	}
	b.ReportMetric(float64(lines), "lines")
}

// ruleLines is how many lines a full sync of BenchCluster(services,
// endpoints) has: per Service its KUBE-SVC- chain line, its
// KUBE-SERVICES rule and, per endpoint, a KUBE-SEP- chain line, a
// balancing rule and two KUBE-SEP- rules; and the 23 lines every sync
// writes.
func ruleLines(services, endpoints int) int {
	return services*(2+4*endpoints) + 23
}

// BenchFullSync measures the full sync a kube-proxy that restarts does
// over BenchCluster(services, endpoints): Rules, and its text restored
// into fresh tables (harness/iptables), the baseline of
// BenchPartialRules.
func BenchFullSync(b *testing.B, impl Impl, services, endpoints int) {
	svcs, sl := BenchCluster(services, endpoints)
	var lines int
	for b.Loop() {
		text := impl.Rules(svcs, sl)
		if err := iptables.New().Restore(text); err != nil {
			b.Fatalf("Rules(%d services of %d ready endpoints) does not restore: %v", services, endpoints, err)
		}
		lines = strings.Count(text, "\n")
	}
	b.ReportMetric(float64(lines), "lines")
}

// BenchPartialRules measures a partial sync after one change, as a
// running kube-proxy does once an endpoint moves: over the tables of a
// full sync of BenchCluster(services, endpoints), each op moves one
// endpoint of one Service to another address and back (so each is a real
// change, which leaves one KUBE-SEP- chain to delete), then calls
// PartialRules and restores its text. The chains of the nat table
// (PartialRules' existing) are kept up to date from each text, outside
// what PartialRules is asked to do but inside the op, as cheap as
// kube-proxy's own bookkeeping would be; upstream reads them with
// iptables-save.
func BenchPartialRules(b *testing.B, impl Impl, services, endpoints int) {
	svcs, sl := BenchCluster(services, endpoints)
	tables := iptables.New()
	if err := tables.Restore(impl.Rules(svcs, sl)); err != nil {
		b.Fatalf("Rules(%d services of %d ready endpoints) does not restore: %v", services, endpoints, err)
	}
	existing := tables.Chains("nat")
	k := services / 2
	ep := &sl[k].Endpoints[0]
	addrs := [2]string{ep.Addresses[0], "10.99.0.1"}
	changed := []string{"default/" + svcs[k].Name}
	var lines, op int
	for b.Loop() {
		op++
		ep.Addresses = []string{addrs[op%2]}
		text := impl.PartialRules(svcs, sl, changed, existing)
		if err := tables.Restore(text); err != nil {
			b.Fatalf("PartialRules(%d services of %d ready endpoints, changed %q) does not restore over the tables of the last sync: %v", services, endpoints, changed, err)
		}
		existing = followChains(existing, text)
		lines = strings.Count(text, "\n")
	}
	// The tables must be those of a full sync: a fast partial sync that
	// is wrong measures nothing.
	fresh := iptables.New()
	if err := fresh.Restore(impl.Rules(svcs, sl)); err != nil {
		b.Fatalf("Rules does not restore: %v", err)
	}
	if tables.Save() != fresh.Save() {
		b.Fatalf("after %d partial syncs the tables differ from those of a full sync (steps 24-25 say how)", op)
	}
	b.ReportMetric(float64(lines), "lines")
}

// followChains updates the sorted chains of the nat table with what a
// restored text declared and deleted there.
func followChains(chains []string, text string) []string {
	nat := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "*"):
			nat = l == "*nat"
		case !nat:
		case strings.HasPrefix(l, ":"):
			c := strings.Fields(l[1:])[0]
			if i, found := slices.BinarySearch(chains, c); !found {
				chains = slices.Insert(chains, i, c)
			}
		case strings.HasPrefix(l, "-X "):
			if i, found := slices.BinarySearch(chains, strings.TrimSpace(l[3:])); found {
				chains = slices.Delete(chains, i, i+1)
			}
		}
	}
	return chains
}
