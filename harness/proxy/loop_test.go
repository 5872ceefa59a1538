package proxy

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/servicenet"
	"github.com/kubekata/kubekata/harness/storage"
	apiserver "github.com/kubekata/kubekata/solutions/04-apiserver"
	services "github.com/kubekata/kubekata/solutions/14-services"
)

// The Loop's tests run over the reference apiserver and, but for the
// bad rules, the reference Rules (exercise 14's); the backends and the
// helpers are forwarder_test.go's.

// loopAPI is a client of a fresh reference apiserver.
func loopAPI(t *testing.T) client.Interface {
	t.Helper()
	store := storage.NewMemory()
	srv := httptest.NewServer(apiserver.New(store))
	t.Cleanup(func() { srv.Close(); store.Close() })
	return client.New(srv.URL, nil)
}

// runLoop runs l until the test's cleanup, which wants Run to return nil
// with nothing left listening.
func runLoop(t *testing.T, l *Loop) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil after a stop", err)
		}
		if got := l.Listening(); len(got) != 0 {
			t.Errorf("after Run returned, Listening() = %v, want nothing", got)
		}
	})
}

// loopSlice is an EndpointSlice of Service svc with the one ready
// endpoint b (its own slice: each backend has its own port).
func loopSlice(svc string, b *fwBackend) *api.EndpointSlice {
	name, proto, port := "http", api.ProtocolTCP, int32(b.addr.Port())
	ready := true
	return &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Name: svc + "-" + b.name, Namespace: "default",
		Labels: map[string]string{api.LabelServiceName: svc, api.LabelManagedBy: api.EndpointSliceControllerName}},
		AddressType: api.AddressTypeIPv4,
		Endpoints:   []api.Endpoint{{Addresses: []string{b.addr.Addr().String()}, Conditions: api.EndpointConditions{Ready: &ready}}},
		Ports:       []api.EndpointPort{{Name: &name, Protocol: &proto, Port: &port}}}
}

// A Service's address answers from its endpoints, follows the slices'
// changes (a connection opened before a change keeps its endpoint), and
// goes with the Service; Rules says what the loop applied.
func TestLoopForwardsByTheRules(t *testing.T) {
	fwNoLeaks(t)
	a, b := fwStartBackend(t, "a", nil), fwStartBackend(t, "b", nil)
	c := loopAPI(t)
	ctx := context.Background()
	log := &fwSyncBuffer{}
	loop := NewLoop(c, services.Rules, services.PartialRules, LoopOptions{Log: log})
	runLoop(t, loop)

	vip := fwServiceAddr(t)
	addr := vip.String()
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ServiceSpec{ClusterIP: vip.Addr().String(), ClusterIPs: []string{vip.Addr().String()}, Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{{Name: "http", Protocol: api.ProtocolTCP, Port: int32(vip.Port()), TargetPort: api.FromString("http")}}}}
	if _, err := client.For[*api.Service](c).Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
	for _, be := range []*fwBackend{a, b} {
		if _, err := client.For[*api.EndpointSlice](c).Create(ctx, loopSlice("web", be)); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	fwEventually(t, "answers from a and b at "+addr, func() bool {
		if slices.Contains(loop.Listening(), addr) {
			seen[fwAsk(t, addr)] = true
		}
		return seen["a"] && seen["b"]
	}, func() string { return fmt.Sprintf("seen %v; log: %s", seen, log.String()) })
	if r := loop.Rules(); !strings.Contains(r, `"default/web:http cluster IP"`) || !strings.Contains(r, "--probability 0.5") {
		t.Errorf("Rules() = %q, want web's rules with probability 0.5", r)
	}

	// a's slice goes: new connections all reach b; one opened before
	// keeps a (established flows are kept).
	var old *fwConn
	for old == nil {
		c := fwDial(t, addr)
		if c.ask() == "a" {
			old = c
		} else {
			c.c.Close()
		}
	}
	if err := client.For[*api.EndpointSlice](c).Delete(ctx, "default", "web-a", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	fwEventually(t, "a out of the rules", func() bool { return !strings.Contains(loop.Rules(), a.addr.String()) }, loop.Rules)
	for i := range 20 {
		if got := fwAsk(t, addr); got != "b" {
			t.Fatalf("connection %d after a's slice went: %q, want b", i, got)
		}
	}
	if got := old.ask(); got != "a" {
		t.Errorf("the connection opened before the change answers %q, want a still", got)
	}
	old.c.Close()

	// The Service deleted: its address stops answering.
	if err := client.For[*api.Service](c).Delete(ctx, "default", "web", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	fwEventually(t, addr+" closed", func() bool { return !slices.Contains(loop.Listening(), addr) },
		func() string { return fmt.Sprintf("Listening() = %v", loop.Listening()) })
	// Every sync after the first (a's slice going, at least) was partial.
	if s := loop.Stats(); s.Full != 1 || s.Partial == 0 || s.FallBacks != 0 {
		t.Errorf("Stats() = %+v, want one full sync, then partial ones, no fall-back", s)
	}
}

// Rules that panic or do not parse leave the forwarder as it was, and
// the loop says why, once.
func TestLoopReportsBadRules(t *testing.T) {
	fwNoLeaks(t)
	c := loopAPI(t)
	for _, tc := range []struct {
		name  string
		rules func([]api.Service, []api.EndpointSlice) string
		want  string
	}{
		{"panics", func([]api.Service, []api.EndpointSlice) string { panic("not implemented") }, "kube-proxy: Rules panicked: not implemented"},
		{"garbage", func([]api.Service, []api.EndpointSlice) string {
			return "*nat\n:KUBE-SERVICES - [0:0]\n-A KUBE-SERVICES -d 127.96.0.1 -p tcp --dport 80 -j KUBE-SVC-NOWHERE\nCOMMIT\n"
		}, "kube-proxy: Rules: iptables: line 3 failed"},
		{"unparsable", func([]api.Service, []api.EndpointSlice) string {
			// Restored, then read from iptables-save, whose line 9 is
			// KUBE-SEP-X's DNAT, after *nat and eight chain lines
			// (the four built-in ones first).
			return "*nat\n:KUBE-SERVICES - [0:0]\n:KUBE-SVC-X - [0:0]\n:KUBE-SEP-X - [0:0]\n" +
				"-A KUBE-SERVICES -d 127.96.0.1/32 -p tcp --dport 80 -j KUBE-SVC-X\n-A KUBE-SVC-X -j KUBE-SEP-X\n" +
				"-A KUBE-SEP-X -p tcp -j DNAT\nCOMMIT\n"
		}, "kube-proxy: proxy: line 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &fwSyncBuffer{}
			loop := NewLoop(c, tc.rules, services.PartialRules, LoopOptions{Log: log})
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- loop.Run(ctx) }()
			fwEventually(t, "the loop to say why", func() bool { return strings.Contains(log.String(), tc.want) }, log.String)
			stop()
			if err := <-done; err != nil {
				t.Errorf("Run = %v", err)
			}
			if n := strings.Count(log.String(), tc.want); n != 1 {
				t.Errorf("the log says %q %d times, want once: %s", tc.want, n, log.String())
			}
			if got := loop.Listening(); len(got) != 0 {
				t.Errorf("Listening() = %v, want nothing", got)
			}
		})
	}
}

// loopService is Service name of namespace default at vip, selecting
// nothing (its slices are written by hand).
func loopService(name string, vip netip.AddrPort) *api.Service {
	return &api.Service{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.ServiceSpec{ClusterIP: vip.Addr().String(), ClusterIPs: []string{vip.Addr().String()},
			Ports: []api.ServicePort{{Name: "http", Protocol: api.ProtocolTCP, Port: int32(vip.Port()), TargetPort: api.FromString("http")}}}}
}

// loopEndpoints is how many endpoints the rules give Service port name
// (-1 when the rules do not parse).
func loopEndpoints(rules, name string) int {
	t, err := Parse(rules)
	if err != nil {
		return -1
	}
	for _, s := range t.Services {
		if s.Name == name {
			return len(s.Endpoints)
		}
	}
	return 0
}

// partialCalls records the changed Services of each PartialRules call
// and renders it with the reference.
type partialCalls struct {
	mu    sync.Mutex
	calls [][]string
}

func (p *partialCalls) rules(ss []api.Service, es []api.EndpointSlice, changed, existing []string) string {
	p.mu.Lock()
	p.calls = append(p.calls, slices.Clone(changed))
	p.mu.Unlock()
	return services.PartialRules(ss, es, changed, existing)
}

// since are the calls after the first n.
func (p *partialCalls) since(n int) [][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.calls[min(n, len(p.calls)):])
}

func (p *partialCalls) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.calls)
}

// After the first sync, a change syncs partially, naming only the
// Services it touched: a Service's own key, and for an EndpointSlice
// the Service its label names, before and after an update.
func TestLoopSyncsOnlyWhatChanged(t *testing.T) {
	fwNoLeaks(t)
	a, b := fwStartBackend(t, "a", nil), fwStartBackend(t, "b", nil)
	c := loopAPI(t)
	ctx := context.Background()
	log := &fwSyncBuffer{}
	rec := &partialCalls{}
	loop := NewLoop(c, services.Rules, rec.rules, LoopOptions{Log: log})
	runLoop(t, loop)

	webAddr, otherAddr := fwServiceAddr(t), fwServiceAddr(t)
	for _, svc := range []*api.Service{loopService("web", webAddr), loopService("other", otherAddr)} {
		if _, err := client.For[*api.Service](c).Create(ctx, svc); err != nil {
			t.Fatal(err)
		}
	}
	sliceA, err := client.For[*api.EndpointSlice](c).Create(ctx, loopSlice("web", a))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.For[*api.EndpointSlice](c).Create(ctx, loopSlice("other", b)); err != nil {
		t.Fatal(err)
	}
	fwEventually(t, "web answering from a and other from b", func() bool {
		l, r := loop.Listening(), loop.Rules()
		return loopEndpoints(r, "default/web:http") == 1 && loopEndpoints(r, "default/other:http") == 1 &&
			slices.Contains(l, webAddr.String()) && slices.Contains(l, otherAddr.String()) &&
			fwAsk(t, webAddr.String()) == "a" && fwAsk(t, otherAddr.String()) == "b"
	}, func() string { return "log: " + log.String() })

	// Each change below is waited for before the next: each sync then
	// follows exactly one change.
	step := func(what string, change func(), want []string, done func() bool) {
		t.Helper()
		n := rec.count()
		change()
		fwEventually(t, what, done, loop.Rules)
		calls := rec.since(n)
		if len(calls) == 0 {
			t.Errorf("%s: PartialRules not called (Stats() = %+v)", what, loop.Stats())
			return
		}
		for _, got := range calls {
			// A sync can find no key: one that took the keys of an
			// event before the event's kick came.
			if len(got) > 0 && !slices.Equal(got, want) {
				t.Errorf("%s: PartialRules called with changed = %q, want %q", what, got, want)
			}
		}
	}
	// b joins web: only web changed.
	step("b in web's slices", func() {
		if _, err := client.For[*api.EndpointSlice](c).Create(ctx, loopSlice("web", b)); err != nil {
			t.Fatal(err)
		}
	}, []string{"default/web"}, func() bool { return strings.Contains(loop.Rules(), "--probability 0.5") })
	// a's slice moves from web to other: both changed.
	step("a's slice moved to other", func() {
		sliceA.Labels[api.LabelServiceName] = "other"
		if _, err := client.For[*api.EndpointSlice](c).Update(ctx, sliceA); err != nil {
			t.Fatal(err)
		}
	}, []string{"default/other", "default/web"}, func() bool {
		return loopEndpoints(loop.Rules(), "default/web:http") == 1 && loopEndpoints(loop.Rules(), "default/other:http") == 2
	})
	// other goes: only other changed, and its chains leave the tables.
	step("other deleted", func() {
		if err := client.For[*api.Service](c).Delete(ctx, "default", "other", client.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}, []string{"default/other"}, func() bool { return !strings.Contains(loop.Rules(), "default/other") })
	if s := loop.Stats(); s.Full != 1 || s.FallBacks != 0 {
		t.Errorf("Stats() = %+v, want the one first full sync and no fall-back", s)
	}
	for i := range 10 {
		if got := fwAsk(t, webAddr.String()); got != "b" {
			t.Fatalf("connection %d to web after a's slice moved: %q, want b", i, got)
		}
	}
}

// PartialRules that panic or write a text that does not restore: each
// sync falls back to a full one, traffic follows the changes, and the
// loop says why once.
func TestLoopFallsBackToFullSyncs(t *testing.T) {
	fwNoLeaks(t)
	c := loopAPI(t)
	for _, tc := range []struct {
		name    string
		partial servicenet.PartialRulesFunc
		want    string
	}{
		{"panics", func([]api.Service, []api.EndpointSlice, []string, []string) string { panic("not implemented") },
			"kube-proxy: synced in full instead of partially: PartialRules panicked: not implemented"},
		{"garbage", func([]api.Service, []api.EndpointSlice, []string, []string) string {
			return "*nat\n-X KUBE-SVC-NOSUCH\nCOMMIT\n"
		},
			"kube-proxy: synced in full instead of partially: PartialRules: iptables: line 2 failed: -X KUBE-SVC-NOSUCH: no such chain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := fwStartBackend(t, "a", nil), fwStartBackend(t, "b", nil)
			log := &fwSyncBuffer{}
			loop := NewLoop(c, services.Rules, tc.partial, LoopOptions{Log: log})
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- loop.Run(ctx) }()
			defer func() {
				stop()
				if err := <-done; err != nil {
					t.Errorf("Run = %v", err)
				}
			}()
			vip := fwServiceAddr(t)
			addr := vip.String()
			name := "fall-" + tc.name
			if _, err := client.For[*api.Service](c).Create(ctx, loopService(name, vip)); err != nil {
				t.Fatal(err)
			}
			if _, err := client.For[*api.EndpointSlice](c).Create(ctx, loopSlice(name, a)); err != nil {
				t.Fatal(err)
			}
			fwEventually(t, "answers from a at "+addr, func() bool {
				return loopEndpoints(loop.Rules(), "default/"+name+":http") == 1 && slices.Contains(loop.Listening(), addr) && fwAsk(t, addr) == "a"
			}, log.String)
			if err := client.For[*api.EndpointSlice](c).Delete(ctx, "default", name+"-a", client.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := client.For[*api.EndpointSlice](c).Create(ctx, loopSlice(name, b)); err != nil {
				t.Fatal(err)
			}
			fwEventually(t, "answers from b only at "+addr, func() bool {
				return !strings.Contains(loop.Rules(), a.addr.String()) && loopEndpoints(loop.Rules(), "default/"+name+":http") == 1 && fwAsk(t, addr) == "b"
			}, log.String)
			if n := strings.Count(log.String(), tc.want); n != 1 {
				t.Errorf("the log says %q %d times, want once: %s", tc.want, n, log.String())
			}
			if s := loop.Stats(); s.Partial != 0 || s.FallBacks == 0 || s.Full != s.FallBacks+1 {
				t.Errorf("Stats() = %+v, want no partial sync, each fall-back a full sync after the first", s)
			}
			if err := client.For[*api.Service](c).Delete(ctx, "default", name, client.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			fwEventually(t, addr+" closed", func() bool { return !slices.Contains(loop.Listening(), addr) },
				func() string { return fmt.Sprintf("Listening() = %v", loop.Listening()) })
		})
	}
}
