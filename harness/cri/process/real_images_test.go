//go:build unix

package process_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/images"
	"github.com/kubekata/kubekata/harness/cri/process"
)

// TestRealImage runs kata/http-echo:2.0 from a real registry (through
// images.Dispatch in TestMain) and talks to it on its pod IP.
func TestRealImage(t *testing.T) {
	reg, err := images.Open(t.TempDir())
	if err != nil {
		t.Fatalf("images.Open() = %v", err)
	}
	r, err := process.New(process.Options{Dir: t.TempDir(), Images: reg})
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	defer r.Close()
	sb := runSandbox(t, r)
	id := runContainer(t, r, sb, "echo", "kata/http-echo:2.0", nil, func(c *cri.ContainerConfig) {
		// the race detector's 1s sleep at exit is no use here
		c.Envs = []cri.KeyValue{{Key: "GORACE", Value: "atexit_sleep_ms=0"}}
	})
	pod, err := r.PodSandboxStatus(ctx, sb)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort(pod.IP, "8080")
	waitLog(t, r, id, "http-echo: listening on "+addr)

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: deadline}
	resp, err := client.Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("GET http://%s/ = %v", addr, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "hello v2 from " + pod.Metadata.Name + "\n"; string(body) != want {
		t.Errorf("GET http://%s/ = %q, want %q", addr, body, want)
	}
	if err := r.StopContainer(ctx, id, 5*time.Second); err != nil {
		t.Fatalf("StopContainer() = %v", err)
	}
	checkExit(t, status(t, r, id), 0, cri.ReasonCompleted)
	var msgs []string
	for _, l := range logLines(t, r, id) {
		msgs = append(msgs, l.Message)
	}
	if got := strings.Join(msgs, "|"); !strings.Contains(got, "GET / 200|http-echo: shutting down") {
		t.Errorf("log = %q, want the request and the shutdown", got)
	}
}
