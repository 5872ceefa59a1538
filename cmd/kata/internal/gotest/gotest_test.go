package gotest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/course"
)

var good = &course.Exercise{ID: "01-good", Test: "TestGood", Steps: []course.Step{
	{ID: "01-a", Title: "A", Points: 1},
	{ID: "02-b", Title: "B", Points: 2},
	{ID: "03-c", Title: "C", Points: 4},
}}

func TestParseRecordedStream(t *testing.T) {
	f, err := os.Open("testdata/build-fail.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Parse(f)
	if err != nil {
		t.Fatalf("Parse() error = %v", err)
	}

	bad := r.Exercise(&course.Exercise{ID: "01-bad", Test: "TestBad", Steps: good.Steps}, "example.com/gt/bad")
	if !bad.BuildFailed || !strings.Contains(bad.BuildOutput, "bad/bad.go:3:23: cannot use") {
		t.Errorf("Exercise(bad) = build failed %v, output %q; want the compiler's line", bad.BuildFailed, bad.BuildOutput)
	}
	for _, s := range bad.Steps {
		if s.Status != Error {
			t.Errorf("step %s of a package that does not build = %s, want %s", s.Step.ID, s.Status, Error)
		}
	}

	res := r.Exercise(good, "example.com/gt/good")
	want := []Status{Pass, Fail, Error}
	for i, s := range res.Steps {
		if s.Status != want[i] {
			t.Errorf("step %s = %s, want %s", s.Step.ID, s.Status, want[i])
		}
	}
	if got := res.Steps[1].Message; got != "good_test.go:7: F() = 1, want 2" {
		t.Errorf("step 02-b message = %q, want the trimmed failure line", got)
	}
	if res.Passed() != 1 || res.Points() != 1 || res.Done() {
		t.Errorf("Passed, Points, Done = %d, %d, %v; want 1, 1, false", res.Passed(), res.Points(), res.Done())
	}
	if ff := res.FirstFailing(); ff == nil || ff.Step.ID != "02-b" {
		t.Errorf("FirstFailing() = %v, want 02-b", ff)
	}
}

func TestTrim(t *testing.T) {
	in := "=== RUN   TestX/01-a\n    x_test.go:9: Get(\"a\") = 1, want 2\n        more detail\n--- FAIL: TestX/01-a (0.00s)\n"
	want := "x_test.go:9: Get(\"a\") = 1, want 2\n    more detail"
	if got := Trim(in); got != want {
		t.Errorf("Trim() = %q, want %q", got, want)
	}
}

// TestRunLive runs the real go command on a tiny module.
func TestRunLive(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/live\n\ngo 1.26\n")
	write("good/good_test.go", `package good

import "testing"

func TestGood(t *testing.T) {
	t.Run("01-a", func(t *testing.T) {})
	t.Run("02-b", func(t *testing.T) { t.Fatal("F() = 1, want 2") })
	t.Run("03-c", func(t *testing.T) { t.Skip("not here") })
}
`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := Run(ctx, Options{Dir: dir, Packages: []string{"./..."}, NoCache: true})
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	res := r.Exercise(good, "example.com/live/good")
	want := []Status{Pass, Fail, Skip}
	for i, s := range res.Steps {
		if s.Status != want[i] {
			t.Errorf("step %s = %s, want %s (%s)", s.Step.ID, s.Status, want[i], s.Message)
		}
	}

	r, err = Run(ctx, Options{Dir: dir, Packages: []string{"./nosuch"}})
	if err != nil {
		t.Fatalf("Run(./nosuch) error = %v, want a report", err)
	}
	if p := r.Packages["./nosuch"]; p == nil || !p.BuildFailed || !strings.Contains(p.BuildOutput, "not found") {
		t.Errorf("Run(./nosuch) packages = %v, want ./nosuch failing to build with go's complaint", r.ImportPaths())
	}
}

func TestRunWithoutGo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := Run(context.Background(), Options{Dir: "."}); err != ErrNoGo {
		t.Errorf("Run() without go on PATH = %v, want ErrNoGo", err)
	}
}
