package services

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
)

// A full sync of a large cluster: 10,000 Services of one port with 10
// ready endpoints each, the size at which upstream's iptables proxier is
// known to slow down (its largeClusterEndpointsThreshold is 1000
// endpoints). The baseline writes the same number of lines of the same
// length with one fmt.Sprintf each and nothing else: the floor of any
// renderer that formats its lines, so that the ratio says what the rest
// (grouping slices by Service, sorting, hashing chain names) costs.

const benchServices, benchEndpoints = 10000, 10

func benchCluster() ([]api.Service, []api.EndpointSlice) {
	tcp := api.ProtocolTCP
	name := "http"
	port := int32(8080)
	ready := true
	svcs := make([]api.Service, benchServices)
	slices := make([]api.EndpointSlice, benchServices)
	for i := range svcs {
		n := "svc-" + strconv.Itoa(i)
		svcs[i] = api.Service{ObjectMeta: api.ObjectMeta{Name: n, Namespace: "default"},
			Spec: api.ServiceSpec{ClusterIP: fmt.Sprintf("10.96.%d.%d", i/250, i%250+1),
				Ports: []api.ServicePort{{Name: name, Protocol: tcp, Port: 80, TargetPort: api.FromInt32(port)}}}}
		eps := make([]api.Endpoint, benchEndpoints)
		for j := range eps {
			eps[j] = api.Endpoint{Addresses: []string{fmt.Sprintf("10.%d.%d.%d", 100+i/65000, i/250%256, (i*benchEndpoints+j)%250+1)},
				Conditions: api.EndpointConditions{Ready: &ready}}
		}
		slices[i] = api.EndpointSlice{ObjectMeta: api.ObjectMeta{Name: n + "-abcde", Namespace: "default", Labels: map[string]string{api.LabelServiceName: n}},
			AddressType: api.AddressTypeIPv4, Endpoints: eps,
			Ports: []api.EndpointPort{{Name: &name, Protocol: &tcp, Port: &port}}}
	}
	return svcs, slices
}

func BenchmarkRulesFullSync(b *testing.B) {
	svcs, slices := benchCluster()
	var lines int
	for b.Loop() {
		lines = strings.Count(Rules(svcs, slices), "\n")
	}
	b.ReportMetric(float64(lines), "lines")
}

func BenchmarkRulesBaselineSprintf(b *testing.B) {
	svcs, slices := benchCluster()
	want := strings.Count(Rules(svcs, slices), "\n")
	var lines int
	for b.Loop() {
		var sb strings.Builder
		for i := range want {
			sb.WriteString(fmt.Sprintf("-A KUBE-SEP-%016d -m comment --comment default/svc-%d:http -m tcp -p tcp -j DNAT --to-destination 10.100.%d.%d:8080\n", i, i%benchServices, i/250%256, i%250))
		}
		lines = strings.Count(sb.String(), "\n")
	}
	b.ReportMetric(float64(lines), "lines")
}
