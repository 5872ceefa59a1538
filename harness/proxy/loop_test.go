package proxy

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
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
	loop := NewLoop(c, services.Rules, LoopOptions{Log: log})
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
		}, "proxy: line 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &fwSyncBuffer{}
			loop := NewLoop(c, tc.rules, LoopOptions{Log: log})
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
