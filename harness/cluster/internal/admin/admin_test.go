package admin

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func serve(t *testing.T, token string, snap func(context.Context, io.Writer) error) Info {
	return serveRules(t, token, snap, func() (string, bool) { return "", false })
}

func serveRules(t *testing.T, token string, snap func(context.Context, io.Writer) error, rules func() (string, bool)) Info {
	t.Helper()
	srv := httptest.NewServer(Handler(token, snap, func(name string) error {
		if name != "node-2" {
			return errors.New("no node " + name)
		}
		return nil
	}, rules))
	t.Cleanup(srv.Close)
	return Info{Address: strings.TrimPrefix(srv.URL, "http://"), Token: token, PID: 1}
}

func TestFetchWhole(t *testing.T) {
	info := serve(t, "secret", func(_ context.Context, w io.Writer) error { _, err := io.WriteString(w, "the store"); return err })
	var b bytes.Buffer
	if err := Fetch(context.Background(), info, &b); err != nil || b.String() != "the store" {
		t.Fatalf("Fetch = %v, %q; want nil, %q", err, b.String(), "the store")
	}
}

func TestFetchWrongToken(t *testing.T) {
	called := false
	info := serve(t, "secret", func(context.Context, io.Writer) error { called = true; return nil })
	info.Token = "guess"
	err := Fetch(context.Background(), info, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "401 Unauthorized") || called {
		t.Fatalf("Fetch with a wrong token = %v (snapshot called: %v); want 401 and no snapshot", err, called)
	}
}

// A snapshot that fails halfway is an error, though its first bytes
// arrived with a 200.
func TestFetchSnapshotFailsHalfway(t *testing.T) {
	info := serve(t, "secret", func(_ context.Context, w io.Writer) error {
		_, _ = io.WriteString(w, "half")
		return errors.New("disk on fire")
	})
	err := Fetch(context.Background(), info, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "could not take the snapshot: disk on fire") {
		t.Fatalf("Fetch of a failing snapshot = %v, want its error", err)
	}
}

// A server that never says the snapshot is whole is not trusted.
func TestFetchNoTrailer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "partial") }))
	defer srv.Close()
	err := Fetch(context.Background(), Info{Address: strings.TrimPrefix(srv.URL, "http://"), Token: "x"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "without the cluster saying it was whole") {
		t.Fatalf("Fetch without the trailer = %v, want an error", err)
	}
}

func TestWriteReadPrivate(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no cluster is running with its data in "+dir) {
		t.Fatalf("Read of a directory without admin.json = %v, want ErrNotExist said clearly", err)
	}
	want := Info{Address: "127.0.0.1:1", Token: "t", PID: 7}
	if err := Write(dir, want); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, File))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("Stat(admin.json) = %v, %v; want mode 0600", st.Mode(), err)
	}
	if got, err := Read(dir); err != nil || got != want {
		t.Fatalf("Read = %+v, %v; want %+v", got, err, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("after Write the directory holds %d entries, want only admin.json (no temporary file)", len(entries))
	}
	if err := os.WriteFile(filepath.Join(dir, File), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "not an admin file") {
		t.Errorf("Read of an empty admin file = %v, want an error", err)
	}
}

func TestAlive(t *testing.T) {
	info := serve(t, "secret", func(context.Context, io.Writer) error { return nil })
	if !Alive(context.Background(), info) {
		t.Errorf("Alive(a serving admin endpoint) = false, want true")
	}
	wrong := info
	wrong.Token = "guess"
	if Alive(context.Background(), wrong) {
		t.Errorf("Alive with a wrong token = true, want false")
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	dead := Info{Address: strings.TrimPrefix(srv.URL, "http://"), Token: "secret"}
	srv.Close()
	if Alive(context.Background(), dead) {
		t.Errorf("Alive(a closed endpoint) = true, want false")
	}
}

func TestStopNode(t *testing.T) {
	info := serve(t, "secret", func(context.Context, io.Writer) error { return nil })
	if err := StopNode(context.Background(), info, "node-2"); err != nil {
		t.Errorf("StopNode(node-2) = %v, want nil", err)
	}
	if err := StopNode(context.Background(), info, "node-9"); err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "no node node-9") {
		t.Errorf("StopNode(node-9) = %v, want a 404 saying there is no node-9", err)
	}
	wrong := info
	wrong.Token = "guess"
	if err := StopNode(context.Background(), wrong, "node-2"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("StopNode with a wrong token = %v, want a 401", err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+info.Address+"/nodes/node-2/stop", nil)
	req.Header.Set("Authorization", "Bearer secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /nodes/node-2/stop = %d, want 405", resp.StatusCode)
	}
}

// kube-proxy's rules, to a caller with the token; a cluster without a
// kube-proxy says so with a 404.
func TestProxyRules(t *testing.T) {
	const text = "*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n"
	info := serveRules(t, "secret", nil, func() (string, bool) { return text, true })
	if got, err := ProxyRules(context.Background(), info); err != nil || got != text {
		t.Errorf("ProxyRules = %q, %v; want %q", got, err, text)
	}
	wrong := info
	wrong.Token = "guess"
	if _, err := ProxyRules(context.Background(), wrong); err == nil || !strings.Contains(err.Error(), "401 Unauthorized") {
		t.Errorf("ProxyRules with a wrong token = %v, want 401", err)
	}
	none := serve(t, "secret", nil)
	if _, err := ProxyRules(context.Background(), none); err == nil || !strings.Contains(err.Error(), "404 Not Found: admin: this cluster runs no kube-proxy") {
		t.Errorf("ProxyRules of a cluster without kube-proxy = %v, want its 404", err)
	}
}
