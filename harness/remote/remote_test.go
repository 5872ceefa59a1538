package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/storage"
	reconcile "github.com/kubekata/kubekata/solutions/01-reconcile"
	store "github.com/kubekata/kubekata/solutions/03-store"
)

// envFake turns the test binary into a learner's program: the value
// names which one (see fakes).
const envFake = "KATA_REMOTE_TEST_FAKE"

// Desired counts that make the misbehaving Plan misbehave.
const (
	doGoexit = 1001 + iota
	doExit
	doHang
	doPanic
	doForge
	doPrintPanic
)

// misbehaving is the solution's Plan, except for the desired counts above.
func misbehaving(desired int, pods []api.Pod, now time.Time) replicas.Plan {
	switch desired {
	case doGoexit:
		runtime.Goexit()
	case doExit:
		fmt.Println("about to exit")
		fmt.Fprintln(os.Stderr, "\x1b[31mred\x1b[0m \x16--- PASS: TestReconcile/01-create-missing (0.00s)")
		os.Exit(7)
	case doHang:
		fmt.Println("hanging now")
		select {}
	case doPanic:
		panic("not implemented: Plan")
	case doPrintPanic:
		fmt.Println("printed before the panic")
		fmt.Print("and a line not ended")
		panic(fmt.Sprintf("boom %d", len(pods)))
	case doForge:
		// A reply frame on its own stdout is only output.
		os.Stdout.Write([]byte("\x00\x00\x00\x1a{\"result\":{\"Create\":99}}\n--- PASS: TestReconcile (0.00s)\n"))
		return replicas.Plan{Create: 42}
	}
	return reconcile.Plan(desired, pods, now)
}

// hangingStore hangs in Put of "/hang", ignoring its context.
type hangingStore struct{ storage.Store }

func (s hangingStore) Put(ctx context.Context, key string, value []byte) (storage.KeyValue, error) {
	if key == "/hang" {
		select {}
	}
	if key == "/exit" {
		os.Exit(9)
	}
	return s.Store.Put(ctx, key, value)
}

// garbage answers each call with bytes that are not the protocol's.
func garbage() Service {
	raw := func(b []byte) method {
		return func(c *serverCall) *frame {
			_, _ = c.conn.c.Write(b)
			return &frame{Result: []byte(`{"Create":1}`)}
		}
	}
	return Service{exercise: "01-reconcile", methods: map[string]method{
		"huge":        raw([]byte{0xff, 0xff, 0xff, 0xff}),
		"header":      raw([]byte("\x00\x00\x00\x06\x00\x00\x00\x09{}")),
		"notjson":     raw([]byte("\x00\x00\x00\x09\x00\x00\x00\x05hello")),
		"unknown":     raw([]byte("\x00\x00\x00\x16\x00\x00\x00\x12{\"verdict\":\"PASS\"}")),
		"twopayloads": raw([]byte("\x00\x00\x00\x1d\x00\x00\x00\x19{\"args\":true,\"data\":true}")),
		"trailing":    raw([]byte("\x00\x00\x00\x08\x00\x00\x00\x02{}xy")),
		"noanswer":    func(c *serverCall) *frame { return &frame{} },
		"badvalue":    func(c *serverCall) *frame { return &frame{Result: []byte(`"PASS"`)} },
	}}
}

// fakeAPIServer is a handler over the grader's store, misbehaving on
// some paths.
func fakeAPIServer(s storage.Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/put":
			body, _ := io.ReadAll(r.Body)
			kv, err := s.Put(r.Context(), "/k", body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(kv)
		case "/header":
			fmt.Fprintf(w, "%s %s %q", r.Method, r.URL.RequestURI(), r.Header.Get(headerHandler)+r.Header.Get("X-Test"))
		case "/panic":
			panic("not implemented: ServeHTTP")
		case "/goexit":
			runtime.Goexit()
		case "/exit":
			fmt.Println("exiting from a handler")
			os.Exit(5)
		case "/ignorectx":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select {}
		}
	})
}

var fakes = map[string]func() Service{
	"apiserver": func() Service { return APIServerService(fakeAPIServer) },
	"garbage":   garbage,
	"reconcile": func() Service { return ReconcileService(misbehaving) },
	"store": func() Service {
		return StoreService(func(dir string) (storage.Store, error) {
			s, err := store.Open(dir)
			if err != nil {
				return nil, err
			}
			return hangingStore{s}, nil
		})
	},
}

// envParent turns the test binary into a grader that starts a program
// whose init hangs, prints its pid and waits to be killed.
const envParent = "KATA_REMOTE_TEST_PARENT"

func TestMain(m *testing.M) {
	if os.Getenv(envParent) != "" {
		os.Unsetenv(envParent)
		exe, _ := os.Executable()
		os.Setenv(envFake, "hanginit")
		p := NewProgram(exe, io.Discard)
		pr, err := p.proc()
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println(pr.cmd.Process.Pid)
		select {}
	}
	if name := os.Getenv(envFake); name == "hanginit" {
		select {} // as a learner's init that never returns
	}
	if name := os.Getenv(envFake); name != "" {
		Serve(fakes[name]())
	}
	code := m.Run()
	cleanupBuilds()
	os.Exit(code)
}

// fake is the test binary started as the learner's program name; what it
// prints is collected in the returned buffer.
func fake(t *testing.T, name string) (*Program, *syncBuffer) {
	t.Helper()
	return fakeB(t, name)
}

func fakeB(t testing.TB, name string) (*Program, *syncBuffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(envFake, name)
	var out syncBuffer
	p := NewProgram(exe, &out)
	t.Cleanup(func() { _ = p.Close() })
	return p, &out
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// recovered calls fn and returns what it panicked with, as text.
func recovered(fn func()) (msg string, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			msg, panicked = fmt.Sprint(r), true
		}
	}()
	fn()
	return "", false
}

func wantPlan(t *testing.T, plan replicas.Func, desired int, want replicas.Plan) {
	t.Helper()
	var got replicas.Plan
	if msg, ok := recovered(func() { got = plan(desired, nil, time.Time{}) }); ok {
		t.Fatalf("Plan(%d, [], now) panicked: %s\n\twant %v", desired, msg, want)
	}
	if got.String() != want.String() {
		t.Fatalf("Plan(%d, [], now) = %v, want %v", desired, got, want)
	}
}

func wantPanic(t *testing.T, plan replicas.Func, desired int, wants ...string) string {
	t.Helper()
	msg, ok := recovered(func() { plan(desired, nil, time.Time{}) })
	if !ok {
		t.Fatalf("Plan(%d, [], now) returned, want a panic", desired)
	}
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Fatalf("Plan(%d, [], now) panicked with %q, want it to contain %q", desired, msg, w)
		}
	}
	return msg
}

func TestPlanRoundTrip(t *testing.T) {
	p, _ := fake(t, "reconcile")
	plan := Plan(p)
	wantPlan(t, plan, 2, replicas.Plan{Create: 2})
	pods := []api.Pod{
		{ObjectMeta: api.ObjectMeta{Name: "a", UID: "1"}, Status: api.PodStatus{Phase: api.PodRunning}},
		{ObjectMeta: api.ObjectMeta{Name: "b", UID: "2"}, Status: api.PodStatus{Phase: api.PodPending}},
	}
	got := plan(1, pods, time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC))
	want := reconcile.Plan(1, pods, time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC))
	if got.String() != want.String() {
		t.Fatalf("remote Plan(1, [a b]) = %v, want %v (in process)", got, want)
	}
}

func TestPanicFailsOnlyItsCall(t *testing.T) {
	p, _ := fake(t, "reconcile")
	plan := Plan(p)
	msg := wantPanic(t, plan, doPanic, "not implemented: Plan")
	if strings.Contains(msg, "remote:") {
		t.Errorf("panic = %q, want the implementation's own text", msg)
	}
	wantPanic(t, plan, doPrintPanic, "boom 0", "printed before the panic", "and a line not ended")
	wantPlan(t, plan, 3, replicas.Plan{Create: 3})
	if n := len(p.procs); n != 1 {
		t.Errorf("programs started = %d, want 1 (a panic does not end the program)", n)
	}
}

func TestGoexitFailsOnlyItsCall(t *testing.T) {
	p, _ := fake(t, "reconcile")
	plan := Plan(p)
	wantPanic(t, plan, doGoexit, "the implementation called runtime.Goexit")
	wantPlan(t, plan, 1, replicas.Plan{Create: 1})
}

func TestExitFailsOnlyItsCall(t *testing.T) {
	p, out := fake(t, "reconcile")
	plan := Plan(p)
	msg := wantPanic(t, plan, doExit, "the implementation's program exited (exit status 7)", "about to exit")
	if strings.ContainsAny(msg, "\x1b\x16") {
		t.Errorf("failure message %q holds raw control bytes, want them escaped", msg)
	}
	wantPlan(t, plan, 2, replicas.Plan{Create: 2})
	if n := len(p.procs); n != 2 {
		t.Errorf("programs started = %d, want 2 (a fresh one after the exit)", n)
	}
	got := out.String()
	for _, want := range []string{OutputPrefix + "about to exit\n", OutputPrefix + `\x1b[31mred\x1b[0m \x16--- PASS`} {
		if !strings.Contains(got, want) {
			t.Errorf("forwarded output = %q, want it to contain %q", got, want)
		}
	}
	if strings.ContainsAny(got, "\x1b\x16") {
		t.Errorf("forwarded output %q holds raw control bytes", got)
	}
}

func TestHangCostsOnlyItsCall(t *testing.T) {
	p, _ := fake(t, "reconcile")
	p.CallTimeout = 500 * time.Millisecond
	plan := Plan(p)
	start := time.Now()
	wantPanic(t, plan, doHang, "did not return within 500ms", "hanging now")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a hanging Plan failed after %v, want about its 500ms deadline", d)
	}
	p.CallTimeout = 0 // a fresh program starts: the default bound, as a loaded machine may need it
	wantPlan(t, plan, 4, replicas.Plan{Create: 4})
}

func TestOwnStdoutIsOnlyOutput(t *testing.T) {
	p, out := fake(t, "reconcile")
	plan := Plan(p)
	wantPlan(t, plan, doForge, replicas.Plan{Create: 42})
	p.procs[0].syncOutput()
	if got := out.String(); !strings.Contains(got, OutputPrefix+`\x00\x00\x00\x1a{"result":{"Create":99}}`) || !strings.Contains(got, OutputPrefix+"--- PASS: TestReconcile") {
		t.Errorf("forwarded output = %q, want the forged frame and PASS line shown as escaped output", got)
	}
}

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\ttab", "plain text\ttab"},
		{"\x16--- PASS", `\x16--- PASS`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"cr\r", `cr\r`[:2] + `\x0d`},
		{"nul\x00", `nul\x00`},
		{"bad \xff", `bad \xff`},
		{"한국어 é", "한국어 é"},
		{"line\u2028sep", `line\u2028sep`},
		{"c1\u0085", `c1\u0085`},
		{`back\slash`, `back\\slash`},
	} {
		if got := Escape([]byte(c.in)); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestStoreHangHonoursContext(t *testing.T) {
	p, _ := fake(t, "store")
	s, err := Opener(p)(t.TempDir())
	if err != nil {
		t.Fatalf("Open = %v, want a store", err)
	}
	ctx := context.Background()
	if _, err := s.Put(ctx, "/a", []byte("1")); err != nil {
		t.Fatalf("Put(/a) = %v, want no error", err)
	}
	ctx2, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = s.Put(ctx2, "/hang", []byte("1"))
	if err == nil || !strings.Contains(err.Error(), "did not return within 2s after its context ended") {
		t.Fatalf("Put(/hang) = %v, want the hang reported", err)
	}
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("Put(/hang) returned after %v, want its context's 200ms plus %v", d, hangGrace)
	}
	// The store was in the killed program; a new one is in a new program.
	if _, err := s.Get(ctx, "/a"); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Get(/a) on the killed program's store = %v, want the kill reported", err)
	}
	s2, err := Opener(p)(t.TempDir())
	if err != nil {
		t.Fatalf("Open after the kill = %v, want a store from a fresh program", err)
	}
	if _, err := s2.Put(ctx, "/b", []byte("1")); err != nil {
		t.Fatalf("Put(/b) = %v", err)
	}
	_ = s2.Close()
}

func TestStoreErrorsKeepIdentity(t *testing.T) {
	p, _ := fake(t, "store")
	s, err := Opener(p)(t.TempDir())
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	defer s.Close()
	_, err = s.Get(context.Background(), "/missing")
	if !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Get(/missing) = %v, want an error wrapping storage.ErrNotFound", err)
	}
	_, err = s.Put(context.Background(), "/exit", nil)
	if err == nil || !strings.Contains(err.Error(), "the implementation's program exited (exit status 9)") {
		t.Fatalf("Put(/exit) = %v, want the program's exit", err)
	}
}

// Garbled or forged protocol messages are errors, never answers.
func TestGarbageIsAnError(t *testing.T) {
	p, _ := fake(t, "garbage")
	for _, c := range []struct{ method, want string }{
		{"huge", "a frame of 4294967295 bytes"},
		{"header", "a header of 9 bytes in a frame of 6"},
		{"trailing", "2 bytes after the header"},
		{"twopayloads", "more than one payload"},
		{"notjson", "garbled protocol message"},
		{"unknown", `unknown field "verdict"`},
		{"noanswer", "an answer with no result"},
		{"badvalue", "its answer does not decode"},
	} {
		var out replicas.Plan
		msg, ok := recovered(func() { p.pure(c.method, nil, &out) })
		if !ok {
			t.Errorf("call %s = %v, want a failure", c.method, out)
			continue
		}
		if !strings.Contains(msg, "broke the protocol") || !strings.Contains(msg, c.want) {
			t.Errorf("call %s failed with %q, want it to say the program broke the protocol (%s)", c.method, msg, c.want)
		}
	}
}

func TestAPIServerThroughProxy(t *testing.T) {
	p, _ := fake(t, "apiserver")
	st := storage.NewMemory()
	defer st.Close()
	h := NewAPIServer(p)(st)
	srv := httptest.NewServer(h)
	defer srv.Close()

	// The handler writes into the grader's store.
	resp, err := http.Post(srv.URL+"/put", "text/plain", strings.NewReader("v1"))
	if err != nil {
		t.Fatalf("POST /put: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("POST /put = %d %q %s, want 201 application/json", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	kv, err := st.Get(context.Background(), "/k")
	if err != nil || string(kv.Value) != "v1" {
		t.Fatalf("the grader's store after POST /put: Get(/k) = %v, %v, want v1", kv, err)
	}

	// The request arrives as sent, without the proxy's own headers.
	req, _ := http.NewRequest(http.MethodPatch, srv.URL+"/header?a=%2F&b=1", nil)
	req.Header.Set("X-Test", "yes")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `PATCH /header?a=%2F&b=1 "yes"`; string(body) != want {
		t.Errorf("PATCH /header?a=%%2F&b=1 = %s, want %s", body, want)
	}

	// A panic, a Goexit and an exit each fail their request only.
	for _, c := range []struct{ path, want string }{
		{"/panic", "not implemented: ServeHTTP"},
		{"/goexit", "the implementation called runtime.Goexit"},
		{"/exit", "the implementation's program exited (exit status 5)"},
	} {
		rec := httptest.NewRecorder()
		msg, ok := recovered(func() { h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, c.path, nil)) })
		if !ok || !strings.Contains(msg, c.want) {
			t.Errorf("GET %s: proxy panicked = %v with %q, want a panic saying %q", c.path, ok, msg, c.want)
		}
	}
	// After the exit, a new handler is in a new program.
	h2 := NewAPIServer(p)(st)
	rec := httptest.NewRecorder()
	h2.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/put", strings.NewReader("v2")))
	if rec.Code != http.StatusCreated {
		t.Errorf("POST /put on a handler of the fresh program = %d %s, want 201", rec.Code, rec.Body)
	}
}

// A request whose client went away returns only once the program's
// handler returned, as in one process, so that a suite sees a handler
// that ignores its context.
func TestProxyWaitsForTheHandler(t *testing.T) {
	p, _ := fake(t, "apiserver")
	st := storage.NewMemory()
	defer st.Close()
	h := NewAPIServer(p)(st)
	returned := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(returned)
		defer func() { _ = recover() }()
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/ignorectx", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET /ignorectx: %v", err)
	}
	cancel() // the handler has answered its header: it runs
	resp.Body.Close()
	select {
	case <-returned:
		t.Fatal("the proxy returned while the program's handler still ran")
	case <-time.After(300 * time.Millisecond):
	}
	_ = p.Close()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not return after the program was killed")
	}
}

// A program dies with its grader, even one that never reached Serve.
func TestProgramDiesWithGrader(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Pdeathsig is Linux's")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envParent+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var pid int
	if _, err := fmt.Fscan(stdout, &pid); err != nil {
		t.Fatalf("reading the program's pid from the grader: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if !alive(pid) {
		t.Fatalf("program %d is not running before its grader is killed", pid)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("program %d still runs 10s after its grader was killed", pid)
		}
		time.Sleep(10 * time.Millisecond) // polling /proc: there is nothing to wait on
	}
}

// alive reports whether pid runs (a zombie has ended).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// A watcher that reads nothing is ended by the store, however much the
// boundary could buffer: the events in flight stay within the credit
// window, a bound of its own rather than the sockets' buffers.
func TestWatchSlackIsBounded(t *testing.T) {
	p, _ := fake(t, "store")
	s, err := Opener(p)(t.TempDir())
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := s.Watch(ctx, "/", 0)
	if err != nil {
		t.Fatalf("Watch = %v", err)
	}
	const perTxn, txns = 100, 3 * storage.WatchBuffer / 100
	for i := 0; i < txns; i++ {
		ops := make([]storage.Op, perTxn)
		for j := range ops {
			ops[j] = storage.PutOp(fmt.Sprintf("/%02d%02d", i, j), nil)
		}
		if _, err := s.Txn(ctx, storage.Txn{Then: ops}); err != nil {
			t.Fatalf("Txn %d = %v", i, err)
		}
	}
	got := 0
	for range w.Events() {
		got++
	}
	if !errors.Is(w.Err(), storage.ErrSlowWatcher) {
		t.Fatalf("Err() of the watcher that read nothing = %v, want %v", w.Err(), storage.ErrSlowWatcher)
	}
	t.Logf("the watcher that read nothing got %d of %d events", got, perTxn*txns)
	// The window is 128 events; the sockets alone would let a few hundred
	// more through.
	if limit := storage.WatchBuffer + perTxn + 128 + 1; got > limit {
		t.Errorf("the watcher that read nothing got %d events before its end, want at most %d (the store's buffer, one transaction, a credit window of 128)", got, limit)
	}
}

func TestOutputLines(t *testing.T) {
	var w syncBuffer
	o := newOutput(&w)
	a, b := &stream{}, &stream{}
	o.add(a, []byte("one\ntw"), false)
	mark := o.mark()
	o.add(b, []byte("err line\n"), false)
	o.add(a, []byte("o\n"+strings.Repeat("x", maxLineBytes+10)), false)
	if got, want := o.since(mark, 10), []string{"err line", "two", strings.Repeat("x", maxLineBytes), strings.Repeat("x", 10)}; !slices.Equal(got, want) {
		t.Errorf("since(mark) = %q, want %q (a line cut at %d bytes, the unended rest last)", got, want, maxLineBytes)
	}
	if got := o.since(0, 2); len(got) != 3 || got[0] != "two" {
		t.Errorf("since(0, 2) = %q, want the last 2 lines and the unended one", got)
	}
	o.add(a, nil, true)
	want := OutputPrefix + "one\n" + OutputPrefix + "err line\n" + OutputPrefix + "two\n" + OutputPrefix + strings.Repeat("x", maxLineBytes) + "\n" + OutputPrefix + strings.Repeat("x", 10) + "\n"
	if got := w.String(); got != want {
		t.Errorf("forwarded output = %q, want %q", got, want)
	}
}

func TestOutputIsBounded(t *testing.T) {
	var w syncBuffer
	o := newOutput(&w)
	s := &stream{}
	line := strings.Repeat("y", 1000) + "\n"
	for i := 0; i < 2*maxForward/len(line); i++ {
		o.add(s, []byte(line), false)
	}
	got := w.String()
	if len(got) > maxForward+maxForward/100 {
		t.Errorf("forwarded %d bytes of %d printed, want about %d at most", len(got), 2*maxForward, maxForward)
	}
	if !strings.HasSuffix(got, "printed more than 1048576 bytes)\n") {
		t.Errorf("forwarded output ends %q, want a line that says the rest is cut", got[max(0, len(got)-100):])
	}
	if l := o.since(o.mark()-1, 1); len(l) != 1 || l[0] != strings.TrimSuffix(line, "\n") {
		t.Errorf("the last line kept = %q, want it kept for failure messages", l)
	}
}
