package grade

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/course"
)

// ExportOptions says what to copy where.
type ExportOptions struct {
	// Root is the kata checkout: files that are not pristine (cmd/,
	// docs, READMEs, testdata/) come from it.
	Root string
	// Pristine supplies exercises/, harness/, go.mod and go.sum, so that
	// a teacher's own work in exercises/ never reaches the students.
	Pristine fs.FS
	// Dir is the student copy; it must not exist, or be empty.
	Dir string
}

// Exported says what Export wrote and left out.
type Exported struct {
	Files int
	// Dropped lists files left out, with why.
	Dropped []string
}

// leakThreshold is how many distinctive lines of one solution file a
// copied file may share before it counts as revealing that solution.
const leakThreshold = 3

// Export writes a student copy of the kata: the pristine exercises and
// harness, go.mod and go.sum, and the checkout's other files, without
// solutions/, dot-directories (.git, .kata, the kata's own CI), Go files
// that import solutions/, and built binaries. Before writing anything it
// checks that no file it would write reveals a solution: none is a
// solution file, and none shares more than a couple of distinctive lines
// with one.
func Export(opts ExportOptions) (*Exported, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	dest, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if ents, err := os.ReadDir(dest); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("export: %s exists and is not empty; name a new directory", opts.Dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("export: %w", err)
	}
	if dest == root {
		return nil, errors.New("export: the student copy cannot be the checkout itself")
	}

	files := map[string][]byte{}
	res := &Exported{}
	drop := func(rel, why string) { res.Dropped = append(res.Dropped, rel+": "+why) }
	droppedSrc := map[string][]byte{} // the test files dropped for importing solutions/

	// The pristine part.
	err = fs.WalkDir(opts.Pristine, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == "." {
			return err
		}
		b, err := fs.ReadFile(opts.Pristine, name)
		if err != nil {
			return err
		}
		if importsSolutions(name, b) {
			drop(name, "imports solutions/")
			droppedSrc[name] = b
			return nil
		}
		files[name] = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("export: reading the kata's pristine files: %w", err)
	}

	// The rest of the checkout.
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dest {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		top, _, _ := strings.Cut(rel, "/")
		switch {
		case d.IsDir() && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir // .git, .kata, the kata's own CI
		case d.IsDir() && (rel == "solutions" || rel == "exercises" || rel == "harness"):
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case top == "exercises" || top == "harness" || rel == "go.mod" || rel == "go.sum":
			return nil
		case rel == "go.work" || rel == "go.work.sum":
			drop(rel, "a maintainer's workspace")
			return nil
		case !d.Type().IsRegular():
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if isBinary(b) {
			drop(rel, "a built binary")
			return nil
		}
		if importsSolutions(rel, b) {
			drop(rel, "imports solutions/")
			droppedSrc[rel] = b
			return nil
		}
		files[rel] = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}

	dropDependents(files, droppedSrc, drop)

	if err := checkLeaks(root, opts.Pristine, files); err != nil {
		return nil, err
	}

	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		to := filepath.Join(dest, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		mode := os.FileMode(0o644)
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(n))); err == nil && fi.Mode()&0o111 != 0 && !fi.IsDir() {
			mode = 0o755 // scripts stay runnable
		}
		if err := os.WriteFile(to, files[n], mode); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	res.Files = len(names)
	sort.Strings(res.Dropped)
	return res, nil
}

// isBinary says whether a file is a compiled program (ELF, Mach-O or
// PE), which a copy must not carry.
func isBinary(b []byte) bool {
	for _, magic := range [][]byte{
		[]byte("\x7fELF"), []byte("MZ"),
		{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
		{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
	} {
		if bytes.HasPrefix(b, magic) {
			return true
		}
	}
	return false
}

// importsSolutions says whether a Go file imports a package under
// solutions/.
func importsSolutions(name string, src []byte) bool {
	if !strings.HasSuffix(name, ".go") || !bytes.Contains(src, []byte("/solutions/")) {
		return false
	}
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
	if err != nil {
		return false
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if strings.HasPrefix(p, course.ModulePath+"/solutions/") || p == course.ModulePath+"/solutions" {
			return true
		}
	}
	return false
}

// checkLeaks refuses a copy in which a file is a solution file, or shares
// leakThreshold or more distinctive lines with one: lines of code (not
// comments) long enough to be specific, that appear nowhere in the
// pristine exercises and harness. Solution files that the pristine
// exercise ships byte for byte are given code, not answers.
func checkLeaks(root string, pristine fs.FS, files map[string][]byte) error {
	sols := map[string][]byte{}
	solDir := filepath.Join(root, "solutions")
	_ = filepath.WalkDir(solDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil {
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			// A solution file the exercise ships as it is (plumbing
			// given to the learner) reveals nothing: the copy has it
			// anyway. A stub that works is caught by CheckShipped.
			if given, err := fs.ReadFile(pristine, "exercises/"+strings.TrimPrefix(rel, "solutions/")); err == nil && bytes.Equal(given, b) {
				return nil
			}
			sols[rel] = b
		}
		return nil
	})
	if len(sols) == 0 {
		return nil
	}
	known := map[string]bool{}
	_ = fs.WalkDir(pristine, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := fs.ReadFile(pristine, name); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				known[strings.TrimSpace(l)] = true
			}
		}
		return nil
	})
	distinctive := map[string]map[string]bool{} // solution file -> its lines
	for name, b := range sols {
		set := map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			if len(l) < 20 || strings.HasPrefix(l, "//") || strings.HasPrefix(l, "/*") || strings.HasPrefix(l, "*") || known[l] {
				continue
			}
			set[l] = true
		}
		distinctive[name] = set
	}
	var leaks []string
	for rel, b := range files {
		for sol, sb := range sols {
			if bytes.Equal(b, sb) {
				leaks = append(leaks, fmt.Sprintf("%s is a copy of %s", rel, sol))
				continue
			}
			n := 0
			seen := map[string]bool{}
			for _, l := range strings.Split(string(b), "\n") {
				l = strings.TrimSpace(l)
				if distinctive[sol][l] && !seen[l] {
					seen[l] = true
					n++
				}
			}
			if n >= leakThreshold {
				leaks = append(leaks, fmt.Sprintf("%s has %d lines of %s", rel, n, sol))
			}
		}
	}
	if len(leaks) > 0 {
		sort.Strings(leaks)
		return fmt.Errorf("export: refusing to write a copy that reveals solutions:\n  %s", strings.Join(leaks, "\n  "))
	}
	return nil
}

// CheckShipped grades the copy at opts.Root as shipped, through Run (the
// grading kata grade does, with the pristine test and harness files), and
// fails if any step passes: a copy that earns a point before the student
// writes a line carries a working answer somewhere, in a stub, a fake or
// a harness helper (DESIGN rule 10). It returns the report either way.
func CheckShipped(ctx context.Context, opts Options) (*Report, error) {
	r, err := Run(ctx, opts)
	if err != nil {
		return nil, err
	}
	var passing []string
	for _, e := range r.Exercises {
		for _, s := range e.Steps {
			if s.Status == Pass {
				passing = append(passing, e.Exercise.ID+"/"+s.Step.ID)
			}
		}
	}
	if len(passing) > 0 {
		return r, fmt.Errorf("export: the copy earns points before the student writes a line, so it holds a working answer: %s pass as shipped", strings.Join(passing, ", "))
	}
	if r.Message != "" {
		return r, fmt.Errorf("export: grading the copy as shipped: %s", r.Message)
	}
	return r, nil
}
