package servicestest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
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
