package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/cri/images"
)

// httpTimeout bounds one http-get.
const httpTimeout = 5 * time.Second

// http-get URL sends one GET to URL (a pod's address, from
// `get --env IP pods/NS/NAME {.status.podIP}`) and prints the body; the
// answer must be 200. With !, the request must fail or answer otherwise:
// a stopped pod's address refuses the connection; `! http-get --timeout
// D URL` asks again every 50ms until one does, for at most D (an
// address that goes once a component has caught up: a deleted
// Service's, once kube-proxy has seen the deletion).
func cmdHTTPGet(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: http-get URL | ! http-get [--timeout D] URL"
	args, timeout := timeoutFlag(ts, args, 0, usage)
	if len(args) != 1 || (timeout > 0 && !neg) {
		ts.Fatalf("%s", usage)
	}
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), httpTimeout)
		body, err := httpGet(ctx, args[0])
		cancel()
		if err == nil && neg && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond) // polling the condition, with the deadline above
			continue
		}
		if err == nil {
			fmt.Fprint(ts.Stdout(), body)
		}
		if err == nil && neg && timeout > 0 {
			ts.Fatalf("http-get %s: still answers after %v: %s", args[0], timeout, strings.TrimSpace(body))
		}
		report(ts, neg, "http-get "+args[0], err)
		return
	}
}

// http-spread N URL sends N GETs to URL (a Service's address), each on a
// new connection, as N clients would, and prints how many answers each
// distinct body got ("101 hello v1 from web-x7k2p"), sorted by body,
// then "fewest C": the count of the least answered body, so that a
// scenario checks that kube-proxy spreads connections over every ready
// pod in roughly equal shares. Every GET must answer 200.
func cmdHTTPSpread(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "http-spread")
	const usage = "usage: http-spread N URL"
	if len(args) != 2 {
		ts.Fatalf("%s", usage)
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 || n > 10000 {
		ts.Fatalf("%s (N from 1 to 10000)", usage)
	}
	counts := map[string]int{}
	for i := range n {
		ctx, cancel := context.WithTimeout(context.Background(), httpTimeout)
		body, err := httpGet(ctx, args[1])
		cancel()
		if err != nil {
			ts.Fatalf("http-spread: request %d of %d: %v", i+1, n, err)
		}
		counts[strings.TrimSpace(body)]++
	}
	var bodies []string
	for b := range counts {
		bodies = append(bodies, b)
	}
	slices.Sort(bodies)
	fewest := n
	for _, b := range bodies {
		fmt.Fprintf(ts.Stdout(), "%d %s\n", counts[b], b)
		fewest = min(fewest, counts[b])
	}
	fmt.Fprintf(ts.Stdout(), "fewest %d\n", fewest)
}

// httpGet is the body of a GET of url that answers 200, on a connection
// of its own (nothing kept alive between scenarios' pods).
func httpGet(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return string(b), fmt.Errorf("GET %s = %s, want 200 OK", url, resp.Status)
	}
	return string(b), nil
}

// image-push NAME:TAG PROGRAM [ARGS...] adds an image to the registry in
// the cluster's data directory, as `kata image push --data-dir` does: the
// nodes' runtimes pull from it, and read it again at every pull.
func cmdImagePush(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "image-push")
	if len(args) < 2 {
		ts.Fatalf("usage: image-push NAME:TAG PROGRAM [ARGS...]")
	}
	r, err := images.Open(stateOf(ts).dataDir)
	ts.Check(err)
	e, err := r.Push(args[0], args[1], args[2:])
	if err != nil {
		ts.Fatalf("image-push: %v", err)
	}
	fmt.Fprintf(ts.Stdout(), "%s %s\n", e.Image, e.ID)
}

// kubelet-stop NODE stops NODE's kubelet in the running cluster, and its
// containers with it (program.StopNode, through the admin endpoint), as
// a node that fails: its Lease is no longer renewed, and its Node and
// pods stay in the API for the node lifecycle controller.
func cmdKubeletStop(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "kubelet-stop")
	if len(args) != 1 {
		ts.Fatalf("usage: kubelet-stop NODE")
	}
	st := stateOf(ts)
	st.running(ts, "kubelet-stop")
	ctx, cancel := requestContext()
	defer cancel()
	if err := program.StopNode(ctx, st.dataDir, args[0]); err != nil {
		ts.Fatalf("kubelet-stop: %v", err)
	}
	fmt.Fprintf(ts.Stdout(), "stopped the kubelet on %s\n", args[0])
}

// pod-processes [--gone] [--timeout D] NAMESPACE/NAME counts the live
// processes of the kata's containers (the environment names an image
// program) that run for pod NAMESPACE/NAME (POD_NAMESPACE and POD_NAME)
// of this scenario's cluster (their working directory is in its data
// directory: another cluster on the machine may have a pod of that
// name), by reading /proc: there must be at least one, or with --gone, it waits
// until there is none, so that a scenario checks that no container
// outlives its pod or its cluster. Linux only: guard with [!linux] skip.
func cmdPodProcesses(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "pod-processes")
	const usage = "usage: pod-processes [--gone] [--timeout D] NAMESPACE/NAME"
	args, timeout := timeoutFlag(ts, args, stateOf(ts).cfg.WaitTimeout, usage)
	gone := len(args) == 2 && args[0] == "--gone"
	if gone {
		args = args[1:]
	}
	ns, name, ok := strings.Cut(strings.Join(args, " "), "/")
	if len(args) != 1 || !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		ts.Fatalf("%s", usage)
	}
	dataDir := stateOf(ts).dataDir
	if !gone {
		pids, err := podProcesses(dataDir, ns, name)
		ts.Check(err)
		if len(pids) == 0 {
			ts.Fatalf("pod-processes %s/%s: no process of the pod's containers runs, want at least one", ns, name)
		}
		fmt.Fprintf(ts.Stdout(), "%d\n", len(pids))
		return
	}
	deadline := time.Now().Add(timeout)
	for {
		pids, err := podProcesses(dataDir, ns, name)
		ts.Check(err)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("pod-processes --gone %s/%s: processes %v of the pod's containers still run after %v", ns, name, pids, timeout)
		}
		// Polled: a process's end has no event to wait on here.
		<-time.After(50 * time.Millisecond)
	}
}

// pod-kill NAMESPACE/NAME kills the live processes of pod
// NAMESPACE/NAME's containers in this scenario's cluster (those
// pod-processes counts) with SIGKILL, as the kernel's OOM killer or a
// crash ends a container behind its kubelet's back: the runtime sees
// the exit (code 137, 128 + SIGKILL) and the kubelet restarts the
// container as the pod's restartPolicy says, in the same pod. At least
// one process must run; it prints how many it killed. Linux only: guard
// with [linux].
func cmdPodKill(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "pod-kill")
	const usage = "usage: pod-kill NAMESPACE/NAME"
	if len(args) != 1 {
		ts.Fatalf("%s", usage)
	}
	ns, name, ok := strings.Cut(args[0], "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		ts.Fatalf("%s", usage)
	}
	st := stateOf(ts)
	st.running(ts, "pod-kill")
	pids, err := podProcesses(st.dataDir, ns, name)
	ts.Check(err)
	if len(pids) == 0 {
		ts.Fatalf("pod-kill %s/%s: no process of the pod's containers runs, want at least one", ns, name)
	}
	for _, pid := range pids {
		p, err := os.FindProcess(pid)
		if err == nil {
			err = p.Kill()
		}
		// A process that ended meanwhile is as good as killed.
		if err != nil && !errors.Is(err, os.ErrProcessDone) {
			ts.Fatalf("pod-kill %s/%s: killing process %d: %v", ns, name, pid, err)
		}
	}
	fmt.Fprintf(ts.Stdout(), "killed %d\n", len(pids))
}

// podProcesses are the pids of the live processes whose environment
// names an image program and pod ns/name, and whose working directory
// is in dataDir.
func podProcesses(dataDir, ns, name string) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("pod-processes: reading /proc (Linux only): %w", err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue // gone meanwhile, or not ours to read
		}
		vars := strings.Split(string(env), "\x00")
		if slices.ContainsFunc(vars, func(v string) bool { return strings.HasPrefix(v, images.ProgramEnv+"=") }) &&
			slices.Contains(vars, "POD_NAMESPACE="+ns) && slices.Contains(vars, "POD_NAME="+name) {
			cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
			if err != nil || !strings.HasPrefix(cwd, dataDir+string(filepath.Separator)) || zombie(e.Name()) {
				continue
			}
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// zombie says whether process pid has exited and waits to be reaped.
func zombie(pid string) bool {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return true
	}
	// pid (comm) STATE ...: comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z' || s[i+2] == 'X'
}

// proxy-rules [--with TEXT] [--without TEXT] [--namespace NS] [--timeout
// D] prints the rules kube-proxy applies in the scenario's cluster (the
// node's tables that exercise 14's Rules and PartialRules build, as
// `kata proxy rules` prints them: iptables-save's order), once it has
// synced; with --without, once they no longer mention TEXT (a pod's IP,
// after the pod stopped being ready), so that what follows sees the
// forwarder that those rules drive; with --with, once they mention it
// (the last Service or endpoint applied). With --namespace, it prints only the rules of the
// Services of NS (namespaceRules), which a scenario can compare with a
// golden file whatever else the cluster holds. It asks again every
// 50ms, for at most D (the wait timeout).
func cmdProxyRules(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "proxy-rules")
	const usage = "usage: proxy-rules [--with TEXT] [--without TEXT] [--namespace NS] [--timeout D]"
	st := stateOf(ts)
	args, timeout := timeoutFlag(ts, args, st.cfg.WaitTimeout, usage)
	with, without, namespace := "", "", ""
	for len(args) > 0 {
		if len(args) < 2 || args[1] == "" {
			ts.Fatalf("%s", usage)
		}
		switch args[0] {
		case "--with":
			with = args[1]
		case "--without":
			without = args[1]
		case "--namespace":
			namespace = args[1]
		default:
			ts.Fatalf("%s", usage)
		}
		args = args[2:]
	}
	st.running(ts, "proxy-rules")
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		ctx, cancel := requestContext()
		text, err := program.ProxyRules(ctx, st.dataDir)
		cancel()
		switch {
		case err != nil:
			last = err.Error()
		case text == "":
			last = "kube-proxy has not synced yet"
		case without != "" && strings.Contains(text, without):
			last = "the rules still mention " + without + ":\n" + text
		case with != "" && !strings.Contains(text, with):
			last = "the rules do not mention " + with + " yet:\n" + text
		default:
			if namespace != "" {
				text = namespaceRules(text, namespace)
			}
			fmt.Fprint(ts.Stdout(), text)
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("proxy-rules: after %v: %s", timeout, last)
		}
		time.Sleep(50 * time.Millisecond) // polling the condition, with the deadline above
	}
}

// pod-logs [--timeout D] NAMESPACE/NAME REGEXP waits until the log of
// pod NAMESPACE/NAME (its first container's, read through the
// apiserver's pods/log as kubectl logs reads it) has a line that matches
// REGEXP, and prints the matching lines: a pod's program says what it
// saw (kata/curl: each answer it got), and the scenario checks it. It
// reads again every 100ms, for at most D (the wait timeout).
func cmdPodLogs(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "pod-logs")
	const usage = "usage: pod-logs [--timeout D] NAMESPACE/NAME REGEXP"
	st := stateOf(ts)
	args, timeout := timeoutFlag(ts, args, st.cfg.WaitTimeout, usage)
	if len(args) != 2 {
		ts.Fatalf("%s", usage)
	}
	ns, name, ok := strings.Cut(args[0], "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		ts.Fatalf("%s", usage)
	}
	re, err := regexp.Compile(args[1])
	if err != nil {
		ts.Fatalf("pod-logs: %v", err)
	}
	k := st.running(ts, "pod-logs")
	path := "/api/v1/namespaces/" + url.PathEscape(ns) + "/pods/" + url.PathEscape(name) + "/log"
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		ctx, cancel := requestContext()
		resp, err := k.do(ctx, http.MethodGet, path, nil, "", nil)
		var text string
		if err == nil {
			var b []byte
			b, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			text = string(b)
			if err == nil && resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(text))
			}
		}
		cancel()
		if err != nil {
			last = err.Error()
		} else {
			var hits []string
			for _, line := range strings.Split(text, "\n") {
				if re.MatchString(line) {
					hits = append(hits, line)
				}
			}
			if len(hits) > 0 {
				fmt.Fprintln(ts.Stdout(), strings.Join(hits, "\n"))
				return
			}
			last = "no line matches; the log's last lines:\n" + lastLines(text, 10)
		}
		if time.Now().After(deadline) {
			ts.Fatalf("pod-logs %s/%s %q: after %v: %s", ns, name, args[1], timeout, last)
		}
		time.Sleep(100 * time.Millisecond) // polling the condition, with the deadline above
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// dns-lookup [--srv] [--count N] [--timeout D] NAME asks the cluster's
// DNS server (exercise 14's Lookup behind harness/clusterdns) for NAME,
// fully qualified, as a pod's resolver would, and prints the answer
// sorted, one record a line: the addresses of its A records, or with
// --srv "PORT TARGET" for each SRV record. It asks again every 50ms
// until there is an answer (exactly N records with --count), for at
// most D (the wait timeout): the server follows the apiserver through
// its informers. `! dns-lookup NAME` waits until NAME does not resolve.
func cmdDNSLookup(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: dns-lookup [--srv] [--count N] [--timeout D] NAME"
	st := stateOf(ts)
	args, timeout := timeoutFlag(ts, args, st.cfg.WaitTimeout, usage)
	srv, count := false, -1
	for len(args) > 1 {
		switch {
		case args[0] == "--srv":
			srv, args = true, args[1:]
		case args[0] == "--count" && len(args) > 2:
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 1 {
				ts.Fatalf("%s (N from 1)", usage)
			}
			count, args = n, args[2:]
		default:
			ts.Fatalf("%s", usage)
		}
	}
	if len(args) != 1 || args[0] == "" || (neg && count > 0) {
		ts.Fatalf("%s", usage)
	}
	st.running(ts, "dns-lookup")
	server, err := program.DNSServer(st.dataDir)
	if err != nil {
		ts.Fatalf("dns-lookup: %v", err)
	}
	name := strings.TrimSuffix(args[0], ".") + "."
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, server)
	}}
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		ctx, cancel := context.WithTimeout(context.Background(), httpTimeout)
		var got []string
		var err error
		if srv {
			var rs []*net.SRV
			if _, rs, err = r.LookupSRV(ctx, "", "", name); err == nil {
				for _, s := range rs {
					got = append(got, fmt.Sprintf("%d %s", s.Port, s.Target))
				}
			}
		} else {
			got, err = r.LookupHost(ctx, name)
		}
		cancel()
		slices.Sort(got)
		var dnsErr *net.DNSError
		notFound := errors.As(err, &dnsErr) && dnsErr.IsNotFound
		switch {
		case neg && notFound:
			return
		case neg && err == nil:
			last = "it still resolves: " + strings.Join(got, ", ")
		case err != nil && !notFound:
			last = err.Error()
		case err != nil:
			// Go's message names the machine's resolver, not the
			// server asked.
			last = "it does not resolve (NXDOMAIN, or no records of that type)"
		case count > 0 && len(got) != count:
			last = fmt.Sprintf("%d records, want %d: %s", len(got), count, strings.Join(got, ", "))
		default:
			fmt.Fprintln(ts.Stdout(), strings.Join(got, "\n"))
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("dns-lookup %s (server %s): after %v: %s", name, server, timeout, last)
		}
		time.Sleep(50 * time.Millisecond) // polling the condition, with the deadline above
	}
}

// perServiceChain is a chain kube-proxy makes for one Service port or
// endpoint, which only that Service's rules jump to.
var perServiceChain = regexp.MustCompile(`^KUBE-(SVC|SEP|SVL|EXT|FW)-`)

// namespaceRules keeps, of an iptables-save text, the table headers and
// COMMITs, the rules whose comment names a Service of namespace ns
// ("ns/web:http ..."), and the declarations of the per-Service chains
// those rules are in, in their order.
func namespaceRules(text, ns string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	mine := func(l string) bool {
		return strings.Contains(l, "--comment "+ns+"/") || strings.Contains(l, `--comment "`+ns+"/")
	}
	chains := map[string]bool{}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "-A" && mine(l) && perServiceChain.MatchString(f[1]) {
			chains[f[1]] = true
		}
	}
	var out []string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "*") || l == "COMMIT":
			out = append(out, l)
		case strings.HasPrefix(l, ":"):
			if name, _, _ := strings.Cut(l[1:], " "); chains[name] {
				out = append(out, l)
			}
		case mine(l):
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n") + "\n"
}
