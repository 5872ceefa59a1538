package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
)

// benchCourse has one exercise with targets of each kind.
func benchCourse(t *testing.T) *course.Course {
	t.Helper()
	c, err := course.Parse([]byte(`exercises:
- {id: 01-alpha, title: Alpha, test: TestAlpha, files: [alpha.go], steps: [{id: 01-one, title: One, points: 1, hints: [h]}],
   benchmarks: [
    {name: BenchmarkPut, metric: writes/s, min: 1500},
    {name: BenchmarkPut16, metric: writes/s, baseline: BenchmarkBase16, min: 3},
    {name: BenchmarkWatch, metric: p99-ms, max: 10},
    {name: BenchmarkOpen, metric: ns/op, max: 1e9}]}
- {id: 02-beta, title: Beta, test: TestBeta, files: [beta.go], steps: [{id: 01-one, title: One, points: 1, hints: [h]}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// benchOutputs is what each benchmark prints, as go test -json reports it
// (the result line split in two, as test2json sends it).
type fakeBench struct {
	out  string
	fail bool
}

// fakeBenchRuns answers go test -bench with runs[i] for the i-th call,
// and records the -bench patterns.
func fakeBenchRuns(runs []map[string]fakeBench, patterns *[]string) func(context.Context, gotest.Options) (*gotest.Report, error) {
	call := 0
	return func(_ context.Context, opts gotest.Options) (*gotest.Report, error) {
		*patterns = append(*patterns, opts.Bench)
		if opts.Run != "^$" || !opts.Benchmem {
			return nil, errors.New("not a benchmark run")
		}
		p := &gotest.Package{ImportPath: importPath("exercises/01-alpha"), Tests: map[string]*gotest.Test{}}
		if call < len(runs) {
			for name, b := range runs[call] {
				action := "pass"
				if b.fail {
					action = "fail"
				}
				p.Tests[name] = &gotest.Test{Name: name, Action: action, Output: "=== RUN   " + name + "\n" + name + "\n" + b.out}
			}
		}
		call++
		return &gotest.Report{Packages: map[string]*gotest.Package{p.ImportPath: p}}, nil
	}
}

func benchLearner(t *testing.T, runs []map[string]fakeBench, patterns *[]string) (*learner, *bytes.Buffer) {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "exercises/01-alpha"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	env := &Env{Ctx: context.Background(), Stdout: &out, Stderr: &out, Dir: root, Getenv: func(string) string { return "" }}
	return &learner{env: env, root: root, course: benchCourse(t), out: newUI(env, &out), gotest: fakeBenchRuns(runs, patterns)}, &out
}

func TestBenchShowsFiguresBesideTargets(t *testing.T) {
	var patterns []string
	l, out := benchLearner(t, []map[string]fakeBench{{
		"BenchmarkPut":    {out: "BenchmarkPut-2   \t    2000\t    500000 ns/op\t 1623.4 writes/s\t 100 B/op\t 2 allocs/op\n"},
		"BenchmarkBase16": {out: "BenchmarkBase16-2 \t  100\t 1 ns/op\t 1000 writes/s\n"},
		"BenchmarkPut16":  {out: "BenchmarkPut16-2 \t  100\t 1 ns/op\t 2500 writes/s\n"},
		"BenchmarkWatch":  {out: "BenchmarkWatch-2 \t  100\t 1 ns/op\t 3.2 p50-ms\t 9.5 p99-ms\n"},
		"BenchmarkOpen":   {out: "BenchmarkOpen-2 \t  1\t 1300000000 ns/op\n"},
		"BenchmarkOther":  {out: "BenchmarkOther-2 \t  10\t 42 ns/op\n"},
	}}, &patterns)
	e := &l.course.Exercises[0]
	res, err := l.runBenchmarks(e, e.ExerciseDir())
	if err != nil {
		t.Fatal(err)
	}
	met := l.printBench(e, res)
	if met != 2 {
		t.Errorf("printBench met %d targets, want 2 (Put and Watch):\n%s", met, out)
	}
	for _, want := range []string{
		"01-alpha Alpha  2 of 4 targets met\n",
		"✓ BenchmarkPut    1623 writes/s  (target ≥ 1500 writes/s)\n",
		"✗ BenchmarkPut16  2.5× BenchmarkBase16 (writes/s)  (target ≥ 3× BenchmarkBase16 writes/s)\n",
		"✓ BenchmarkWatch  9.5 p99-ms  (target ≤ 10 p99-ms)\n",
		"✗ BenchmarkOpen   1.3e+09 ns/op  (target ≤ 1e+09 ns/op)\n",
		"BenchmarkOther  42 ns/op\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("kata bench output lacks %q:\n%s", want, out)
		}
	}
	if len(patterns) != 1 || patterns[0] != "." {
		t.Errorf("go test -bench patterns = %q, want one run of \".\"", patterns)
	}
}

// A benchmark that fails or panics is "not implemented yet", and a crash
// that kept the others from running runs them again.
func TestBenchStubAndCrash(t *testing.T) {
	var patterns []string
	notImpl := "    bench.go:111: Open(\"/tmp/x\") = panic: not implemented: Open\n--- FAIL: BenchmarkPut\n"
	l, out := benchLearner(t, []map[string]fakeBench{
		// The first run: Put fails as a stub does, then Put16 crashes
		// the binary (no result line, no verdict).
		{"BenchmarkPut": {out: notImpl, fail: true}, "BenchmarkPut16": {out: "panic: runtime error: index out of range\n"}},
		// The second run has what had not run yet.
		{"BenchmarkBase16": {out: "BenchmarkBase16-2 \t  100\t 1 ns/op\t 1000 writes/s\n"},
			"BenchmarkWatch": {out: "BenchmarkWatch-2 \t  100\t 1 ns/op\t 2 p99-ms\n"},
			"BenchmarkOpen":  {out: "BenchmarkOpen-2 \t  1\t 1000 ns/op\n"}},
	}, &patterns)
	e := &l.course.Exercises[0]
	res, err := l.runBenchmarks(e, e.ExerciseDir())
	if err != nil {
		t.Fatal(err)
	}
	if met := l.printBench(e, res); met != 2 {
		t.Errorf("printBench met %d, want 2 (Watch and Open):\n%s", met, out)
	}
	for _, want := range []string{
		"✗ BenchmarkPut    not implemented yet (panic: not implemented: Open)  (target ≥ 1500 writes/s)\n",
		"✗ BenchmarkPut16  failed: panic: runtime error: index out of range",
		"✓ BenchmarkOpen   1000 ns/op",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("kata bench output lacks %q:\n%s", want, out)
		}
	}
	if len(patterns) != 2 || patterns[1] != "^(BenchmarkBase16|BenchmarkWatch|BenchmarkOpen)$" {
		t.Errorf("go test -bench patterns = %q, want \".\" then the three that had not run", patterns)
	}
}

// A benchmark the package lacks is named, not a crash, and the runs stop.
func TestBenchMissingBenchmark(t *testing.T) {
	var patterns []string
	l, out := benchLearner(t, []map[string]fakeBench{{}}, &patterns)
	e := &l.course.Exercises[0]
	res, err := l.runBenchmarks(e, e.ExerciseDir())
	if err != nil {
		t.Fatal(err)
	}
	if met := l.printBench(e, res); met != 0 {
		t.Errorf("met = %d, want 0", met)
	}
	if want := "✗ BenchmarkPut    did not run (the package has no BenchmarkPut)"; !strings.Contains(out.String(), want) {
		t.Errorf("kata bench output lacks %q:\n%s", want, out)
	}
	if len(patterns) != 1 {
		t.Errorf("go test ran %d times, want once: a run that learns nothing is not repeated", len(patterns))
	}
}

// A benchmark that only runs sub-benchmarks shows their figures, each
// under its own name, and is no failure; a failing sub-benchmark is.
func TestBenchSubBenchmarks(t *testing.T) {
	var patterns []string
	l, out := benchLearner(t, []map[string]fakeBench{{
		"BenchmarkPut":                {out: "BenchmarkPut-2 \t 10\t 1 ns/op\t 2000 writes/s\n"},
		"BenchmarkShape":              {out: ""},
		"BenchmarkShape/rs=10":        {out: "BenchmarkShape/rs=10-2 \t 3\t 4500 ns/op\n"},
		"BenchmarkShape/rs=10/direct": {out: "BenchmarkShape/rs=10/direct-2 \t 3\t 1500 ns/op\n"},
		"BenchmarkBroken":             {out: "", fail: true},
		"BenchmarkBroken/rs=10":       {out: "    bench.go:1: not converged\n", fail: true},
	}}, &patterns)
	e := &l.course.Exercises[0]
	res, err := l.runBenchmarks(e, e.ExerciseDir())
	if err != nil {
		t.Fatal(err)
	}
	l.printBench(e, res)
	for _, want := range []string{
		"  BenchmarkShape/rs=10  4500 ns/op\n",
		"  BenchmarkShape/rs=10/direct  1500 ns/op\n",
		"  BenchmarkBroken/rs=10  failed: not converged\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("kata bench output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out.String(), "BenchmarkShape  ") {
		t.Errorf("kata bench output lists BenchmarkShape itself, whose figures are its sub-benchmarks':\n%s", out)
	}
}

func TestFormatFigure(t *testing.T) {
	for v, want := range map[float64]string{1623.4: "1623", 456.6: "456.6", 3.0: "3", 2.5: "2.5", 0.25: "0.25", 1e9: "1e+09", 12345.6: "12346", 0: "0"} {
		if got := formatFigure(v); got != want {
			t.Errorf("formatFigure(%v) = %q, want %q", v, got, want)
		}
	}
}
