package planted

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Partial is a learner part way through an exercise: the reference's
// Files copied over the scaffold's, but for the functions in Keep (by
// file) that stay the scaffold's. A learner goes task by task, so the
// scaffold with its early tasks written must pass their steps and fail
// the others, each on its own, none taking the run down (DESIGN.md: a
// stub never hangs the run or takes down the other steps).
type Partial struct {
	Files []string
	Keep  map[string][]string
	// Fails are the steps of the tasks not done: every one must fail,
	// and every other step pass.
	Fails []string
}

// Partials turns partials into Bugs for Check, whose Config.SolutionDir
// must be exercise (the scaffold is what the overlay changes): each
// file the partial lists is the reference's (from solution), then each
// function it keeps is the scaffold's again. Root is as Config's. A
// file missing from either directory skips t (a student copy has no
// solutions).
func Partials(t *testing.T, root, exercise, solution string, partials map[string]Partial) map[string]Bug {
	t.Helper()
	read := func(dir, file string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, dir, file))
		if err != nil {
			t.Skipf("no %s/%s: %v", dir, file, err)
		}
		return string(b)
	}
	bugs := map[string]Bug{}
	for name, p := range partials {
		var edits []Edit
		for _, f := range p.Files {
			scaffold, ref := read(exercise, f), read(solution, f)
			edits = append(edits, Edit{File: f, Old: scaffold, New: ref})
			for _, fn := range p.Keep[f] {
				edits = append(edits, Edit{File: f, Old: FuncSource(t, solution+"/"+f, ref, fn), New: FuncSource(t, exercise+"/"+f, scaffold, fn)})
			}
		}
		bugs[name] = Bug{Edits: edits, Fails: slices.Clone(p.Fails)}
	}
	return bugs
}

// FuncSource is the source of the function or method name in src (read
// from path, which names it in failures), from "func" to its closing
// brace.
func FuncSource(t testing.TB, path, src, name string) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatalf("planted: parsing %s: %v", path, err)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name {
			return src[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset]
		}
	}
	t.Fatalf("planted: %s has no func %s", path, name)
	return ""
}
