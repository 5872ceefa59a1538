package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/proxy"
	"github.com/kubekata/kubekata/harness/storage"
	apiserver "github.com/kubekata/kubekata/solutions/04-apiserver"
	services "github.com/kubekata/kubekata/solutions/14-services"
)

// backend is a pod: it answers each line with its name.
type backend struct {
	name string
	ln   net.Listener
	wg   sync.WaitGroup
}

func newBackend(t *testing.T, ip, name string) *backend {
	t.Helper()
	return newBackendAt(t, ip+":0", name)
}

func (b *backend) addr() (string, int32) {
	a := b.ln.Addr().(*net.TCPAddr)
	return a.IP.String(), int32(a.Port)
}

// ask opens a connection to addr, sends one line, and returns the answer.
func ask(addr string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintln(c, "hi"); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line), err
}

// logBuffer is a Log safe for the loop's goroutine and the test's.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 20s; last: %s", what, last)
		}
		time.Sleep(10 * time.Millisecond) // polling the condition, with the deadline above
	}
}

func slice(svc string, eps ...*backend) *api.EndpointSlice {
	name, proto := "http", api.ProtocolTCP
	s := &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Name: svc + "-abc", Namespace: "default",
		Labels: map[string]string{api.LabelServiceName: svc, api.LabelManagedBy: api.EndpointSliceControllerName}},
		AddressType: api.AddressTypeIPv4}
	ready := true
	for _, b := range eps {
		ip, port := b.addr()
		s.Endpoints = append(s.Endpoints, api.Endpoint{Addresses: []string{ip}, Conditions: api.EndpointConditions{Ready: &ready}})
		s.Ports = []api.EndpointPort{{Name: &name, Protocol: &proto, Port: &port}}
	}
	return s
}

// The loop over the reference apiserver and the reference Rules: a
// Service's address answers from its endpoints, follows the slice's
// changes, goes with the Service; Rules says what it applied.
func TestLoopForwardsByTheRules(t *testing.T) {
	// The backends share one port number, as a Deployment's pods do.
	a := newBackend(t, "127.244.201.1", "a")
	_, port := a.addr()
	bLn := newBackendAt(t, fmt.Sprintf("127.244.201.2:%d", port), "b")

	store := storage.NewMemory()
	defer store.Close()
	srv := httptest.NewServer(apiserver.New(store))
	defer srv.Close()
	c := client.New(srv.URL, nil)
	ctx := context.Background()
	log := &logBuffer{}
	loop := proxy.NewLoop(c, services.Rules, proxy.LoopOptions{Log: log})
	lctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- loop.Run(lctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil after a stop", err)
		}
		if got := loop.Listening(); len(got) != 0 {
			t.Errorf("after Run returned, Listening() = %v, want nothing", got)
		}
	}()

	const vip = "127.96.201.10"
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ServiceSpec{ClusterIP: vip, ClusterIPs: []string{vip}, Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{{Name: "http", Protocol: api.ProtocolTCP, Port: 18080, TargetPort: api.FromString("http")}}}}
	if _, err := client.For[*api.Service](c).Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
	if _, err := client.For[*api.EndpointSlice](c).Create(ctx, slice("web", a, bLn)); err != nil {
		t.Fatal(err)
	}
	addr := vip + ":18080"
	seen := map[string]bool{}
	waitFor(t, "answers from a and b at "+addr, func() (bool, string) {
		got, err := ask(addr)
		if err == nil {
			seen[got] = true
		}
		return seen["a"] && seen["b"], fmt.Sprintf("seen %v, last %q %v; log: %s", seen, got, err, log.String())
	})
	if r := loop.Rules(); !strings.Contains(r, `"default/web:http cluster IP"`) || !strings.Contains(r, "--probability 0.5") {
		t.Errorf("Rules() = %q, want web's rules with probability 0.5", r)
	}

	// A connection opened before a is removed keeps working; new ones
	// all reach b.
	old, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	r := bufio.NewReader(old)
	fmt.Fprintln(old, "hi")
	first, _ := r.ReadString('\n')
	es, err := client.For[*api.EndpointSlice](c).Get(ctx, "default", "web-abc")
	if err != nil {
		t.Fatal(err)
	}
	next := slice("web", bLn)
	next.ResourceVersion = es.ResourceVersion
	if _, err := client.For[*api.EndpointSlice](c).Update(ctx, next); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "only b at "+addr, func() (bool, string) { return !strings.Contains(loop.Rules(), "127.244.201.1"), "a still in the rules" })
	for i := range 20 {
		if got, err := ask(addr); got != "b" {
			t.Fatalf("connection %d after a left the slice: %q, %v; want b", i, got, err)
		}
	}
	fmt.Fprintln(old, "again")
	if again, err := r.ReadString('\n'); err != nil || again != first {
		t.Errorf("the connection opened before the change: %q, %v; want %q again (established flows are kept)", again, err, first)
	}

	// The Service deleted: its address stops answering.
	if err := client.For[*api.Service](c).Delete(ctx, "default", "web", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, addr+" closed", func() (bool, string) {
		return !slices.Contains(loop.Listening(), addr), fmt.Sprintf("Listening() = %v", loop.Listening())
	})
	if _, err := ask(addr); err == nil {
		t.Errorf("ask(%s) after web was deleted: answered, want refused", addr)
	}
}

// newBackendAt is a backend listening on hostport.
func newBackendAt(t *testing.T, hostport, name string) *backend {
	t.Helper()
	ln, err := net.Listen("tcp", hostport)
	if err != nil {
		t.Skipf("cannot listen on %s (Linux routes 127.0.0.0/8 to loopback; this system may not): %v", hostport, err)
	}
	b := &backend{name: name, ln: ln}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					fmt.Fprintf(c, "%s\n", b.name)
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); b.wg.Wait() })
	return b
}

// Rules that panic or do not parse leave the forwarder as it was, and
// the loop says why, once.
func TestLoopReportsBadRules(t *testing.T) {
	store := storage.NewMemory()
	defer store.Close()
	srv := httptest.NewServer(apiserver.New(store))
	defer srv.Close()
	c := client.New(srv.URL, nil)
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
			log := &logBuffer{}
			loop := proxy.NewLoop(c, tc.rules, proxy.LoopOptions{Log: log})
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- loop.Run(ctx) }()
			waitFor(t, "the loop says why", func() (bool, string) { return strings.Contains(log.String(), tc.want), log.String() })
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
