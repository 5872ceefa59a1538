package kubelet

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
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
	// TODO: Failure for readiness, Success for liveness, Unknown for startup (newWorker's initialValue) (task 14; rule 6).
	panic("not implemented: initialResult")
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
	// TODO: the app containers' statuses; a new probeState when a container is first seen running (by id); probeOnce each; return the liveness and startup workers whose Published is Failure as ProbeFailures (task 14; rule 6).
	// Until task 14: no probe runs, no failure (sync, task 11, calls this).
	return nil
}

// probeOnce runs probe of kind on container c when ProbeDue says so and
// its period has passed since its last run, and moves its worker with
// ProbeNext. A failed run records Unhealthy (prober.go: runProbeWithRetries's
// caller records "<Kind> probe failed: <output>" at each failure).
func (k *kubelet) probeOnce(ctx context.Context, pod *api.Pod, c api.Container, probe api.Probe, kind kubelets.ProbeKind, ps *probeState, st api.ContainerStatus, podIP string) {
	// TODO: skip unless ProbeDue and periodSeconds (10 when 0) have passed on the clock since its last run; runProbe; ProbeNext; a failed run records Unhealthy "<Kind> probe failed: <output>" (task 14; rules 6, 11).
	panic("not implemented: probeOnce")
}

func probeName(kind kubelets.ProbeKind) string {
	s := string(kind)
	return strings.ToUpper(s[:1]) + s[1:]
}

// runProbe runs probe once and returns its result and output
// (prober.go: runProbe; probe/exec, probe/http, probe/tcp). Every
// outcome but success is a Failure.
func (k *kubelet) runProbe(ctx context.Context, probe api.Probe, c api.Container, containerID, podIP string) (kubelets.Result, string) {
	// TODO: exec: ExecSync with timeoutSeconds (1 when 0), exit 0 is Success; httpGet: httpProbe; tcpSocket: dial HOST:PORT (host: the pod's IP unless given, errNoPodIP's text when neither) within the timeout, the dial's error the output; anything else Failure (task 14; rule 6).
	panic("not implemented: runProbe")
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
	// TODO: build GET SCHEME://HOST:PORT/PATH (scheme lowercased, http when empty; host podIP unless given, errNoPodIP when neither; port through resolvePort; the path through url.Parse so its query stays one) with each httpHeaders entry added, User-Agent userAgent and Accept "*/*" unless given, and req.Host the Host header (task 14; rule 6).
	panic("not implemented: newHTTPGetRequest")
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
	// TODO: send newHTTPGetRequest's request (User-Agent probeUserAgent; its error is the output) on an http.Client with probeTransport, Timeout timeout and CheckRedirect sameHostRedirects; 200 to 399 is Success, else "HTTP probe failed with statuscode: N" (task 14; rules 6, 11).
	panic("not implemented: httpProbe")
}

// sameHostRedirects follows a redirect to the first request's host, ten
// at most, and answers the 3xx of one to another host
// (probe/http/http.go: RedirectChecker(false)).
func sameHostRedirects(req *http.Request, via []*http.Request) error {
	// TODO: http.ErrUseLastResponse when req's hostname is not via[0]'s, an error after 10 redirects, else nil (task 14; rule 6).
	panic("not implemented: sameHostRedirects")
}

// resolvePort is port as a number, a name being one of c's ports, or
// else a number written as a string (probe/util.go:
// ResolveContainerPort).
func resolvePort(port api.IntOrString, c api.Container) (int, error) {
	// TODO: a number as it is; a name: the container's port of that name, else the name read as a number; 1 to 65535 or an error (task 14).
	panic("not implemented: resolvePort")
}

// probeResults are the readiness and startup results published for the
// containers w probes, by container id (StatusInput.Ready and Started).
func (k *kubelet) probeResults(w *podWorker) (ready, started map[string]bool) {
	// TODO: by container id: Ready from the readiness workers, Started from the startup workers, for those with a result other than Unknown (task 14; rule 6).
	// Until task 14: no result (makeStatus, task 11, calls this).
	return nil, nil
}
