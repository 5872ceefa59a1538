package remote

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/course"
)

// Every exercise of the course crosses the boundary (DESIGN.md rule 9):
// a new exercise without a binding fails here, before any grading.
func TestEveryExerciseHasABinding(t *testing.T) {
	c, err := course.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Exercises(), c.IDs(); !slices.Equal(got, want) {
		t.Fatalf("Exercises() = %v, want the course's %v: every exercise is graded across a process boundary, so a new one needs its binding in harness/remote (a Service for its program, a client with its suite's constructor type, and its entry in gen.go)", got, want)
	}
	for _, e := range c.Exercises {
		main, err := ImplMain(e.ID, module+"/exercises/"+e.ID)
		if err != nil {
			t.Fatalf("ImplMain(%q) = %v", e.ID, err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), "main.go", main, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("ImplMain(%q) does not parse: %v", e.ID, err)
		}
		if f.Name.Name != "main" {
			t.Errorf("ImplMain(%q) is package %s, want main", e.ID, f.Name.Name)
		}
		if !imports(f.Imports, module+"/exercises/"+e.ID) {
			t.Errorf("ImplMain(%q) does not import the learner's package:\n%s", e.ID, main)
		}

		src, err := GradeTest(e.ID, "grade")
		if err != nil {
			t.Fatalf("GradeTest(%q) = %v", e.ID, err)
		}
		g, err := parser.ParseFile(token.NewFileSet(), "grade_test.go", src, 0)
		if err != nil {
			t.Fatalf("GradeTest(%q) does not parse: %v", e.ID, err)
		}
		if g.Name.Name != "grade" {
			t.Errorf("GradeTest(%q, \"grade\") is package %s", e.ID, g.Name.Name)
		}
		for _, imp := range g.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path != "testing" && !strings.HasPrefix(path, module+"/harness/") {
				t.Errorf("GradeTest(%q) imports %s, want only testing and harness/ packages", e.ID, path)
			}
		}
		if !strings.Contains(string(src), "func "+e.Test+"(t *testing.T)") {
			t.Errorf("GradeTest(%q) does not define the manifest's %s:\n%s", e.ID, e.Test, src)
		}
	}
}

func imports(specs []*ast.ImportSpec, path string) bool {
	for _, s := range specs {
		if p, _ := strconv.Unquote(s.Path.Value); p == path {
			return true
		}
	}
	return false
}

func TestGeneratorsRefuseBadInput(t *testing.T) {
	if _, err := ImplMain("99-nothing", "x"); err == nil || !strings.Contains(err.Error(), "no remote binding") {
		t.Errorf("ImplMain(99-nothing) = %v, want no remote binding", err)
	}
	if _, err := ImplMain("01-reconcile", ""); err == nil {
		t.Errorf("ImplMain(01-reconcile, \"\") = nil error, want one")
	}
	if _, err := GradeTest("01-reconcile", "not a name"); err == nil {
		t.Errorf("GradeTest(01-reconcile, \"not a name\") = nil error, want one")
	}
	if _, err := GradeTest("99-nothing", "grade"); err == nil {
		t.Errorf("GradeTest(99-nothing) = nil error, want one")
	}
}
