package planted

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	pathpkg "path"
	"path/filepath"
	"slices"
	"strconv"
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
	// Edits, after the files and the functions kept, take out of the
	// reference what a learner has not written yet in the functions of
	// the tasks done (the edits of planted bugs that break it).
	Edits []Edit
	// Fails are the steps of the tasks not done: every one must fail,
	// and every other step pass.
	Fails []string
}

// CheckPartials runs Check on partials over the scaffold in
// cfg.SolutionDir (the exercise), the reference's files read from
// solution (from cfg.Root): it skips where Check does, and where there
// is no reference.
func CheckPartials(t *testing.T, cfg Config, solution string, partials map[string]Partial) {
	t.Helper()
	if os.Getenv(cfg.ChildEnv) != "" {
		t.Skip("a child process")
	}
	if testing.Short() {
		t.Skip("builds and runs the exercise once per partial")
	}
	Check(t, cfg, Partials(t, root(t, cfg), cfg.SolutionDir, solution, partials))
}

// Partials turns partials into Bugs for Check, whose Config.SolutionDir
// must be exercise (the scaffold is what the overlay changes): each
// file the partial lists is the reference's (from solution), then each
// function it keeps is the scaffold's again, then its Edits; an import
// that only the functions kept used becomes a blank import, so that the
// file builds. Root is as Config's. A file missing from either
// directory skips t (a student copy has no solutions).
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
		edits = append(edits, p.Edits...)
		files, err := edited(func(f string) ([]byte, error) { return []byte(read(exercise, f)), nil }, ".", edits)
		if err != nil {
			t.Fatalf("planted: partial %s: %v", name, err)
		}
		for _, f := range slices.Sorted(maps.Keys(files)) {
			edits = append(edits, blankUnused(t, f, files[f])...)
		}
		bugs[name] = Bug{Edits: edits, Fails: slices.Clone(p.Fails)}
	}
	return bugs
}

// blankUnused are the edits that make each import of src (file f) that
// nothing in it uses a blank import.
func blankUnused(t *testing.T, f, src string) []Edit {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("planted: parsing %s as edited: %v", f, err)
	}
	used := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	var edits []Edit
	for _, imp := range file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := pathpkg.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "_" || name == "." || used[name] {
			continue
		}
		line := src[fset.Position(imp.Pos()).Offset:fset.Position(imp.End()).Offset]
		edits = append(edits, Edit{File: f, Old: "\t" + line + "\n", New: "\t_ " + imp.Path.Value + "\n"})
	}
	return edits
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
