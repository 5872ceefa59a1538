package grade

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
)

const mod = course.ModulePath

func TestAllowedImport(t *testing.T) {
	ex := mod + "/exercises/02-labels"
	for _, tc := range []struct {
		path string
		want bool
	}{
		// the standard library
		{"fmt", true},
		{"net/http/httptest", true},
		// cgo is not a package; unsafe (//go:linkname) and plugin reach
		// code the imports do not name
		{"C", false},
		{"unsafe", false},
		{"plugin", false},
		{"reflect", true},
		// the harness's contracts and helpers
		{mod + "/harness/api", true},
		{mod + "/harness/selector", true},
		{mod + "/harness/storage", true},
		{mod + "/harness/suite", true},
		{mod + "/harness/patch", true},
		// the harness's components and cluster runners, and below them
		{mod + "/harness/storage/etcdstore", false},
		{mod + "/harness/storage/etcdstore/etcdembed", false},
		{mod + "/harness/storage/etcdstoreish", true}, // a path element, not a prefix of letters
		{mod + "/harness/protoedge", false},
		{mod + "/harness/cluster", false},
		{mod + "/harness/cluster/program", false},
		{mod + "/harness/remote", false},
		{mod + "/harness/scenario", false},
		{mod + "/harness/scenario/catalog", false},
		// the suites, at any depth
		{mod + "/harness/storetest", false},
		{mod + "/harness/labelstest", false},
		{mod + "/harness/client/clienttest", false},
		// the exercise's own packages; never another's, a solution or cmd
		{ex, true},
		{ex + "/internal/parse", true},
		{mod + "/exercises/02-labelsx", false},
		{mod + "/exercises/03-store", false},
		{mod + "/solutions/02-labels", false},
		{mod + "/cmd/kata/internal/grade", false},
		// the two allowed modules, whole, and no other
		{"go.etcd.io/bbolt", true},
		{"go.etcd.io/bbolt/errors", true},
		{"go.etcd.io/bboltx", false},
		{"sigs.k8s.io/yaml", true},
		{"go.etcd.io/etcd/client/v3", false},
		{"go.etcd.io/etcd/server/v3/embed", false},
		{"k8s.io/apimachinery/pkg/labels", false},
		{"k8s.io/client-go/kubernetes", false},
		{"golang.org/x/sys/unix", false},
		{"github.com/stretchr/testify/assert", false},
	} {
		if got := AllowedImport(ex, tc.path); got != tc.want {
			t.Errorf("AllowedImport(%q, %q) = %v, want %v", ex, tc.path, got, tc.want)
		}
	}
}

func TestImportRefusal(t *testing.T) {
	got := ImportRefusal("exercises/02-labels", ForeignImports(mod+"/exercises/02-labels", []string{"fmt", "k8s.io/apimachinery/pkg/labels", "C", "k8s.io/apimachinery/pkg/labels"}))
	want := `exercises/02-labels imports "C" (cgo), k8s.io/apimachinery/pkg/labels: an exercise may import only the standard library (not unsafe or plugin), go.etcd.io/bbolt, sigs.k8s.io/yaml and the harness's contracts (see kata grade's doc)`
	if got != want {
		t.Errorf("ImportRefusal = %q\nwant %q", got, want)
	}
}

// refusals reads go list -deps: only the packages of the graded
// exercises count (a dependency such as bbolt imports golang.org/x/sys
// freely), the exercise's own subpackages do, and non-Go files refuse.
func TestRefusals(t *testing.T) {
	list := `{"ImportPath": "go.etcd.io/bbolt", "Imports": ["golang.org/x/sys/unix"], "SFiles": ["asm.s"]}
{"ImportPath": "` + mod + `/exercises/02-labels/internal/p", "Imports": ["k8s.io/apimachinery/pkg/labels"]}
{"ImportPath": "` + mod + `/exercises/02-labels", "Imports": ["fmt", "` + mod + `/exercises/02-labels/internal/p"]}
{"ImportPath": "` + mod + `/exercises/03-store", "Imports": ["go.etcd.io/bbolt", "` + mod + `/harness/storage"], "SysoFiles": ["x.syso"]}
{"ImportPath": "` + mod + `/exercises/01-reconcile", "Imports": ["time", "` + mod + `/harness/replicas"]}
`
	got, err := refusals(strings.NewReader(list), []string{mod + "/exercises/01-reconcile", mod + "/exercises/02-labels", mod + "/exercises/03-store"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		mod + "/exercises/02-labels": "exercises/02-labels/internal/p imports k8s.io/apimachinery/pkg/labels: " + ImportRule,
		mod + "/exercises/03-store":  "exercises/03-store has x.syso: " + nonGoRule,
	}
	if len(got) != len(want) {
		t.Errorf("refusals = %q, want %q", got, want)
	}
	for ip, msg := range want {
		if got[ip] != msg {
			t.Errorf("refusals[%s] = %q, want %q", ip, got[ip], msg)
		}
	}
	if _, err := refusals(strings.NewReader("{"), nil); err == nil {
		t.Errorf("refusals(truncated JSON) = nil error, want one")
	}
}

// Every harness package an exercise may import stays light: nothing it
// depends on, directly or not, is a package the rule refuses or a module
// other than the allowed ones (and yaml's own). A new harness package
// that wraps a component fails here until it is in deniedHarness.
func TestAllowedHarnessDependsOnNothingRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := goCmd(context.Background(), root, goEnv(root), "list", "-f", "{{.ImportPath}}", "./harness/...")
	if err != nil {
		t.Fatalf("go list ./harness/...: %v\n%s", err, out)
	}
	ex := mod + "/exercises/00-any"
	var allowed []string
	for _, p := range strings.Fields(string(out)) {
		if AllowedImport(ex, p) && !strings.Contains(p, "/internal/") {
			allowed = append(allowed, p)
		}
	}
	for _, p := range []string{"api", "client", "selector", "storage", "suite"} {
		if !slices.Contains(allowed, mod+"/harness/"+p) {
			t.Errorf("harness/%s is not allowed, want it allowed (an exercise is written against it); allowed: %v", p, allowed)
		}
	}
	// yaml's own dependency is not the exercise's import, but it is
	// what importing sigs.k8s.io/yaml brings.
	light := func(dep string) bool {
		return isStandard(dep) || AllowedImport(ex, dep) || within(dep, "go.yaml.in/yaml/v2")
	}
	cmd := append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, allowed...)
	deps, err := goCmd(context.Background(), root, goEnv(root), cmd...)
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, deps)
	}
	for _, d := range strings.Fields(string(deps)) {
		if !light(d) && !strings.HasPrefix(d, mod+"/harness/") {
			t.Errorf("an allowed harness package depends on %s, which an exercise may not import", d)
		}
		if strings.HasPrefix(d, mod+"/harness/") && !AllowedImport(ex, d) {
			t.Errorf("an allowed harness package depends on %s, which the rule refuses", d)
		}
	}
}

// fakeEtcdembed stands in for harness/storage/etcdstore/etcdembed: a
// harness package that holds a working answer.
const fakeEtcdembed = "package etcdembed\n\n// Answer is a working answer.\nfunc Answer() int { return 42 }\n"

func pristineWithAnswer() fstest.MapFS {
	fsys := pristineFS()
	fsys["harness/storage/etcdstore/etcdembed/etcdembed.go"] = &fstest.MapFile{Data: []byte(fakeEtcdembed)}
	return fsys
}

// An exercise that imports a working answer earns nothing, whatever it
// would have passed, and says why; the program that wraps it is never
// built. The same learner's code without the import earns its points,
// and the other exercises are graded as usual.
func TestRunRefusesForeignImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	c := testCourse(t)
	honest := "package alpha\n\nfunc Answer() int { return 42 }\n"
	wrapper := "package alpha\n\nimport \"" + mod + "/harness/storage/etcdstore/etcdembed\"\n\nfunc Answer() int { return etcdembed.Answer() }\n"
	cgo := "package beta\n\n// int answer(void) { return 42; }\nimport \"C\"\n\nfunc Answer() int { return int(C.answer()) }\n"
	var legacyRuns [][]string
	fakeTest := func(ctx context.Context, opts gotest.Options) (*gotest.Report, error) {
		legacyRuns = append(legacyRuns, opts.Packages)
		return &gotest.Report{Packages: map[string]*gotest.Package{}}, nil
	}
	grade := func(t *testing.T, edits map[string][]byte, solutions bool, names ...string) *Report {
		t.Helper()
		legacyRuns = nil
		root := writeTree(t, pristineWithAnswer(), edits)
		sel, err := Select(c, names)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), Options{Root: root, Pristine: pristineWithAnswer(), Course: c, Select: sel, Remote: fakeRemote(), GoTest: fakeTest, Solutions: solutions})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	statuses := func(e *Exercise) string {
		var st []string
		for _, s := range e.Steps {
			st = append(st, string(s.Status))
		}
		return strings.Join(st, " ")
	}

	t.Run("honest", func(t *testing.T) {
		r := grade(t, map[string][]byte{"exercises/01-alpha/alpha.go": []byte(honest)}, false, "01")
		if got := statuses(r.Exercises[0]); got != "pass pass fail" || r.Exercises[0].Refused != "" {
			t.Fatalf("honest 01-alpha: steps %s, refused %q; want pass pass fail, not refused (messages: %q)", got, r.Exercises[0].Refused, r.Exercises[0].Steps[0].Message)
		}
	})

	t.Run("wrapper", func(t *testing.T) {
		r := grade(t, map[string][]byte{"exercises/01-alpha/alpha.go": []byte(wrapper)}, false, "01")
		e := r.Exercises[0]
		want := "exercises/01-alpha imports " + mod + "/harness/storage/etcdstore/etcdembed: " + ImportRule
		if got := statuses(e); got != "error error error" || r.Points() != 0 {
			t.Errorf("01-alpha wrapping etcdembed: steps %s, %d points; want error error error, 0 points", got, r.Points())
		}
		for _, s := range e.Steps {
			if s.Message != want {
				t.Errorf("step %s message = %q, want %q", s.Step.ID, s.Message, want)
			}
		}
		if e.Refused != want || !e.Isolated {
			t.Errorf("Refused = %q, Isolated = %v; want the refusal, and not listed as run in the grader", e.Refused, e.Isolated)
		}
		var b bytes.Buffer
		if err := WriteTable(&b, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "exercises/01-alpha was not graded:\n  exercises/01-alpha imports") {
			t.Errorf("table = %s, want the refusal in full", b.String())
		}
		for _, line := range strings.Split(b.String(), "\n") {
			if n := utf8.RuneCountInString(line); n > tableWidth {
				t.Errorf("table line of %d columns, want at most %d: %q", n, tableWidth, line)
			}
		}
	})

	t.Run("cgo-legacy-and-honest-isolated", func(t *testing.T) {
		out, err := goCmd(context.Background(), ".", goEnv("."), "env", "CGO_ENABLED")
		if err != nil || strings.TrimSpace(string(out)) != "1" {
			t.Skip("cgo is off: a file that imports C is not built at all")
		}
		r := grade(t, map[string][]byte{"exercises/01-alpha/alpha.go": []byte(honest), "exercises/02-beta/beta.go": []byte(cgo)}, false, "01", "02")
		if got := statuses(r.Exercises[0]); got != "pass pass fail" {
			t.Errorf("honest 01-alpha next to a refused 02-beta: steps %s, want pass pass fail", got)
		}
		b := r.Exercises[1]
		want := `exercises/02-beta imports "C" (cgo): ` + ImportRule
		if got := statuses(b); got != "error error" || b.Steps[0].Message != want {
			t.Errorf("02-beta with cgo: steps %s, message %q; want error error, %q", got, b.Steps[0].Message, want)
		}
		if len(legacyRuns) != 0 {
			t.Errorf("go test ran %v, want nothing (02-beta is refused, 01-alpha is isolated)", legacyRuns)
		}
	})

	t.Run("solutions", func(t *testing.T) {
		r := grade(t, map[string][]byte{"solutions/01-alpha/alpha.go": []byte(wrapper)}, true, "01/02")
		e := r.Exercises[0]
		want := "solutions/01-alpha imports " + mod + "/harness/storage/etcdstore/etcdembed: " + ImportRule
		if len(e.Steps) != 1 || e.Steps[0].Step.ID != "02-two" || e.Steps[0].Status != Error || e.Steps[0].Message != want {
			t.Errorf("solutions/01-alpha wrapping etcdembed, step 02: %+v, want only 02-two, an error with %q", e.Steps, want)
		}
	})
}
