package kubelet

import (
	"context"
	"crypto/tls"
	"net/http"

	"github.com/kubekata/kubekata/harness/api"
)

// Lifecycle hooks (rules 4 and 8): a container's postStart hook runs
// once it has started, and the sync waits for it; its preStop hook runs
// before it is stopped, within its grace (pkg/kubelet/lifecycle/
// handlers.go: handlerRunner.Run, runHTTPHandler, runSleepHandler;
// kuberuntime/kuberuntime_container.go: startContainer's last step,
// executePreStopHook, killContainer).

// Upstream's names: the reason a failed postStart leaves the container
// waiting with (kuberuntime_container.go: ErrPostStartHook), and the
// Events (pkg/kubelet/events/event.go). The Events do not carry the
// hook's output, as upstream's no longer do (it may hold secrets).
const (
	reasonPostStartHookError = "PostStartHookError"
	eventFailedPostStartHook = "FailedPostStartHook"
	eventFailedPreStopHook   = "FailedPreStopHook"
	hookBodyLimit            = 10 << 10 // lifecycle/handlers.go: maxRespBodyLength
	// hookUserAgent is an httpGet hook's User-Agent, as a probe's
	// (probe/http/request.go: userAgent, "lifecycle"), the kata's
	// version being v1.32.
	hookUserAgent = "kube-lifecycle/1.32"
)

// hookClient sends the httpGet hooks. It does not check a certificate,
// as the kubelet's lifecycle client (kubelet.go: NewMainKubelet's
// insecureContainerLifecycleHTTPClient), and keeps no connection between
// hooks, so that nothing of a hook outlives it (as a probe's).
var hookClient = &http.Client{Transport: &http.Transport{
	DisableKeepAlives: true,
	TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // upstream's hooks do not verify
}}

// runHandler runs hook h of container c (runtime id id) of pod, and
// returns its error (nil: it passed) with the message upstream's
// handlerRunner.Run gives it. podIP is the host of an httpGet that names
// none.
func (k *kubelet) runHandler(ctx context.Context, pod *api.Pod, c api.Container, id string, h api.LifecycleHandler, podIP string) (string, error) {
	// TODO: exec: ExecSync with timeout 0, an error or a non-zero exit code fails; httpGet: httpHook; sleep: wait its seconds on k.clock (ctx ending first fails); anything else (tcpSocket) is refused with an error (task 15; rules 4, 8).
	panic("not implemented: runHandler")
}

// httpHook sends g's request (newHTTPGetRequest, as a probe's, with
// User-Agent hookUserAgent) through hookClient and reads at most
// hookBodyLimit of the answer (lifecycle/handlers.go: runHTTPHandler,
// discardHTTPRespBody). Only no answer fails it: any status passes, a
// 500 too, as upstream's runHTTPHandler looks at no status code.
func httpHook(ctx context.Context, g api.HTTPGetAction, c api.Container, podIP string) error {
	// TODO: send newHTTPGetRequest's request (task 14, User-Agent hookUserAgent) through hookClient, then read at most hookBodyLimit of the body and close it; only an error (of the request or of sending it) fails, whatever the status (task 15; rules 4, 8).
	panic("not implemented: httpHook")
}

// postStart runs container c's postStart hook, when it has one, in
// container id, which has just started (kuberuntime_container.go:
// startContainer, step 4). When the hook fails: a Warning Event
// FailedPostStartHook "PostStartHook failed", the container killed with
// reason and message FailedPostStartHook (its preStop hook first), and
// failed true with the hook's message, which the caller makes the
// container's Waiting PostStartHookError message; the container then
// starts again as its restartPolicy says, behind its back-off.
func (k *kubelet) postStart(ctx context.Context, pod *api.Pod, c api.Container, id, podIP string) (message string, failed bool) {
	// TODO: no postStart: not failed; else runHandler; failed: the Warning Event FailedPostStartHook "PostStartHook failed", killContainer with reason and message FailedPostStartHook, and the hook's message (task 15; rule 4).
	// Until task 15: no postStart hook runs (startContainer, task 11, calls this).
	return "", false
}

// preStop runs container c's preStop hook in container id and waits for
// it grace seconds at most on the clock (kuberuntime_container.go:
// executePreStopHook); a hook still running then is told to end (its
// context) and left to it. A failure is a Warning Event
// FailedPreStopHook "PreStopHook failed", and the error; killContainer
// stops the container all the same. An httpGet that names no host goes
// to the pod's IP, read from the runtime (runHTTPHandler asks
// GetPodStatus).
func (k *kubelet) preStop(ctx context.Context, pod *api.Pod, c api.Container, id string, grace int64) error {
	// TODO: for an httpGet without host, the pod's IP from its newest Ready sandbox; runHandler on a goroutine counted in k.wg, with a context you cancel on return; wait for it, or for grace seconds on k.clock, or ctx; a failure: the Warning Event FailedPreStopHook "PreStopHook failed" (task 15; rule 8).
	// Until task 15: no preStop hook runs (killContainer, task 14, calls this).
	return nil
}
