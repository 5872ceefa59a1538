package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/storage"
	store "github.com/kubekata/kubekata/solutions/03-store"
	apiserver "github.com/kubekata/kubekata/solutions/04-apiserver"
)

// events is a log the fakes share, in the order things happened.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, s)
}

func (e *events) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.log...)
}

// lines is an io.Writer that hands each complete line to a channel.
type lines struct {
	mu   sync.Mutex
	part []byte
	all  bytes.Buffer
	c    chan string
}

func newLines() *lines { return &lines{c: make(chan string, 100)} }

func (l *lines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all.Write(b)
	l.part = append(l.part, b...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			return len(b), nil
		}
		select {
		case l.c <- string(l.part[:i]):
		default:
		}
		l.part = l.part[i+1:]
	}
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all.String()
}

// waitLine waits for a line starting with prefix.
func (l *lines) waitLine(t *testing.T, prefix string, done <-chan error) string {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case s := <-l.c:
			if strings.HasPrefix(s, prefix) {
				return s
			}
		case err := <-done:
			t.Fatalf("Run returned %v before printing %q; output:\n%s", err, prefix, l.String())
		case <-deadline:
			t.Fatalf("no line %q within a minute; output:\n%s", prefix, l.String())
		}
	}
}

// recordingStore is a memory store whose Close is logged.
type recordingStore struct {
	storage.Store
	ev *events
}

func (s recordingStore) Close() error {
	s.ev.add("store closed")
	return s.Store.Close()
}

// fakeComponent logs its start and its stop.
type fakeComponent struct {
	name string
	ev   *events
}

func (c fakeComponent) Run(ctx context.Context) error {
	c.ev.add("start " + c.name)
	<-ctx.Done()
	c.ev.add("stop " + c.name)
	return nil
}

// fakeAPIServer answers /readyz once ready is closed and creates
// namespaces (409 for one it has).
type fakeAPIServer struct {
	ready  chan struct{}
	asked  sync.Once
	askedC chan struct{} // closed at the first /readyz
	ev     *events
	mu     sync.Mutex
	ns     map[string]bool
	exist  map[string]bool
}

func (f *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/readyz":
		f.asked.Do(func() { f.ev.add("readyz asked"); close(f.askedC) })
		select {
		case <-f.ready:
			w.WriteHeader(http.StatusOK)
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/namespaces":
		var body struct {
			Metadata struct{ Name string }
		}
		b, _ := io.ReadAll(r.Body)
		_ = jsonUnmarshal(b, &body)
		f.mu.Lock()
		defer f.mu.Unlock()
		name := body.Metadata.Name
		if f.exist[name] || f.ns[name] {
			w.WriteHeader(http.StatusConflict)
			fmt.Fprintf(w, `{"kind":"Status","reason":"AlreadyExists","message":"namespaces %q already exists"}`, name)
			return
		}
		f.ns[name] = true
		f.ev.add("namespace " + name)
		w.WriteHeader(http.StatusCreated)
	default:
		http.NotFound(w, r)
	}
}

func newFakeAPIServer(ev *events) *fakeAPIServer {
	return &fakeAPIServer{ready: make(chan struct{}), askedC: make(chan struct{}), ev: ev, ns: map[string]bool{}, exist: map[string]bool{}}
}

func runInBackground(t *testing.T, p Parts, o Options) (stop func() error, done chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	go func() { done <- Run(ctx, p, o) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				err = errors.New("Run did not return a minute after its context was cancelled")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop, done
}

// The lifecycle: the kubeconfig appears only once /readyz answers and
// the namespaces exist, the components start in order after that, and a
// stop ends them in reverse order, then the store is closed.
func TestRunOrder(t *testing.T) {
	ev := &events{}
	fake := newFakeAPIServer(ev)
	dir := t.TempDir()
	// A stale kubeconfig from an earlier run must go at once.
	if err := os.WriteFile(filepath.Join(dir, KubeconfigFile), []byte("stale"), 0o600); err != nil {
		t.Fatal(err)
	}
	comp := func(name string) func(client.Interface) Component {
		return func(client.Interface) Component { return fakeComponent{name: name, ev: ev} }
	}
	p := Parts{
		OpenStore: func(string) (storage.Store, error) {
			ev.add("store opened")
			return recordingStore{storage.NewMemory(), ev}, nil
		},
		APIServer: func(storage.Store) http.Handler { ev.add("apiserver made"); return fake },
		Scheduler: comp("scheduler"), Controllers: comp("controllers"),
		Kubelet: func(_ client.Interface, n Node) (Component, error) {
			return fakeComponent{name: "kubelet " + n.Name, ev: ev}, nil
		},
		Proxy: comp("proxy"),
	}
	out := newLines()
	stop, done := runInBackground(t, p, Options{DataDir: dir, Nodes: 2, Stdout: out})

	// Not ready yet: /readyz says 503 until fake.ready closes. Wait
	// until it has been asked once, then look.
	select {
	case <-fake.askedC:
	case err := <-done:
		t.Fatalf("Run returned %v before asking /readyz", err)
	case <-time.After(time.Minute):
		t.Fatalf("Run did not ask /readyz within a minute; events %q", ev.list())
	}
	if _, err := os.Stat(filepath.Join(dir, KubeconfigFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("before /readyz answered: Stat(kubeconfig) = %v, want it absent (the stale one removed, no new one yet)", err)
	}
	if got := ev.list(); contains(got, "namespace default") || contains(got, "start scheduler") {
		t.Fatalf("before /readyz answered, events %q; want no bootstrap and no component yet", got)
	}
	close(fake.ready)
	line := out.waitLine(t, "export KUBECONFIG=", done)
	if want := "export KUBECONFIG=" + filepath.Join(dir, KubeconfigFile); line != want {
		t.Errorf("Run printed %q, want %q", line, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, KubeconfigFile))
	if err != nil || !strings.Contains(string(b), "server: http://127.0.0.1:") {
		t.Errorf("kubeconfig after ready = %q, %v; want one with the apiserver's loopback URL", b, err)
	}
	if err := stop(); err != nil {
		t.Fatalf("Run after a stop = %v, want nil", err)
	}
	want := []string{"store opened", "apiserver made", "readyz asked",
		"namespace default", "namespace kube-system", "namespace kube-public", "namespace kube-node-lease",
		"start scheduler", "start controllers", "start kubelet node-1", "start kubelet node-2", "start proxy",
		"stop proxy", "stop kubelet node-2", "stop kubelet node-1", "stop controllers", "stop scheduler",
		"store closed"}
	got := ev.list()
	// Components start concurrently: compare starts as a set in place,
	// the rest in order.
	if !sameOrder(got, want) {
		t.Errorf("Run's events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Stat(filepath.Join(dir, "admin.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after the stop: Stat(admin.json) = %v, want it removed", err)
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// sameOrder compares got and want, where the "start ..." events may come
// in any order among themselves (each runs in its own goroutine).
func sameOrder(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	var gs, ws []string
	for i := range got {
		if strings.HasPrefix(want[i], "start ") {
			gs, ws = append(gs, got[i]), append(ws, want[i])
			continue
		}
		if got[i] != want[i] {
			return false
		}
	}
	for _, w := range ws {
		if !contains(gs, w) {
			return false
		}
	}
	return true
}

// A restart over existing data: the namespaces exist, 409 AlreadyExists
// is fine.
func TestRunBootstrapAlreadyExists(t *testing.T) {
	ev := &events{}
	fake := newFakeAPIServer(ev)
	close(fake.ready)
	for _, ns := range SystemNamespaces {
		fake.exist[ns] = true
	}
	out := newLines()
	stop, done := runInBackground(t, Parts{APIServer: func(storage.Store) http.Handler { return fake }}, Options{DataDir: t.TempDir(), Stdout: out})
	out.waitLine(t, "export KUBECONFIG=", done)
	if err := stop(); err != nil {
		t.Fatalf("Run over existing namespaces = %v, want nil", err)
	}
}

// A bootstrap the apiserver refuses stops the start with its answer.
func TestRunBootstrapRefused(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"kind":"Status","message":"disk on fire"}`)
	})
	dir := t.TempDir()
	err := Run(context.Background(), Parts{APIServer: func(storage.Store) http.Handler { return h }}, Options{DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), `POST /api/v1/namespaces "default": 500 Internal Server Error`) || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("Run with an apiserver that answers 500 = %v; want the bootstrap's call, status and message", err)
	}
	if _, err := os.Stat(filepath.Join(dir, KubeconfigFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after a failed bootstrap: Stat(kubeconfig) = %v, want no kubeconfig", err)
	}
}

// A part that panics "not implemented" is a *NotDoneError naming it, and
// the program says which exercise is not done.
func TestRunNotDone(t *testing.T) {
	p := Parts{
		OpenStore:     func(string) (storage.Store, error) { panic("not implemented: Open") },
		StoreFrom:     "exercises/03-store",
		APIServer:     func(storage.Store) http.Handler { return http.NotFoundHandler() },
		APIServerFrom: "exercises/04-apiserver",
		NotDone:       "finish it (kata next)",
	}
	var stdout, stderr bytes.Buffer
	code := main(context.Background(), p, []string{"serve", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0"}, &stdout, &stderr)
	want := "kata up: exercises/03-store: Open panicked: not implemented: Open\nkata up: exercises/03-store is not done yet: finish it (kata next)\n"
	if code != exitNotDone || stderr.String() != want {
		t.Errorf("serve with a stub store: exit %d, stderr %q; want %d, %q", code, stderr.String(), exitNotDone, want)
	}
}

// A store that is not one is explained.
func TestRunCorruptStore(t *testing.T) {
	p := Parts{
		OpenStore: func(string) (storage.Store, error) { return nil, fmt.Errorf("%w: bad magic", storage.ErrCorrupt) },
		APIServer: func(storage.Store) http.Handler { return http.NotFoundHandler() },
	}
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	code := main(context.Background(), p, []string{"serve", "--data-dir", dir}, &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), "opening the store in "+dir) ||
		!strings.Contains(stderr.String(), "holds no store this kata can read, or another kata up is using it") {
		t.Errorf("serve over a corrupt store: exit %d, stderr %q; want 1 and the explanation", code, stderr.String())
	}
}

// A port in use is explained.
func TestRunPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = Run(context.Background(), Parts{APIServer: func(storage.Store) http.Handler { return http.NotFoundHandler() }},
		Options{DataDir: t.TempDir(), Listen: ln.Addr().String()})
	if !errors.Is(err, ErrPortInUse) || !strings.Contains(err.Error(), "is another cluster running? try --port") {
		t.Fatalf("Run on a port in use = %v, want ErrPortInUse", err)
	}
}

// --etcd-servers without an etcd store in the program is refused.
func TestRunEtcdAbsent(t *testing.T) {
	err := Run(context.Background(), Parts{APIServer: func(storage.Store) http.Handler { return http.NotFoundHandler() }},
		Options{DataDir: t.TempDir(), EtcdServers: []string{"http://127.0.0.1:2379"}})
	if err == nil || !strings.Contains(err.Error(), "--etcd-servers needs a program built with the etcd store") {
		t.Fatalf("Run with EtcdServers and no OpenEtcd = %v, want a clear refusal", err)
	}
}

// A component that fails stops the cluster with its error.
func TestRunComponentFails(t *testing.T) {
	fake := newFakeAPIServer(&events{})
	close(fake.ready)
	p := Parts{
		APIServer: func(storage.Store) http.Handler { return fake },
		Scheduler: func(client.Interface) Component { return failing{} },
	}
	err := Run(context.Background(), p, Options{DataDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "the scheduler: boom") {
		t.Fatalf("Run with a scheduler that fails = %v, want its error", err)
	}
}

type failing struct{}

func (failing) Run(context.Context) error { return errors.New("boom") }

var referenceParts = Parts{OpenStore: store.Open, APIServer: apiserver.New, StoreFrom: "solutions/03-store", APIServerFrom: "solutions/04-apiserver"}

// With the reference store on disk and the reference apiserver, in this
// process: what a client was told is written is there after a stop and
// a start, the namespaces exist from the first start, and a snapshot
// taken through the admin endpoint restores into an empty directory and
// not into one that holds data.
func TestRunReferenceDurableAndSnapshot(t *testing.T) {
	dir := t.TempDir()
	start := func(dir string) (url string, stop func() error) {
		out := newLines()
		stop, done := runInBackground(t, referenceParts, Options{DataDir: dir, Stdout: out})
		line := out.waitLine(t, "kata up: the apiserver is listening on ", done)
		return strings.Fields(strings.TrimPrefix(line, "kata up: the apiserver is listening on "))[0], stop
	}
	ctx := context.Background()
	url, stop := start(dir)
	// A plain GET, no kubectl needed.
	resp, err := http.Get(url + "/api/v1/namespaces/default")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/namespaces/default on a fresh cluster = %s, want 200 OK", resp.Status)
	}
	pods := client.For[*api.Pod](client.New(url, nil))
	const n = 20
	for i := 0; i < n; i++ {
		if _, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "default"},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27"}}}}); err != nil {
			t.Fatalf("Create(web-%d) = %v", i, err)
		}
	}
	var snap bytes.Buffer
	if err := program.SaveSnapshot(ctx, dir, &snap); err != nil {
		t.Fatalf("SaveSnapshot(%s) = %v", dir, err)
	}
	if err := stop(); err != nil {
		t.Fatalf("stopping: %v", err)
	}
	if err := program.SaveSnapshot(ctx, dir, io.Discard); err == nil || !strings.Contains(err.Error(), "no cluster is running with its data in") {
		t.Errorf("SaveSnapshot after the stop = %v, want no cluster running", err)
	}

	countPods := func(url string) int {
		t.Helper()
		items, _, err := client.For[*api.Pod](client.New(url, nil)).List(ctx, "default", client.ListOptions{})
		if err != nil {
			t.Fatalf("List(pods) = %v", err)
		}
		return len(items)
	}
	url, stop = start(dir)
	if got := countPods(url); got != n {
		t.Fatalf("after a restart: %d pods, want the %d acknowledged before the stop", got, n)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	// Restore: into an empty directory, then the same again (refused).
	file := filepath.Join(t.TempDir(), "snap.db")
	if err := os.WriteFile(file, snap.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "restored")
	if _, err := Restore(ctx, referenceParts, fresh, file); err != nil {
		t.Fatalf("Restore into an empty directory = %v", err)
	}
	if _, err := Restore(ctx, referenceParts, fresh, file); !errors.Is(err, storage.ErrNotEmpty) || !strings.Contains(err.Error(), "already holds data") {
		t.Fatalf("Restore into a directory with data = %v, want ErrNotEmpty said clearly", err)
	}
	url, stop = start(fresh)
	if got := countPods(url); got != n {
		t.Fatalf("after a restore: %d pods, want %d", got, n)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// restore with the in-memory store has nothing to restore into.
func TestRestoreInMemoryRefused(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := main(context.Background(), Parts{APIServer: apiserver.New}, []string{"restore", "--data-dir", t.TempDir(), "x.db"}, &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), "restore needs a store on disk") {
		t.Errorf("restore without a store: exit %d, stderr %q; want 1 and why", code, stderr.String())
	}
}

func TestMainUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"nope"}, {"serve"}, {"serve", "--data-dir", "d", "extra"}, {"serve", "--data-dir", "d", "--nodes", "-1"}, {"serve", "--data-dir", "d", "--nodes", "255"}, {"restore", "--data-dir", "d"}} {
		var stdout, stderr bytes.Buffer
		if code := main(context.Background(), referenceParts, args, &stdout, &stderr); code != exitUsage || !strings.HasPrefix(stderr.String(), "usage: PROG serve") {
			t.Errorf("main(%q) = %d, stderr %q; want %d and the usage", args, code, stderr.String(), exitUsage)
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// Told to stop while waiting for /readyz: a clean stop, no kubeconfig.
func TestRunStoppedBeforeReady(t *testing.T) {
	fake := newFakeAPIServer(&events{}) // never ready
	asked := make(chan struct{})
	var once sync.Once
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(asked) })
		fake.ServeHTTP(w, r)
	})
	dir := t.TempDir()
	stop, done := runInBackground(t, Parts{APIServer: func(storage.Store) http.Handler { return h }}, Options{DataDir: dir})
	select {
	case <-asked:
	case err := <-done:
		t.Fatalf("Run returned %v before asking /readyz", err)
	case <-time.After(time.Minute):
		t.Fatal("Run did not ask /readyz within a minute")
	}
	if err := stop(); err != nil {
		t.Fatalf("Run stopped before ready = %v, want nil", err)
	}
	if _, err := os.Stat(filepath.Join(dir, KubeconfigFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat(kubeconfig) after a stop before ready = %v, want none", err)
	}
}

// The edge is outermost: it sees a body before httpguard, which refuses
// a media type the apiserver does not read (415), and httpguard is still
// in front of the apiserver.
func TestRunEdgeOutermost(t *testing.T) {
	var got []string
	var mu sync.Mutex
	apiserver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/readyz":
			return // 200
		case "/api/v1/namespaces":
			w.WriteHeader(http.StatusCreated)
			return
		}
		mu.Lock()
		got = append(got, r.Header.Get("Content-Type"))
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	})
	// The edge turns application/x-edge into JSON, as protoedge turns
	// protobuf.
	edge := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Content-Type") == "application/x-edge" {
				r.Header.Set("Content-Type", "application/json")
			}
			next.ServeHTTP(w, r)
		})
	}
	out := newLines()
	_, done := runInBackground(t, Parts{APIServer: func(storage.Store) http.Handler { return apiserver }, Edge: edge}, Options{DataDir: t.TempDir(), Stdout: out})
	line := out.waitLine(t, "kata up: the apiserver is listening on ", done)
	url := strings.Fields(strings.TrimPrefix(line, "kata up: the apiserver is listening on "))[0]
	post := func(ct string) int {
		req, _ := http.NewRequest(http.MethodPost, url+"/api/v1/namespaces/default/configmaps", strings.NewReader("{}"))
		req.Header.Set("Content-Type", ct)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("application/x-edge"); code != http.StatusCreated {
		t.Errorf("POST with a body only the edge reads = %d, want 201 (the edge before httpguard)", code)
	}
	if code := post("text/plain"); code != http.StatusUnsupportedMediaType {
		t.Errorf("POST text/plain = %d, want 415 from httpguard, still in front of the apiserver", code)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "application/json" {
		t.Errorf("the apiserver saw Content-Types %q, want only the edge's application/json", got)
	}
}

// Run puts the apiserver behind httpguard: a rebinding Host is refused
// before the apiserver sees it, a loopback one reaches it.
func TestRunGuardsTheApiserver(t *testing.T) {
	var reached atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/readyz":
			return // 200
		case "/api/v1/namespaces":
			w.WriteHeader(http.StatusCreated) // bootstrap
			return
		}
		reached.Add(1)
	})
	out := newLines()
	_, done := runInBackground(t, Parts{APIServer: func(storage.Store) http.Handler { return h }}, Options{DataDir: t.TempDir(), Stdout: out})
	line := out.waitLine(t, "kata up: the apiserver is listening on ", done)
	url := strings.Fields(strings.TrimPrefix(line, "kata up: the apiserver is listening on "))[0]
	for _, c := range []struct {
		host string
		want int
	}{{"attacker.example", http.StatusMisdirectedRequest}, {"localhost", http.StatusOK}} {
		req, _ := http.NewRequest("GET", url+"/api", nil)
		req.Host = c.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET /api with Host %q = %d, want %d", c.host, resp.StatusCode, c.want)
		}
	}
	if n := reached.Load(); n != 1 {
		t.Errorf("the apiserver saw %d requests, want 1 (the loopback one)", n)
	}
}

// waitRunning checks cond every 20ms until it holds, failing after
// within with what cond last said, or at once if the cluster running in
// the background (done) stops.
func waitRunning(t *testing.T, done chan error, within time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v; last: %s", what, within, last)
		}
		select {
		case err := <-done:
			t.Fatalf("%s: the cluster stopped: %v", what, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
