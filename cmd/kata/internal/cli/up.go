package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"time"
)

// kata up runs a cluster (for now the store and the apiserver) in one
// process on loopback, built from the learner's exercises or, with
// --reference, from solutions/.
//
// kata never imports exercises/ or solutions/ (DESIGN rule 8): up writes
// a small main package that imports the chosen packages, builds it with
// the go tool (a compile error in the learner's file is shown as the
// compiler reports it), and runs the binary. The binary opens the store in
// the data directory, serves the apiserver on 127.0.0.1, writes
// DIR/kubeconfig and prints the line that points kubectl at it. Ctrl-C
// reaches both processes; the cluster stops serving, closes the store
// (every acknowledged write is already durable) and exits.

func init() {
	register("up", &command{
		summary: "start a cluster (store + apiserver) and point kubectl at it",
		usage:   "up [--reference] [--data-dir DIR] [--port N]",
		run:     runUp,
	})
}

func runUp(env *Env, args []string) error {
	fs := flags(env, "up")
	reference := fs.Bool("reference", false, "run the reference solutions instead of your exercises")
	dataDir := fs.String("data-dir", "", "where the cluster keeps its data (default .kata/cluster in the checkout)")
	port := fs.Int("port", 6443, "the loopback port to listen on (0 picks a free one)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 0 || *port < 0 || *port > 65535 {
		return errUsage
	}
	root, err := findRoot(env.Dir)
	if err != nil {
		return err
	}
	base := "exercises"
	if *reference {
		base = "solutions"
		if st, err := os.Stat(filepath.Join(root, "solutions")); err != nil || !st.IsDir() {
			return errors.New("kata up --reference: this is a student copy: there is no solutions/ directory; run kata up without --reference to start the cluster from your own exercises")
		}
	}
	parts := map[string]string{"Store": "03-store", "APIServer": "04-apiserver"}
	pkgs := map[string]string{}
	for name, id := range parts {
		rel := filepath.Join(base, id)
		if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
			return fmt.Errorf("kata up: %s is missing; the cluster needs it", rel)
		}
		pkgs[name] = importPath(filepath.ToSlash(rel))
	}
	dir := *dataDir
	if dir == "" {
		dir = filepath.Join(root, ".kata", "cluster")
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.Dir, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("kata up: %w", err)
	}

	tmp, err := os.MkdirTemp("", "kata-up-")
	if err != nil {
		return fmt.Errorf("kata up: %w", err)
	}
	defer os.RemoveAll(tmp)
	var src bytes.Buffer
	if err := clusterMain.Execute(&src, map[string]string{
		"Store": pkgs["Store"], "APIServer": pkgs["APIServer"],
		"StoreDir": base + "/03-store", "APIServerDir": base + "/04-apiserver",
	}); err != nil {
		return fmt.Errorf("kata up: %w", err)
	}
	mainFile := filepath.Join(tmp, "main.go")
	if err := os.WriteFile(mainFile, src.Bytes(), 0o644); err != nil {
		return fmt.Errorf("kata up: %w", err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return errors.New("kata up: the Go toolchain was not found on PATH; install Go 1.26 or newer from https://go.dev/dl/ and try again")
	}
	bin := filepath.Join(tmp, "kata-cluster")
	fmt.Fprintf(env.Stderr, "kata up: building the cluster from %s/03-store and %s/04-apiserver...\n", base, base)
	build := exec.CommandContext(env.Ctx, goBin, "build", "-o", bin, mainFile)
	build.Dir = root
	var out bytes.Buffer
	build.Stdout, build.Stderr = &out, &out
	if err := build.Run(); err != nil {
		if env.Ctx.Err() != nil {
			return &exitError{code: 130}
		}
		fmt.Fprintf(env.Stderr, "kata up: the cluster does not build:\n%s", indent(out.String()))
		return &exitError{code: 1}
	}

	cmd := exec.Command(bin, dir, "127.0.0.1:"+strconv.Itoa(*port))
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = env.Stdout, env.Stderr
	stopWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("kata up: starting the cluster: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-env.Ctx.Done():
		// Ctrl-C in a terminal reaches the cluster too; tell it in case
		// it came from elsewhere, and give it time to close the store.
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case err = <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			err = <-done
		}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() < 0 { // killed by a signal
			return nil
		}
		return &exitError{code: ee.ExitCode()}
	}
	return err
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// clusterMain is the cluster's program. It only uses the exported API the
// exercises define: store.Open(dir) and apiserver.New(store).
var clusterMain = template.Must(template.New("main").Parse(`// Code generated by kata up. DO NOT EDIT.

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	apiserver "{{.APIServer}}"
	store "{{.Store}}"
	"github.com/kubekata/kubekata/harness/storage"
)

func notDone(what, dir string, p any) {
	msg := fmt.Sprint(p)
	fmt.Fprintf(os.Stderr, "kata up: %s panicked: %s\n", what, msg)
	if strings.Contains(msg, "not implemented") {
		fmt.Fprintf(os.Stderr, "kata up: %s is not done yet: finish it (kata next), or run kata up --reference to use the reference\n", dir)
	}
	os.Exit(3)
}

func open(dir string) (s storage.Store, err error) {
	defer func() {
		if p := recover(); p != nil {
			notDone("{{.StoreDir}}: Open", "{{.StoreDir}}", p)
		}
	}()
	return store.Open(dir)
}

func handler(s storage.Store) (h http.Handler) {
	defer func() {
		if p := recover(); p != nil {
			notDone("{{.APIServerDir}}: New", "{{.APIServerDir}}", p)
		}
	}()
	return apiserver.New(s)
}

func main() {
	dir, addr := os.Args[1], os.Args[2]
	s, err := open(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kata up: opening the store in %s: %v\n", dir, err)
		if errors.Is(err, storage.ErrCorrupt) {
			fmt.Fprintf(os.Stderr, "kata up: the data directory holds no store this kata can read, or another kata up is using it; stop that one, or pick another directory with --data-dir\n")
		}
		os.Exit(1)
	}
	h := handler(s)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.Close()
		fmt.Fprintf(os.Stderr, "kata up: %v (is another cluster running? try --port)\n", err)
		os.Exit(1)
	}
	url := "http://" + ln.Addr().String()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: %s\n  name: kubekata\ncontexts:\n- context:\n    cluster: kubekata\n    namespace: default\n    user: kubekata\n  name: kubekata\ncurrent-context: kubekata\nusers:\n- name: kubekata\n  user: {}\n", url)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		fmt.Fprintf(os.Stderr, "kata up: %v\n", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	base, cancel := context.WithCancel(context.Background())
	srv := &http.Server{Handler: h, BaseContext: func(net.Listener) context.Context { return base }}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Printf("kata up: the apiserver is listening on %s (data in %s)\n", url, dir)
	fmt.Printf("export KUBECONFIG=%s\n", kubeconfig)
	fmt.Printf("kata up: press Ctrl-C to stop\n")
	select {
	case <-ctx.Done():
	case err := <-errc:
		fmt.Fprintf(os.Stderr, "kata up: serving: %v\n", err)
	}
	// Stop accepting, end the watches, let requests in flight finish,
	// then close the store.
	cancel()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := s.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "kata up: closing the store: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("kata up: stopped; the data stays in %s\n", dir)
}
`))
