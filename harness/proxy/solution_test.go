package proxy

// Tests over the rules of exercise 14's reference Rules: what Parse reads
// from what a finished exercise writes. This file imports solutions/, so
// a student copy drops it (nothing else in the package needs it).

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubekata/kubekata/harness/api"
	services "github.com/kubekata/kubekata/solutions/14-services"
)

func solService(name, ip string, proto api.Protocol, port int32) api.Service {
	return api.Service{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: api.ObjectMeta{Namespace: "demo", Name: name},
		Spec: api.ServiceSpec{Type: api.ServiceTypeClusterIP, ClusterIP: ip, Ports: []api.ServicePort{
			{Name: "p", Protocol: proto, Port: port, TargetPort: api.FromInt32(port)},
		}},
	}
}

func solSticky(s api.Service, timeout *int32) api.Service {
	s.Spec.SessionAffinity = api.ServiceAffinityClientIP
	if timeout != nil {
		s.Spec.SessionAffinityConfig = &api.SessionAffinityConfig{ClientIP: &api.ClientIPConfig{TimeoutSeconds: timeout}}
	}
	return s
}

func solEndpoint(ip string, ready, serving, terminating bool) api.Endpoint {
	return api.Endpoint{Addresses: []string{ip}, Conditions: api.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating}}
}

func solSlice(svc string, proto api.Protocol, port int32, eps ...api.Endpoint) api.EndpointSlice {
	name := "p"
	return api.EndpointSlice{
		TypeMeta: api.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: api.ObjectMeta{Namespace: "demo", Name: svc + "-abcde", Labels: map[string]string{
			api.LabelServiceName: svc,
			api.LabelManagedBy:   api.EndpointSliceControllerName,
		}},
		AddressType: api.AddressTypeIPv4,
		Endpoints:   eps,
		Ports:       []api.EndpointPort{{Name: &name, Protocol: &proto, Port: &port}},
	}
}

func solReady(ip string) api.Endpoint { return solEndpoint(ip, true, true, false) }

// TestParseReferenceRules: every case the suite checks Rules for
// (harness/servicestest/rules.go), as Parse reads it.
func TestParseReferenceRules(t *testing.T) {
	timeout := int32(600)
	svcs := []api.Service{
		solService("web", "127.96.0.1", api.ProtocolTCP, 80),
		solSticky(solService("sticky", "127.96.0.2", api.ProtocolTCP, 80), &timeout),
		solSticky(solService("sticky-default", "127.96.0.3", api.ProtocolTCP, 80), nil),
		solService("empty", "127.96.0.4", api.ProtocolTCP, 80),
		solService("leaving", "127.96.0.5", api.ProtocolTCP, 80),
		solService("half", "127.96.0.6", api.ProtocolTCP, 80),
		solService("dns", "127.96.0.7", api.ProtocolUDP, 53),
	}
	slices := []api.EndpointSlice{
		// "10" sorts before "9": upstream orders endpoints as strings.
		solSlice("web", api.ProtocolTCP, 8080, solReady("127.244.1.9"), solReady("127.244.1.10"), solReady("127.244.1.11")),
		solSlice("sticky", api.ProtocolTCP, 8080, solReady("127.244.2.1"), solReady("127.244.2.2")),
		solSlice("sticky-default", api.ProtocolTCP, 8080, solReady("127.244.3.1")),
		// leaving: none ready, both still serving while they terminate.
		solSlice("leaving", api.ProtocolTCP, 8080,
			solEndpoint("127.244.5.1", false, true, true), solEndpoint("127.244.5.2", false, true, true), solEndpoint("127.244.5.3", false, false, true)),
		// half: one ready, one not (yet): only the ready one.
		solSlice("half", api.ProtocolTCP, 8080, solReady("127.244.6.1"), solEndpoint("127.244.6.2", false, false, false)),
		solSlice("dns", api.ProtocolUDP, 53, solReady("127.244.7.1")),
	}
	text := services.Rules(svcs, slices)
	got, err := Parse(text)
	require.NoError(t, err, "Parse(services.Rules(...)):\n%s", text)
	want := Table{Services: []Service{
		{Name: "demo/web:p", IP: "127.96.0.1", Port: 80, Protocol: "tcp", Endpoints: []Endpoint{
			{Addr: "127.244.1.10:8080", Probability: 0.3333333333},
			{Addr: "127.244.1.11:8080", Probability: 0.5},
			{Addr: "127.244.1.9:8080", Probability: 1},
		}},
		{Name: "demo/sticky:p", IP: "127.96.0.2", Port: 80, Protocol: "tcp", Affinity: 600 * time.Second, Endpoints: []Endpoint{
			{Addr: "127.244.2.1:8080", Probability: 0.5},
			{Addr: "127.244.2.2:8080", Probability: 1},
		}},
		{Name: "demo/sticky-default:p", IP: "127.96.0.3", Port: 80, Protocol: "tcp", Affinity: 3 * time.Hour, Endpoints: []Endpoint{
			{Addr: "127.244.3.1:8080", Probability: 1},
		}},
		{Name: "demo/empty:p", IP: "127.96.0.4", Port: 80, Protocol: "tcp", Reject: true},
		{Name: "demo/leaving:p", IP: "127.96.0.5", Port: 80, Protocol: "tcp", Endpoints: []Endpoint{
			{Addr: "127.244.5.1:8080", Probability: 0.5},
			{Addr: "127.244.5.2:8080", Probability: 1},
		}},
		{Name: "demo/half:p", IP: "127.96.0.6", Port: 80, Protocol: "tcp", Endpoints: []Endpoint{
			{Addr: "127.244.6.1:8080", Probability: 1},
		}},
		{Name: "demo/dns:p", IP: "127.96.0.7", Port: 53, Protocol: "udp", Endpoints: []Endpoint{
			{Addr: "127.244.7.1:53", Probability: 1},
		}},
	}}
	assert.Equal(t, want, got, "Parse(services.Rules(...)): want (expected), got (actual); the rules:\n%s", text)
}

// TestForwarderReferenceRules: the reference rules for a Service of three
// echo pods, parsed and applied, reach all three.
func TestForwarderReferenceRules(t *testing.T) {
	fwNoLeaks(t)
	backends := fwBackends(t, "a", "b", "c")
	svcAddr := fwServiceAddr(t)
	svc := solService("echo", svcAddr.Addr().String(), api.ProtocolTCP, int32(svcAddr.Port()))
	var eps []api.Endpoint
	for _, b := range backends {
		eps = append(eps, solReady(b.addr.Addr().String()))
	}
	// Each backend has a port of its own; a slice lists one port, so
	// one slice per backend, all labelled with the Service.
	var slices []api.EndpointSlice
	for i, b := range backends {
		s := solSlice("echo", api.ProtocolTCP, int32(b.addr.Port()), eps[i])
		s.Name = "echo-" + b.name
		slices = append(slices, s)
	}
	text := services.Rules([]api.Service{svc}, slices)
	table, err := Parse(text)
	require.NoError(t, err, "Parse(services.Rules(...)):\n%s", text)
	require.Len(t, table.Services, 1, "Parse(services.Rules(...)).Services")
	require.Len(t, table.Services[0].Endpoints, 3, "Parse(services.Rules(...)).Services[0].Endpoints")

	f := fwNew(t, Options{Rand: fwSeeded(3)})
	require.NoError(t, f.Apply(table), "Apply(the reference rules)")
	seen := map[string]int{}
	for range 60 {
		seen[fwAsk(t, svcAddr.String())]++
	}
	assert.Len(t, seen, 3, "names answered through %s in 60 connections: got %v, want a, b and c", svcAddr, seen)
}
