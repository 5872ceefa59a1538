package kubelet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// Probes (rule 6): upstream runs one goroutine per probe
// (pkg/kubelet/prober/worker.go) on its own ticker; the kata runs them
// in the pod's sync, which comes every RelistPeriod, each when ProbeDue
// allows and its periodSeconds have passed on the clock. The results
// feed the status (prober_manager.go: UpdatePodStatus) and Actions
// (kuberuntime_manager.go reads the liveness and startup results).

// The apiserver's defaults of a probe (pkg/apis/core/v1/defaults.go:
// SetDefaults_Probe).
const (
	defaultPeriodSeconds  = 10
	defaultTimeoutSeconds = 1
)

// probeKey names one probe of one container.
type probeKey struct {
	container string
	kind      kubelets.ProbeKind
}

// probeState is one probe worker: the container it probes (its runtime
// id: a new container gets a new worker), the worker's state and when it
// last ran (zero: never).
type probeState struct {
	containerID string
	worker      kubelets.ProbeWorker
	lastRun     time.Time
}

// initialResult is what a new worker publishes (newWorker's initialValue).
func initialResult(kind kubelets.ProbeKind) kubelets.Result {
	switch kind {
	case kubelets.Readiness:
		return kubelets.Failure
	case kubelets.Liveness:
		return kubelets.Success
	}
	return kubelets.Unknown
}

// probesOf are c's probes by kind, in the order they are run.
func probesOf(c api.Container) []struct {
	kind  kubelets.ProbeKind
	probe *api.Probe
} {
	return []struct {
		kind  kubelets.ProbeKind
		probe *api.Probe
	}{{kubelets.Startup, c.StartupProbe}, {kubelets.Liveness, c.LivenessProbe}, {kubelets.Readiness, c.ReadinessProbe}}
}

// runProbes runs the probes that are due in pod's app containers, as rt
// has them, and returns the liveness and startup failures published.
func (k *kubelet) runProbes(ctx context.Context, w *podWorker, pod *api.Pod, rt kubelets.RuntimePod) []kubelets.ProbeFailure {
	in := kubelets.StatusInput{Pod: *api.DeepCopy(pod), Runtime: api.DeepCopyValue(rt), Previous: api.DeepCopyValue(*w.last)}
	in.Ready, in.Started = k.probeResults(w)
	statuses := k.fn.containerStatuses(in, false)
	podIP := ""
	for i := range rt.Sandboxes {
		if rt.Sandboxes[i].State == cri.SandboxReady {
			podIP = k.podIP(pod, &rt.Sandboxes[i])
			break
		}
	}
	var failures []kubelets.ProbeFailure
	for _, c := range pod.Spec.Containers {
		var st *api.ContainerStatus
		for i := range statuses {
			if statuses[i].Name == c.Name {
				st = &statuses[i]
			}
		}
		if st == nil {
			continue
		}
		id := trimID(st.ContainerID)
		for _, p := range probesOf(c) {
			if p.probe == nil {
				delete(w.probes, probeKey{c.Name, p.kind})
				continue
			}
			key := probeKey{c.Name, p.kind}
			ps := w.probes[key]
			if st.State.Running != nil && id != "" && (ps == nil || ps.containerID != id) {
				// First seen running: a new worker.
				ps = &probeState{containerID: id, worker: kubelets.ProbeWorker{Kind: p.kind, Published: initialResult(p.kind)}}
				w.probes[key] = ps
			}
			if ps == nil || ps.containerID != id {
				continue
			}
			k.probeOnce(ctx, pod, c, *p.probe, p.kind, ps, *st, podIP)
			if ps.worker.Published == kubelets.Failure && (p.kind == kubelets.Liveness || p.kind == kubelets.Startup) {
				failures = append(failures, kubelets.ProbeFailure{ContainerID: id, Probe: p.kind})
			}
		}
	}
	return failures
}

// probeOnce runs probe of kind on container c when ProbeDue says so and
// its period has passed since its last run, and moves its worker with
// ProbeNext. A failed run records Unhealthy (prober.go: runProbeWithRetries's
// caller records "<Kind> probe failed: <output>" at each failure).
func (k *kubelet) probeOnce(ctx context.Context, pod *api.Pod, c api.Container, probe api.Probe, kind kubelets.ProbeKind, ps *probeState, st api.ContainerStatus, podIP string) {
	now := k.clock.Now()
	if ps.worker.OnHold || !k.fn.probeDue(kind, *api.DeepCopyValue(&probe), api.DeepCopyValue(st), now) {
		return
	}
	period := time.Duration(probe.PeriodSeconds) * time.Second
	if probe.PeriodSeconds <= 0 {
		period = defaultPeriodSeconds * time.Second
	}
	if !ps.lastRun.IsZero() && now.Sub(ps.lastRun) < period {
		return
	}
	ps.lastRun = now
	result, output := k.runProbe(ctx, probe, c, ps.containerID, podIP)
	ps.worker = k.fn.probeNext(ps.worker, *api.DeepCopyValue(&probe), result)
	if result == kubelets.Failure {
		k.recorder.Event(pod, events.EventTypeWarning, kubelets.EventUnhealthy, "",
			fmt.Sprintf("%s probe failed: %s", probeName(kind), output))
	}
}

func probeName(kind kubelets.ProbeKind) string {
	s := string(kind)
	return strings.ToUpper(s[:1]) + s[1:]
}

// runProbe runs probe once and returns its result and output
// (prober.go: runProbe; probe/exec, probe/http, probe/tcp). Every
// outcome but success is a Failure.
func (k *kubelet) runProbe(ctx context.Context, probe api.Probe, c api.Container, containerID, podIP string) (kubelets.Result, string) {
	timeout := time.Duration(probe.TimeoutSeconds) * time.Second
	if probe.TimeoutSeconds <= 0 {
		timeout = defaultTimeoutSeconds * time.Second
	}
	switch {
	case probe.Exec != nil:
		res, err := k.opts.Runtime.ExecSync(ctx, containerID, slices.Clone(probe.Exec.Command), timeout)
		if err != nil {
			return kubelets.Failure, err.Error()
		}
		if res.ExitCode != 0 {
			return kubelets.Failure, string(res.Stdout) + string(res.Stderr) // probe/exec: the output
		}
		return kubelets.Success, ""
	case probe.HTTPGet != nil:
		return httpProbe(ctx, probe.HTTPGet, c, podIP, timeout)
	case probe.TCPSocket != nil:
		host := probe.TCPSocket.Host
		if host == "" {
			host = podIP
		}
		if host == "" {
			return kubelets.Failure, errNoPodIP.Error()
		}
		port, err := resolvePort(probe.TCPSocket.Port, c)
		if err != nil {
			return kubelets.Failure, err.Error()
		}
		d := net.Dialer{Timeout: timeout}
		conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return kubelets.Failure, err.Error()
		}
		_ = conn.Close()
		return kubelets.Success, ""
	}
	return kubelets.Failure, "unknown probe handler"
}

// probeTransport keeps no connection between probes, as upstream's
// (probe/http/http.go: NewWithTLSConfig, DisableKeepAlives), so that
// nothing of a probe outlives it, uses no proxy, and does not check a
// probe's certificate (InsecureSkipVerify, as upstream).
var probeTransport = &http.Transport{
	DisableKeepAlives: true,
	Proxy:             http.ProxyURL(nil),
	TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // upstream's probes do not verify
}

// probeUserAgent is the User-Agent of an HTTP probe: "kube-probe/" and
// the Kubernetes version as MAJOR.MINOR (probe/http/request.go:
// userAgent), the kata's being v1.32 (the apiserver's discovery).
const probeUserAgent = "kube-probe/1.32"

// errNoPodIP is the failure of a probe or an httpGet hook that names no
// host while the pod has no IP (no Ready sandbox): upstream's prober
// would dial the local system, its lifecycle handler fails "failed to
// find networking container" (lifecycle/handlers.go: runHTTPHandler).
var errNoPodIP = errors.New("kubelet: the pod has no IP yet")

// newHTTPGetRequest is the GET of an httpGet action, a probe's or a
// hook's: both build it with probe/http/request.go:
// NewRequestForHTTPGetAction (called by prober.go: runProbe and
// lifecycle/handlers.go: runHTTPHandler). SCHEME://HOST:PORT/PATH: HOST
// podIP unless g names one, PORT through resolvePort, PATH parsed so
// that its query stays a query (formatURL); each of g's httpHeaders
// added, then User-Agent userAgent and Accept "*/*" where they set
// none, an Accept set to "" removed (newProbeRequest); a Host header is
// the request's host.
func newHTTPGetRequest(ctx context.Context, g api.HTTPGetAction, c api.Container, podIP, userAgent string) (*http.Request, error) {
	host := g.Host
	if host == "" {
		host = podIP
	}
	if host == "" {
		return nil, errNoPodIP
	}
	port, err := resolvePort(g.Port, c)
	if err != nil {
		return nil, err
	}
	scheme := strings.ToLower(string(g.Scheme))
	if scheme == "" {
		scheme = "http"
	}
	u, err := url.Parse(g.Path)
	if err != nil {
		u = &url.URL{Path: g.Path} // formatURL: a path that does not parse goes as it is
	}
	u.Scheme, u.Host = scheme, net.JoinHostPort(host, strconv.Itoa(port))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	for _, h := range g.HTTPHeaders {
		req.Header.Add(h.Name, h.Value)
	}
	if _, ok := req.Header["User-Agent"]; !ok {
		req.Header.Set("User-Agent", userAgent)
	}
	if _, ok := req.Header["Accept"]; !ok {
		req.Header.Set("Accept", "*/*")
	} else if req.Header.Get("Accept") == "" {
		req.Header.Del("Accept") // set empty: none
	}
	req.Host = req.Header.Get("Host") // net/http sends req.Host, never Header["Host"]
	return req, nil
}

// httpProbe asks g's request (newHTTPGetRequest, User-Agent
// probeUserAgent) and judges the answer (probe/http/http.go:
// DoHTTPProbe); timeout bounds the whole request (http.Client's
// Timeout, as upstream). A redirect is followed only to the same host:
// another host's 3xx is the answer (RedirectChecker with
// followNonLocalRedirects false, the kubelet's). A status from 200 to
// 399 is Success (upstream calls 3xx a Warning, a Success with a
// ProbeWarning Event, which the kata does not record).
func httpProbe(ctx context.Context, g *api.HTTPGetAction, c api.Container, podIP string, timeout time.Duration) (kubelets.Result, string) {
	req, err := newHTTPGetRequest(ctx, *g, c, podIP, probeUserAgent)
	if err != nil {
		return kubelets.Failure, err.Error()
	}
	client := &http.Client{Transport: probeTransport, Timeout: timeout, CheckRedirect: sameHostRedirects}
	resp, err := client.Do(req)
	if err != nil {
		return kubelets.Failure, err.Error()
	}
	_ = resp.Body.Close()
	if resp.StatusCode >= http.StatusOK && resp.StatusCode < http.StatusBadRequest {
		return kubelets.Success, ""
	}
	return kubelets.Failure, fmt.Sprintf("HTTP probe failed with statuscode: %d", resp.StatusCode)
}

// sameHostRedirects follows a redirect to the first request's host, ten
// at most, and answers the 3xx of one to another host
// (probe/http/http.go: RedirectChecker(false)).
func sameHostRedirects(req *http.Request, via []*http.Request) error {
	if req.URL.Hostname() != via[0].URL.Hostname() {
		return http.ErrUseLastResponse
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// resolvePort is port as a number, a name being one of c's ports, or
// else a number written as a string (probe/util.go:
// ResolveContainerPort).
func resolvePort(port api.IntOrString, c api.Container) (int, error) {
	n := int(port.IntVal)
	if port.Type == api.String {
		found := false
		for _, p := range c.Ports {
			if p.Name == port.StrVal {
				n, found = int(p.ContainerPort), true
				break
			}
		}
		if !found {
			var err error
			if n, err = strconv.Atoi(port.StrVal); err != nil {
				return 0, err
			}
		}
	}
	if n > 0 && n < 65536 {
		return n, nil
	}
	return 0, fmt.Errorf("invalid port number: %d", n)
}

// probeResults are the readiness and startup results published for the
// containers w probes, by container id (StatusInput.Ready and Started).
func (k *kubelet) probeResults(w *podWorker) (ready, started map[string]bool) {
	ready, started = map[string]bool{}, map[string]bool{}
	for key, ps := range w.probes {
		switch key.kind {
		case kubelets.Readiness:
			if ps.worker.Published != kubelets.Unknown {
				ready[ps.containerID] = ps.worker.Published == kubelets.Success
			}
		case kubelets.Startup:
			if ps.worker.Published != kubelets.Unknown {
				started[ps.containerID] = ps.worker.Published == kubelets.Success
			}
		}
	}
	return ready, started
}
