package images

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// curl fetches a URL over HTTP and prints the body, as `curl -f` does
// in a pod: the client a scenario runs to reach a Service by its name.
// It resolves the name as a pod's resolver does (man 5 resolv.conf, and
// Go's net/dnsclient_unix.go nameList), through the cluster DNS server
// the kubelet names in the container's environment:
//
//	curl -url http://web[:PORT][/PATH] [-every 0] [-timeout 5s]
//
// With -every 0 it fetches once: the body goes to stdout, and it exits
// 0 on a status below 400, 22 on an HTTP error status (as curl -f), 6
// when the name does not resolve, 7 when the connection fails, 28 on a
// timeout and 56 on another failure (curl's exit codes). With -every D
// it fetches every D until stopped, one line each to stdout,
// "<RFC 3339 time> <status> <first line of the body>" or
// "<time> error: <message>", and never exits on an error. Every
// resolution says on stderr which name resolved to which address, or
// which names were tried. Redirects are not followed (curl without -L).

// The environment the kubelet gives a container, naming the cluster DNS
// server as a pod's /etc/resolv.conf does.
const (
	// EnvDNSServer is the cluster DNS server, HOST:PORT, for UDP and
	// TCP (resolv.conf's nameserver). Unset, curl uses the machine's
	// resolver.
	EnvDNSServer = "KATA_DNS_SERVER"
	// EnvDNSSearch is the search domains, separated by spaces, e.g.
	// "default.svc.cluster.local svc.cluster.local cluster.local"
	// (resolv.conf's search).
	EnvDNSSearch = "KATA_DNS_SEARCH"
	// EnvDNSNdots is the number of dots from which a name is tried as
	// it is before the search domains (resolv.conf's options ndots);
	// unset, 5, as the kubelet writes in a pod's resolv.conf.
	EnvDNSNdots = "KATA_DNS_NDOTS"
)

const (
	// defaultNdots is the kubelet's ndots.
	defaultNdots = 5
	// maxNdots is resolv.conf's cap on ndots.
	maxNdots = 15
	// firstLineMax bounds what -every reads of a body.
	firstLineMax = 64 << 10
)

// curl's exit codes (man 1 curl, EXIT CODES).
const (
	curlExitResolve = 6
	curlExitConnect = 7
	curlExitHTTP    = 22
	curlExitTimeout = 28
	curlExitRecv    = 56
)

// lookupFunc resolves one fully qualified name (with its trailing dot)
// to addresses, as (*net.Resolver).LookupHost.
type lookupFunc func(ctx context.Context, host string) ([]string, error)

// curl is the program once its flags are parsed.
type curl struct {
	url     *url.URL
	every   time.Duration
	timeout time.Duration
	// getenv and lookup are os.Getenv and the resolver the
	// environment names, unless a test sets them.
	getenv func(string) string
	lookup lookupFunc
}

func curlFlags(fs *flag.FlagSet) func() (run, error) {
	config := curlConfig(fs)
	return func() (run, error) {
		c, err := config()
		if err != nil {
			return nil, err
		}
		return c.run, nil
	}
}

// curlConfig defines curl's flags on fs; the func it returns checks
// their values.
func curlConfig(fs *flag.FlagSet) func() (*curl, error) {
	raw := fs.String("url", "", "the URL to fetch, http://HOST[:PORT][/PATH] (required; no scheme: http)")
	every := fs.Duration("every", 0, "fetch every this long until stopped, a line each (0: once)")
	timeout := fs.Duration("timeout", 5*time.Second, "the time one fetch may take, resolution included")
	return func() (*curl, error) {
		if *raw == "" {
			return nil, errors.New("-url is required: the URL to fetch, http://HOST[:PORT][/PATH]")
		}
		u, err := parseCurlURL(*raw)
		if err != nil {
			return nil, err
		}
		if *every < 0 {
			return nil, errors.New("-every must not be negative")
		}
		if *timeout <= 0 {
			return nil, errors.New("-timeout must be positive")
		}
		return &curl{url: u, every: *every, timeout: *timeout}, nil
	}
}

// parseCurlURL parses an http URL; without a scheme, it is http, as
// curl takes "web:8080/path".
func parseCurlURL(raw string) (*url.URL, error) {
	s := raw
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("-url %q: %v", raw, err)
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("-url %q: scheme %q: want http", raw, u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("-url %q: no host: want http://HOST[:PORT][/PATH]", raw)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("-url %q: port %q: want 1 to 65535", raw, p)
		}
	}
	return u, nil
}

// dnsConfig is what the environment says of the cluster DNS.
type dnsConfig struct {
	server string
	search []string
	ndots  int
}

// readDNSConfig reads EnvDNSServer, EnvDNSSearch and EnvDNSNdots.
func readDNSConfig(getenv func(string) string) (dnsConfig, error) {
	conf := dnsConfig{server: getenv(EnvDNSServer), ndots: defaultNdots}
	if conf.server != "" {
		if _, _, err := net.SplitHostPort(conf.server); err != nil {
			return dnsConfig{}, fmt.Errorf("$%s %q: want HOST:PORT", EnvDNSServer, conf.server)
		}
	}
	for _, d := range strings.Fields(getenv(EnvDNSSearch)) {
		if d = strings.TrimSuffix(d, "."); d != "" {
			conf.search = append(conf.search, d)
		}
	}
	if s := getenv(EnvDNSNdots); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return dnsConfig{}, fmt.Errorf("$%s %q: want a number of dots, 0 or more", EnvDNSNdots, s)
		}
		conf.ndots = min(n, maxNdots) // resolv.conf caps it silently
	}
	return conf, nil
}

// resolver is the resolver conf names: Go's, asking conf.server
// whatever server it would ask, over the network it asks for (udp, or
// tcp for a truncated answer); without a server, the machine's.
func (conf dnsConfig) resolver() *net.Resolver {
	if conf.server == "" {
		return net.DefaultResolver
	}
	server := conf.server
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, server)
			if err != nil {
				return nil, err
			}
			// Go's resolver waits for an answer until its context's
			// deadline, not its cancellation: a stop must end the
			// wait at once.
			context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
			return conn, nil
		},
	}
}

// nameList is the fully qualified names to try for name, in order, as
// resolv.conf says: a name with a trailing dot is tried alone; one with
// at least ndots dots as it is first, then with each search domain;
// any other with each search domain first, then as it is.
func nameList(name string, search []string, ndots int) []string {
	if strings.HasSuffix(name, ".") {
		return []string{name}
	}
	asIs := strings.Count(name, ".") >= ndots
	var names []string
	if asIs {
		names = append(names, name+".")
	}
	for _, d := range search {
		names = append(names, name+"."+d+".")
	}
	if !asIs {
		names = append(names, name+".")
	}
	return names
}

// resolveError is a name none of whose candidates resolved.
type resolveError struct {
	host  string
	tried []string
	last  error
}

func (e *resolveError) Error() string {
	return fmt.Sprintf("cannot resolve %q: tried %s (last error: %v)", e.host, strings.Join(e.tried, ", "), e.last)
}

// resolve tries each name of host's list until one has an address,
// and says on stderr which did, or which were tried.
func resolve(ctx context.Context, lookup lookupFunc, conf dnsConfig, host string, stderr io.Writer) (string, error) {
	names := nameList(host, conf.search, conf.ndots)
	e := &resolveError{host: host}
	for _, n := range names {
		e.tried = append(e.tried, n)
		addrs, err := lookup(ctx, n)
		if err == nil && len(addrs) == 0 {
			err = fmt.Errorf("lookup %s: no addresses", n)
		}
		if err == nil {
			fmt.Fprintf(stderr, "curl: %s resolved as %s to %s\n", host, n, addrs[0])
			return addrs[0], nil
		}
		e.last = err
		if ctx.Err() != nil {
			break // timed out or stopped: the rest would fail the same
		}
	}
	if !errors.Is(ctx.Err(), context.Canceled) { // not stopped
		fmt.Fprintf(stderr, "curl: %v\n", e)
	}
	return "", e
}

// connectError is a connection to the resolved address that failed.
type connectError struct{ err error }

func (e *connectError) Error() string { return "cannot connect: " + e.err.Error() }
func (e *connectError) Unwrap() error { return e.err }

// response is one fetch's result.
type response struct {
	code   int
	status string
	body   []byte
}

// fetch resolves the URL's host, connects to its first address at the
// URL's port (80 when absent) and GETs the URL as given, with its Host.
// With out nil, it reads the body only to its first line (for -every);
// otherwise it copies the body of a status below 400 to out as it comes.
func (c *curl) fetch(ctx context.Context, lookup lookupFunc, conf dnsConfig, stderr, out io.Writer) (*response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	host, port := c.url.Hostname(), c.url.Port()
	if port == "" {
		port = "80"
	}
	ip := host
	if net.ParseIP(host) == nil {
		var err error
		if ip, err = resolve(ctx, lookup, conf, host, stderr); err != nil {
			return nil, err
		}
	}
	addr := net.JoinHostPort(ip, port)
	client := &http.Client{
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				var d net.Dialer
				conn, err := d.DialContext(ctx, network, addr)
				if err != nil {
					return nil, &connectError{err}
				}
				return conn, nil
			},
			DisableKeepAlives: true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "kata-curl/1.0")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	r := &response{code: resp.StatusCode, status: resp.Status}
	switch {
	case out == nil:
		line, err := bufio.NewReader(io.LimitReader(resp.Body, firstLineMax)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		r.body = []byte(strings.TrimRight(line, "\r\n"))
	case resp.StatusCode < 400:
		if _, err := io.Copy(out, resp.Body); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// curlExitCode is curl's exit code for a failed fetch.
func curlExitCode(err error) int {
	var re *resolveError
	var ce *connectError
	var ne net.Error
	switch {
	case errors.As(err, &re):
		return curlExitResolve
	case errors.As(err, &ce):
		return curlExitConnect
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return curlExitTimeout
	}
	return curlExitRecv
}

func (c *curl) run(stdout, stderr io.Writer, stop <-chan struct{}) int {
	getenv := c.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	conf, err := readDNSConfig(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "curl: %v\n", err)
		return 2
	}
	lookup := c.lookup
	if lookup == nil {
		lookup = conf.resolver().LookupHost
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()

	if c.every == 0 {
		r, err := c.fetch(ctx, lookup, conf, stderr, stdout)
		switch {
		case ctx.Err() != nil:
			return 0 // stopped
		case err != nil:
			var re *resolveError
			if !errors.As(err, &re) { // resolve has said why
				fmt.Fprintf(stderr, "curl: %v\n", err)
			}
			return curlExitCode(err)
		case r.code >= 400:
			fmt.Fprintf(stderr, "curl: (22) the requested URL returned error: %s\n", r.status)
			return curlExitHTTP
		}
		return 0
	}

	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		r, err := c.fetch(ctx, lookup, conf, stderr, nil)
		now := time.Now().Format(time.RFC3339)
		switch {
		case ctx.Err() != nil:
			return 0
		case err != nil:
			fmt.Fprintf(stdout, "%s error: %v\n", now, err)
		default:
			fmt.Fprintf(stdout, "%s %d %s\n", now, r.code, r.body)
		}
		select {
		case <-t.C:
		case <-stop:
			return 0
		}
	}
}
