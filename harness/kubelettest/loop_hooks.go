package kubelettest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 15, its second part: the lifecycle hooks (rule 4's start and
// rule 8). A container's postStart hook runs right after StartContainer
// and the sync waits for it; when it fails the kubelet records a Warning
// FailedPostStartHook "PostStartHook failed", kills the container
// (Killing "FailedPostStartHook"), makes it Waiting PostStartHookError
// with the hook's message, and it starts again as its restartPolicy says
// (kuberuntime/kuberuntime_container.go: startContainer, its step 4;
// ErrPostStartHook). A preStop hook runs before StopContainer, waited for
// the grace at most; the seconds it took come off the grace; a failure is
// a Warning FailedPreStopHook "PreStopHook failed" and the stop goes on
// (executePreStopHook, killContainer). The handlers
// (pkg/kubelet/lifecycle/handlers.go: handlerRunner.Run): exec through
// ExecSync, a non-zero exit code failing (cri-client's ExecSync makes it
// an error); httpGet to HOST:PORT/PATH with the httpHeaders, the port a
// number or a name of the container's ports, scheme HTTP or HTTPS with
// no certificate check, any answer passing, a 500 too (runHTTPHandler
// reads no status code; only no answer fails); sleep for its seconds
// (runSleepHandler; on the kubelet's clock here); another action
// (tcpSocket) refused as an invalid handler.
//
// The step's hooks reach servers on 127.0.0.1 through httpGet's host
// (the fake runtime's pod IPs lead nowhere).

const (
	// hookDrainTakes is how long the HTTPS preStop hook of pod drain
	// takes on the clock: its server moves the clock on.
	hookDrainTakes = 7 * time.Second
	// hookNapSeconds is the preStop sleep of pod nap.
	hookNapSeconds = 3
	// hookHeader is the header the httpGet hooks send.
	hookHeader = "X-Kata-Hook"
	// Upstream's Event reasons (pkg/kubelet/events/event.go) and the
	// reason a failed postStart leaves (kuberuntime_container.go:
	// ErrPostStartHook).
	hookFailedPostStart = "FailedPostStartHook"
	hookFailedPreStop   = "FailedPreStopHook"
	hookPostStartError  = "PostStartHookError"
	// hookUserAgent is an httpGet hook's User-Agent (kube-lifecycle and
	// the kubelet's major.minor, the kata's being 1.32).
	hookUserAgent = "kube-lifecycle/1.32"
)

// hookRequest is a request a hook server got.
type hookRequest struct {
	method, path, header string
	// userAgent is the request's User-Agent.
	userAgent string
	// running are the ids of the containers the fake runtime ran when
	// it came.
	running []string
	at      time.Time
}

func (r hookRequest) String() string {
	return fmt.Sprintf("%s %s (%s %q, User-Agent %q) at %s", r.method, r.path, hookHeader, r.header, r.userAgent, envSince(r.at))
}

// hookServer is an HTTP server on 127.0.0.1 the step's hooks ask,
// recording each request and answering status.
type hookServer struct {
	srv  *httptest.Server
	port int

	mu   sync.Mutex
	reqs []hookRequest
}

// newHookServer starts a hook server (HTTPS when tls) answering status;
// then, when set, runs before the answer.
func newHookServer(e *loopEnv, tls bool, status int, then func(path string)) *hookServer {
	s := &hookServer{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, hookRequest{method: r.Method, path: r.URL.Path, header: r.Header.Get(hookHeader), userAgent: r.Header.Get("User-Agent"), running: e.rt.Running(), at: e.now()})
		s.mu.Unlock()
		if then != nil {
			then(r.URL.Path)
		}
		w.WriteHeader(status)
	})
	if tls {
		s.srv = httptest.NewTLSServer(h)
	} else {
		s.srv = httptest.NewServer(h)
	}
	s.port = s.srv.Listener.Addr().(*net.TCPAddr).Port
	return s
}

// requests are the requests to path so far.
func (s *hookServer) requests(path string) []hookRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []hookRequest
	for _, r := range s.reqs {
		if r.path == path {
			out = append(out, r)
		}
	}
	return out
}

// all describes every request so far.
func (s *hookServer) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return "none"
	}
	var out []string
	for _, r := range s.reqs {
		out = append(out, r.String())
	}
	return strings.Join(out, ", ")
}

// hookCreated are the ids of pod's containers of name, oldest first, as
// CreateContainer made them.
func hookCreated(e *loopEnv, pod, name string) []string {
	var ids []string
	for _, c := range envRTOnly(e.rts.calls(envNamespace+"/"+pod), "CreateContainer") {
		if c.Err == nil && c.Config != nil && c.Config.Metadata.Name == name {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// hookExecIndex is the index in calls of the first ExecSync of cmd in
// container id (-1: none).
func hookExecIndex(calls []envRTCall, id, cmd string) int {
	for i, c := range calls {
		if c.Method == "ExecSync" && c.ID == id && strings.Join(c.Cmd, " ") == cmd {
			return i
		}
	}
	return -1
}

// hookWaitingSeen says whether a status the kubelet wrote of pod had
// container name waiting reason, its message containing message, and
// describes the states written.
func hookWaitingSeen(e *loopEnv, pod, name, reason, message string) (bool, string) {
	var seen []string
	for _, c := range e.spy.callsOf("update-status", "pods", pod) {
		p, ok := c.obj.(*api.Pod)
		if !ok {
			continue
		}
		s := envStatusOf(p.Status.ContainerStatuses, name)
		if s == nil {
			continue
		}
		if w := s.State.Waiting; w != nil && w.Reason == reason && strings.Contains(w.Message, message) {
			return true, ""
		}
		seen = append(seen, envDescribeStatuses([]api.ContainerStatus{*s})+" at "+envSince(c.at))
	}
	if len(seen) == 0 {
		return false, "no status written"
	}
	return false, strings.Join(seen, "; ")
}

// hookStops are the StopContainer calls of container id of pod.
func hookStops(e *loopEnv, pod, id string) []envRTCall {
	var out []envRTCall
	for _, c := range envRTOnly(e.rts.calls(envNamespace+"/"+pod), "StopContainer") {
		if c.ID == id {
			out = append(out, c)
		}
	}
	return out
}

// hookDelete deletes pod name as kubectl does (its own grace).
func hookDelete(e *loopEnv, name string) {
	e.t.Helper()
	if err := client.For[*api.Pod](e.fake).Delete(e.ctx, envNamespace, name, client.DeleteOptions{}); err != nil {
		e.t.Fatalf("kubelettest: deleting pod %s in the fake: %v", name, err)
	}
}

// hooksChecks is step 15's second part, on a kubelet of its own.
func hooksChecks(t *suite.T, impl Impl) {
	// The exec hooks: /bin/fail-once exits 1 the first time only,
	// /bin/hang ends when the step does, any other passes.
	release := make(chan struct{})
	var failed atomic.Bool
	e := newEnv(t, impl, fake.Options{Exec: func(id string, cmd []string) (cri.ExecResult, error) {
		switch strings.Join(cmd, " ") {
		case "/bin/fail-once":
			if failed.CompareAndSwap(false, true) {
				return cri.ExecResult{ExitCode: 1, Stderr: []byte("not ready yet")}, nil
			}
		case "/bin/hang":
			<-release
		}
		return cri.ExecResult{}, nil
	}})
	defer e.finish()
	defer close(release) // first: the hung hook ends, and Run may return

	// started answers 500: a hook's answer passes whatever its status.
	started := newHookServer(e, false, http.StatusInternalServerError, nil)
	defer started.srv.Close()
	// drain, over HTTPS with a certificate nobody signed, takes
	// hookDrainTakes on the clock.
	drain := newHookServer(e, true, http.StatusOK, func(path string) {
		if path == "/drain" {
			e.clock.set(e.now().Add(hookDrainTakes))
		}
	})
	defer drain.srv.Close()
	closed := envClosedPort(t)
	e.start()

	grace45, grace5 := int64(45), int64(5)
	header := []api.HTTPHeader{{Name: hookHeader, Value: "kata"}}
	// poststart: exec's postStart runs /bin/started; http's asks
	// started's /started through its port named "hooks".
	exec := envContainer("exec", "kata/sleep:1.0")
	exec.Lifecycle = &api.Lifecycle{PostStart: &api.LifecycleHandler{Exec: &api.ExecAction{Command: []string{"/bin/started"}}}}
	web := envContainer("http", "kata/sleep:1.0")
	web.Ports = []api.ContainerPort{{Name: "hooks", ContainerPort: int32(started.port)}}
	web.Lifecycle = &api.Lifecycle{PostStart: &api.LifecycleHandler{HTTPGet: &api.HTTPGetAction{
		Host: "127.0.0.1", Port: api.FromString("hooks"), Path: "/started", HTTPHeaders: header}}}
	e.create(e.pod("poststart", exec, web))
	// badstart: its postStart fails once.
	bad := envContainer("web", "kata/sleep:1.0")
	bad.Lifecycle = &api.Lifecycle{PostStart: &api.LifecycleHandler{Exec: &api.ExecAction{Command: []string{"/bin/fail-once"}}}}
	e.create(e.pod("badstart", bad))
	// tcpstart: a tcpSocket postStart, which no hook may be.
	tcp := envContainer("web", "kata/sleep:1.0")
	tcp.Lifecycle = &api.Lifecycle{PostStart: &api.LifecycleHandler{TCPSocket: &api.TCPSocketAction{Host: "127.0.0.1", Port: api.FromInt(started.port)}}}
	e.create(e.pod("tcpstart", tcp))
	// The preStop hooks, each pod's grace 45s but hang's (5s).
	preStop := func(name string, h api.LifecycleHandler, grace *int64) {
		c := envContainer("web", "kata/sleep:1.0")
		c.Lifecycle = &api.Lifecycle{PreStop: &h}
		p := e.pod(name, c)
		p.Spec.TerminationGracePeriodSeconds = grace
		e.create(p)
	}
	preStop("drain", api.LifecycleHandler{HTTPGet: &api.HTTPGetAction{
		Host: "127.0.0.1", Port: api.FromInt(drain.port), Path: "/drain", Scheme: api.URISchemeHTTPS, HTTPHeaders: header}}, &grace45)
	preStop("refused", api.LifecycleHandler{HTTPGet: &api.HTTPGetAction{Host: "127.0.0.1", Port: api.FromInt(closed), Path: "/gone"}}, &grace45)
	preStop("nap", api.LifecycleHandler{Sleep: &api.SleepAction{Seconds: hookNapSeconds}}, &grace45)
	preStop("hang", api.LifecycleHandler{Exec: &api.ExecAction{Command: []string{"/bin/hang"}}}, &grace5)

	hookPostStart(e, started)
	hookPreStop(e, drain, closed)
}

// hookPostStart checks the postStart hooks of pods poststart, badstart
// and tcpstart.
func hookPostStart(e *loopEnv, started *hookServer) {
	t := e.t
	const rule = "rule 4; kuberuntime_container.go: startContainer, step 4"

	// ---- poststart: both hooks run once their container has started,
	// and pass (a 500 is an answer).
	e.waitFor("pod poststart: the postStart hooks of its containers exec and http to run: ExecSync [/bin/started] and a GET of /started on 127.0.0.1 ("+rule+")", func() (bool, string) {
		calls := e.rts.calls(envNamespace + "/poststart")
		ran := slices.ContainsFunc(calls, func(c envRTCall) bool { return c.Method == "ExecSync" && strings.Join(c.Cmd, " ") == "/bin/started" })
		return ran && len(started.requests("/started")) > 0, fmt.Sprintf("the server's requests: %s; the runtime calls about it: %s", started.all(), envDescribeRT(calls))
	})
	calls := e.rts.calls(envNamespace + "/poststart")
	if ids := hookCreated(e, "poststart", "exec"); len(ids) > 0 {
		id := ids[0]
		start, hook := termIndex(calls, "StartContainer", id), hookExecIndex(calls, id, "/bin/started")
		switch {
		case hook < 0:
			t.Errorf("pod poststart, container exec with a postStart exec [/bin/started]: the runtime calls about it %s, want ExecSync [/bin/started] in container %s (%s)", envDescribeRT(calls), id, rule)
		case start < 0 || hook < start:
			t.Errorf("pod poststart: %s, then the runtime calls %s; want the postStart hook of container exec run once StartContainer %s returned: the hook runs in the started container (%s)", calls[hook], envDescribeRT(calls[hook+1:]), id, rule)
		case calls[hook].Timeout != 0:
			t.Errorf("pod poststart, container exec's postStart hook: %s, want timeout 0 (none): upstream runs a hook with no timeout (%s; lifecycle/handlers.go: Run)", calls[hook], rule)
		}
	}
	if ids := hookCreated(e, "poststart", "http"); len(ids) > 0 {
		reqs := started.requests("/started")
		switch {
		case len(reqs) == 0:
			t.Errorf("pod poststart, container http with a postStart httpGet 127.0.0.1:hooks/started: the server's requests %s, want GET /started (%s; lifecycle/handlers.go: runHTTPHandler)", started.all(), rule)
		case reqs[0].method != http.MethodGet || reqs[0].header != "kata":
			t.Errorf("pod poststart, container http's postStart httpGet /started with httpHeaders %s: kata: the server got %s, want GET with the hook's headers (%s; probe/http/request.go: NewRequestForHTTPGetAction)", hookHeader, reqs[0], rule)
		case reqs[0].userAgent != hookUserAgent:
			t.Errorf("pod poststart, container http's postStart httpGet /started: the server got %s, want User-Agent %q, a hook's and not a probe's (%s; lifecycle/handlers.go: runHTTPHandler asks NewRequestForHTTPGetAction for \"lifecycle\")", reqs[0], hookUserAgent, rule)
		case !slices.Contains(reqs[0].running, ids[0]):
			t.Errorf("pod poststart: the postStart GET /started came while the runtime ran %v, not container http (%s), want it sent once StartContainer returned (%s)", reqs[0].running, ids[0], rule)
		}
	}
	e.waitPod("poststart", "containers exec and http running with restartCount 0: their hooks passed, the server's 500 an answer like any other (rule 4; lifecycle/handlers.go: runHTTPHandler reads no status code)", func(p *api.Pod) (bool, string) {
		for _, n := range []string{"exec", "http"} {
			if s := envStatusOf(p.Status.ContainerStatuses, n); s == nil || s.State.Running == nil || s.RestartCount != 0 {
				return false, ""
			}
		}
		return true, ""
	})
	if evs := e.events("Pod", "poststart"); envCountEvents(evs, hookFailedPostStart, "") > 0 {
		t.Errorf("pod poststart, its postStart hooks passing (exec exit 0; httpGet answered 500): Events %s, want no %s: only no answer fails an httpGet hook (%s)", envDescribeEvents(evs), hookFailedPostStart, rule)
	}

	// ---- badstart: its postStart exits 1 once: killed, Waiting
	// PostStartHookError, started again.
	e.waitEvent("Pod", "badstart", hookFailedPostStart, "PostStartHook failed", rule+": a non-zero exit code fails an exec hook")
	first := hookCreated(e, "badstart", "web")
	if len(first) == 0 {
		t.Fatalf("pod badstart: the runtime calls about it %s, want CreateContainer web", envDescribeRT(e.rts.calls(envNamespace+"/badstart")))
	}
	e.waitFor("pod badstart: container web ("+first[0]+") stopped once its postStart hook failed ("+rule+": killContainer)", func() (bool, string) {
		return len(hookStops(e, "badstart", first[0])) > 0, envDescribeRT(e.rts.calls(envNamespace + "/badstart"))
	})
	e.waitEvent("Pod", "badstart", kubelets.EventKilling, "FailedPostStartHook", rule+": killContainer with message FailedPostStartHook")
	if ok, saw := hookWaitingSeen(e, "badstart", "web", hookPostStartError, "not ready yet"); !ok {
		t.Errorf("pod badstart, container web's postStart exec [/bin/fail-once] exiting 1 (stderr \"not ready yet\"): the states the kubelet wrote of it: %s; want one waiting %s with the hook's message, its output in it (%s; SyncPod's reason cache)", saw, hookPostStartError, rule)
	}
	e.waitPod("badstart", "container web running again with restartCount 1: killed by its failed postStart hook, it starts again as restartPolicy Always says, and its hook passes the second time (rules 4, 5)", func(p *api.Pod) (bool, string) {
		s := envStatusOf(p.Status.ContainerStatuses, "web")
		return s != nil && s.State.Running != nil && s.RestartCount == 1, ""
	})

	// ---- tcpstart: tcpSocket is no hook: refused, so the postStart
	// fails.
	e.waitEvent("Pod", "tcpstart", hookFailedPostStart, "PostStartHook failed", rule+"; lifecycle/handlers.go: Run refuses an action that is not exec, httpGet or sleep")
	ids := hookCreated(e, "tcpstart", "web")
	if len(ids) == 0 || len(hookStops(e, "tcpstart", ids[0])) == 0 {
		t.Errorf("pod tcpstart, its postStart a tcpSocket: the runtime calls about it %s, want its container stopped: an invalid hook fails (%s)", envDescribeRT(e.rts.calls(envNamespace+"/tcpstart")), rule)
	}
}

// hookPreStop checks the preStop hooks of pods drain, refused, nap and
// hang.
func hookPreStop(e *loopEnv, drain *hookServer, closed int) {
	t := e.t
	const rule = "rule 8; kuberuntime_container.go: killContainer, executePreStopHook"
	ids := map[string]string{}
	for _, n := range []string{"drain", "refused", "nap", "hang"} {
		ids[n] = termIDs(e, n, "web")["web"]
	}

	// ---- drain: its HTTPS preStop takes hookDrainTakes; the clock
	// stays still otherwise.
	hookDelete(e, "drain")
	termWait(e, e.waitStill, "drain", "its preStop hook, then the stop; a pod is synced as soon as it changes (rules 4, 8)")
	reqs := drain.requests("/drain")
	stops := hookStops(e, "drain", ids["drain"])
	switch {
	case len(reqs) == 0:
		t.Errorf("pod drain deleted, container web with a preStop httpGet https://127.0.0.1:%d/drain: the server's requests %s, want GET /drain before it is stopped, over HTTPS, its certificate not checked (%s; lifecycle/handlers.go: runHTTPHandler)", drain.port, drain.all(), rule)
	case reqs[0].header != "kata":
		t.Errorf("pod drain deleted: its preStop hook sent %s, want the hook's httpHeaders %s: kata (%s)", reqs[0], hookHeader, rule)
	case !slices.Contains(reqs[0].running, ids["drain"]):
		t.Errorf("pod drain deleted: its preStop GET /drain came while the runtime ran %v, not container web (%s): want the hook first, then StopContainer (%s)", reqs[0].running, ids["drain"], rule)
	}
	if len(stops) == 0 {
		t.Errorf("pod drain deleted: the runtime calls about it %s, want StopContainer %s (%s)", envDescribeRT(e.rts.calls(envNamespace+"/drain")), ids["drain"], rule)
	} else if want := 45*time.Second - hookDrainTakes; stops[0].Timeout != want {
		t.Errorf("pod drain deleted with its grace 45s, its preStop httpGet taking %v on the clock: %s, want timeout %v: GracePeriod less the seconds the hook took (%s; kubelets.GracePeriodFunc rule 5)", hookDrainTakes, stops[0], want, rule)
	}

	// ---- refused: its preStop gets no answer: FailedPreStopHook, and
	// it is stopped all the same.
	hookDelete(e, "refused")
	termWaitGone(e, "refused", "its preStop hook fails, and it is stopped and deleted all the same (rule 8)")
	if stops := hookStops(e, "refused", ids["refused"]); len(stops) == 0 || stops[0].Timeout != 45*time.Second {
		t.Errorf("pod refused deleted with its grace 45s, its preStop httpGet to 127.0.0.1:%d answered by nobody: %s, want StopContainer %s with timeout 45s: a failed hook stops nothing (%s)", closed, envDescribeRT(stops), ids["refused"], rule)
	}
	e.waitEvent("Pod", "refused", hookFailedPreStop, "PreStopHook failed", rule+": pod refused deleted, its preStop httpGet answered by nobody")

	// ---- nap: its preStop sleeps hookNapSeconds on the clock.
	hookDelete(e, "nap")
	termWaitGone(e, "nap", fmt.Sprintf("its preStop sleep of %ds on the clock, then the stop (rule 8)", hookNapSeconds))
	if stops := hookStops(e, "nap", ids["nap"]); len(stops) == 0 || stops[0].Timeout != (45-hookNapSeconds)*time.Second {
		t.Errorf("pod nap deleted with its grace 45s, its preStop sleep %d: %s, want StopContainer %s with timeout %ds: the sleep waits on the kubelet's clock, and its seconds come off the grace (%s; lifecycle/handlers.go: runSleepHandler)", hookNapSeconds, envDescribeRT(stops), ids["nap"], 45-hookNapSeconds, rule)
	}

	// ---- hang: its preStop never ends; after its grace (5s) the
	// container is stopped all the same.
	deleted := e.now()
	hookDelete(e, "hang")
	e.waitFor("pod hang, its grace 5s, its preStop exec [/bin/hang] never ending: StopContainer of container web once the grace is over ("+rule+": the hook is waited for the grace at most)", func() (bool, string) {
		return len(hookStops(e, "hang", ids["hang"])) > 0, envDescribeRT(e.rts.calls(envNamespace + "/hang"))
	})
	if stops := hookStops(e, "hang", ids["hang"]); len(stops) > 0 {
		if s := stops[0]; s.At.Sub(deleted) < 5*time.Second || s.Timeout != 2*time.Second {
			t.Errorf("pod hang deleted at %s, its grace 5s, its preStop hook never ending: %s, want StopContainer once the 5s are over, with timeout 2s (the grace less the 5s the hook took, never under MinimumGracePeriodSeconds) (%s; kubelets.GracePeriodFunc rule 5)", envSince(deleted), s, rule)
		}
	}
}
