package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// api-request talks to the cluster whose data is in DIR.
	scriptCmds["api-request"] = cmdAPIRequest
}

// cmdAPIRequest: api-request DIR METHOD PATH [BODYFILE] sends one request
// as the admin to the cluster whose data is in DIR (JSON body from BODYFILE) and
// prints the response body; it fails on a status other than 2xx (with !,
// on a 2xx).
func cmdAPIRequest(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: api-request DIR METHOD PATH [BODYFILE]")
	}
	// As the admin: with exercise 05's pipeline the cluster serves TLS
	// and authenticates every request.
	admin, err := program.Credentials(ts.MkAbs(args[0]), "admin")
	ts.Check(err)
	defer admin.Client.CloseIdleConnections()
	server := admin.URL
	var body io.Reader
	if len(args) == 4 {
		body = strings.NewReader(ts.ReadFile(args[3]))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, args[1], server+args[2], body)
	ts.Check(err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := admin.Client.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(resp.Body)
	ts.Check(err)
	ts.Stdout().Write(b.Bytes())
	success := resp.StatusCode/100 == 2
	switch {
	case success && neg:
		ts.Fatalf("%s %s = %s, want a failure", args[1], args[2], resp.Status)
	case !success && !neg:
		ts.Fatalf("%s %s = %s: %s", args[1], args[2], resp.Status, b.String())
	}
}

func TestSnapshotSaveNoCluster(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	env := &Env{Ctx: context.Background(), Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Dir: dir, Getenv: os.Getenv}
	code := Run(env, []string{"snapshot", "save", "backup.snap", "--data-dir", dir})
	if code != 1 || !strings.Contains(stderr.String(), "no cluster is running with its data in "+dir+"; start one with kata up") {
		t.Errorf("kata snapshot save with no cluster: exit %d, stderr %q; want 1 and that no cluster runs there", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "backup.snap")); !os.IsNotExist(err) {
		t.Errorf("after a failed save: Stat(backup.snap) = %v, want no file", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after a failed save the directory holds %v, want nothing (no temporary file left)", entries)
	}
}

func TestSnapshotUsage(t *testing.T) {
	for _, args := range [][]string{{"snapshot"}, {"snapshot", "take"}, {"snapshot", "save"}, {"snapshot", "save", "a", "b"}, {"snapshot", "restore"}} {
		var stdout, stderr bytes.Buffer
		env := &Env{Ctx: context.Background(), Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Dir: t.TempDir(), Getenv: os.Getenv}
		if code := Run(env, args); code != 2 || !strings.Contains(stderr.String(), "usage: kata snapshot save FILE") {
			t.Errorf("kata %q: exit %d, stderr %q; want 2 and the usage", args, code, stderr.String())
		}
	}
}
