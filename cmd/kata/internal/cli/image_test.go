package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/cri/images"
)

func runImageCmd(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errw bytes.Buffer
	env := &Env{Ctx: context.Background(), Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errw, Dir: dir, Getenv: os.Getenv}
	code = Run(env, append([]string{"image"}, args...))
	return code, out.String(), errw.String()
}

func TestImagePushList(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	id := images.ImageID("http-echo", []string{"-text", "hello v3", "-listen", "127.0.0.1:9000"})
	code, out, errw := runImageCmd(t, dir, "push", "--data-dir", "data", "kata/web:3", "http-echo", "-text", "hello v3", "-listen", "127.0.0.1:9000")
	if want := "pushed kata/web:3 (" + id[:len("sha256:")+12] + ")\n"; code != 0 || out != want || errw != "" {
		t.Errorf("kata image push kata/web:3 = exit %d, stdout %q, stderr %q; want 0, %q", code, out, errw, want)
	}
	r, err := images.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := r.Lookup("kata/web:3"); err != nil || e.ID != id {
		t.Errorf("Lookup(kata/web:3) after kata image push = %+v, %v; want ID %s", e, err, id)
	}
	code, out, _ = runImageCmd(t, dir, "ls", "--data-dir", "data")
	lines := strings.Split(out, "\n")
	wantLine := `kata/web:3              http-echo   -text "hello v3" -listen 127.0.0.1:9000   ` + id[7:19]
	if code != 0 || !strings.HasPrefix(lines[0], "IMAGE ") || !strings.Contains(out, "\n"+wantLine+"\n") {
		t.Errorf("kata image ls = exit %d, stdout:\n%s\nwant a header and the line %q", code, out, wantLine)
	}
}

func TestImageUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{nil, {"rm"}, {"push"}, {"push", "kata/x:1"}, {"ls", "extra"}, {"push", "--nope", "kata/x:1", "sleep"}} {
		code, _, errw := runImageCmd(t, dir, args...)
		if code != 2 || !strings.Contains(errw, "usage: kata image push [--data-dir DIR] NAME[:TAG] PROGRAM [ARGS...] | image ls [--data-dir DIR]\n") {
			t.Errorf("kata image %q = exit %d, stderr %q; want 2 and the usage", args, code, errw)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("usage errors left %v in the directory, want nothing", entries)
	}
}

func TestQuoteArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "-"},
		{[]string{"-mb", "128"}, "-mb 128"},
		{[]string{"-text", "hello v2"}, `-text "hello v2"`},
		{[]string{"-text", ""}, `-text ""`},
		{[]string{"-text", `say "hi"`}, `-text "say \"hi\""`},
	} {
		if got := quoteArgs(c.args); got != c.want {
			t.Errorf("quoteArgs(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
