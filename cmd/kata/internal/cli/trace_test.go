package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/trace"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["deployment-ready"] = cmdDeploymentReady
	scriptCmds["lines-in-order"] = cmdLinesInOrder
	scriptCmds["match-env"] = cmdMatchEnv
}

// cmdDeploymentReady: deployment-ready DIR NAME N waits, for at most
// waitTimeout, until the Deployment NAME in default of the cluster whose
// data is in DIR has N updated, ready and available replicas.
func cmdDeploymentReady(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: deployment-ready DIR NAME N")
	}
	admin, err := program.Credentials(ts.MkAbs(args[0]), "admin")
	ts.Check(err)
	defer admin.Client.CloseIdleConnections()
	deployments := client.For[*api.Deployment](client.New(admin.URL, admin.Client))
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	want := args[2]
	var last string
	for {
		if d, err := deployments.Get(ctx, "default", args[1]); err == nil {
			s := d.Status
			last = fmt.Sprintf("%d/%d/%d", s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas)
			if last == want+"/"+want+"/"+want {
				return
			}
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			ts.Fatalf("deployment %s: updated/ready/available = %s after %v, want %s/%s/%s", args[1], last, waitTimeout, want, want, want)
		case <-tick.C:
		}
	}
}

// cmdLinesInOrder: lines-in-order FILE REGEXP... fails unless FILE
// ("stdout" for the last command's) has a line matching each REGEXP,
// each after the line that matched the one before.
func cmdLinesInOrder(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: lines-in-order FILE REGEXP...")
	}
	text := readScriptFile(ts, args[0])
	lines := strings.Split(text, "\n")
	at := 0
	for _, expr := range args[1:] {
		re, err := regexp.Compile(expr)
		ts.Check(err)
		found := false
		for ; at < len(lines); at++ {
			if re.MatchString(lines[at]) {
				found = true
				at++
				break
			}
		}
		if !found {
			ts.Fatalf("%s: no line matches %q after the lines that matched the patterns before it; it holds:\n%s", args[0], expr, text)
		}
	}
}

// cmdMatchEnv: match-env FILE REGEXP NAME sets $NAME to REGEXP's first
// group in FILE ("stdout" for the last command's); it fails when nothing
// matches.
func cmdMatchEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: match-env FILE REGEXP NAME")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(readScriptFile(ts, args[0]))
	if len(m) < 2 {
		ts.Fatalf("%s has no match for %q (with a group)", args[0], args[1])
	}
	ts.Setenv(args[2], m[1])
}

func readScriptFile(ts *testscript.TestScript, name string) string {
	switch name {
	case "stdout":
		return ts.ReadFile("stdout")
	case "stderr":
		return ts.ReadFile("stderr")
	}
	return ts.ReadFile(name)
}

func TestTraceTarget(t *testing.T) {
	for _, c := range []struct{ arg, resource, name string }{
		{"pod/web", "pods", "web"},
		{"pods/web-1", "pods", "web-1"},
		{"po/x", "pods", "x"},
		{"deployment/web", "deployments", "web"},
		{"Deployments/web", "deployments", "web"},
		{"deploy/web", "deployments", "web"},
	} {
		r, n, err := traceTarget(c.arg)
		if err != nil || r != c.resource || n != c.name {
			t.Errorf("traceTarget(%q) = %q, %q, %v; want %q, %q, nil", c.arg, r, n, err, c.resource, c.name)
		}
	}
	for _, arg := range []string{"web", "pod/", "service/web", "pod/a/b", "/web", ""} {
		if _, _, err := traceTarget(arg); err == nil || !strings.Contains(err.Error(), "is not pod/NAME or deployment/NAME") {
			t.Errorf("traceTarget(%q) = %v, want an error saying it is not pod/NAME or deployment/NAME", arg, err)
		}
	}
}

// Without a cluster kata trace says so and names kata up, fast, and
// writes nothing.
func TestTraceNoCluster(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	env := &Env{Ctx: context.Background(), Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Dir: dir, Getenv: os.Getenv}
	code := Run(env, []string{"trace", "--data-dir", dir, "deployment/web"})
	want := "kata trace: no cluster is running with its data in " + dir + "; start one with kata up"
	if code != 1 || !strings.Contains(stderr.String(), want) || stdout.Len() != 0 {
		t.Errorf("kata trace --data-dir EMPTY deployment/web: exit %d, stdout %q, stderr %q; want 1, nothing, %q", code, stdout.String(), stderr.String(), want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("kata trace with no cluster left %v in the data directory, want nothing", entries)
	}
}

func TestTraceUsage(t *testing.T) {
	for _, args := range [][]string{{"trace"}, {"trace", "pod/a", "pod/b"}, {"trace", "--bogus", "pod/a"}} {
		var stdout, stderr bytes.Buffer
		env := &Env{Ctx: context.Background(), Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Dir: t.TempDir(), Getenv: os.Getenv}
		if code := Run(env, args); code != 2 || !strings.Contains(stderr.String(), "trace [--data-dir DIR]") {
			t.Errorf("kata %s: exit %d, stderr %q; want 2 and the usage", strings.Join(args, " "), code, stderr.String())
		}
	}
}

// --follow prints up to traceFollowLag ago, but not past a change seen
// live whose write the audit log does not show yet, while it is younger
// than traceFollowHold.
func TestTraceFollowCutoff(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	for _, c := range []struct {
		name    string
		noAudit bool
		entries []trace.Entry
		want    time.Time
	}{
		{"nothing", false, nil, ago(traceFollowLag)},
		{"all recorded", false, []trace.Entry{{Time: ago(2 * time.Second)}, {Time: ago(time.Second)}}, ago(traceFollowLag)},
		{"one seen live, its request not read yet", false, []trace.Entry{{Time: ago(2 * time.Second)}, {Time: ago(time.Second), Estimated: true}, {Time: ago(time.Second / 2)}},
			ago(time.Second).Add(-time.Nanosecond)},
		{"one seen live too long ago", false, []trace.Entry{{Time: ago(traceFollowHold + time.Second), Estimated: true}}, ago(traceFollowLag)},
		{"one seen live within the lag", false, []trace.Entry{{Time: ago(traceFollowLag / 2), Estimated: true}}, ago(traceFollowLag)},
		{"no audit log: nothing to wait for", true, []trace.Entry{{Time: ago(time.Second), Estimated: true}}, ago(traceFollowLag)},
	} {
		tr := &tracer{noAudit: c.noAudit}
		if got := tr.cutoff(c.entries, now); !got.Equal(c.want) {
			t.Errorf("cutoff(%s) = now-%v, want now-%v", c.name, now.Sub(got), now.Sub(c.want))
		}
	}
}
