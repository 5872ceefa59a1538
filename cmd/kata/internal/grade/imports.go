package grade

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/course"
)

// ImportRule is the sentence every refusal of an import ends with, in
// kata grade and in kata verify.
const ImportRule = "an exercise may import only the standard library (not unsafe or plugin), go.etcd.io/bbolt, sigs.k8s.io/yaml and the harness's contracts (see kata grade's doc)"

// nonGoRule ends the refusal of a package that holds source files other
// than Go's.
const nonGoRule = "an exercise is Go source only, without cgo, assembly or object files (see kata grade's doc)"

// deniedStandard are the packages of the standard library an exercise
// may not import: they reach code that its imports do not name.
var deniedStandard = []struct{ path, why string }{
	// A file that imports unsafe may use //go:linkname, which calls a
	// function of any package linked into the program, such as the
	// label parser in harness/internal/labelsel (linked through
	// harness/client; Go keeps other modules' internal packages from
	// being imported, not from being linked to); and unsafe pointers
	// read the unexported fields of the harness's types.
	{"unsafe", "reaches the harness's internal packages"},
	// Loads compiled Go code from a file the copy holds.
	{"plugin", "loads code built elsewhere"},
}

// allowedModules are the third-party modules an exercise may import,
// whole: the ones the solutions need and that implement no exercise's
// contract.
var allowedModules = []struct{ path, why string }{
	// Exercise 03 keeps its data on disk in bbolt with fsync (DESIGN.md
	// rule 6); bbolt is a B+tree file, not a store with revisions,
	// watches or transactions on keys, which the exercise writes.
	{"go.etcd.io/bbolt", "the store's file format (exercise 03)"},
	// Exercise 04 reads YAML bodies (kubectl apply sends them).
	{"sigs.k8s.io/yaml", "YAML request bodies (exercise 04)"},
}

// deniedHarness are the packages of this module under harness/ that an
// exercise may not import, each with the packages below it: they
// implement a component's contract or run a cluster, so that wrapping
// one earns an exercise's points without writing it (DESIGN.md rule 10).
// Every other harness package is a contract, a fake or a helper the
// exercises are written against. The suites (harness/*test, at any depth,
// such as harness/client/clienttest) are denied by deniedHarnessSuite.
var deniedHarness = []struct{ path, why string }{
	// A storage.Store on a real etcd member (etcdembed starts one in
	// the process): it passes the whole store suite of exercise 03.
	{"harness/storage/etcdstore", "a working storage.Store on etcd"},
	// k8s.io/apimachinery's codecs; its module also has the label
	// selectors of exercise 02 and the machinery of exercise 04.
	{"harness/protoedge", "k8s.io/apimachinery behind the apiserver"},
	// The cluster's DNS server, on github.com/miekg/dns: a server, not
	// a contract, and a library an exercise has no use for.
	{"harness/clusterdns", "the cluster's DNS server on github.com/miekg/dns"},
	// Runs the whole cluster from its parts, reference ones included.
	{"harness/cluster", "runs a cluster"},
	// Serves and calls every exercise's contract across a process
	// boundary: grading's own code, and a way to forward the contract.
	{"harness/remote", "forwards every exercise's contract"},
	// Builds and drives whole clusters end to end.
	{"harness/scenario", "runs clusters"},
}

// deniedHarnessSuite says whether a harness package is a conformance
// suite (its path has an element ending in "test", such as
// harness/storetest or harness/client/clienttest): the suites hold the
// test cases and their expected answers, and are what grades.
func deniedHarnessSuite(rel string) bool {
	for _, el := range strings.Split(rel, "/") {
		if strings.HasSuffix(el, "test") {
			return true
		}
	}
	return false
}

// within says whether path is prefix or a package below it.
func within(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// isStandard says whether path is in the standard library: the go
// command's own rule, a first path element without a dot. "C" (cgo) is
// not a package.
func isStandard(path string) bool {
	if path == "C" {
		return false
	}
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// AllowedImport says whether a package of the exercise whose import path
// is exerciseIP (the graded package, or a package below it that it
// imports) may import path: the standard library but deniedStandard, the exercise's own
// packages, the harness's packages but deniedHarness and the suites, and
// allowedModules.
func AllowedImport(exerciseIP, path string) bool {
	for _, d := range deniedStandard {
		if path == d.path {
			return false
		}
	}
	switch {
	case isStandard(path):
		return true
	case within(path, exerciseIP):
		// The learner's own packages, whose imports are held to the
		// same rule.
		return true
	}
	for _, m := range allowedModules {
		if within(path, m.path) {
			return true
		}
	}
	rel, ok := strings.CutPrefix(path, course.ModulePath+"/")
	if !ok || !within(rel, "harness") {
		// Every other module (k8s.io/..., go.etcd.io/etcd/...,
		// golang.org/x/...), and this module's exercises/, solutions/
		// and cmd/.
		return false
	}
	for _, d := range deniedHarness {
		if within(rel, d.path) {
			return false
		}
	}
	return !deniedHarnessSuite(strings.TrimPrefix(rel, "harness"))
}

// ForeignImports lists the imports of one package of the exercise
// exerciseIP that AllowedImport refuses, sorted.
func ForeignImports(exerciseIP string, imports []string) []string {
	var bad []string
	for _, imp := range imports {
		if !AllowedImport(exerciseIP, imp) && !slices.Contains(bad, imp) {
			bad = append(bad, imp)
		}
	}
	sort.Strings(bad)
	return bad
}

// ImportRefusal is the message of a package that breaks the rule: pkgDir
// (module-relative, such as "exercises/02-labels") imports bad.
func ImportRefusal(pkgDir string, bad []string) string {
	q := make([]string, len(bad))
	for i, b := range bad {
		q[i] = b
		if b == "C" {
			q[i] = `"C" (cgo)`
		}
	}
	return pkgDir + " imports " + strings.Join(q, ", ") + ": " + ImportRule
}

// NonGoRefusal is the message of a package that holds source files the
// go command would compile or link but that are not Go: cgo's C, C++,
// Objective-C and Fortran files, assembly, SWIG, and .syso objects.
func NonGoRefusal(pkgDir string, files []string) string {
	return pkgDir + " has " + strings.Join(files, ", ") + ": " + nonGoRule
}

// listedPackage is what go list -json says of one package, as far as
// the rule needs.
type listedPackage struct {
	ImportPath string
	Dir        string
	Imports    []string
	// The files go would build that are not Go.
	CFiles, CXXFiles, MFiles, HFiles, FFiles, SFiles []string
	SwigFiles, SwigCXXFiles, SysoFiles               []string
}

// listFields is go list's -json field list for listedPackage.
const listFields = "ImportPath,Dir,Imports,CFiles,CXXFiles,MFiles,HFiles,FFiles,SFiles,SwigFiles,SwigCXXFiles,SysoFiles"

func (p *listedPackage) nonGo() []string {
	var all []string
	for _, fs := range [][]string{p.CFiles, p.CXXFiles, p.MFiles, p.HFiles, p.FFiles, p.SFiles, p.SwigFiles, p.SwigCXXFiles, p.SysoFiles} {
		all = append(all, fs...)
	}
	sort.Strings(all)
	return all
}

// refusals checks the packages go list -deps printed (r) for the
// exercise packages ips (import paths): every package of an exercise,
// the graded one and those below it that it imports, directly or not.
// It returns a message per refused exercise, keyed by import path.
func refusals(r io.Reader, ips []string) (map[string]string, error) {
	byIP := map[string][]string{} // exercise -> problems
	dec := json.NewDecoder(r)
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("grade: reading go list: %w", err)
		}
		for _, ip := range ips {
			if !within(p.ImportPath, ip) {
				continue
			}
			dir := strings.TrimPrefix(p.ImportPath, course.ModulePath+"/")
			if bad := ForeignImports(ip, p.Imports); len(bad) > 0 {
				byIP[ip] = append(byIP[ip], ImportRefusal(dir, bad))
			}
			if files := p.nonGo(); len(files) > 0 {
				byIP[ip] = append(byIP[ip], NonGoRefusal(dir, files))
			}
		}
	}
	out := map[string]string{}
	for ip, msgs := range byIP {
		out[ip] = strings.Join(msgs, "\n")
	}
	return out, nil
}

// checkImports lists the graded packages with the go command, under the
// overlay and environment their build uses, and returns the refused ones
// (doc.go, "Imports"). A package go list cannot read (a syntax error)
// is not refused here: its build reports the error.
func checkImports(ctx context.Context, root, overlay string, ips []string) (map[string]string, error) {
	if len(ips) == 0 {
		return nil, nil
	}
	args := []string{"list", "-e", "-deps", "-json=" + listFields, "-overlay=" + overlay}
	args = append(args, ips...)
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = root
	cmd.Env = goEnv(root)
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		// With -e, go list reports a package's errors (a syntax error,
		// an import nothing provides) in the package and exits 0; it
		// fails as a whole when it cannot load the module or is
		// stopped, and then what it printed may be cut short.
		return nil, fmt.Errorf("grade: listing the imports of %s: %v\n%s", strings.Join(ips, ", "), err, strings.TrimSpace(stderr.String()))
	}
	return refusals(bytes.NewReader(out), ips)
}
