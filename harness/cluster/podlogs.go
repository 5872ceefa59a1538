package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// podLogs serves a pod's log subresource, GET
// /api/v1/namespaces/NS/pods/NAME/log, what kubectl logs asks for. As
// upstream's apiserver sends it on to the kubelet of the pod's node
// (pkg/registry/core/pod/rest/log.go), and that kubelet reads the log
// files its runtime wrote (pkg/kubelet/kuberuntime/logs/logs.go), it
// reads the pod through the apiserver and the container's CRI log file
// through the runtime of the node the pod is bound to. It sits behind
// the request pipeline, which authorizes get pods/log, and in front of
// the apiserver, which sees every other request.
type podLogs struct {
	next http.Handler

	mu       sync.Mutex
	runtimes map[string]cri.Runtime // by node name
}

// logFollowPoll is how often kubectl logs -f looks for more lines.
const logFollowPoll = 100 * time.Millisecond

func newPodLogs(next http.Handler) *podLogs {
	return &podLogs{next: next, runtimes: map[string]cri.Runtime{}}
}

// add makes node's runtime the one its pods' logs are read from.
func (l *podLogs) add(node string, rt cri.Runtime) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runtimes[node] = rt
}

func (l *podLogs) runtime(node string) cri.Runtime {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runtimes[node]
}

// logPath matches /api/v1/namespaces/NS/pods/NAME/log.
func logPath(path string) (namespace, name string, ok bool) {
	p := strings.Split(strings.Trim(path, "/"), "/")
	if len(p) != 7 || p[0] != "api" || p[1] != "v1" || p[2] != "namespaces" || p[4] != "pods" || p[6] != "log" || p[3] == "" || p[5] == "" {
		return "", "", false
	}
	return p[3], p[5], true
}

func (l *podLogs) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ns, name, ok := logPath(r.URL.Path)
	if !ok {
		l.next.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodGet {
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed", fmt.Sprintf("the server does not allow this method on the requested resource (%s pods/log)", r.Method))
		return
	}
	opts, err := parseLogOptions(r.URL.Query())
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	pod, status, body := l.pod(r, ns, name)
	if pod == nil {
		// The apiserver's own answer: 404 NotFound, 403, ...
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	path, running, err := l.locate(r.Context(), pod, opts)
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	_ = copyLog(r.Context(), w, path, opts, running, logFollowPoll)
}

// pod reads NS/NAME through the apiserver (as the request's user has
// already been authorized for pods/log, the read needs no identity of
// its own); when it is not a pod, the apiserver's status and body.
func (l *podLogs) pod(r *http.Request, ns, name string) (*api.Pod, int, []byte) {
	req := httptest.NewRequestWithContext(r.Context(), http.MethodGet, "/api/v1/namespaces/"+ns+"/pods/"+name, nil)
	req.Header.Set("Accept", "application/json")
	rec := httptest.NewRecorder()
	l.next.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return nil, rec.Code, rec.Body.Bytes()
	}
	var p api.Pod
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		body, _ := json.Marshal(statusBody(http.StatusInternalServerError, "InternalError", "cluster: reading pod "+ns+"/"+name+": "+err.Error()))
		return nil, http.StatusInternalServerError, body
	}
	return &p, 0, nil
}

// logOptions are the query parameters of pods/log (PodLogOptions).
type logOptions struct {
	container  string
	follow     bool
	previous   bool
	timestamps bool
	tailLines  int64 // -1: all
	limitBytes int64 // 0: no limit
	since      time.Duration
}

func parseLogOptions(q map[string][]string) (logOptions, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	o := logOptions{container: get("container"), tailLines: -1}
	for _, b := range []struct {
		key string
		to  *bool
	}{{"follow", &o.follow}, {"previous", &o.previous}, {"timestamps", &o.timestamps}} {
		if v := get(b.key); v != "" {
			x, err := strconv.ParseBool(v)
			if err != nil {
				return o, fmt.Errorf("%s: invalid value %q: want true or false", b.key, v)
			}
			*b.to = x
		}
	}
	for _, n := range []struct {
		key string
		to  *int64
		min int64
	}{{"tailLines", &o.tailLines, 0}, {"limitBytes", &o.limitBytes, 1}} {
		if v := get(n.key); v != "" {
			x, err := strconv.ParseInt(v, 10, 64)
			if err != nil || x < n.min {
				return o, fmt.Errorf("%s: Invalid value: %q: must be greater than or equal to %d", n.key, v, n.min)
			}
			*n.to = x
		}
	}
	if v := get("sinceSeconds"); v != "" {
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil || x < 1 {
			return o, fmt.Errorf("sinceSeconds: Invalid value: %q: must be greater than 0", v)
		}
		o.since = time.Duration(x) * time.Second
	}
	return o, nil
}

// locate finds the log file of the container opts names (the pod's only
// one when it names none) as the kubelet does: the current attempt, or
// with previous the one before it; running says whether that container
// still runs (a followed log goes on while it does).
func (l *podLogs) locate(ctx context.Context, pod *api.Pod, opts logOptions) (path string, running func() bool, err error) {
	var names []string
	for _, c := range pod.Spec.InitContainers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	name := opts.container
	switch {
	case name == "" && len(pod.Spec.Containers) == 1:
		name = pod.Spec.Containers[0].Name
	case name == "":
		var apps []string
		for _, c := range pod.Spec.Containers {
			apps = append(apps, c.Name)
		}
		return "", nil, fmt.Errorf("a container name must be specified for pod %s, choose one of: [%s]", pod.Name, strings.Join(apps, " "))
	case !slices.Contains(names, name):
		return "", nil, fmt.Errorf("container %s is not valid for pod %s", name, pod.Name)
	}
	rt := l.runtime(pod.Spec.NodeName)
	if rt == nil {
		return "", nil, fmt.Errorf("container %q in pod %q is waiting to start: the pod is not on a node of this cluster's (spec.nodeName %q)", name, pod.Name, pod.Spec.NodeName)
	}
	cs, err := rt.ListContainers(ctx, &cri.ContainerFilter{LabelSelector: map[string]string{
		kubelets.LabelPodUID: string(pod.UID), kubelets.LabelContainerName: name}})
	if err != nil {
		return "", nil, fmt.Errorf("reading the containers of pod %q: %v", pod.Name, err)
	}
	// Newest attempt first.
	slices.SortFunc(cs, func(a, b *cri.Container) int {
		if a.Metadata.Attempt != b.Metadata.Attempt {
			return int(b.Metadata.Attempt) - int(a.Metadata.Attempt)
		}
		return b.CreatedAt.Compare(a.CreatedAt)
	})
	i := 0
	if opts.previous {
		i = 1
	}
	if len(cs) <= i {
		if opts.previous {
			return "", nil, fmt.Errorf("previous terminated container %q in pod %q not found", name, pod.Name)
		}
		return "", nil, fmt.Errorf("container %q in pod %q is waiting to start: %s", name, pod.Name, waitingReason(pod, name))
	}
	st, err := rt.ContainerStatus(ctx, cs[i].ID)
	if err != nil {
		return "", nil, fmt.Errorf("reading container %q of pod %q: %v", name, pod.Name, err)
	}
	id := cs[i].ID
	running = func() bool {
		st, err := rt.ContainerStatus(context.Background(), id)
		return err == nil && st.State == cri.ContainerRunning
	}
	return st.LogPath, running, nil
}

// waitingReason is the reason the pod's status gives container name to
// wait, ContainerCreating when it gives none.
func waitingReason(pod *api.Pod, name string) string {
	for _, s := range slices.Concat(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses) {
		if s.Name == name && s.State.Waiting != nil && s.State.Waiting.Reason != "" {
			return s.State.Waiting.Reason
		}
	}
	return "ContainerCreating"
}

// copyLog writes the log file at path to w as kubectl logs shows it:
// each line's text, joined again where the runtime cut it (tag P), with
// its time first when opts.timestamps; the last tailLines lines; none
// older than since; at most limitBytes. With follow it goes on reading
// what is written while the container runs, until ctx ends.
func copyLog(ctx context.Context, w io.Writer, path string, opts logOptions, running func() bool, poll time.Duration) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	out := &limitedWriter{w: w, left: opts.limitBytes}
	flush := func() {
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
	rd := bufio.NewReader(f)
	var pending []byte // a line the runtime cut, waiting for its end
	var first time.Time
	lines := []string{}
	emit := func(line []byte) error {
		l, err := cri.ParseLogLine(line)
		if err != nil {
			return nil // a torn or foreign line: skipped, as the kubelet does
		}
		if opts.since > 0 && l.Time.Before(time.Now().Add(-opts.since)) {
			return nil
		}
		if pending == nil {
			first = l.Time
		}
		pending = append(pending, l.Message...)
		if l.Partial {
			return nil
		}
		text := string(pending) + "\n"
		if opts.timestamps {
			text = first.UTC().Format(time.RFC3339Nano) + " " + text
		}
		pending = nil
		if opts.tailLines >= 0 {
			lines = append(lines, text)
			if int64(len(lines)) > opts.tailLines {
				lines = lines[1:]
			}
			return nil
		}
		_, err = io.WriteString(out, text)
		return err
	}
	readAll := func() error {
		for {
			line, err := rd.ReadBytes('\n')
			if len(line) > 0 && line[len(line)-1] == '\n' {
				if err := emit(line); err != nil {
					return err
				}
			} else if len(line) > 0 {
				// Half a line written: read it again once it is whole.
				if _, serr := f.Seek(-int64(len(line)), io.SeekCurrent); serr != nil {
					return serr
				}
				rd.Reset(f)
				return nil
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
		}
	}
	if err := readAll(); err != nil {
		return err
	}
	if opts.tailLines >= 0 {
		for _, t := range lines {
			if _, err := io.WriteString(out, t); err != nil {
				return err
			}
		}
		opts.tailLines = -1 // what follows is written as it comes
	}
	flush()
	if !opts.follow {
		return nil
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		// Asked before the read: a container that stopped has written
		// all it will, and the read after gets the rest.
		alive := running()
		if err := readAll(); err != nil {
			return err
		}
		flush()
		if !alive || out.full() {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// limitedWriter writes at most left bytes (no limit when left is 0 at
// first), then drops the rest as limitBytes asks.
type limitedWriter struct {
	w       io.Writer
	left    int64
	limited bool
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.left == 0 && !l.limited {
		return l.w.Write(p)
	}
	l.limited = true
	if l.left <= 0 {
		return len(p), nil
	}
	if int64(len(p)) > l.left {
		n, err := l.w.Write(p[:l.left])
		l.left -= int64(n)
		if err != nil {
			return n, err
		}
		return len(p), nil
	}
	n, err := l.w.Write(p)
	l.left -= int64(n)
	return n, err
}

func (l *limitedWriter) full() bool { return l.limited && l.left <= 0 }

// writeStatus writes a metav1.Status failure, as the apiserver does.
func writeStatus(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(statusBody(code, reason, msg))
}

func statusBody(code int, reason, msg string) map[string]any {
	return map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": msg, "reason": reason, "code": code}
}
