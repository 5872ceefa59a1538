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

	"github.com/kubekata/kubekata/harness/course"
	"github.com/kubekata/kubekata/harness/storage"
)

// kata up runs a cluster (for now the store and the apiserver) in one
// process on loopback, built from the learner's exercises or, with
// --reference, from solutions/.
//
// From the exercises, it runs what the learner has finished, decided the
// way kata next and kata list decide it (every step of the exercise
// passes): the apiserver (04) must be finished; while the store (03) is
// not, the cluster keeps its data in the harness's in-memory store, and
// says that the data will not survive a restart.
//
// kata never imports exercises/ or solutions/ (DESIGN rule 8): up writes
// a small main package that imports the chosen packages, builds it with
// the go tool (a compile error in the learner's file is shown as the
// compiler reports it), and runs the binary. The binary opens the store in
// the data directory, serves the apiserver on 127.0.0.1 through
// harness/cluster (kube-apiserver's server timeouts, and the store
// compacted every --compaction-interval), writes DIR/kubeconfig and
// prints the line that points kubectl at it. Ctrl-C reaches both
// processes; the cluster stops serving, closes the store (every
// acknowledged write is already durable) and exits.

func init() {
	register("up", &command{
		summary: "start a cluster (store + apiserver) and point kubectl at it",
		usage:   "up [--reference] [--data-dir DIR] [--port N] [--compaction-interval D]",
		run:     runUp,
	})
}

// clusterParts are the exercises kata up runs, in course order.
const (
	storeID     = "03-store"
	apiserverID = "04-apiserver"
)

func runUp(env *Env, args []string) error {
	fs := flags(env, "up")
	reference := fs.Bool("reference", false, "run the reference solutions instead of your exercises")
	dataDir := fs.String("data-dir", "", "where the cluster keeps its data (default .kata/cluster in the checkout)")
	port := fs.Int("port", 6443, "the loopback port to listen on (0 picks a free one)")
	compaction := fs.Duration("compaction-interval", storage.DefaultCompactionInterval, "how often the store is compacted, keeping one interval of history (0 disables)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 0 || *port < 0 || *port > 65535 || *compaction < 0 {
		return errUsage
	}
	root, err := findRoot(env.Dir)
	if err != nil {
		return err
	}
	hasSolutions := isDir(filepath.Join(root, "solutions"))
	base := "exercises"
	inMemory := false
	if *reference {
		base = "solutions"
		if !hasSolutions {
			return errors.New("kata up --reference: this is a student copy: there is no solutions/ directory; run kata up without --reference to start the cluster from your own exercises")
		}
	} else {
		inMemory, err = upFinished(env, root, hasSolutions)
		if err != nil {
			return err
		}
	}
	for _, id := range []string{storeID, apiserverID} {
		if id == storeID && inMemory {
			continue
		}
		if rel := base + "/" + id; !isDir(filepath.Join(root, rel)) {
			return fmt.Errorf("kata up: %s is missing; the cluster needs it", rel)
		}
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
	finish := "finish it (kata next)"
	if hasSolutions {
		finish += ", or run kata up --reference to use the reference"
	}
	var src bytes.Buffer
	if err := clusterMain.Execute(&src, map[string]any{
		"Store": importPath(base + "/" + storeID), "APIServer": importPath(base + "/" + apiserverID),
		"StoreDir": base + "/" + storeID, "APIServerDir": base + "/" + apiserverID,
		"InMemory": inMemory, "Finish": finish,
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
	if inMemory {
		fmt.Fprintf(env.Stderr, "kata up: building the cluster from %s/%s and the harness's in-memory store...\n", base, apiserverID)
	} else {
		fmt.Fprintf(env.Stderr, "kata up: building the cluster from %s/%s and %s/%s...\n", base, storeID, base, apiserverID)
	}
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

	cmd := exec.Command(bin, dir, "127.0.0.1:"+strconv.Itoa(*port), compaction.String())
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

// upFinished decides which of the learner's parts kata up runs: it fails
// unless the apiserver is finished, and says whether the store is not (the
// cluster then runs on the in-memory store). A part is finished when all
// its steps pass, as kata next and kata list say.
func upFinished(env *Env, root string, hasSolutions bool) (inMemory bool, err error) {
	l, err := newLearner(env)
	if err != nil {
		return false, err
	}
	var exs []*course.Exercise
	for _, id := range []string{storeID, apiserverID} {
		e, err := l.exercise(id)
		if err != nil {
			return false, fmt.Errorf("kata up: %w", err)
		}
		exs = append(exs, e)
	}
	fmt.Fprintf(env.Stderr, "kata up: checking which parts of the cluster you have finished...\n")
	res, err := l.runCached(exs)
	if err != nil {
		return false, fmt.Errorf("kata up: %w", err)
	}
	store, apiserver := res[0], res[1]
	if !apiserver.Done() {
		msg := fmt.Sprintf("%s is not finished yet (%d/%d steps pass): the cluster needs your apiserver; `kata next` shows what is left",
			apiserver.Exercise.ExerciseDir(), apiserver.Passed(), len(apiserver.Steps))
		if apiserver.BuildFailed {
			msg = fmt.Sprintf("%s does not compile: the cluster needs your apiserver; `kata test %s` shows why",
				apiserver.Exercise.ExerciseDir(), apiserver.Exercise.ID)
		}
		if hasSolutions {
			msg += ", or run kata up --reference to start the reference"
		}
		return false, errors.New(msg)
	}
	if !store.Done() {
		fmt.Fprintf(env.Stderr, "kata up: %s is not finished yet (%d/%d steps pass), so the cluster keeps its data in memory (harness/storage.NewMemory)\n",
			store.Exercise.ExerciseDir(), store.Passed(), len(store.Steps))
		fmt.Fprintf(env.Stderr, "kata up: warning: nothing you create will survive a restart; finish %s (kata next) to keep it on disk\n", store.Exercise.ID)
		return true, nil
	}
	return false, nil
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// clusterMain is the cluster's program. It only uses the exported API the
// exercises define, store.Open(dir) and apiserver.New(store), and
// harness/cluster to serve.
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
{{- if not .InMemory}}
	store "{{.Store}}"
{{- end}}
	"github.com/kubekata/kubekata/harness/cluster"
	"github.com/kubekata/kubekata/harness/storage"
)

func notDone(what, dir string, p any) {
	msg := fmt.Sprint(p)
	fmt.Fprintf(os.Stderr, "kata up: %s panicked: %s\n", what, msg)
	if strings.Contains(msg, "not implemented") {
		fmt.Fprintf(os.Stderr, "kata up: %s is not done yet: {{.Finish}}\n", dir)
	}
	os.Exit(3)
}

func open(dir string) (s storage.Store, err error) {
{{- if .InMemory}}
	return storage.NewMemory(), nil
{{- else}}
	defer func() {
		if p := recover(); p != nil {
			notDone("{{.StoreDir}}: Open", "{{.StoreDir}}", p)
		}
	}()
	return store.Open(dir)
{{- end}}
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
	interval, err := time.ParseDuration(os.Args[3])
	if err != nil {
		fmt.Fprintf(os.Stderr, "kata up: %v\n", err)
		os.Exit(2)
	}
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
{{- if .InMemory}}
	fmt.Printf("kata up: the apiserver is listening on %s (data in memory: it goes when the cluster stops)\n", url)
{{- else}}
	fmt.Printf("kata up: the apiserver is listening on %s (data in %s)\n", url, dir)
{{- end}}
	if interval > 0 {
		fmt.Printf("kata up: compacting the store every %v, keeping that much history (--compaction-interval)\n", interval)
	}
	fmt.Printf("export KUBECONFIG=%s\n", kubeconfig)
	fmt.Printf("kata up: press Ctrl-C to stop\n")
	serr := cluster.Serve(ctx, cluster.Config{Store: s, Handler: h, Listener: ln, CompactionInterval: interval, Log: os.Stderr})
	if serr != nil {
		fmt.Fprintf(os.Stderr, "kata up: %v\n", serr)
	}
	if err := s.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "kata up: closing the store: %v\n", err)
		os.Exit(1)
	}
{{- if .InMemory}}
	fmt.Printf("kata up: stopped; the in-memory data is gone\n")
{{- else}}
	fmt.Printf("kata up: stopped; the data stays in %s\n", dir)
{{- end}}
	if serr != nil {
		os.Exit(1)
	}
}
`))
