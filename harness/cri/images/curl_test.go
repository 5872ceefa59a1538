package images

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// clusterSearch is a pod's search domains in namespace default.
const clusterSearch = "default.svc.cluster.local svc.cluster.local cluster.local"

func TestCurlNameList(t *testing.T) {
	search := strings.Fields(clusterSearch)
	for _, c := range []struct {
		name  string
		ndots int
		want  []string
	}{
		{"web", 5, []string{"web.default.svc.cluster.local.", "web.svc.cluster.local.", "web.cluster.local.", "web."}},
		{"web.default", 5, []string{"web.default.default.svc.cluster.local.", "web.default.svc.cluster.local.", "web.default.cluster.local.", "web.default."}},
		// 4 dots, fewer than ndots: the search domains first.
		{"a.b.c.d.e", 5, []string{"a.b.c.d.e.default.svc.cluster.local.", "a.b.c.d.e.svc.cluster.local.", "a.b.c.d.e.cluster.local.", "a.b.c.d.e."}},
		// 5 dots, ndots 5: as it is first.
		{"a.b.c.d.e.f", 5, []string{"a.b.c.d.e.f.", "a.b.c.d.e.f.default.svc.cluster.local.", "a.b.c.d.e.f.svc.cluster.local.", "a.b.c.d.e.f.cluster.local."}},
		{"web.default", 1, []string{"web.default.", "web.default.default.svc.cluster.local.", "web.default.svc.cluster.local.", "web.default.cluster.local."}},
		{"web", 0, []string{"web.", "web.default.svc.cluster.local.", "web.svc.cluster.local.", "web.cluster.local."}},
		{"web.", 5, []string{"web."}},
		{"web.default.svc.cluster.local.", 5, []string{"web.default.svc.cluster.local."}},
	} {
		if got := nameList(c.name, search, c.ndots); !reflect.DeepEqual(got, c.want) {
			t.Errorf("nameList(%q, %q, ndots %d) = %q, want %q", c.name, search, c.ndots, got, c.want)
		}
	}
	if got, want := nameList("web", nil, 5), []string{"web."}; !reflect.DeepEqual(got, want) {
		t.Errorf("nameList(web) without search domains = %q, want %q", got, want)
	}
}

func TestCurlDNSConfig(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		env  func(string) string
		want dnsConfig
	}{
		{env(), dnsConfig{ndots: 5}},
		{env(EnvDNSServer, "127.96.0.10:53", EnvDNSSearch, " default.svc.cluster.local.  svc.cluster.local . ", EnvDNSNdots, "2"),
			dnsConfig{server: "127.96.0.10:53", search: []string{"default.svc.cluster.local", "svc.cluster.local"}, ndots: 2}},
		{env(EnvDNSNdots, "40"), dnsConfig{ndots: 15}},
	} {
		got, err := readDNSConfig(c.env)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("readDNSConfig = %+v, %v; want %+v", got, err, c.want)
		}
	}
	for _, c := range []struct {
		env  func(string) string
		want string
	}{
		{env(EnvDNSNdots, "five"), `$KATA_DNS_NDOTS "five": want a number of dots`},
		{env(EnvDNSNdots, "-1"), `$KATA_DNS_NDOTS "-1": want a number of dots`},
		{env(EnvDNSServer, "127.96.0.10"), `$KATA_DNS_SERVER "127.96.0.10": want HOST:PORT`},
	} {
		if _, err := readDNSConfig(c.env); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("readDNSConfig = %v, want an error with %q", err, c.want)
		}
	}
	if r := (dnsConfig{}).resolver(); r != net.DefaultResolver {
		t.Errorf("resolver() without a server = %p, want net.DefaultResolver", r)
	}
}

// TestCurlResolverDialsServer checks that the resolver asks the
// server of $KATA_DNS_SERVER, whatever server it meant to ask: the
// first query for a name reaches a UDP socket of the test.
func TestCurlResolverDialsServer(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	r := dnsConfig{server: pc.LocalAddr().String()}.resolver()
	ctx, cancel := context.WithCancel(context.Background())
	looked := make(chan error, 1)
	go func() {
		_, err := r.LookupHost(ctx, "web.default.svc.cluster.local.")
		looked <- err
	}()
	if err := pc.SetReadDeadline(time.Now().Add(deadline)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 512)
	n, _, err := pc.ReadFrom(buf)
	cancel()
	cancelled := time.Now()
	if err != nil {
		t.Fatalf("no DNS query reached %s within %s: %v", pc.LocalAddr(), deadline, err)
	}
	// The question's name in the wire format: length-prefixed labels.
	if q := "\x03web\x07default\x03svc\x07cluster\x05local\x00"; !bytes.Contains(buf[:n], []byte(q)) {
		t.Errorf("the query that reached the server is %q, want one for web.default.svc.cluster.local.", buf[:n])
	}
	select {
	case err := <-looked:
		if err == nil {
			t.Errorf("LookupHost with no answer = nil error, want one")
		}
		// Go's resolver alone would wait for its 5 s timeout.
		if d := time.Since(cancelled); d > 2*time.Second {
			t.Errorf("LookupHost returned %s after its context was cancelled, want at once (a pod's stop)", d)
		}
	case <-time.After(deadline):
		t.Fatalf("LookupHost did not return within %s of its context's end", deadline)
	}

	// TCP (a truncated answer's retry) goes to the same server.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r = dnsConfig{server: ln.Addr().String()}.resolver()
	ctx, cancel = context.WithTimeout(context.Background(), deadline)
	defer cancel()
	conn, err := r.Dial(ctx, "tcp", "192.0.2.1:53")
	if err != nil {
		t.Fatalf("the resolver's Dial(tcp, 192.0.2.1:53) = %v, want a connection to %s", err, ln.Addr())
	}
	defer conn.Close()
	if conn.RemoteAddr().Network() != "tcp" || conn.RemoteAddr().String() != ln.Addr().String() {
		t.Errorf("the resolver's Dial(tcp, 192.0.2.1:53) reached %s %s, want tcp %s", conn.RemoteAddr().Network(), conn.RemoteAddr(), ln.Addr())
	}
}

// TestCurlStopWhileResolving runs curl through Run and its environment
// against a DNS server that never answers: the query reaches the server
// of $KATA_DNS_SERVER, and a stop ends the wait at once.
func TestCurlStopWhileResolving(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	t.Setenv(EnvDNSServer, pc.LocalAddr().String())
	t.Setenv(EnvDNSSearch, clusterSearch)
	t.Setenv(EnvDNSNdots, "")
	s := start("curl", "-url", "http://web/", "-timeout", "1h")
	if err := pc.SetReadDeadline(time.Now().Add(deadline)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 512)
	n, _, err := pc.ReadFrom(buf)
	close(s.stop)
	if err != nil {
		s.exit(t, "curl -url http://web/")
		t.Fatalf("no DNS query reached $KATA_DNS_SERVER %s within %s: %v", pc.LocalAddr(), deadline, err)
	}
	if q := "\x03web\x07default\x03svc\x07cluster\x05local\x00"; !bytes.Contains(buf[:n], []byte(q)) {
		t.Errorf("the first query of curl -url http://web/ is %q, want one for web.default.svc.cluster.local.", buf[:n])
	}
	if code := s.exit(t, "curl -url http://web/"); code != 0 || s.out.String() != "" || s.err.String() != "" {
		t.Errorf("curl -url http://web/ stopped while resolving = exit %d, stdout %q, stderr %q; want 0 and nothing", code, s.out, s.err)
	}
}

// testServer answers / with "hello from HOST\nsecond line\n" (the Host
// the request named), /hang only once the client has gone, and any
// other path 404 "no such page".
func testServer(t *testing.T) (srv *httptest.Server, port string) {
	t.Helper()
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			_, _ = io.WriteString(w, "hello from "+r.Host+"\nsecond line\n")
		case "/hang":
			<-r.Context().Done()
		default:
			http.Error(w, "no such page", http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	_, port, _ = net.SplitHostPort(srv.Listener.Addr().String())
	return srv, port
}

// newTestCurl parses args as curl does, in a pod of namespace default
// whose DNS knows names (any other name does not exist).
func newTestCurl(t *testing.T, names map[string][]string, args ...string) *curl {
	t.Helper()
	fs := flag.NewFlagSet("curl", flag.ContinueOnError)
	config := curlConfig(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("curl %q: %v", args, err)
	}
	c, err := config()
	if err != nil {
		t.Fatalf("curl %q: %v", args, err)
	}
	env := map[string]string{EnvDNSServer: "127.96.0.10:53", EnvDNSSearch: clusterSearch}
	c.getenv = func(k string) string { return env[k] }
	c.lookup = func(ctx context.Context, host string) ([]string, error) {
		if addrs, ok := names[host]; ok {
			return addrs, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, Server: "127.96.0.10:53", IsNotFound: true}
	}
	return c
}

func startCurl(c *curl) *started {
	s := &started{out: &buffer{}, err: &buffer{}, stop: make(chan struct{}), code: make(chan int, 1)}
	go func() { s.code <- c.run(s.out, s.err, s.stop) }()
	return s
}

func TestCurlOnce(t *testing.T) {
	_, port := testServer(t)
	names := map[string][]string{"web.default.svc.cluster.local.": {"127.0.0.1", "127.0.0.2"}}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, closedPort, _ := net.SplitHostPort(closed.Addr().String())
	closed.Close()
	for _, c := range []struct {
		url            string
		code           int
		stdout, stderr string
	}{
		{"http://web:" + port + "/", 0, "hello from web:" + port + "\nsecond line\n",
			"curl: web resolved as web.default.svc.cluster.local. to 127.0.0.1\n"},
		{"web:" + port, 0, "hello from web:" + port + "\nsecond line\n", "curl: web resolved as web.default.svc.cluster.local. to 127.0.0.1\n"},
		{"http://web.default.svc.cluster.local.:" + port + "/missing", 22, "",
			"curl: web.default.svc.cluster.local. resolved as web.default.svc.cluster.local. to 127.0.0.1\n" +
				"curl: (22) the requested URL returned error: 404 Not Found\n"},
		{"http://127.0.0.1:" + port + "/", 0, "hello from 127.0.0.1:" + port + "\nsecond line\n", ""},
		{"http://db:" + port + "/", 6, "",
			`curl: cannot resolve "db": tried db.default.svc.cluster.local., db.svc.cluster.local., db.cluster.local., db. ` +
				"(last error: lookup db. on 127.96.0.10:53: no such host)\n"},
		{"http://web:" + closedPort + "/", 7, "", "curl: web resolved as web.default.svc.cluster.local. to 127.0.0.1\n" +
			`curl: Get "http://web:` + closedPort + `/": cannot connect: dial tcp 127.0.0.1:` + closedPort + ": connect: connection refused\n"},
		{"http://web:" + port + "/hang", 28, "", "curl: web resolved as web.default.svc.cluster.local. to 127.0.0.1\n" +
			`curl: Get "http://web:` + port + `/hang": context deadline exceeded` + "\n"},
	} {
		s := startCurl(newTestCurl(t, names, "-url", c.url, "-timeout", "200ms"))
		call := "curl -url " + c.url
		if code := s.exit(t, call); code != c.code || s.out.String() != c.stdout || s.err.String() != c.stderr {
			t.Errorf("%s = exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr %q", call, code, s.out, s.err, c.code, c.stdout, c.stderr)
		}
	}
}

func TestCurlOnceStopped(t *testing.T) {
	_, port := testServer(t)
	s := startCurl(newTestCurl(t, map[string][]string{"web.default.svc.cluster.local.": {"127.0.0.1"}}, "-url", "http://web:"+port+"/hang", "-timeout", "1h"))
	waitFor(t, "curl to resolve", func() bool { return strings.Contains(s.err.String(), "resolved") })
	close(s.stop)
	if code := s.exit(t, "curl -url /hang"); code != 0 || s.out.String() != "" {
		t.Errorf("curl -url /hang stopped = exit %d, stdout %q; want 0 and nothing", code, s.out)
	}
}

func TestCurlEvery(t *testing.T) {
	_, port := testServer(t)
	names := map[string][]string{"web.svc.cluster.local.": {"127.0.0.1"}}
	line := regexp.MustCompile(`^(\S+) (.*)$`)
	for _, c := range []struct {
		url, want string
	}{
		{"http://web:" + port + "/", "200 hello from web:" + port},
		{"http://web:" + port + "/missing", "404 no such page"},
		{"http://nope:" + port + "/", `error: cannot resolve "nope": tried nope.default.svc.cluster.local., nope.svc.cluster.local., nope.cluster.local., nope. (last error: lookup nope. on 127.96.0.10:53: no such host)`},
	} {
		call := "curl -every 1ms -url " + c.url
		s := startCurl(newTestCurl(t, names, "-url", c.url, "-every", "1ms"))
		waitFor(t, call+" to print 3 lines", func() bool { return strings.Count(s.out.String(), "\n") >= 3 })
		close(s.stop)
		if code := s.exit(t, call); code != 0 {
			t.Errorf("%s stopped = exit %d, want 0; stderr %q", call, code, s.err)
		}
		for i, l := range strings.Split(strings.TrimSuffix(s.out.String(), "\n"), "\n") {
			m := line.FindStringSubmatch(l)
			if m == nil || m[2] != c.want {
				t.Errorf("%s line %d = %q, want \"<time> %s\"", call, i, l, c.want)
				continue
			}
			if _, err := time.Parse(time.RFC3339, m[1]); err != nil {
				t.Errorf("%s line %d = %q: %v", call, i, l, err)
			}
		}
	}
}

func TestCurlBadArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "-url is required"},
		{[]string{"-url", "https://web/"}, `-url "https://web/": scheme "https": want http`},
		{[]string{"-url", "http:///path"}, `-url "http:///path": no host`},
		{[]string{"-url", "web:99999"}, `-url "web:99999": port "99999": want 1 to 65535`},
		{[]string{"-url", "web", "-every", "-1s"}, "-every must not be negative"},
		{[]string{"-url", "web", "-timeout", "0"}, "-timeout must be positive"},
		{[]string{"http://web"}, `unexpected argument "http://web"`},
	} {
		var errw bytes.Buffer
		if code := Run("curl", c.args, io.Discard, &errw, nil); code != 2 || !strings.Contains(errw.String(), c.want) {
			t.Errorf("Run(curl, %q) = exit %d, stderr %q; want exit 2 and %q", c.args, code, errw.String(), c.want)
		}
	}
	t.Setenv(EnvDNSServer, "")
	t.Setenv(EnvDNSNdots, "many")
	var errw bytes.Buffer
	if code := Run("curl", []string{"-url", "web"}, io.Discard, &errw, nil); code != 2 || !strings.Contains(errw.String(), `$KATA_DNS_NDOTS "many"`) {
		t.Errorf("Run(curl) with $KATA_DNS_NDOTS=many = exit %d, stderr %q; want exit 2 and the bad variable", code, errw.String())
	}
}

// TestCurlRun runs curl as a container would, through Run and its own
// environment, on an IP literal: nothing is resolved.
func TestCurlRun(t *testing.T) {
	srv, port := testServer(t)
	for _, k := range []string{EnvDNSServer, EnvDNSSearch, EnvDNSNdots} {
		t.Setenv(k, "")
	}
	var out, errw bytes.Buffer
	if code := Run("curl", []string{"-url", srv.URL}, &out, &errw, nil); code != 0 || out.String() != "hello from 127.0.0.1:"+port+"\nsecond line\n" || errw.String() != "" {
		t.Errorf("Run(curl, -url %s) = exit %d, stdout %q, stderr %q; want 0 and the body", srv.URL, code, out.String(), errw.String())
	}
}

func TestCurlExitCodes(t *testing.T) {
	for err, want := range map[error]int{
		&resolveError{host: "web"}: 6,
		&url.Error{Op: "Get", URL: "http://web/", Err: &connectError{errors.New("refused")}}: 7,
		fmt.Errorf("read: %w", context.DeadlineExceeded):                                     28,
		errors.New("unexpected EOF"):                                                         56,
	} {
		if got := curlExitCode(err); got != want {
			t.Errorf("curlExitCode(%v) = %d, want %d", err, got, want)
		}
	}
}
