package grade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/course"
)

// Tamper is one protected file that is not as the kata shipped it.
type Tamper struct {
	// Path is slash-separated, relative to the module root.
	Path string `json:"path"`
	// Change is "modified", "added" or "deleted" (with " while grading"
	// when the tests themselves changed it).
	Change string `json:"change"`
}

func (t Tamper) String() string { return t.Change + " " + t.Path }

// protection is the protected files of one grade run: the pristine
// content of each, and which files on disk differ.
type protection struct {
	root     string
	pristine map[string][]byte // disk path (slash, relative) -> pristine content
	extra    []string          // protected paths on disk that the kata does not have
	tampered []Tamper
}

// isProtectedHarness says whether a file under harness/ can change what a
// graded package compiles to: every file but the harness's own tests
// (which are never compiled into an exercise's test binary).
func isProtectedHarness(rel string) bool {
	return strings.HasPrefix(rel, "harness/") && !strings.HasSuffix(rel, "_test.go")
}

// scan compares the protected files of root with the pristine copies: the
// module files, everything under harness/ but its tests, and the test files
// of the graded exercise packages (under dir, which is exercises or
// solutions; a solution's tests are the exercise's, byte for byte).
func scan(root string, pristine fs.FS, exs []*course.Exercise, dir string) (*protection, error) {
	p := &protection{root: root, pristine: map[string][]byte{}}
	read := func(name string) ([]byte, error) {
		b, err := fs.ReadFile(pristine, name)
		if err != nil {
			return nil, fmt.Errorf("grade: the kata's pristine copy of %s is missing: %w", name, err)
		}
		return b, nil
	}
	for _, name := range []string{"go.mod", "go.sum"} {
		if _, err := fs.Stat(pristine, name); err != nil {
			continue
		}
		b, err := read(name)
		if err != nil {
			return nil, err
		}
		p.pristine[name] = b
	}
	err := fs.WalkDir(pristine, "harness", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !isProtectedHarness(name) {
			return nil
		}
		b, err := read(name)
		if err != nil {
			return err
		}
		p.pristine[name] = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("grade: reading the kata's pristine harness: %w", err)
	}
	for _, e := range exs {
		// A kata that does not carry the exercise (built before it was
		// written) has no tests for it: the copy's are removed, and its
		// steps do not run.
		ents, _ := fs.ReadDir(pristine, "exercises/"+e.ID)
		for _, ent := range ents {
			if ent.IsDir() || !isTestFile(ent.Name()) {
				continue
			}
			b, err := read("exercises/" + e.ID + "/" + ent.Name())
			if err != nil {
				return nil, err
			}
			p.pristine[dir+"/"+e.ID+"/"+ent.Name()] = b
		}
	}

	graded, pkgDirs, err := harnessClosure(pristine, exs)
	if err != nil {
		return nil, err
	}
	matters := func(rel string) bool {
		if !strings.HasPrefix(rel, "harness/") {
			return true // go.mod, go.sum, the exercises' tests
		}
		for dir := path.Dir(rel); dir != "harness" && dir != "."; dir = path.Dir(dir) {
			if graded[dir] {
				return true
			}
			if pkgDirs[dir] {
				return false // a package the graded tests do not use
			}
		}
		return false
	}

	// What is on disk.
	disk := map[string]bool{}
	for _, name := range []string{"go.mod", "go.sum"} {
		if fileExists(filepath.Join(root, name)) {
			disk[name] = true
		}
	}
	var links []string
	walkFollow(root, "harness", 0, func(rel string, link bool) {
		if link {
			links = append(links, rel)
		}
		if isProtectedHarness(rel) && !ignoredByGo(rel) {
			disk[rel] = true
			if strings.HasSuffix(rel, ".go") {
				pkgDirs[path.Dir(rel)] = true
			}
		}
	})
	for _, e := range exs {
		ents, err := os.ReadDir(filepath.Join(root, dir, e.ID))
		if err != nil {
			continue // a missing package is graded as errors
		}
		for _, ent := range ents {
			if !ent.IsDir() && isTestFile(ent.Name()) {
				disk[dir+"/"+e.ID+"/"+ent.Name()] = true
			}
		}
	}

	// Every protected file is put back or removed, but only the changes
	// that could reach a graded test binary are reported: a change to a
	// harness package the graded tests do not import cannot, and listing
	// it would only alarm a teacher.
	report := func(rel, change string) {
		if matters(rel) {
			// A file name is the learner's text too.
			p.tampered = append(p.tampered, Tamper{Path: Printable(rel), Change: change})
		}
	}
	for rel, want := range p.pristine {
		if !disk[rel] {
			report(rel, "deleted")
			continue
		}
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want) {
			report(rel, "modified")
		}
	}
	for rel := range disk {
		if _, ok := p.pristine[rel]; !ok {
			p.extra = append(p.extra, rel)
			if dir == "solutions" && strings.HasPrefix(rel, "solutions/") {
				// A reference's extra tests (benchmarks) are the
				// maintainers' own: left out of grading, not reported.
				continue
			}
			report(rel, "added")
		}
	}
	for _, rel := range links {
		if _, ok := p.pristine[rel]; ok || disk[rel] {
			continue // reported above if it matters
		}
		report(rel, "added (symbolic link)")
	}
	sort.Slice(p.tampered, func(i, j int) bool { return p.tampered[i].Path < p.tampered[j].Path })
	sort.Strings(p.extra)
	return p, nil
}

// harnessClosure finds the harness packages the graded tests use: the
// pristine test files of exs import harness packages, which import
// others, all read from the pristine copies (which the overlay puts in
// place, so the learner cannot add an import to them). It also returns
// every directory of the pristine harness that holds Go files.
func harnessClosure(pristine fs.FS, exs []*course.Exercise) (graded, pkgDirs map[string]bool, err error) {
	graded, pkgDirs = map[string]bool{}, map[string]bool{}
	goFiles := map[string][]string{} // dir -> its non-test Go files
	err = fs.WalkDir(pristine, "harness", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			pkgDirs[path.Dir(name)] = true
			if !strings.HasSuffix(name, "_test.go") {
				goFiles[path.Dir(name)] = append(goFiles[path.Dir(name)], name)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("grade: reading the kata's pristine harness: %w", err)
	}
	var queue []string
	visit := func(file string) {
		src, err := fs.ReadFile(pristine, file)
		if err != nil {
			return
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ImportsOnly)
		if err != nil {
			return
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if dir, ok := strings.CutPrefix(ip, course.ModulePath+"/"); ok && strings.HasPrefix(dir, "harness/") && !graded[dir] {
				graded[dir] = true
				queue = append(queue, dir)
			}
		}
	}
	for _, e := range exs {
		ents, _ := fs.ReadDir(pristine, "exercises/"+e.ID)
		for _, ent := range ents {
			if !ent.IsDir() && isTestFile(ent.Name()) {
				visit("exercises/" + e.ID + "/" + ent.Name())
			}
		}
	}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		for _, file := range goFiles[dir] {
			visit(file)
		}
	}
	return graded, pkgDirs, nil
}

// isTestFile says whether go would compile name as a test file.
func isTestFile(name string) bool {
	return strings.HasSuffix(name, "_test.go") && !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_")
}

// ignoredByGo says whether a path has an element that both go build and
// go:embed directory patterns skip (names starting with "." or "_").
func ignoredByGo(rel string) bool {
	for _, el := range strings.Split(rel, "/") {
		if strings.HasPrefix(el, ".") || strings.HasPrefix(el, "_") {
			return true
		}
	}
	return false
}

// walkFollow lists the files under root/rel, following symbolic links to
// directories (the go command follows them when it resolves an import),
// to a bounded depth so that a link loop ends.
func walkFollow(root, rel string, depth int, f func(rel string, link bool)) {
	if depth > 32 {
		return
	}
	ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return
	}
	for _, ent := range ents {
		sub := path.Join(rel, ent.Name())
		link := ent.Type()&fs.ModeSymlink != 0
		isDir := ent.IsDir()
		if link {
			fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(sub)))
			isDir = err == nil && fi.IsDir()
		}
		if isDir {
			if link {
				f(sub, true)
			}
			walkFollow(root, sub, depth+1, f)
			continue
		}
		f(sub, link)
	}
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// writeOverlay writes every pristine protected file into tmp and a go
// -overlay file that puts each one in place of the disk's file, and
// removes the protected files the kata does not have. Every pristine file
// is mapped, changed or not, so that a file changed while the tests run
// still compiles as the kata shipped it. gen adds generated files (by
// module-relative path) that the copy does not have.
func (p *protection) writeOverlay(tmp string, gen map[string][]byte) (string, error) {
	root, err := filepath.Abs(p.root)
	if err != nil {
		return "", fmt.Errorf("grade: %w", err)
	}
	replace := map[string]string{}
	for rel, b := range p.pristine {
		dst := filepath.Join(tmp, "pristine", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", fmt.Errorf("grade: %w", err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return "", fmt.Errorf("grade: %w", err)
		}
		replace[filepath.Join(root, filepath.FromSlash(rel))] = dst
	}
	for _, rel := range p.extra {
		replace[filepath.Join(root, filepath.FromSlash(rel))] = ""
	}
	for rel, b := range gen {
		dst := filepath.Join(tmp, "gen", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", fmt.Errorf("grade: %w", err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return "", fmt.Errorf("grade: %w", err)
		}
		replace[filepath.Join(root, filepath.FromSlash(rel))] = dst
	}
	data, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "\t")
	if err != nil {
		return "", fmt.Errorf("grade: %w", err)
	}
	name := filepath.Join(tmp, "overlay.json")
	if len(gen) > 0 {
		name = filepath.Join(tmp, "overlay-isolated.json")
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		return "", fmt.Errorf("grade: %w", err)
	}
	return name, nil
}

// diffTampers lists what is in after but not in before.
func diffTampers(before, after []Tamper) []Tamper {
	seen := map[Tamper]bool{}
	for _, t := range before {
		seen[t] = true
	}
	var d []Tamper
	for _, t := range after {
		if !seen[t] {
			d = append(d, t)
		}
	}
	return d
}

func tamperPaths(ts []Tamper) string {
	ps := make([]string, len(ts))
	for i, t := range ts {
		ps[i] = t.Path
	}
	return strings.Join(ps, ", ")
}
