// Package admin is the cluster program's admin endpoint: how a running
// cluster hands a snapshot of its store to `kata snapshot save`.
//
// Responsibilities:
//
//  1. Publish: the running program writes DIR/admin.json (mode 0600, by
//     a temporary file and a rename) with the loopback address of its
//     admin server and a random token; only the user who runs the
//     cluster can read it, so only that user can ask for a snapshot.
//     (A unix socket in DIR would do the same, but its path can exceed
//     the 108 bytes a socket path may have, in tests' temporary
//     directories.)
//  2. Serve: GET /snapshot with "Authorization: Bearer TOKEN" streams the
//     store's Snapshot; the trailer Kata-Snapshot says "ok" once the whole
//     snapshot is written, or the error that cut it short, so that a
//     truncated snapshot is never taken for a whole one. A wrong or
//     missing token gets 401 and nothing else.
//  3. Ping: GET /ping with the token answers 200 while the cluster runs,
//     so that a second cluster, or a restore, on the same directory is
//     refused at once with a clear message.
//  4. Fetch and Alive: the client side, used by harness/cluster/program.
package admin

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// File is the admin file's name in the data directory.
const File = "admin.json"

// Trailer carries the outcome of a snapshot after its body.
const Trailer = "Kata-Snapshot"

// Info is what admin.json holds.
type Info struct {
	// Address is the admin server's host:port, on loopback.
	Address string `json:"address"`
	// Token is the bearer token the server wants.
	Token string `json:"token"`
	// PID is the cluster program's process id, for messages.
	PID int `json:"pid"`
	// DNS is the cluster DNS server's HOST:PORT (UDP and TCP), or ""
	// when the cluster runs none.
	DNS string `json:"dns,omitempty"`
}

// NewToken is 32 random bytes in hex.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("admin: making a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Write publishes info as DIR/admin.json, mode 0600, atomically.
func Write(dir string, info Info) error {
	b, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("admin: %w", err)
	}
	return WriteFileAtomic(filepath.Join(dir, File), append(b, '\n'), 0o600)
}

// Read reads DIR/admin.json. A missing file is an error wrapping
// fs.ErrNotExist that says no cluster runs on DIR.
func Read(dir string) (Info, error) {
	var info Info
	b, err := os.ReadFile(filepath.Join(dir, File))
	if errors.Is(err, fs.ErrNotExist) {
		return info, fmt.Errorf("admin: no cluster is running with its data in %s (there is no %s): %w", dir, File, ErrNoCluster)
	}
	if err != nil {
		return info, fmt.Errorf("admin: %w", err)
	}
	if err := json.Unmarshal(b, &info); err != nil || info.Address == "" || info.Token == "" {
		return Info{}, fmt.Errorf("admin: %s is not an admin file this kata wrote", filepath.Join(dir, File))
	}
	return info, nil
}

// ErrNoCluster is Read's error when no cluster announced itself in the
// directory; it is an fs.ErrNotExist too.
var ErrNoCluster = fmt.Errorf("no cluster is running: %w", fs.ErrNotExist)

// WriteFileAtomic writes data to name through a temporary file in the
// same directory, synced, then renamed over name, and syncs the
// directory: a reader sees the old file or the new one, never half of
// one, also after a crash.
func WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	_, err := WriteAtomic(name, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	return err
}

// WriteAtomic is WriteFileAtomic for content that write streams: name
// is replaced only once write returned nil and the file is synced. It
// returns the number of bytes written; an error of write comes back as
// it is.
func WriteAtomic(name string, perm os.FileMode, write func(io.Writer) error) (int64, error) {
	dir := filepath.Dir(name)
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("admin: %w", err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return 0, fmt.Errorf("admin: %w", err)
	}
	cw := &countingWriter{w: f}
	if err := write(cw); err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("admin: %w", err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("admin: %w", err)
	}
	if err := os.Rename(tmp, name); err != nil {
		return 0, fmt.Errorf("admin: %w", err)
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return cw.n, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Handler serves GET /snapshot to a caller with token, streaming
// snapshot's output, POST /nodes/NAME/stop, which stops node NAME's
// kubelet with stopNode (a node that fails, for scenarios), and GET
// /proxy/rules, kube-proxy's rules as rules says them (ok false: the
// cluster runs no kube-proxy, 404).
func Handler(token string, snapshot func(ctx context.Context, w io.Writer) error, stopNode func(name string) error, rules func() (string, bool)) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			http.Error(w, "admin: a wrong or missing token", http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/ping" {
			w.WriteHeader(http.StatusOK)
			return
		}
		if node, ok := strings.CutPrefix(r.URL.Path, "/nodes/"); ok {
			name, ok := strings.CutSuffix(node, "/stop")
			if !ok || name == "" || strings.Contains(name, "/") {
				http.NotFound(w, r)
				return
			}
			if r.Method != http.MethodPost {
				w.Header().Set("Allow", http.MethodPost)
				http.Error(w, "admin: only POST", http.StatusMethodNotAllowed)
				return
			}
			if err := stopNode(name); err != nil {
				http.Error(w, "admin: "+err.Error(), http.StatusNotFound)
				return
			}
			w.WriteHeader(http.StatusOK)
			return
		}
		if r.URL.Path == "/proxy/rules" {
			if r.Method != http.MethodGet {
				w.Header().Set("Allow", http.MethodGet)
				http.Error(w, "admin: only GET", http.StatusMethodNotAllowed)
				return
			}
			text, ok := rules()
			if !ok {
				http.Error(w, "admin: this cluster runs no kube-proxy (exercise 14 is not wired)", http.StatusNotFound)
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = io.WriteString(w, text)
			return
		}
		if r.URL.Path != "/snapshot" {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			http.Error(w, "admin: only GET", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Trailer", Trailer)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(http.StatusOK)
		status := "ok"
		if err := snapshot(r.Context(), w); err != nil {
			status = strings.ReplaceAll(err.Error(), "\n", " ")
		}
		w.Header().Set(Trailer, status)
	})
}

// Fetch asks the admin server in info for a snapshot and copies it to w.
// It fails unless the whole snapshot arrived and the server said so.
func Fetch(ctx context.Context, info Info, w io.Writer) error {
	resp, err := call(ctx, info, http.MethodGet, "/snapshot", "GET /snapshot")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return fmt.Errorf("admin: reading the snapshot: %w", err)
	}
	switch s := resp.Trailer.Get(Trailer); s {
	case "ok":
		return nil
	case "":
		return errors.New("admin: the snapshot ended without the cluster saying it was whole")
	default:
		return fmt.Errorf("admin: the cluster could not take the snapshot: %s", s)
	}
}

// ProxyRules asks the cluster in info for kube-proxy's rules.
func ProxyRules(ctx context.Context, info Info) (string, error) {
	resp, err := call(ctx, info, http.MethodGet, "/proxy/rules", "GET /proxy/rules")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("admin: reading the rules: %w", err)
	}
	return string(b), nil
}

// StopNode asks the cluster in info to stop node's kubelet, and returns
// once it has stopped.
func StopNode(ctx context.Context, info Info, node string) error {
	resp, err := call(ctx, info, http.MethodPost, "/nodes/"+node+"/stop", "stopping the kubelet on "+node)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// call sends method path to the admin server in info with its token; an
// answer other than 200 is an error saying what (what the call is for)
// and the server's words.
func call(ctx context.Context, info Info, method, path, what string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://"+info.Address+path, nil)
	if err != nil {
		return nil, fmt.Errorf("admin: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+info.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("admin: the cluster (pid %d) does not answer at %s; is it still running? %w", info.PID, info.Address, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return nil, fmt.Errorf("admin: %s: %s: %s", what, resp.Status, strings.TrimSpace(string(b)))
	}
	return resp, nil
}

// Alive says whether the admin server in info answers /ping with 200.
func Alive(ctx context.Context, info Info) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+info.Address+"/ping", nil)
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+info.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
