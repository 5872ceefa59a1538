package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/trace"
)

// kata trace shows the life of a pod or a Deployment in the cluster
// running on --data-dir as a timeline across the components (seed 000's
// relay): the requests from the audit log with who made them, the
// Events, and the status changes between the objects' versions, which a
// watch replays from the store's history. harness/trace does the
// reading of it all; this file only fetches it.

func init() {
	register("trace", &command{
		summary: "show the life of a pod or Deployment across the components of the running cluster, as a timeline",
		usage:   "trace [--data-dir DIR] [-n NAMESPACE] [--follow] [--svg FILE] [--hops] pod/NAME|deployment/NAME",
		run:     runTrace,
	})
}

const traceCmd = "kata trace"

// traceCatchUp bounds how long the history replay may take before the
// timeline is printed with what arrived (a learner's apiserver whose
// watch never reaches the present must not hang kata trace).
const traceCatchUp = 20 * time.Second

// traceAuditPoll is how often --follow looks for new audit log lines:
// the log is a file the cluster appends to, unbuffered, one line per
// request once its response is complete.
const traceAuditPoll = 200 * time.Millisecond

// traceFollowLag is how far --follow stays behind the present: a request
// reaches the audit log when its response is complete and is read at
// the next poll, after the Events and versions it caused were watched;
// printing an entry once it is this old lets the request come first,
// as it happened, and date what it wrote.
const traceFollowLag = 3 * traceAuditPoll

// traceFollowHold bounds how long a change that a live watch saw holds
// --follow back while the audit log does not show the write that made
// it yet (a loaded machine can take longer than traceFollowLag): the
// request then comes first and dates it, or, past this, it prints as
// seen.
const traceFollowHold = 3 * time.Second

// auditLogFile is the audit log's name in the data directory
// (harness/cluster's AuditLogFile; kata does not link the cluster for one
// name).
const auditLogFile = "audit.log"

func runTrace(env *Env, args []string) error {
	fs := flags(env, "trace")
	dataDir := fs.String("data-dir", "", "the data directory of the running cluster (default .kata/cluster in the checkout)")
	ns := fs.String("n", "default", "the namespace of the object")
	follow := fs.Bool("follow", false, "keep watching and print entries as they happen, until interrupted")
	svg := fs.String("svg", "", "also draw the timeline into this SVG file: a lane per component, arrows for the handoffs")
	hops := fs.Bool("hops", false, "print each pod's hops (accepted, bound, started, ready) and their p50/p99")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errUsage
	}
	resource, name, err := traceTarget(pos[0])
	if err != nil {
		return err
	}
	dir, err := dataDirFlag(env, *dataDir)
	if err != nil {
		return err
	}
	noCluster := fmt.Errorf("%s: no cluster is running with its data in %s; start one with kata up (--data-dir %s)", traceCmd, dir, dir)
	if _, ok := program.Running(env.Ctx, dir); !ok {
		return noCluster
	}
	creds, err := program.Credentials(dir, "admin")
	if errors.Is(err, program.ErrNoCluster) {
		return noCluster
	}
	if err != nil {
		return fmt.Errorf("%s: %s", traceCmd, trimPrefixes(err.Error()))
	}
	defer creds.Client.CloseIdleConnections()
	c := client.New(creds.URL, creds.Client)
	c.UserAgent = "kata-trace"
	ctx, cancel := context.WithCancel(env.Ctx)
	defer cancel()

	t := &tracer{env: env, c: c, dir: dir, in: trace.Input{Resource: resource, Namespace: *ns, Name: name}}
	kind := traceKinds[resource]
	if _, err := c.Get(ctx, kind, *ns, name); err != nil {
		switch {
		case client.IsNotFound(err) && *follow:
			fmt.Fprintf(env.Stderr, "%s: %s/%s does not exist in namespace %s yet; waiting for it\n", traceCmd, kind.Resource, name, *ns)
		case client.IsNotFound(err):
			return fmt.Errorf("%s: %s %q not found in namespace %s", traceCmd, strings.TrimSuffix(kind.Resource, "s"), name, *ns)
		default:
			return fmt.Errorf("%s: %v", traceCmd, err)
		}
	}
	// The history first, then the log: the requests that wrote what the
	// watches replayed are in the log by then.
	if err := t.history(ctx, *follow); err != nil {
		return err
	}
	if !strings.HasPrefix(creds.URL, "https://") {
		// Plain HTTP: the cluster runs without the request pipeline, so
		// an audit.log in the directory is an earlier cluster's.
		t.noAudit = true
		fmt.Fprintf(env.Stderr, "%s: the cluster has no audit log: the requests and who made them are missing, because the request pipeline (exercise 05) is not done; the timeline shows the Events and status changes\n", traceCmd)
	} else if err := t.readAudit(); err != nil {
		return err
	}
	entries := trace.Build(t.in)
	fmt.Fprintln(env.Stdout, trace.Header)
	printed := map[string]int{}
	t.print(entries, printed)
	if *follow {
		entries, err = t.follow(ctx, printed)
		if err != nil {
			return err
		}
	}
	if *hops {
		writeHops(env.Stdout, entries)
	}
	if *svg != "" {
		if err := writeSVGFile(*svg, env.Dir, entries); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "%s: wrote %s (%d lanes, %d entries)\n", traceCmd, *svg, len(trace.Lanes(entries)), len(entries))
	}
	return nil
}

var traceKinds = map[string]api.Kind{}

func init() {
	for _, k := range api.Kinds() {
		switch k.Resource {
		case "pods", "replicasets", "deployments", "events":
			if k.Group == "" || k.Group == "apps" {
				traceKinds[k.Resource] = k
			}
		}
	}
}

// traceTarget parses pod/NAME or deployment/NAME, with kubectl's other
// spellings (pods, po, deployments, deploy).
func traceTarget(s string) (resource, name string, err error) {
	kind, name, ok := strings.Cut(s, "/")
	if ok && name != "" && !strings.Contains(name, "/") {
		switch strings.ToLower(kind) {
		case "pod", "pods", "po":
			return "pods", name, nil
		case "deployment", "deployments", "deploy":
			return "deployments", name, nil
		}
	}
	return "", "", fmt.Errorf("%s: %q is not pod/NAME or deployment/NAME", traceCmd, s)
}

// tracer holds what kata trace fetched.
type tracer struct {
	env *Env
	c   *client.HTTP
	dir string
	in  trace.Input
	// audit: the log's offset read so far, and a partial last line.
	auditOff  int64
	auditTail []byte
	noAudit   bool
	// watches: the open ones (--follow) and where each is.
	watches map[string]client.Watcher
	lastRV  map[string]string
}

// readAudit reads the audit log; a cluster without the pipeline has none.
func (t *tracer) readAudit() error {
	name := filepath.Join(t.dir, auditLogFile)
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		t.noAudit = true
		fmt.Fprintf(t.env.Stderr, "%s: the cluster has no audit log (%s): the requests and who made them are missing, because the request pipeline (exercise 05) is not done; the timeline shows the Events and status changes\n", traceCmd, name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %v", traceCmd, err)
	}
	// A last line without its newline is being written: keep it for later.
	end := bytes.LastIndexByte(b, '\n') + 1
	evs, skipped, _ := trace.ParseAudit(bytes.NewReader(b[:end]))
	t.in.Audit = evs
	t.auditOff = int64(end)
	if skipped > 0 {
		fmt.Fprintf(t.env.Stderr, "%s: skipped %d lines of %s that are not audit events\n", traceCmd, skipped, name)
	}
	return nil
}

// moreAudit reads the lines appended to the audit log since; it says
// whether there were any.
func (t *tracer) moreAudit() bool {
	if t.noAudit {
		return false
	}
	f, err := os.Open(filepath.Join(t.dir, auditLogFile))
	if err != nil {
		return false
	}
	defer f.Close()
	b, err := io.ReadAll(io.NewSectionReader(f, t.auditOff, 1<<40))
	if err != nil || len(b) == 0 {
		return false
	}
	t.auditOff += int64(len(b))
	b = append(t.auditTail, b...)
	end := bytes.LastIndexByte(b, '\n') + 1
	t.auditTail = append([]byte(nil), b[end:]...)
	evs, _, _ := trace.ParseAudit(bytes.NewReader(b[:end]))
	t.in.Audit = append(t.in.Audit, evs...)
	return len(evs) > 0
}

// compactedRE finds the oldest revision a 410 for a watch names
// ("too old resource version: 1 (57)", as upstream's watch cache says).
var compactedRE = regexp.MustCompile(`\((\d+)\)`)

// history replays each kind's changes from the start of the store's
// history (or from its compaction), so that the status changes between
// versions show; and reads the namespace's Events. With follow, the
// watches stay open.
func (t *tracer) history(ctx context.Context, follow bool) error {
	t.watches = map[string]client.Watcher{}
	t.lastRV = map[string]string{}
	resources := []string{"pods"}
	if t.in.Resource == "deployments" {
		resources = append(resources, "replicasets", "deployments")
	}
	for _, r := range resources {
		if err := t.replay(ctx, r, follow); err != nil {
			return err
		}
	}
	l, err := t.c.List(ctx, traceKinds["events"], t.in.Namespace, client.ListOptions{})
	if err != nil {
		return fmt.Errorf("%s: listing Events: %v", traceCmd, err)
	}
	for _, o := range l.Items {
		if ev, ok := o.(*api.Event); ok {
			t.in.Events = append(t.in.Events, ev)
		}
	}
	if follow {
		w, err := t.c.Watch(ctx, traceKinds["events"], t.in.Namespace, client.ListOptions{ResourceVersion: l.ResourceVersion})
		if err != nil {
			return fmt.Errorf("%s: watching Events: %v", traceCmd, err)
		}
		t.watches["events"], t.lastRV["events"] = w, l.ResourceVersion
	}
	return nil
}

// replay lists a kind (what exists now) and watches it from revision 1,
// keeping every version until the watch has caught up with the list:
// each listed object seen at its listed resourceVersion, each object
// seen that the list does not have seen deleted.
func (t *tracer) replay(ctx context.Context, resource string, follow bool) error {
	kind := traceKinds[resource]
	l, err := t.c.List(ctx, kind, t.in.Namespace, client.ListOptions{})
	if err != nil {
		return fmt.Errorf("%s: listing %s: %v", traceCmd, resource, err)
	}
	listed := map[string]string{}
	for _, o := range l.Items {
		m := o.GetObjectMeta()
		listed[m.Name] = m.ResourceVersion
	}
	from := "1"
	var w client.Watcher
	var got []trace.Version
	pending := map[string]bool{} // seen, not listed, not yet deleted
	caught := func() bool {
		if len(pending) > 0 {
			return false
		}
		for name := range listed {
			if listed[name] != "" {
				return false
			}
		}
		return true
	}
	deadline := time.NewTimer(traceCatchUp)
	defer deadline.Stop()
	restarts := 0
	for {
		if w == nil {
			if w, err = t.c.Watch(ctx, kind, t.in.Namespace, client.ListOptions{ResourceVersion: from}); err != nil {
				return fmt.Errorf("%s: watching %s: %v", traceCmd, resource, err)
			}
		}
		if caught() {
			break
		}
		select {
		case <-ctx.Done():
			w.Stop()
			return ctx.Err()
		case <-deadline.C:
			fmt.Fprintf(t.env.Stderr, "%s: the watch of %s did not reach the present within %v; the timeline shows what it replayed\n", traceCmd, resource, traceCatchUp)
			listed, pending = nil, nil
		case ev, ok := <-w.ResultChan():
			switch {
			case !ok:
				w = nil
				from = t.lastRV[resource]
				if from == "" {
					from = "1"
				}
				if restarts++; restarts > 3 {
					return fmt.Errorf("%s: the watch of %s keeps ending", traceCmd, resource)
				}
				continue
			case ev.Type == api.WatchError:
				w.Stop()
				w = nil
				if ev.Status != nil && ev.Status.Code == 410 {
					// Compacted: start at the oldest revision kept; the
					// objects' earlier versions are gone.
					if m := compactedRE.FindStringSubmatch(ev.Status.Message); m != nil && restarts < 3 {
						restarts++
						from = m[1]
						continue
					}
				}
				return t.fallback(ctx, resource, l, ev.Status)
			case ev.Type == api.WatchBookmark:
				continue
			}
			m := ev.Object.GetObjectMeta()
			t.lastRV[resource] = m.ResourceVersion
			got = append(got, trace.Version{Type: ev.Type, Object: ev.Object})
			if rv, ok := listed[m.Name]; ok && rv != "" && !rvBefore(m.ResourceVersion, rv) {
				listed[m.Name] = ""
			}
			if _, ok := listed[m.Name]; !ok {
				if ev.Type == api.WatchDeleted {
					delete(pending, m.Name)
				} else {
					pending[m.Name] = true
				}
			}
		}
	}
	if from != "1" && len(got) > 0 {
		fmt.Fprintf(t.env.Stderr, "%s: the store's history of %s starts at revision %s (compacted): earlier status changes are gone\n", traceCmd, resource, from)
	}
	t.in.Versions = append(t.in.Versions, got...)
	if follow {
		t.watches[resource] = w
	} else {
		w.Stop()
	}
	return nil
}

// fallback uses the list as it is when the apiserver cannot replay the
// history: the objects' current versions, no status changes before now.
func (t *tracer) fallback(ctx context.Context, resource string, l *client.ObjectList, st *api.Status) error {
	msg := "no reason"
	if st != nil {
		msg = st.Message
	}
	fmt.Fprintf(t.env.Stderr, "%s: the apiserver does not replay the history of %s (%s): status changes before now are not shown\n", traceCmd, resource, msg)
	for _, o := range l.Items {
		t.in.Versions = append(t.in.Versions, trace.Version{Type: api.WatchAdded, Object: o, Initial: true})
	}
	t.lastRV[resource] = l.ResourceVersion
	w, err := t.c.Watch(ctx, traceKinds[resource], t.in.Namespace, client.ListOptions{ResourceVersion: l.ResourceVersion})
	if err != nil {
		return fmt.Errorf("%s: watching %s: %v", traceCmd, resource, err)
	}
	t.watches[resource] = w
	return nil
}

// rvBefore says whether resourceVersion a is older than b: numbers as
// the store's revisions are, else only equality counts.
func rvBefore(a, b string) bool {
	x, err1 := strconv.ParseInt(a, 10, 64)
	y, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil {
		return a != b
	}
	return x < y
}

// print writes the entries not printed yet. An entry is known by its
// object, kind and text and how many such came before it, not by its
// time or component: a live version first dated when it was seen gets
// its audited time once the log has the line.
func (t *tracer) print(entries []trace.Entry, printed map[string]int) {
	t.printUpTo(entries, printed, time.Time{})
}

// printUpTo is print of the entries at or before cutoff (all for a zero
// cutoff).
func (t *tracer) printUpTo(entries []trace.Entry, printed map[string]int, cutoff time.Time) {
	seen := map[string]int{}
	for _, e := range entries {
		k := e.Object + "\x00" + string(e.Kind) + "\x00" + e.Text
		seen[k]++
		if !cutoff.IsZero() && e.Time.After(cutoff) {
			continue
		}
		if seen[k] > printed[k] {
			printed[k] = seen[k]
			fmt.Fprintln(t.env.Stdout, trace.FormatEntry(e))
		}
	}
}

// cutoff is the time up to which --follow prints at now: traceFollowLag
// ago, or just before the first change seen live whose write the audit
// log does not show yet, for at most traceFollowHold.
func (t *tracer) cutoff(entries []trace.Entry, now time.Time) time.Time {
	c := now.Add(-traceFollowLag)
	if t.noAudit {
		return c
	}
	for _, e := range entries {
		if !e.Time.Before(c) {
			break
		}
		if e.Estimated && e.Time.After(now.Add(-traceFollowHold)) {
			return e.Time.Add(-time.Nanosecond)
		}
	}
	return c
}

// follow keeps the watches open and the audit log read, printing new
// entries as they come, until ctx ends (Ctrl-C). It returns the last
// timeline.
func (t *tracer) follow(ctx context.Context, printed map[string]int) ([]trace.Entry, error) {
	tick := time.NewTicker(traceAuditPoll)
	defer tick.Stop()
	defer func() {
		for _, w := range t.watches {
			w.Stop()
		}
	}()
	type delivery struct {
		resource string
		ev       client.Event
		ok       bool
	}
	// One channel for every watch: a goroutine per watch forwards, and
	// ends when its watch does (Stop closes its channel).
	ch := make(chan delivery)
	forward := func(r string, w client.Watcher) {
		go func() {
			for ev := range w.ResultChan() {
				select {
				case ch <- delivery{r, ev, true}:
				case <-ctx.Done():
					return
				}
			}
			select {
			case ch <- delivery{r, client.Event{}, false}:
			case <-ctx.Done():
			}
		}()
	}
	for r, w := range t.watches {
		forward(r, w)
	}
	entries := trace.Build(t.in)
	dirty := false
	for {
		select {
		case <-ctx.Done():
			// Ctrl-C ends a follow: that is its normal end. What is
			// left is printed.
			t.moreAudit()
			entries = trace.Build(t.in)
			t.print(entries, printed)
			return entries, nil
		case now := <-tick.C:
			if t.moreAudit() {
				dirty = true
			}
			if dirty {
				entries, dirty = trace.Build(t.in), false
			}
			t.printUpTo(entries, printed, t.cutoff(entries, now))
		case d := <-ch:
			switch {
			case !d.ok:
				// The server ended the watch: go on from where it was.
				w, err := t.c.Watch(ctx, traceKinds[d.resource], t.in.Namespace, client.ListOptions{ResourceVersion: t.lastRV[d.resource]})
				if err != nil {
					if ctx.Err() != nil {
						continue
					}
					return entries, fmt.Errorf("%s: watching %s again: %v", traceCmd, d.resource, err)
				}
				t.watches[d.resource] = w
				forward(d.resource, w)
			case d.ev.Type == api.WatchError || d.ev.Type == api.WatchBookmark || d.ev.Object == nil:
				if d.ev.Object != nil {
					t.lastRV[d.resource] = d.ev.Object.GetObjectMeta().ResourceVersion
				}
			default:
				t.lastRV[d.resource] = d.ev.Object.GetObjectMeta().ResourceVersion
				if ev, ok := d.ev.Object.(*api.Event); ok {
					t.in.Events = append(t.in.Events, ev)
				} else {
					t.in.Versions = append(t.in.Versions, trace.Version{Type: d.ev.Type, Object: d.ev.Object, Seen: time.Now()})
				}
				dirty = true
			}
		}
	}
}

// writeHops prints each pod's hops and the p50/p99 of each hop.
func writeHops(w io.Writer, entries []trace.Entry) {
	hops := trace.PodHops(entries)
	ms := func(d time.Duration, ok bool) string {
		if !ok {
			return "-"
		}
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	fmt.Fprintf(w, "\nhops of %d pods (accepted: the create; bound: the binding; started: the container; ready: condition Ready True)\n", len(hops))
	fmt.Fprintf(w, "%-36s", "POD")
	for _, n := range trace.HopNames {
		fmt.Fprintf(w, "  %16s", strings.ToUpper(n))
	}
	fmt.Fprintln(w)
	for _, h := range hops {
		d, ok := h.Latencies()
		fmt.Fprintf(w, "%-36s", h.Pod)
		for i := range d {
			fmt.Fprintf(w, "  %16s", ms(d[i], ok[i]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n%-16s  %5s  %10s  %10s  %10s\n", "HOP", "PODS", "P50", "P99", "MAX")
	for _, s := range trace.Summarize(hops) {
		fmt.Fprintf(w, "%-16s  %5d  %10s  %10s  %10s\n", s.Hop, s.N, ms(s.P50, s.N > 0), ms(s.P99, s.N > 0), ms(s.Max, s.N > 0))
	}
}

// writeSVGFile draws the timeline into file (relative to dir).
func writeSVGFile(file, dir string, entries []trace.Entry) error {
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	var b bytes.Buffer
	if err := trace.WriteSVG(&b, entries); err != nil {
		return fmt.Errorf("%s: %v", traceCmd, err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("%s: writing the picture: %v", traceCmd, err)
	}
	return nil
}
