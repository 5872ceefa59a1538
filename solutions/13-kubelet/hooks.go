package kubelet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/events"
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
	switch {
	case h.Exec != nil:
		// Upstream passes no timeout (0: none). A non-zero exit code is
		// an error, as cri-client's ExecSync makes it one.
		cmd := slices.Clone(h.Exec.Command)
		res, err := k.opts.Runtime.ExecSync(ctx, id, cmd, 0)
		var output []byte
		if err == nil && res != nil {
			output = append(slices.Clone(res.Stdout), res.Stderr...)
			if res.ExitCode != 0 {
				err = fmt.Errorf("kubelet: command '%s' exited with %d: %s", strings.Join(cmd, " "), res.ExitCode, res.Stderr)
			}
		}
		if err != nil {
			return fmt.Sprintf("Exec lifecycle hook (%v) for Container %q in Pod %q failed - error: %v, message: %q",
				cmd, c.Name, formatPod(pod), err, output), err
		}
		return "", nil
	case h.HTTPGet != nil:
		if err := httpHook(ctx, *h.HTTPGet, c, podIP); err != nil {
			return fmt.Sprintf("HTTP lifecycle hook (%s) for Container %q in Pod %q failed - error: %v",
				h.HTTPGet.Path, c.Name, formatPod(pod), err), err
		}
		return "", nil
	case h.Sleep != nil:
		// On the kubelet's clock (runSleepHandler sleeps on the real
		// one); ending early is a failure.
		select {
		case <-k.clock.After(time.Duration(h.Sleep.Seconds) * time.Second):
			return "", nil
		case <-ctx.Done():
			err := errors.New("kubelet: container terminated before sleep hook finished")
			return fmt.Sprintf("Sleep lifecycle hook (%d) for Container %q in Pod %q failed - error: %v",
				h.Sleep.Seconds, c.Name, formatPod(pod), err), err
		}
	}
	// tcpSocket is a probe's action, not a hook's: refused.
	what := "no action"
	if h.TCPSocket != nil {
		what = "tcpSocket"
	}
	err := fmt.Errorf("kubelet: invalid handler: %s", what)
	return fmt.Sprintf("Cannot run handler: %v", err), err
}

// httpHook sends g's request (newHTTPGetRequest, as a probe's, with
// User-Agent hookUserAgent) through hookClient and reads at most
// hookBodyLimit of the answer (lifecycle/handlers.go: runHTTPHandler,
// discardHTTPRespBody). Only no answer fails it: any status passes, a
// 500 too, as upstream's runHTTPHandler looks at no status code.
func httpHook(ctx context.Context, g api.HTTPGetAction, c api.Container, podIP string) error {
	req, err := newHTTPGetRequest(ctx, g, c, podIP, hookUserAgent)
	if err != nil {
		return err
	}
	resp, err := hookClient.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, hookBodyLimit))
	_ = resp.Body.Close()
	return nil
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
	if c.Lifecycle == nil || c.Lifecycle.PostStart == nil {
		return "", false
	}
	msg, err := k.runHandler(ctx, pod, c, id, *c.Lifecycle.PostStart, podIP)
	if err == nil {
		return "", false
	}
	k.recorder.Event(pod, events.EventTypeWarning, eventFailedPostStartHook, "", "PostStartHook failed")
	k.killContainer(ctx, pod, id, c.Name, eventFailedPostStartHook, eventFailedPostStartHook)
	return msg, true
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
	h := *c.Lifecycle.PreStop
	podIP := ""
	if h.HTTPGet != nil && h.HTTPGet.Host == "" {
		if rt, err := k.readRuntime(ctx, pod.UID); err == nil {
			for i := range rt.Sandboxes {
				if rt.Sandboxes[i].State == cri.SandboxReady {
					podIP = k.podIP(pod, &rt.Sandboxes[i])
					break
				}
			}
		}
	}
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	k.wg.Add(1) // the caller is a pod worker, counted in wg: Run waits for the hook too
	go func() {
		defer k.wg.Done()
		_, err := k.runHandler(hctx, pod, c, id, h, podIP)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			k.recorder.Event(pod, events.EventTypeWarning, eventFailedPreStopHook, "", "PreStopHook failed")
		}
		return err
	case <-k.clock.After(time.Duration(grace) * time.Second):
		return fmt.Errorf("kubelet: the preStop hook of container %s did not end within its grace of %ds", c.Name, grace)
	case <-ctx.Done():
		return ctx.Err()
	}
}
