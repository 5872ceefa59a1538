package images

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain lets the dispatch tests run this binary as an image.
func TestMain(m *testing.M) {
	Dispatch()
	if dir := os.Getenv(pusherEnv); dir != "" {
		os.Exit(pusher(dir))
	}
	code := m.Run()
	if code == 0 {
		code = checkLeaks()
	}
	os.Exit(code)
}

// checkLeaks fails the run if goroutines of the tests are still running
// once they are done (after a grace period for ones on their way out).
func checkLeaks() int {
	end := time.Now().Add(deadline)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "kubekata/harness/cri/images.") || strings.Count(stacks, "goroutine ") <= 1 {
			return 0
		}
		leaked := false
		for _, g := range strings.Split(stacks, "\n\n")[1:] {
			if strings.Contains(g, "kubekata/harness/cri/images.") {
				leaked = true
			}
		}
		if !leaked {
			return 0
		}
		if time.Now().After(end) {
			fmt.Fprintf(os.Stderr, "leaked goroutines:\n%s\n", stacks)
			return 1
		}
		<-tick.C
	}
}

// deadline bounds every wait in these tests.
const deadline = 10 * time.Second

// buffer is an io.Writer a program writes to while the test reads it.
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitFor polls cond until it holds, failing the test at the deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	end := time.After(deadline)
	for !cond() {
		select {
		case <-tick.C:
		case <-end:
			t.Fatalf("waited %s for %s", deadline, what)
		}
	}
}

// started is a program running in the background: what it wrote, its
// stop channel, and its exit code once it ends.
type started struct {
	out, err *buffer
	stop     chan struct{}
	code     chan int
}

func start(program string, args ...string) *started {
	s := &started{out: &buffer{}, err: &buffer{}, stop: make(chan struct{}), code: make(chan int, 1)}
	go func() { s.code <- Run(program, args, s.out, s.err, s.stop) }()
	return s
}

// exit waits for the program's exit code.
func (s *started) exit(t *testing.T, call string) int {
	t.Helper()
	select {
	case c := <-s.code:
		return c
	case <-time.After(deadline):
		close(s.stop)
		t.Fatalf("%s did not exit within %s; stdout:\n%s", call, deadline, s.out)
		return -1
	}
}

func TestHTTPEcho(t *testing.T) {
	t.Setenv("POD_NAME", "web-1")
	s := start("http-echo", "-listen", "127.0.0.1:0", "-text", "hi there")
	call := `Run("http-echo", -listen 127.0.0.1:0 -text "hi there")`
	re := regexp.MustCompile(`http-echo: listening on (\S+)\n`)
	waitFor(t, call+" to listen", func() bool { return re.MatchString(s.out.String()) })
	addr := re.FindStringSubmatch(s.out.String())[1]
	client := &http.Client{Timeout: deadline, Transport: &http.Transport{DisableKeepAlives: true}}

	for _, c := range []struct {
		path string
		code int
		body string
	}{
		{"/", 200, "hi there from web-1\n"},
		{"/any/path", 200, "hi there from web-1\n"},
		{"/healthz", 200, "ok"},
		{"/healthz/fail", 200, "/healthz now answers 503\n"},
		{"/healthz", 503, "failing"},
		{"/", 200, "hi there from web-1\n"},
		{"/healthz/pass", 200, "/healthz now answers 200\n"},
		{"/healthz", 200, "ok"},
	} {
		resp, err := client.Get("http://" + addr + c.path)
		if err != nil {
			t.Fatalf("GET %s: %v", c.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || string(body) != c.body {
			t.Errorf("GET %s = %d %q, want %d %q", c.path, resp.StatusCode, body, c.code, c.body)
		}
	}
	for _, line := range []string{"GET / 200\n", "GET /any/path 200\n", "GET /healthz 200\n", "GET /healthz 503\n"} {
		if !strings.Contains(s.out.String(), line) {
			t.Errorf("%s log = %q, want a line %q", call, s.out, line)
		}
	}
	close(s.stop)
	if code := s.exit(t, call); code != 0 {
		t.Errorf("%s after stop = exit %d, want 0; stderr: %s", call, code, s.err)
	}
	if !strings.Contains(s.out.String(), "http-echo: shutting down\n") {
		t.Errorf("%s log = %q, want it to say it is shutting down", call, s.out)
	}
	if _, err := client.Get("http://" + addr + "/"); err == nil {
		t.Errorf("GET / after the stop succeeded, want the port closed")
	}
}

func TestHTTPEchoPortTaken(t *testing.T) {
	a := start("http-echo", "-listen", "127.0.0.1:0")
	re := regexp.MustCompile(`listening on (\S+)\n`)
	waitFor(t, "the first http-echo to listen", func() bool { return re.MatchString(a.out.String()) })
	addr := re.FindStringSubmatch(a.out.String())[1]
	b := start("http-echo", "-listen", addr)
	if code := b.exit(t, "the second http-echo"); code != 1 || !strings.Contains(b.err.String(), "address already in use") {
		t.Errorf(`Run("http-echo", -listen %s) on a taken port = exit %d, stderr %q; want exit 1 and "address already in use"`, addr, code, b.err)
	}
	close(a.stop)
	a.exit(t, "the first http-echo")
}

func TestHTTPEchoDefaultListen(t *testing.T) {
	for ip, want := range map[string]string{"": "127.0.0.1:8080", "127.244.0.7": "127.244.0.7:8080", "::1": "[::1]:8080"} {
		if got := defaultListen(ip); got != want {
			t.Errorf("defaultListen(%q) = %q, want %q", ip, got, want)
		}
	}
}

func TestSleep(t *testing.T) {
	s := start("sleep", "-for", "1ms")
	if code := s.exit(t, "sleep -for 1ms"); code != 0 || !strings.Contains(s.out.String(), "sleep: done\n") {
		t.Errorf(`Run("sleep", -for 1ms) = exit %d, log %q; want exit 0 and "sleep: done"`, code, s.out)
	}
	s = start("sleep")
	waitFor(t, "sleep to start", func() bool { return strings.Contains(s.out.String(), "until signalled") })
	close(s.stop)
	if code := s.exit(t, "sleep"); code != 0 || !strings.Contains(s.out.String(), "sleep: stopping\n") {
		t.Errorf(`Run("sleep") after stop = exit %d, log %q; want exit 0 and "sleep: stopping"`, code, s.out)
	}
}

func TestSleepSays(t *testing.T) {
	s := start("sleep", "-for", "1ms", "-say", "to stdout", "-say-err", "to stderr")
	if code := s.exit(t, "sleep -say -say-err"); code != 0 || !strings.HasPrefix(s.out.String(), "to stdout\n") || s.err.String() != "to stderr\n" {
		t.Errorf(`Run("sleep", -for 1ms -say "to stdout" -say-err "to stderr") = exit %d, stdout %q, stderr %q; want exit 0, stdout starting "to stdout", stderr "to stderr"`, code, s.out, s.err)
	}
}

func TestIgnoreTerm(t *testing.T) {
	// Closed stop, then a timer of its own: -ignore-term must outlive
	// the stop and end as -for says.
	s := start("sleep", "-for", "20ms", "-ignore-term")
	close(s.stop)
	if code := s.exit(t, "sleep -ignore-term"); code != 0 || !strings.Contains(s.out.String(), "sleep: done\n") {
		t.Errorf(`Run("sleep", -for 20ms -ignore-term) after stop = exit %d, log %q; want exit 0 after "sleep: done"`, code, s.out)
	}
	if !strings.Contains(s.out.String(), "ignoring the signal to stop") {
		t.Errorf(`Run("sleep", -ignore-term) log = %q, want it to say it ignores the signal`, s.out)
	}
}

func TestCrash(t *testing.T) {
	s := start("crash", "-code", "3", "-after", "0")
	if code := s.exit(t, "crash"); code != 3 || s.out.String() != "crashing with exit code 3\n" {
		t.Errorf(`Run("crash", -code 3 -after 0) = exit %d, log %q; want exit 3, "crashing with exit code 3\n"`, code, s.out)
	}
	s = start("crash", "-after", "1h")
	close(s.stop)
	if code := s.exit(t, "crash -after 1h"); code != 0 {
		t.Errorf(`Run("crash", -after 1h) stopped = exit %d, want 0 (a graceful stop)`, code)
	}
	s = start("crash", "-after", "0")
	if code := s.exit(t, "crash -after 0"); code != 1 {
		t.Errorf(`Run("crash", -after 0) = exit %d, want 1 (the default code)`, code)
	}
}

func TestCounter(t *testing.T) {
	s := start("counter", "-every", "1ms")
	waitFor(t, "counter to count to 3", func() bool { return strings.Contains(s.out.String(), "\n3: ") })
	close(s.stop)
	if code := s.exit(t, "counter"); code != 0 {
		t.Errorf(`Run("counter") stopped = exit %d, want 0`, code)
	}
	lines := strings.Split(strings.TrimSuffix(s.out.String(), "\n"), "\n")
	for i, l := range lines {
		n, ts, ok := strings.Cut(l, ": ")
		if _, err := time.Parse(time.RFC3339, ts); !ok || err != nil || n != strconv.Itoa(i) {
			t.Errorf(`Run("counter") line %d = %q, want "%d: <RFC 3339 time>"`, i, l, i)
		}
	}
}

func TestHog(t *testing.T) {
	s := start("hog", "-mb", "3", "-step-mb", "1", "-every", "0")
	waitFor(t, "hog to hold 3 MiB", func() bool { return strings.Contains(s.out.String(), "hog: holding 3 MiB\n") })
	close(s.stop)
	if code := s.exit(t, "hog"); code != 0 {
		t.Errorf(`Run("hog") stopped = exit %d, want 0`, code)
	}
	want := "hog: allocated 1 MiB\nhog: allocated 2 MiB\nhog: allocated 3 MiB\nhog: holding 3 MiB\nhog: stopping with 3 MiB\n"
	if got := s.out.String(); got != want {
		t.Errorf(`Run("hog", -mb 3 -step-mb 1 -every 0) log = %q, want %q`, got, want)
	}
	s = start("hog", "-mb", "5", "-step-mb", "2", "-every", "0")
	waitFor(t, "hog to hold 5 MiB", func() bool { return strings.Contains(s.out.String(), "holding 5 MiB") })
	close(s.stop)
	s.exit(t, "hog -mb 5")
	if !strings.Contains(s.out.String(), "allocated 4 MiB\nhog: allocated 5 MiB\n") {
		t.Errorf(`Run("hog", -mb 5 -step-mb 2) log = %q, want a last step of 1 MiB`, s.out)
	}
}

func TestBadArguments(t *testing.T) {
	for _, c := range []struct {
		program string
		args    []string
		want    string
	}{
		{"http-echo", []string{"-txt", "x"}, "flag provided but not defined: -txt"},
		{"http-echo", []string{"-listen", "nope"}, `-listen "nope": want HOST:PORT`},
		{"sleep", []string{"-for", "-1s"}, "-for must not be negative"},
		{"sleep", []string{"forever"}, `unexpected argument "forever"`},
		{"crash", []string{"-code", "256"}, "-code 256: want 0 to 255"},
		{"crash", []string{"-after", "soon"}, "invalid value"},
		{"counter", []string{"-every", "0"}, "-every must be positive"},
		{"hog", []string{"-step-mb", "0"}, "-step-mb must be positive"},
		{"hog", []string{"-mb", "-1"}, "-mb must not be negative"},
	} {
		var out, errw bytes.Buffer
		code := Run(c.program, c.args, &out, &errw, nil)
		if code != 2 || !strings.Contains(errw.String(), c.want) {
			t.Errorf("Run(%q, %q) = exit %d, stderr %q; want exit 2 and %q", c.program, c.args, code, errw.String(), c.want)
		}
		if err := Check(c.program, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%q, %q) = %v, want an error with %q", c.program, c.args, err, c.want)
		}
	}
	var errw bytes.Buffer
	if Run("http-echo", []string{"-txt", "x"}, io.Discard, &errw, nil); !strings.Contains(errw.String(), "usage: http-echo [flags]") || !strings.Contains(errw.String(), "-ignore-term") {
		t.Errorf(`Run("http-echo", -txt x) stderr = %q, want the usage with its flags`, errw.String())
	}
	errw.Reset()
	if code := Run("nope", nil, io.Discard, &errw, nil); code != 127 || !strings.Contains(errw.String(), "the programs are: counter, crash, curl, hog, http-echo, sleep") {
		t.Errorf(`Run("nope") = exit %d, stderr %q; want 127 and the list of programs`, code, errw.String())
	}
	if code := Run("sleep", []string{"-h"}, io.Discard, io.Discard, nil); code != 0 {
		t.Errorf(`Run("sleep", -h) = exit %d, want 0`, code)
	}
	// The arguments a program needs at least (none for most).
	least := map[string][]string{"curl": {"-url", "http://web"}}
	for _, p := range Programs() {
		if err := Check(p, least[p]); err != nil {
			t.Errorf("Check(%q, %q) = %v, want nil", p, least[p], err)
		}
	}
}

func TestPrograms(t *testing.T) {
	want := []string{"counter", "crash", "curl", "hog", "http-echo", "sleep"}
	if got := Programs(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Programs() = %q, want %q", got, want)
	}
}
