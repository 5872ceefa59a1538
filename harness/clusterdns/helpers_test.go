package clusterdns_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/clusterdns"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// The tests run the server over the fake apiserver (client.Fake), with a
// tiny lookup of their own (testLookup), and ask it with miekg's client
// over UDP and TCP.

// wait is how long a test waits for what should happen at once.
const wait = 10 * time.Second

// eventually waits for cond, up to wait, polling; then fails saying what
// it waited for and what state says.
func eventually(t testing.TB, what string, cond func() bool, state func() string) {
	t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("waited %v for %s; it did not happen: %s", wait, what, state())
		case <-tick.C:
		}
	}
}

// noLeaks fails the test, at its cleanup, unless the goroutines come
// back to as many as before it.
func noLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		eventually(t, fmt.Sprintf("the goroutines back to the %d before the test", before),
			func() bool { return runtime.NumGoroutine() <= before },
			func() string {
				buf := make([]byte, 1<<20)
				return fmt.Sprintf("%d goroutines:\n%s", runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
			})
	})
}

// syncBuffer is a log the server and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// start runs a server over c with lookup until the test's cleanup, which
// wants Run to return nil; it returns once the server is Ready.
func start(t testing.TB, c client.Interface, lookup servicenet.LookupFunc) (*clusterdns.Server, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	s := clusterdns.New(c, lookup, clusterdns.Options{Addr: "127.0.0.1:0", Log: log})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		stop()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v, want nil after a stop", err)
			}
		case <-time.After(wait):
			t.Errorf("Run did not return %v after its context ended", wait)
		}
	})
	select {
	case <-s.Ready():
	case err := <-done:
		t.Fatalf("Run = %v before the server was ready", err)
	case <-time.After(wait):
		t.Fatalf("the server was not ready after %v", wait)
	}
	return s, log
}

// exchange sends m to addr over network ("udp" or "tcp").
func exchange(t testing.TB, network, addr string, m *dns.Msg) *dns.Msg {
	t.Helper()
	c := &dns.Client{Net: network, Timeout: wait}
	r, _, err := c.Exchange(m, addr)
	if err != nil {
		t.Fatalf("%s query %v to %s: %v", network, m.Question, addr, err)
	}
	return r
}

// ask asks addr for name's records of type qtype over network.
func ask(t testing.TB, network, addr, name string, qtype uint16) *dns.Msg {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	return exchange(t, network, addr, m)
}

// recorder keeps what the lookup was asked, and how many Services and
// slices it was given the last time.
type recorder struct {
	mu        sync.Mutex
	questions []servicenet.Question
	services  []string // the last input's, namespace/name
	slices    []string
}

func (r *recorder) record(q servicenet.Question, svcs []api.Service, slices []api.EndpointSlice) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.questions = append(r.questions, q)
	r.services, r.slices = nil, nil
	for _, s := range svcs {
		r.services = append(r.services, s.Namespace+"/"+s.Name)
	}
	for _, s := range slices {
		r.slices = append(r.slices, s.Namespace+"/"+s.Name)
	}
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("questions %v; last input: services %v, slices %v", r.questions, r.services, r.slices)
}

func (r *recorder) saw(q servicenet.Question) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.questions {
		if x == q {
			return true
		}
	}
	return false
}

func (r *recorder) lastInput() (services, slices []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.services...), append([]string(nil), r.slices...)
}

// testLookup is a tiny lookup, enough for the server's tests (the
// specification's is exercise 14's): <service>.<namespace>.svc.<zone>
// has an A record, its ClusterIP; a TXT record, its label app; and an
// SRV record per port, whose target is the Service's own name. Every
// other name under the zone is NXDOMAIN, but for
// many.default.svc.cluster.local., which has 40 A records. Having
// answered, it changes what it was given, which must not change what the
// next question sees.
func testLookup(rec *recorder) servicenet.LookupFunc {
	return func(q servicenet.Question, svcs []api.Service, slices []api.EndpointSlice) servicenet.Answer {
		if rec != nil {
			rec.record(q, svcs, slices)
		}
		defer scribble(svcs, slices)
		return answerOf(q, svcs)
	}
}

// answerOf is testLookup's answer, without the recording and the
// scribbling (the benchmarks' lookup).
func answerOf(q servicenet.Question, svcs []api.Service) servicenet.Answer {
	name := strings.ToLower(q.Name)
	if name == "many.default.svc."+servicenet.ClusterDomain+"." {
		var rs []servicenet.Record
		for i := range 40 {
			rs = append(rs, servicenet.Record{Name: name, Type: servicenet.TypeA, TTL: 5, Data: fmt.Sprintf("10.96.1.%d", i+1)})
		}
		return servicenet.Answer{Rcode: servicenet.NoError, Records: rs}
	}
	for _, s := range svcs {
		fq := s.Name + "." + s.Namespace + ".svc." + servicenet.ClusterDomain + "."
		if name != fq {
			continue
		}
		var rs []servicenet.Record
		switch q.Type {
		case servicenet.TypeA:
			rs = append(rs, servicenet.Record{Name: fq, Type: servicenet.TypeA, TTL: 5, Data: s.Spec.ClusterIP})
		case servicenet.TypeTXT:
			rs = append(rs, servicenet.Record{Name: fq, Type: servicenet.TypeTXT, TTL: 5, Data: fmt.Sprintf("%q", "app="+s.Labels["app"])})
		case servicenet.TypeSRV:
			for _, p := range s.Spec.Ports {
				rs = append(rs, servicenet.Record{Name: fq, Type: servicenet.TypeSRV, TTL: 5, Data: fmt.Sprintf("0 100 %d %s", p.Port, fq)})
			}
		}
		return servicenet.Answer{Rcode: servicenet.NoError, Records: rs}
	}
	return servicenet.Answer{Rcode: servicenet.NXDomain}
}

// scribble changes what a lookup was given, as a careless lookup might.
func scribble(svcs []api.Service, slices []api.EndpointSlice) {
	for i := range svcs {
		svcs[i].Spec.ClusterIP = "0.0.0.0"
		if svcs[i].Labels != nil {
			svcs[i].Labels["app"] = "scribbled"
		}
		for j := range svcs[i].Spec.Ports {
			svcs[i].Spec.Ports[j].Port = 1
		}
	}
	for i := range slices {
		for j := range slices[i].Endpoints {
			slices[i].Endpoints[j].Addresses = nil
		}
	}
}

// service is a ClusterIP Service with one TCP port.
func service(ns, name, ip string, port int32) *api.Service {
	return &api.Service{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": name}},
		Spec: api.ServiceSpec{Type: api.ServiceTypeClusterIP, ClusterIP: ip, ClusterIPs: []string{ip},
			Selector: map[string]string{"app": name},
			Ports:    []api.ServicePort{{Name: "http", Protocol: api.ProtocolTCP, Port: port, TargetPort: api.FromInt32(port)}}}}
}

// slice is an EndpointSlice of Service svc with one ready endpoint.
func slice(ns, svc, ip string) *api.EndpointSlice {
	name, proto, port := "http", api.ProtocolTCP, int32(8080)
	ready := true
	return &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Name: svc + "-abcde", Namespace: ns,
		Labels: map[string]string{api.LabelServiceName: svc, api.LabelManagedBy: api.EndpointSliceControllerName}},
		AddressType: api.AddressTypeIPv4,
		Endpoints:   []api.Endpoint{{Addresses: []string{ip}, Conditions: api.EndpointConditions{Ready: &ready}}},
		Ports:       []api.EndpointPort{{Name: &name, Protocol: &proto, Port: &port}}}
}

// records are rrs as zone file lines, TTLs and all.
func records(rrs []dns.RR) []string {
	var out []string
	for _, rr := range rrs {
		out = append(out, rr.String())
	}
	return out
}
