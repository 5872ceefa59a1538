package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/cmd/kata/internal/grade"
	"github.com/kubekata/kubekata/harness/course"
)

var ex = &course.Exercise{ID: "01-x", Test: "TestX", Files: []string{"x.go"}, Steps: []course.Step{
	{ID: "01-a", Title: "Do A", Points: 1},
	{ID: "02-b", Title: "Do B", Points: 1},
}}

func write(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadmeTasks(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		readme string
		want   string // "" = ok
	}{
		"ok":        {"# X\n\n## 1. Do A\ntext\n## 2. Do B\n", ""},
		"renamed":   {"## 1. Do A\n## 2. Do C\n", `task 2 is "## 2. Do C", want "## 2. Do B"`},
		"missing":   {"## 1. Do A\n", `missing task "## 2. Do B"`},
		"too many":  {"## 1. Do A\n## 2. Do B\n## 3. Do C\n", "3 numbered tasks"},
		"misnumber": {"## 1. Do A\n## 3. Do B\n", `task 2 is "## 3. Do B"`},
	} {
		p := filepath.Join(dir, name+".md")
		write(t, dir, map[string]string{name + ".md": tc.readme})
		err := readmeTasks(p, ex)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: readmeTasks() = %v, want nil", name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: readmeTasks() = %v, want an error containing %q", name, err, tc.want)
		}
	}
}

func TestIdenticalTests(t *testing.T) {
	line := "package x\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n"
	exDir := write(t, t.TempDir(), map[string]string{"x_test.go": line})
	same := write(t, t.TempDir(), map[string]string{"x_test.go": line, "x_bench_test.go": "package x\n"})
	if err := identicalTests(exDir, same, ex); err != nil {
		t.Errorf("identicalTests(same) = %v, want nil", err)
	}
	differ := write(t, t.TempDir(), map[string]string{"x_test.go": line + "// changed\n"})
	if err := identicalTests(exDir, differ, ex); err == nil || !strings.Contains(err.Error(), "differ") {
		t.Errorf("identicalTests(differ) = %v, want a difference", err)
	}
	extra := write(t, t.TempDir(), map[string]string{"x_test.go": line, "more_test.go": "package x\n"})
	if err := identicalTests(exDir, extra, ex); err == nil || !strings.Contains(err.Error(), "more_test.go has no twin") {
		t.Errorf("identicalTests(extra) = %v, want the solution-only file named", err)
	}
}

func TestSameAPI(t *testing.T) {
	stub := write(t, t.TempDir(), map[string]string{"x.go": `package x

type Store struct{ mu int }

// TODO: implement.
func (s *Store) Get(key string) (string, error) { panic("not implemented: Store.Get") }

func New(dir string) (*Store, error) { panic("not implemented: New") }
`})
	sol := write(t, t.TempDir(), map[string]string{"x.go": `package x

type Store struct {
	data map[string]string
}

func (s *Store) Get(key string) (string, error) { return s.data[key], nil }

func New(dir string) (*Store, error) { return &Store{}, nil }

func helper() {}
`})
	if err := sameAPI(stub, sol); err != nil {
		t.Errorf("sameAPI() = %v, want nil (unexported differences are free)", err)
	}
	drift := write(t, t.TempDir(), map[string]string{"x.go": `package x

type Store struct{}

func (s *Store) Get(key string) ([]byte, error) { return nil, nil }

func New(dir string) (*Store, error) { return &Store{}, nil }
`})
	err := sameAPI(stub, drift)
	if err == nil || !strings.Contains(err.Error(), "func (*Store) Get(key string) ([]byte, error)") {
		t.Errorf("sameAPI(drift) = %v, want the differing signature", err)
	}
}

func TestExerciseImports(t *testing.T) {
	dir := write(t, t.TempDir(), map[string]string{"x.go": `package x

import _ "github.com/kubekata/kubekata/solutions/01-x"
`})
	if err := exerciseImports(dir, ex); err == nil || !strings.Contains(err.Error(), "solutions/01-x") {
		t.Errorf("exerciseImports() = %v, want the import of solutions/ named", err)
	}
	ok := write(t, t.TempDir(), map[string]string{"x.go": `package x

import _ "github.com/kubekata/kubekata/harness/course"
`})
	if err := exerciseImports(ok, ex); err != nil {
		t.Errorf("exerciseImports(harness only) = %v, want nil", err)
	}
}

func TestTodoMarkers(t *testing.T) {
	dir := write(t, t.TempDir(), map[string]string{"x.go": "package x\n\nfunc F() {}\n"})
	if err := todoMarkers(dir, []string{"x.go"}); err == nil {
		t.Errorf("todoMarkers(no marker) = nil, want an error")
	}
	write(t, dir, map[string]string{"x.go": "package x\n\n// TODO: write F.\nfunc F() {}\n"})
	if err := todoMarkers(dir, []string{"x.go"}); err == nil || !strings.Contains(err.Error(), "not implemented") {
		t.Errorf("todoMarkers(no panic) = %v, want the missing stub named", err)
	}
	write(t, dir, map[string]string{"x.go": "package x\n\n// TODO: write F.\nfunc F() { panic(\"not implemented: F\") }\n"})
	if err := todoMarkers(dir, []string{"x.go"}); err != nil {
		t.Errorf("todoMarkers(marker) = %v, want nil", err)
	}
}

func TestBenchmarksDeclared(t *testing.T) {
	c, err := course.Parse([]byte(`exercises: [{id: 01-x, title: X, test: TestX, files: [x.go], steps: [{id: 01-a, title: A, points: 1, hints: [h]}],
  benchmarks: [{name: BenchmarkPut, metric: ns/op, baseline: BenchmarkBase, max: 2}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	e := &c.Exercises[0]
	root := t.TempDir()
	ex, sol := filepath.Join(root, "exercises", "01-x"), filepath.Join(root, "solutions", "01-x")
	both := "package x\n\nimport \"testing\"\n\nfunc BenchmarkPut(b *testing.B) {}\n\nfunc BenchmarkBase(b *testing.B) {}\n"
	for dir, src := range map[string]string{ex: both, sol: "package x\n\nimport \"testing\"\n\nfunc BenchmarkPut(b *testing.B) {}\n"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "x_bench_test.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err = benchmarksDeclared(ex, sol, e)
	if err == nil || !strings.Contains(err.Error(), "solutions/01-x has no BenchmarkBase") || strings.Contains(err.Error(), "exercises/") {
		t.Errorf("benchmarksDeclared = %v, want the solution's missing baseline only", err)
	}
	if err := os.WriteFile(filepath.Join(sol, "x_bench_test.go"), []byte(both), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := benchmarksDeclared(ex, sol, e); err != nil {
		t.Errorf("benchmarksDeclared with both declared = %v, want nil", err)
	}
}

// gradedImports holds the exercise and its solution to kata grade's rule,
// with kata grade's message: a planted import of a working answer fails
// it, in the package or in one of its own, and so does a file that is
// not Go; the harness's contracts, bbolt and yaml pass.
func TestGradedImports(t *testing.T) {
	const mod = course.ModulePath
	clean := map[string]string{
		"exercises/03-x/x.go":                "package x\n\nimport (\n\t\"os\"\n\n\t\"go.etcd.io/bbolt\"\n\t\"sigs.k8s.io/yaml\"\n\n\t\"" + mod + "/harness/storage\"\n\t\"" + mod + "/exercises/03-x/internal/y\"\n)\n",
		"exercises/03-x/x_test.go":           "package x\n\nimport _ \"" + mod + "/harness/storetest\"\n",
		"exercises/03-x/internal/y/y.go":     "package y\n\nimport \"strings\"\n",
		"exercises/03-x/testdata/bad/bad.go": "package bad\n\nimport \"k8s.io/apimachinery/pkg/labels\"\n",
		"solutions/03-x/x.go":                "package x\n\nimport \"" + mod + "/harness/storage\"\n",
	}
	root := write(t, t.TempDir(), clean)
	ex, sol := filepath.Join(root, "exercises", "03-x"), filepath.Join(root, "solutions", "03-x")
	if err := gradedImports(root, ex, sol); err != nil {
		t.Errorf("gradedImports(clean) = %v, want nil (test files and testdata are not graded)", err)
	}
	for name, tc := range map[string]struct {
		file, src, want string
	}{
		"etcdembed in the solution": {"solutions/03-x/open.go", "package x\n\nimport \"" + mod + "/harness/storage/etcdstore/etcdembed\"\n",
			"solutions/03-x imports " + mod + "/harness/storage/etcdstore/etcdembed: " + grade.ImportRule},
		"apimachinery in a package of the exercise's own": {"exercises/03-x/internal/y/z.go", "package y\n\nimport \"k8s.io/apimachinery/pkg/labels\"\n",
			"exercises/03-x/internal/y imports k8s.io/apimachinery/pkg/labels: " + grade.ImportRule},
		"a suite under a build constraint": {"exercises/03-x/other.go", "//go:build windows\n\npackage x\n\nimport _ \"" + mod + "/harness/client/clienttest\"\n",
			"exercises/03-x imports " + mod + "/harness/client/clienttest: " + grade.ImportRule},
		"cgo":            {"exercises/03-x/c.go", "package x\n\nimport \"C\"\n", `exercises/03-x imports "C" (cgo): ` + grade.ImportRule},
		"an object file": {"exercises/03-x/answer_amd64.syso", "\x7fELF", "exercises/03-x has answer_amd64.syso: an exercise is Go source only"},
	} {
		root := write(t, t.TempDir(), clean)
		write(t, root, map[string]string{tc.file: tc.src})
		err := gradedImports(root, filepath.Join(root, "exercises", "03-x"), filepath.Join(root, "solutions", "03-x"))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: gradedImports() = %v, want an error starting %q", name, err, tc.want)
		}
	}
}

func TestHeadTailKeepsTheEnd(t *testing.T) {
	var lines []string
	for i := 1; i <= 100; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	got := headTail(strings.Join(lines, "\n"), 2, 3)
	want := "line 1\nline 2\n... (95 lines cut)\nline 98\nline 99\nline 100"
	if got != want {
		t.Fatalf("headTail(100 lines, 2, 3) = %q, want %q", got, want)
	}
	if got := headTail("a\nb\nc", 2, 3); got != "a\nb\nc" {
		t.Fatalf("headTail(3 lines, 2, 3) = %q, want all three", got)
	}
}
