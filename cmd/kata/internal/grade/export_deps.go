package grade

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"sort"
	"strings"
)

// dropDependents drops, from files, every _test.go file that uses a name
// declared at top level in a test file of its own test package that was
// dropped (dropped: path → source), until none is left: a suite's planted
// bugs in one file and the runner that imports the reference in another
// compile together, so a copy that kept only the first would not build.
// A test package is a directory and a package clause (foo and foo_test
// are two). Files that do not parse are left to the copy's own build.
func dropDependents(files, dropped map[string][]byte, drop func(rel, why string)) {
	type pkgKey struct{ dir, name string }
	fset := token.NewFileSet()
	parse := func(name string, src []byte) *ast.File {
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return nil
		}
		return f
	}
	gone := map[pkgKey]map[string]bool{} // names declared by dropped files
	addDecls := func(name string, f *ast.File) {
		k := pkgKey{path.Dir(name), f.Name.Name}
		if gone[k] == nil {
			gone[k] = map[string]bool{}
		}
		for _, n := range topLevelNames(f) {
			gone[k][n] = true
		}
	}
	for name, src := range dropped {
		if !strings.HasSuffix(name, "_test.go") {
			continue
		}
		if f := parse(name, src); f != nil {
			addDecls(name, f)
		}
	}
	kept := map[string]*ast.File{}
	for name, src := range files {
		if strings.HasSuffix(name, "_test.go") {
			if f := parse(name, src); f != nil {
				kept[name] = f
			}
		}
	}
	for changed := true; changed; {
		changed = false
		names := make([]string, 0, len(kept))
		for n := range kept {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			f := kept[name]
			used := usesAny(f, gone[pkgKey{path.Dir(name), f.Name.Name}])
			if used == "" {
				continue
			}
			drop(name, "uses "+used+" from a dropped test file")
			delete(files, name)
			delete(kept, name)
			addDecls(name, f)
			changed = true
		}
	}
}

// topLevelNames are the names a file declares at top level.
func topLevelNames(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out = append(out, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							out = append(out, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// usesAny returns the first identifier of f (in source order) that names
// one of names, or "". An identifier that is a local of the same name
// counts too: dropping one file too many is safe, keeping one that does
// not build is not.
func usesAny(f *ast.File, names map[string]bool) string {
	if len(names) == 0 {
		return ""
	}
	found := ""
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if found != "" {
			return false
		}
		// Only what can name a declaration: a selector's X (its Sel is a
		// field or method) and a field's type (its names are the field's).
		switch n := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(n.X, visit)
			return false
		case *ast.Field:
			ast.Inspect(n.Type, visit)
			return false
		case *ast.Ident:
			if names[n.Name] {
				found = n.Name
			}
		}
		return found == ""
	}
	ast.Inspect(f, visit)
	return found
}
