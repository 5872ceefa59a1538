package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of the HTTP GET and TCP probes (step 14's second
// half, loop_probes_net.go): each breaks one rule of rule 6's httpGet
// and tcpSocket in the reference's prober.go, and must fail exactly the
// steps it lists. The httpGet hooks (step 15) build their request with
// the probes' newHTTPGetRequest: a bug there that step 15's hooks see
// (path, headers, host) lists it too.

func init() { addLoopBugs(probeNetBugs) }

// probeNetBugs are the planted bugs of the network probes.
var probeNetBugs = map[string]planted.Bug{
	// 200 to 399 is Success: here a 3xx (399) is a Failure.
	"http-3xx-failure": edit(loop2Prober,
		"if resp.StatusCode >= http.StatusOK && resp.StatusCode < http.StatusBadRequest {",
		"if resp.StatusCode >= http.StatusOK && resp.StatusCode < http.StatusMultipleChoices {",
		"14-probes"),
	// Any answer is a Success (500 too).
	"http-any-status-success": edit(loop2Prober,
		"if resp.StatusCode >= http.StatusOK && resp.StatusCode < http.StatusBadRequest {",
		"if resp.StatusCode > 0 {",
		"14-probes"),
	// The Unhealthy output is not upstream's.
	"http-failure-message": edit(loop2Prober,
		`"HTTP probe failed with statuscode: %d"`,
		`"HTTP probe failed with status %d"`,
		"14-probes"),
	// The path dropped: every probe and httpGet hook asks /.
	"http-path-dropped": edit(loop2Prober,
		"u, err := url.Parse(g.Path)",
		"u, err := url.Parse(\"/\")",
		"14-probes", "15-terminate"),
	// The path taken as a plain path: its query is escaped into it.
	"http-query-escaped": edit(loop2Prober,
		"u, err := url.Parse(g.Path)",
		"u, err := &url.URL{Path: g.Path}, error(nil)",
		"14-probes"),
	// httpHeaders never sent, by a probe or an httpGet hook.
	"http-headers-dropped": edit(loop2Prober,
		"\tfor _, h := range g.HTTPHeaders {\n\t\treq.Header.Add(h.Name, h.Value)\n\t}",
		"\tfor range g.HTTPHeaders {\n\t}",
		"14-probes", "15-terminate"),
	// A header given twice sent once (the last value).
	"http-header-set-not-added": edit(loop2Prober,
		"req.Header.Add(h.Name, h.Value)",
		"req.Header.Set(h.Name, h.Value)",
		"14-probes"),
	// A Host header left in Header, which net/http does not send.
	"http-host-header-ignored": edit(loop2Prober,
		"req.Host = req.Header.Get(\"Host\")",
		"_ = req.Header.Get(\"Host\")",
		"14-probes"),
	// No User-Agent of the kubelet's: Go's own.
	"http-user-agent-missing": edit(loop2Prober,
		"req.Header.Set(\"User-Agent\", userAgent)",
		"_ = userAgent",
		"14-probes", "15-terminate"),
	// No Accept */*.
	"http-accept-missing": edit(loop2Prober,
		"req.Header.Set(\"Accept\", \"*/*\")",
		"req.Header.Del(\"Accept\")",
		"14-probes"),
	// A port's name not looked up among the container's ports. The
	// httpGet hooks resolve their ports with resolvePort too, and step
	// 15's postStart hook names its port.
	"named-port-not-resolved": edit(loop2Prober,
		"if p.Name == port.StrVal {",
		"if false && p.Name == port.StrVal {",
		"14-probes", "15-terminate"),
	// A port's name resolved to the container's first port.
	"named-port-first-port": edit(loop2Prober,
		"n, found = int(p.ContainerPort), true",
		"n, found = int(c.Ports[0].ContainerPort), true",
		"14-probes"),
	// The host given ignored: always the pod's IP (step 15's httpGet
	// hooks name host 127.0.0.1; the fake runtime's pod IPs lead
	// nowhere).
	"http-host-ignored": edit(loop2Prober,
		"\thost := g.Host\n",
		"\thost := podIP\n",
		"14-probes", "15-terminate"),
	// The pod's IP never used: with no host, the URL has none (and
	// dials the local system).
	"http-pod-ip-ignored": edit(loop2Prober,
		"\thost := g.Host\n\tif host == \"\" {\n\t\thost = podIP\n\t}\n\tif host == \"\" {\n\t\treturn nil, errNoPodIP\n\t}\n",
		"\thost := g.Host\n",
		"14-probes"),
	// The TCP probe's pod IP never used: it dials :PORT.
	"tcp-pod-ip-ignored": edit(loop2Prober,
		"\t\thost := probe.TCPSocket.Host\n\t\tif host == \"\" {\n\t\t\thost = podIP\n\t\t}\n\t\tif host == \"\" {\n\t\t\treturn kubelets.Failure, errNoPodIP.Error()\n\t\t}\n",
		"\t\thost := probe.TCPSocket.Host\n",
		"14-probes"),
	// A TCP probe that never dials: always a Success.
	"tcp-never-dials": edit(loop2Prober,
		"\t\td := net.Dialer{Timeout: timeout}\n",
		"\t\tif true {\n\t\t\treturn kubelets.Success, \"\"\n\t\t}\n\t\td := net.Dialer{Timeout: timeout}\n",
		"14-probes"),
	// A failed dial's error not the output.
	"tcp-failure-output-dropped": edit(loop2Prober,
		"conn, err := d.DialContext(ctx, \"tcp\", net.JoinHostPort(host, strconv.Itoa(port)))\n\t\tif err != nil {\n\t\t\treturn kubelets.Failure, err.Error()",
		"conn, err := d.DialContext(ctx, \"tcp\", net.JoinHostPort(host, strconv.Itoa(port)))\n\t\tif err != nil {\n\t\t\treturn kubelets.Failure, \"connection failed\"",
		"14-probes"),
	// No timeout: a server that never answers holds the probe (and the
	// pod's sync) until the kubelet stops.
	"http-timeout-ignored": edit(loop2Prober,
		"Timeout: timeout, CheckRedirect: sameHostRedirects}",
		"Timeout: 0 * timeout, CheckRedirect: sameHostRedirects}",
		"14-probes"),
	// timeoutSeconds ignored: always the default 1s.
	"http-timeout-default": edit(loop2Prober,
		"Timeout: timeout, CheckRedirect: sameHostRedirects}",
		"Timeout: defaultTimeoutSeconds * time.Second, CheckRedirect: sameHostRedirects}",
		"14-probes"),
	// Every redirect followed (net/http's default), to another host too.
	"redirect-to-other-host-followed": edit(loop2Prober,
		"Timeout: timeout, CheckRedirect: sameHostRedirects}",
		"Timeout: timeout}",
		"14-probes"),
	// No redirect followed, to the same host neither.
	"redirect-never-followed": edit(loop2Prober,
		"if req.URL.Hostname() != via[0].URL.Hostname() {",
		"if req.URL.Hostname() != \"\" {",
		"14-probes"),
}
