package admissiontest_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/admissiontest"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
	admission "github.com/kubekata/kubekata/solutions/05-admission"
)

// The suite runs against the reference in solutions/05-admission (its
// test file). Here it runs against broken gates, each in a child
// process, to show that each rule the README states is checked: every
// mutant is the reference with one rule broken, by a store that misleads
// it or by a wrapper that changes what goes in, and must fail exactly the
// steps listed. authz_test.go holds the mutants of steps 01-06,
// admission_test.go those of steps 07-13; each file adds its own to
// mutants with register, in an init function.

const mutantEnv = "ADMISSIONTEST_MUTANT"

// referenceName runs the reference unchanged in a child, as the baseline.
const referenceName = "reference"

type mutant struct {
	// store wraps the store the reference's authorizer and gate read.
	store func(storage.Store) storage.Store
	// requestInfo changes what NewRequestInfo answers.
	requestInfo func(pipeline.RequestInfo) pipeline.RequestInfo
	// attributes changes what the authorizer NewAuthorizer returns is
	// asked.
	attributes func(pipeline.Attributes) pipeline.Attributes
	// before changes a request before the gate sees it (cfg is the
	// gate's config).
	before func(cfg pipeline.Config, r *http.Request)
	// around wraps the reference's whole gate: filter is the
	// reference's, next the handler behind it, ctx the gate's
	// (admission_test.go's mutants of steps 07-13).
	around func(ctx context.Context, cfg pipeline.Config, filter func(http.Handler) http.Handler, next http.Handler) http.Handler
	// whole replaces the reference altogether (the exercise's stubs).
	whole func() admissiontest.Impl
	// fails are the steps it must fail, and no others.
	fails []string
}

var mutants = map[string]mutant{referenceName: {}}

// register adds mutants; a name used twice is a mistake in the tests.
func register(ms map[string]mutant) {
	for name, m := range ms {
		if _, dup := mutants[name]; dup {
			panic("admissiontest_test: mutant " + name + " registered twice")
		}
		mutants[name] = m
	}
}

// impl is the reference with m's changes.
func (m mutant) impl() admissiontest.Impl {
	if m.whole != nil {
		return m.whole()
	}
	wrapStore := func(s storage.Store) storage.Store {
		if m.store != nil {
			return m.store(s)
		}
		return s
	}
	return admissiontest.Impl{
		NewRequestInfo: func(method, path string, query url.Values) pipeline.RequestInfo {
			info := admission.NewRequestInfo(method, path, query)
			if m.requestInfo != nil {
				info = m.requestInfo(info)
			}
			return info
		},
		NewAuthorizer: func(ctx context.Context, s storage.Store) (pipeline.Authorizer, error) {
			az, err := admission.NewAuthorizer(ctx, wrapStore(s))
			if err != nil || m.attributes == nil {
				return az, err
			}
			return changedAttributes{az, m.attributes}, nil
		},
		New: func(ctx context.Context, cfg pipeline.Config) (func(http.Handler) http.Handler, error) {
			cfg.Store = wrapStore(cfg.Store)
			filter, err := admission.New(ctx, cfg)
			if err == nil && m.around != nil {
				inner := filter
				filter = func(next http.Handler) http.Handler { return m.around(ctx, cfg, inner, next) }
			}
			if err != nil || m.before == nil {
				return filter, err
			}
			return func(next http.Handler) http.Handler {
				gate := filter(next)
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					r = r.Clone(r.Context())
					m.before(cfg, r)
					gate.ServeHTTP(w, r)
				})
			}, nil
		},
	}
}

type changedAttributes struct {
	pipeline.Authorizer
	change func(pipeline.Attributes) pipeline.Attributes
}

func (c changedAttributes) Authorize(ctx context.Context, a pipeline.Attributes) (pipeline.Decision, error) {
	return c.Authorizer.Authorize(ctx, c.change(a))
}

// TestAdmission is the suite against one mutant, in a child process of
// TestSuiteCatchesBugs (its name is the manifest's, which suite.Run
// checks).
func TestAdmission(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("runs as a child of TestSuiteCatchesBugs; solutions/05-admission runs the suite against the reference")
	}
	m, ok := mutants[name]
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	admissiontest.Run(t, m.impl())
}

var stepLine = regexp.MustCompile(`--- (FAIL|PASS): TestAdmission/(\d\d-[a-z-]+)`)

// runChild runs the suite against the named mutant and returns the
// steps that failed and how many passed.
func runChild(name string) (failed []string, passed int, out []byte) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestAdmission$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), mutantEnv+"="+name)
	out, _ = cmd.CombinedOutput()
	for _, m := range stepLine.FindAllStringSubmatch(string(out), -1) {
		if m[1] == "FAIL" {
			failed = append(failed, m[2])
		} else {
			passed++
		}
	}
	sort.Strings(failed)
	return failed, passed, out
}

const steps = 13

func TestSuiteCatchesBugs(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("a child process")
	}
	if testing.Short() {
		t.Skip("runs the suite once per mutant")
	}
	// The reference must pass every step; a step it fails (one still
	// being written) cannot tell mutants apart, and is left out of the
	// comparison with a note.
	refFailed, refPassed, refOut := runChild(referenceName)
	if refPassed+len(refFailed) != steps {
		t.Fatalf("the suite against the reference ran %d steps, want %d; output:\n%s", refPassed+len(refFailed), steps, refOut)
	}
	if len(refFailed) > 0 {
		t.Logf("the reference fails %v: those steps are left out of every comparison below", refFailed)
	}
	names := make([]string, 0, len(mutants))
	for n := range mutants {
		if n != referenceName {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		want := without(mutants[name].fails, refFailed)
		sort.Strings(want)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			all, passed, out := runChild(name)
			failed := without(all, refFailed)
			if strings.Join(failed, " ") != strings.Join(want, " ") || passed+len(all) != steps {
				t.Errorf("the suite against a gate with bug %q: failed steps %v (%d passed), want exactly %v failed and the other steps passed; output:\n%s",
					name, failed, passed, want, out)
			}
		})
	}
}

// without returns list minus the elements of drop.
func without(list, drop []string) []string {
	var out []string
	for _, s := range list {
		if !contains(drop, s) {
			out = append(out, s)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
