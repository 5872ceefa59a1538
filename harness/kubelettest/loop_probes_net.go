package kubelettest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 14, second half: HTTP GET and TCP probes across a real network
// boundary (rule 6). The step serves on 127.0.0.1 (an HTTP server per
// pod, so that each request is known to be that pod's, and a TCP
// listener), and the fake runtime gives the pods that probe without a
// host the IP 127.0.0.1 (fake.Options.SandboxIP), so that "the pod's IP"
// reaches the step too; 127.0.0.1 only, as on macOS no other loopback
// address answers. The clock is the step's; only a probe's timeout is
// real time (a network read knows no fake clock).
//
// Upstream (1.28 and later): prober/prober.go runProbe; probe/util.go
// ResolveContainerPort (a port's name is the container's port of that
// name); probe/http/request.go NewRequestForHTTPGetAction (host the pod's
// IP unless given, the path parsed with its query, httpHeaders with Host
// as the request's host, User-Agent kube-probe/MAJOR.MINOR and Accept
// */* unless set); probe/http/http.go (the client's Timeout, DoHTTPProbe:
// 200 to 399 Success, else "HTTP probe failed with statuscode: N";
// RedirectChecker: a redirect to another host is not followed);
// probe/tcp/tcp.go DoTCPProbe (a connection is Success, the dial's error
// the output).

// probeNetUserAgent is what an HTTP probe of the kata's kubelet sends as
// User-Agent: upstream's "kube-probe/MAJOR.MINOR", the kata being v1.32
// (its apiserver's discovery).
const probeNetUserAgent = "kube-probe/1.32"

// probeNetRequest is one request a probe server answered.
type probeNetRequest struct {
	at     time.Time // the step's clock
	method string
	uri    string // path and query, as sent
	host   string // the Host the request named
	header http.Header
}

func (r probeNetRequest) String() string {
	return fmt.Sprintf("%s %s (Host %q, User-Agent %q, Accept %q, X-Probe-Token %q) at %s",
		r.method, r.uri, r.host, r.header.Get("User-Agent"), r.header.Get("Accept"), r.header.Values("X-Probe-Token"), envSince(r.at))
}

// probeNetHeld is a request the server held: when it came and when its
// connection ended, in real time.
type probeNetHeld struct {
	arrived, ended time.Time
	done           bool
}

// probeNetServer is one pod's HTTP server on 127.0.0.1: each path
// answers its status (404 for a path it does not know) or a 302 to its
// redirect, and the first request of the held path waits until its
// connection ends or the server closes.
type probeNetServer struct {
	srv  *httptest.Server
	port int
	now  func() time.Time

	mu       sync.Mutex
	status   map[string]int
	redirect map[string]string
	hold     string
	held     *probeNetHeld
	reqs     []probeNetRequest
	release  chan struct{}
	closed   bool
}

// newProbeNetServer starts a server; its requests are stamped with envT0
// until stampWith.
func newProbeNetServer(t *suite.T) *probeNetServer {
	t.Helper()
	s := &probeNetServer{now: func() time.Time { return envT0 }, status: map[string]int{}, redirect: map[string]string{}, release: make(chan struct{})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("kubelettest: listening on 127.0.0.1: %v", err)
	}
	s.srv = httptest.NewUnstartedServer(s)
	s.srv.Listener = l
	s.srv.Start()
	s.port = l.Addr().(*net.TCPAddr).Port
	return s
}

// ServeHTTP records r and answers it.
func (s *probeNetServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, probeNetRequest{at: s.now(), method: r.Method, uri: r.URL.RequestURI(), host: r.Host, header: r.Header.Clone()})
	path := r.URL.Path
	if path == s.hold && s.held == nil {
		held := &probeNetHeld{arrived: time.Now()}
		s.held = held
		s.mu.Unlock()
		// Until the client gives up (its connection closes) or the step
		// ends.
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
		s.mu.Lock()
		held.ended, held.done = time.Now(), true
		s.mu.Unlock()
		return
	}
	loc, redirect := s.redirect[path]
	code, ok := s.status[path]
	s.mu.Unlock()
	switch {
	case redirect:
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusFound)
	case ok:
		w.WriteHeader(code)
	default:
		http.NotFound(w, r)
	}
}

// stampWith stamps the requests from now on with now (the step's clock,
// once its env exists).
func (s *probeNetServer) stampWith(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// answer makes path answer code.
func (s *probeNetServer) answer(path string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status[path] = code
}

// redirectTo makes path answer a 302 to loc.
func (s *probeNetServer) redirectTo(path, loc string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redirect[path] = loc
}

// holdFirst makes the first request of path wait (heldNow).
func (s *probeNetServer) holdFirst(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = path
}

// heldNow is the held request so far (nil: none came).
func (s *probeNetServer) heldNow() *probeNetHeld {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		return nil
	}
	h := *s.held
	return &h
}

// requests are the requests so far whose path (without query) is path
// ("" for all).
func (s *probeNetServer) requests(path string) []probeNetRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []probeNetRequest
	for _, r := range s.reqs {
		if p, _, _ := strings.Cut(r.uri, "?"); path == "" || p == path {
			out = append(out, r)
		}
	}
	return out
}

// close releases a held request and stops the server, once every
// request has been answered.
func (s *probeNetServer) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.release)
	s.mu.Unlock()
	s.srv.Close()
}

// probeNetDescribe prints requests for failure messages, the last 10.
func probeNetDescribe(rs []probeNetRequest) string {
	if len(rs) == 0 {
		return "none"
	}
	var s []string
	if len(rs) > 10 {
		s = append(s, fmt.Sprintf("(%d earlier)", len(rs)-10))
		rs = rs[len(rs)-10:]
	}
	for _, r := range rs {
		s = append(s, r.String())
	}
	return "[" + strings.Join(s, "; ") + "]"
}

// probeNetListener is a TCP listener on 127.0.0.1 that accepts and
// closes every connection, counting them.
type probeNetListener struct {
	l    net.Listener
	port int
	done chan struct{}

	mu       sync.Mutex
	accepted int
}

func newProbeNetListener(t *suite.T) *probeNetListener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("kubelettest: listening on 127.0.0.1: %v", err)
	}
	pl := &probeNetListener{l: l, port: l.Addr().(*net.TCPAddr).Port, done: make(chan struct{})}
	go func() {
		defer close(pl.done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			pl.mu.Lock()
			pl.accepted++
			pl.mu.Unlock()
			_ = c.Close()
		}
	}()
	return pl
}

func (pl *probeNetListener) count() int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.accepted
}

// close stops the listener and waits for its goroutine.
func (pl *probeNetListener) close() {
	_ = pl.l.Close()
	<-pl.done
}

// probeNetHTTPProbe is an httpGet probe, a run every period seconds,
// SuccessThreshold 1.
func probeNetHTTPProbe(g api.HTTPGetAction, period, timeout, failure int32) *api.Probe {
	return &api.Probe{ProbeHandler: api.ProbeHandler{HTTPGet: &g},
		PeriodSeconds: period, TimeoutSeconds: timeout, SuccessThreshold: 1, FailureThreshold: failure}
}

// probeNetTCPProbe is a tcpSocket probe of port on the pod's IP.
func probeNetTCPProbe(port api.IntOrString, period, failure int32) *api.Probe {
	return &api.Probe{ProbeHandler: api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: port}},
		PeriodSeconds: period, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: failure}
}

// probeNetWaitRequest waits, moving the clock, for a request to path
// of s ("" for any), and returns the requests to it so far.
func probeNetWaitRequest(e *loopEnv, s *probeNetServer, pod, path, why string) []probeNetRequest {
	e.t.Helper()
	what := "a request of its probe"
	if path != "" {
		what = "its probe's GET of path " + path
	}
	var rs []probeNetRequest
	e.waitFor(fmt.Sprintf("pod %s: %s on 127.0.0.1:%d (%s)", pod, what, s.port, why), func() (bool, string) {
		rs = s.requests(path)
		return len(rs) > 0, "the server's requests: " + probeNetDescribe(s.requests(""))
	})
	return rs
}

func probesNetLoop(t *suite.T, impl Impl) {
	// Each server and listener is closed once the kubelet stopped (the
	// defers run last in, first out).
	readyS := newProbeNetServer(t)
	defer readyS.close()
	hostS := newProbeNetServer(t)
	defer hostS.close()
	redirS := newProbeNetServer(t)
	defer redirS.close()
	slowS := newProbeNetServer(t)
	defer slowS.close()
	tcpL := newProbeNetListener(t)
	defer tcpL.close()
	closed := envClosedPort(t)

	// The pods that probe without a host get 127.0.0.1; http-host gets
	// the counter's 10.244.0.x, and names 127.0.0.1 as its host.
	local := map[string]bool{"http-ready": true, "http-redirect": true, "http-slow": true, "tcp-ready": true, "tcp-closed": true, "tcp-live": true}
	e := newEnv(t, impl, fake.Options{SandboxIP: func(cfg *cri.PodSandboxConfig) string {
		if local[cfg.Metadata.Name] {
			return "127.0.0.1"
		}
		return ""
	}})
	defer e.finish()
	for _, s := range []*probeNetServer{readyS, hostS, redirS, slowS} {
		s.stampWith(e.now)
	}
	e.start()

	// ---- the pods.
	// http-ready: a readiness httpGet on the named port http, no host
	// (the pod's IP), a path with a query, and headers: one twice, and
	// Host.
	web := envContainer("web", "kata/http-echo:1.0")
	web.Ports = []api.ContainerPort{{Name: "metrics", ContainerPort: 1}, {Name: "http", ContainerPort: int32(readyS.port)}}
	web.ReadinessProbe = probeNetHTTPProbe(api.HTTPGetAction{Path: "/healthz?probe=ready", Port: api.FromString("http"),
		HTTPHeaders: []api.HTTPHeader{{Name: "X-Probe-Token", Value: "kata"}, {Name: "X-Probe-Token", Value: "again"}, {Name: "Host", Value: "web.example"}}}, 1, 1, 1)
	readyS.answer("/healthz", http.StatusInternalServerError)
	e.create(e.pod("http-ready", web))

	// http-host: a pod of IP 10.244.0.x whose probe names host 127.0.0.1.
	hostC := envContainer("web", "kata/http-echo:1.0")
	hostC.ReadinessProbe = probeNetHTTPProbe(api.HTTPGetAction{Path: "/host", Port: api.FromInt(hostS.port), Host: "127.0.0.1"}, 1, 1, 1)
	hostS.answer("/host", http.StatusOK)
	e.create(e.pod("http-host", hostC))

	// http-redirect: /moved redirects, first to a path of the same host
	// that answers 500.
	redirC := envContainer("web", "kata/http-echo:1.0")
	redirC.ReadinessProbe = probeNetHTTPProbe(api.HTTPGetAction{Path: "/moved", Port: api.FromInt(redirS.port)}, 1, 1, 1)
	redirS.redirectTo("/moved", "/redirected")
	redirS.answer("/redirected", http.StatusInternalServerError)
	redirS.answer("/elsewhere", http.StatusInternalServerError)
	e.create(e.pod("http-redirect", redirC))

	// tcp-ready: a readiness tcpSocket on the named port probe, which
	// the step's listener serves; tcp-closed: one on a closed port;
	// tcp-live: a liveness tcpSocket on the closed port, two failures
	// in a row to kill.
	tcpC := envContainer("web", "kata/http-echo:1.0")
	tcpC.Ports = []api.ContainerPort{{Name: "probe", ContainerPort: int32(tcpL.port)}}
	tcpC.ReadinessProbe = probeNetTCPProbe(api.FromString("probe"), 1, 1)
	e.create(e.pod("tcp-ready", tcpC))
	closedC := envContainer("web", "kata/http-echo:1.0")
	closedC.ReadinessProbe = probeNetTCPProbe(api.FromInt(closed), 1, 1)
	e.create(e.pod("tcp-closed", closedC))
	liveC := envContainer("web", "kata/http-echo:1.0")
	liveC.LivenessProbe = probeNetTCPProbe(api.FromInt(closed), 1, 2)
	e.create(e.pod("tcp-live", liveC))

	for _, name := range []string{"http-ready", "http-host", "http-redirect", "tcp-ready", "tcp-closed", "tcp-live"} {
		probeLoopRunning(e, name, "web", "rules 4, 7")
	}

	// ---- http-ready: what the probe sends.
	readyURL := fmt.Sprintf("http://127.0.0.1:%d/healthz?probe=ready", readyS.port)
	readyWhy := fmt.Sprintf("its readiness probe GET %s: host the pod's IP 127.0.0.1 (no host given), port http of its container (%d)", readyURL, readyS.port)
	reqs := probeNetWaitRequest(e, readyS, "http-ready", "", readyWhy+", rule 6")
	for _, r := range reqs {
		var bad []string
		if r.method != http.MethodGet || r.uri != "/healthz?probe=ready" {
			bad = append(bad, "GET /healthz?probe=ready: the probe's path, its query kept (probe/http/request.go parses the path)")
		}
		if got := r.header.Values("X-Probe-Token"); len(got) != 2 || got[0] != "kata" || got[1] != "again" {
			bad = append(bad, "X-Probe-Token kata and again: every httpHeaders entry, in order, a name given twice sent twice")
		}
		if r.host != "web.example" {
			bad = append(bad, "Host web.example: an httpHeaders Host is the request's host (set http.Request.Host; net/http ignores Header[\"Host\"])")
		}
		if got := r.header.Get("User-Agent"); got != probeNetUserAgent {
			bad = append(bad, fmt.Sprintf("User-Agent %s: upstream's kube-probe/MAJOR.MINOR when httpHeaders set none", probeNetUserAgent))
		}
		if got := r.header.Values("Accept"); len(got) != 1 || got[0] != "*/*" {
			bad = append(bad, "Accept */*: when httpHeaders set none")
		}
		if len(bad) > 0 {
			t.Errorf("pod http-ready, %s: the server got %s, want %s (rule 6)", readyWhy, r, strings.Join(bad, "; "))
			break
		}
	}

	// ---- http-ready: 500 is a Failure, 399 a Success, 400 a Failure.
	e.waitEvent("Pod", "http-ready", kubelets.EventUnhealthy, "Readiness probe failed: HTTP probe failed with statuscode: 500",
		"its server answering 500: 400 and above is Failure, and the Event says so as probe/http/http.go does (rules 6, 11)")
	if p := e.getPod("http-ready"); !probeLoopNotReady(p, "web") {
		t.Errorf("pod http-ready, its readiness probe answered 500 (%s): %s, want Ready=False, ContainersReady=False, containerStatuses[web].ready false: 500 is a Failure (rule 6); the pod: %s",
			probeNetDescribe(readyS.requests("")), probeLoopConditions(p, "web"), envDescribePod(p))
	}
	readyS.answer("/healthz", 399)
	e.waitPod("http-ready", "Ready=True, ContainersReady=True and containerStatuses[web].ready true once its server answers 399: 200 to 399 is Success (rule 6)", func(p *api.Pod) (bool, string) {
		return probeLoopIsReady(p, "web"), probeLoopConditions(p, "web") + "; the server's requests: " + probeNetDescribe(readyS.requests(""))
	})
	readyS.answer("/healthz", http.StatusBadRequest)
	e.waitPod("http-ready", "Ready=False, ContainersReady=False and containerStatuses[web].ready false once its server answers 400: 400 and above is Failure (failureThreshold 1, rule 6)", func(p *api.Pod) (bool, string) {
		return probeLoopNotReady(p, "web"), probeLoopConditions(p, "web") + "; the server's requests: " + probeNetDescribe(readyS.requests(""))
	})
	e.waitEvent("Pod", "http-ready", kubelets.EventUnhealthy, "Readiness probe failed: HTTP probe failed with statuscode: 400",
		"its server answering 400 (rules 6, 11; probe/http/http.go)")

	// ---- http-host: the host given, not the pod's IP.
	hostWhy := fmt.Sprintf("its readiness probe names host 127.0.0.1 (port %d, path /host, which answers 200); the pod's own IP is the runtime's 10.244.0.x, where nothing serves: the host given wins over the pod's IP (rule 6)", hostS.port)
	e.waitPod("http-host", "Ready=True, ContainersReady=True and containerStatuses[web].ready true: "+hostWhy, func(p *api.Pod) (bool, string) {
		return probeLoopIsReady(p, "web"), probeLoopConditions(p, "web") + "; the server's requests: " + probeNetDescribe(hostS.requests(""))
	})

	// ---- http-redirect: followed on the same host, not to another.
	probeNetWaitRequest(e, redirS, "http-redirect", "/redirected",
		fmt.Sprintf("its readiness probe GET http://127.0.0.1:%d/moved answers 302 to /redirected: a redirect to the same host is followed (probe/http/http.go: RedirectChecker), rule 6", redirS.port))
	// No Host header: the request names the URL's host, which must be
	// the pod's IP (an empty host would dial the local system too, and
	// reach the server all the same).
	podHost := fmt.Sprintf("127.0.0.1:%d", redirS.port)
	for _, r := range redirS.requests("") {
		if r.host != podHost {
			t.Errorf("pod http-redirect (IP 127.0.0.1), readiness probe of port %d with no host: the server got %s, want Host %s: the URL's host is the pod's IP when the probe names none (rule 6; probe/http/request.go)", redirS.port, r, podHost)
			break
		}
	}
	e.waitEvent("Pod", "http-redirect", kubelets.EventUnhealthy, "Readiness probe failed: HTTP probe failed with statuscode: 500",
		"its probe's redirect to /redirected, on the same host, followed, and /redirected answers 500 (rules 6, 11)")
	other := fmt.Sprintf("http://localhost:%d/elsewhere", redirS.port)
	redirS.redirectTo("/moved", other)
	e.waitPod("http-redirect", fmt.Sprintf("Ready=True, ContainersReady=True and containerStatuses[web].ready true once /moved answers 302 to %s: a redirect to another host (localhost is not 127.0.0.1) is not followed, its 302 is the answer, and 302 is Success (probe/http/http.go: RedirectChecker with followNonLocalRedirects false, as the kubelet's; rule 6)", other), func(p *api.Pod) (bool, string) {
		return probeLoopIsReady(p, "web"), probeLoopConditions(p, "web") + "; the server's requests: " + probeNetDescribe(redirS.requests(""))
	})
	if rs := redirS.requests("/elsewhere"); len(rs) > 0 {
		t.Errorf("pod http-redirect: the server got %s, want no request to %s: a redirect to another host is not followed (rule 6)", probeNetDescribe(rs), other)
	}

	// ---- TCP: a connection is a Success, a refused one a Failure.
	e.waitPod("tcp-ready", fmt.Sprintf("Ready=True, ContainersReady=True and containerStatuses[web].ready true: its readiness tcpSocket probe of port probe (%d) on the pod's IP 127.0.0.1 connects (rule 6)", tcpL.port), func(p *api.Pod) (bool, string) {
		return probeLoopIsReady(p, "web"), fmt.Sprintf("%s; connections the listener accepted: %d", probeLoopConditions(p, "web"), tcpL.count())
	})
	if n := tcpL.count(); n == 0 {
		t.Errorf("pod tcp-ready ready, but the listener on 127.0.0.1:%d accepted no connection, want one per probe run: a tcpSocket probe dials HOST:PORT (rule 6; probe/tcp/tcp.go)", tcpL.port)
	}
	dialed := fmt.Sprintf("dial tcp 127.0.0.1:%d", closed)
	e.waitEvent("Pod", "tcp-closed", kubelets.EventUnhealthy, "Readiness probe failed: "+dialed,
		fmt.Sprintf("its readiness tcpSocket probe of port %d, where nothing listens: the dial fails, and the dial's error is the output (rules 6, 11; probe/tcp/tcp.go)", closed))
	if p := e.getPod("tcp-closed"); !probeLoopNotReady(p, "web") {
		t.Errorf("pod tcp-closed, its readiness tcpSocket probe of a closed port: %s, want Ready=False, ContainersReady=False, containerStatuses[web].ready false: a refused connection is a Failure (rule 6); the pod: %s",
			probeLoopConditions(p, "web"), envDescribePod(p))
	}
	e.waitEvent("Pod", "tcp-live", kubelets.EventUnhealthy, "Liveness probe failed: "+dialed,
		fmt.Sprintf("its liveness tcpSocket probe of port %d, where nothing listens (rules 6, 11)", closed))
	e.waitEvent("Pod", "tcp-live", kubelets.EventKilling, "Container web failed liveness probe, will be restarted",
		"its liveness tcpSocket probe failing twice in a row (failureThreshold 2): the container is killed and started again (rules 6, 11; kuberuntime_manager.go)")

	// ---- timeoutSeconds: a server that does not answer. The probe
	// gives up after timeoutSeconds (real time) and closes its
	// connection: the run is a Failure, and nothing of it is left.
	slowS.holdFirst("/slow")
	slowC := envContainer("web", "kata/http-echo:1.0")
	slowC.ReadinessProbe = probeNetHTTPProbe(api.HTTPGetAction{Path: "/slow", Port: api.FromInt(slowS.port)}, 10, 2, 1)
	e.create(e.pod("http-slow", slowC))
	probeLoopRunning(e, "http-slow", "web", "rules 4, 7")
	slowURL := fmt.Sprintf("http://127.0.0.1:%d/slow", slowS.port)
	e.waitFor(fmt.Sprintf("pod http-slow: its readiness probe GET %s (timeoutSeconds 2, rule 6)", slowURL), func() (bool, string) {
		return slowS.heldNow() != nil, "the server's requests: " + probeNetDescribe(slowS.requests(""))
	})
	const slowTimeout = 2 * time.Second
	e.waitStill(fmt.Sprintf("pod http-slow: its probe of %s, which the server never answers, to give up and close its connection once timeoutSeconds (2s) passed (rule 6; probe/http/http.go: the client's Timeout)", slowURL), func() (bool, string) {
		h := slowS.heldNow()
		return h.done, fmt.Sprintf("the request came %v ago and is still open", time.Since(h.arrived).Round(time.Millisecond))
	})
	if h := slowS.heldNow(); h.ended.Sub(h.arrived) < slowTimeout-250*time.Millisecond {
		t.Errorf("pod http-slow, readiness probe GET %s (timeoutSeconds 2): the probe closed its connection %v after the request came, want about 2s: timeoutSeconds bounds the request, not less (rule 6)",
			slowURL, h.ended.Sub(h.arrived).Round(time.Millisecond))
	}
	e.waitEvent("Pod", "http-slow", kubelets.EventUnhealthy, "Readiness probe failed: ",
		"its probe timing out is a Failure (rules 6, 11)")
	evs := e.events("Pod", "http-slow")
	if envCountEvents(evs, kubelets.EventUnhealthy, strings.TrimPrefix(slowURL, "http://")) == 0 {
		t.Errorf("pod http-slow, its readiness probe GET %s timing out: Events %s, want an Unhealthy \"Readiness probe failed: ...\" whose output is the client's error, naming the URL (rules 6, 11; probe/http/http.go)",
			slowURL, envDescribeEvents(evs))
	}
}
