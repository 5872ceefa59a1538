package servicestest

// The suite is tested against the reference solution and against planted
// bugs: each is the solution seen through a wrapper that breaks exactly
// one rule, never a second working implementation. The bugs of each part
// live beside its tests (alloc_test.go, slices_test.go, rules_test.go).
// This file imports solutions/14-services, so kata classroom export
// leaves it out of a student copy.

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	sol "github.com/kubekata/kubekata/solutions/14-services"
)

// solution is the reference implementation.
func solution() Impl {
	return Impl{
		NewIPRange:   sol.NewIPRange,
		NewPortRange: sol.NewPortRange,
		Slices:       sol.Slices,
		Rules:        sol.Rules,
		PartialRules: sol.PartialRules,
		New:          sol.New,
		Lookup:       sol.Lookup,
		Env:          sol.Env,
	}
}

var allSteps = []string{
	"01-allocate-next", "02-allocate-requested", "03-static-band", "04-release", "05-node-ports",
	"06-endpoints", "07-endpoint-conditions", "08-named-ports", "09-slice-size", "10-fewest-changes",
	"11-chain-names", "12-cluster-ip-rules", "13-probability", "14-ready-endpoints", "15-no-endpoints", "16-session-affinity",
	"17-controller-sync", "18-slice-changes", "19-retry",
	"20-dns-names", "21-dns-headless", "22-dns-srv", "23-service-env",
	"24-partial-sync", "25-stale-chains",
}

// bug is a planted bug: an implementation and the steps it must fail.
type bug struct {
	impl func() Impl
	fail []string
	// want is a piece of the failure message the suite must print.
	want string
}

// bugs gathers the planted bugs of every part, and the solution, which
// fails nothing. A name in two parts would hide one of the bugs: it
// panics.
func bugs() map[string]bug {
	all := map[string]bug{"solution": {impl: solution}}
	for _, part := range []map[string]bug{allocBugs, sliceBugs, ruleBugs, dnsBugs, partialBugs} {
		for name, b := range part {
			if _, dup := all[name]; dup {
				panic("servicestest: two planted bugs named " + name)
			}
			all[name] = b
		}
	}
	return all
}

const variantEnv = "SERVICESTEST_VARIANT"

func TestServices(t *testing.T) {
	b, ok := bugs()[os.Getenv(variantEnv)]
	if !ok {
		t.Skip("fixture for TestSuiteCatchesMistakes")
	}
	Run(t, b.impl())
}

var stepLine = regexp.MustCompile(`--- (PASS|FAIL|SKIP): TestServices/(\S+)`)

func TestSuiteCatchesMistakes(t *testing.T) {
	if os.Getenv(variantEnv) != "" {
		t.Skip("running as a fixture")
	}
	for name, b := range bugs() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestServices$", "-test.v")
			// A child built with -race sleeps a second before it exits
			// (GORACE atexit_sleep_ms=1000); it has nothing to wait for.
			cmd.Env = append(os.Environ(), variantEnv+"="+name, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			out, _ := cmd.CombinedOutput()
			got := map[string]string{}
			for _, m := range stepLine.FindAllStringSubmatch(string(out), -1) {
				got[m[2]] = m[1]
			}
			var wrong []string
			for _, id := range allSteps {
				want := "PASS"
				if slices.Contains(b.fail, id) {
					want = "FAIL"
				}
				if got[id] != want {
					wrong = append(wrong, id+": "+got[id]+", want "+want)
				}
			}
			if len(wrong) > 0 {
				t.Errorf("steps:\n\t%s\n%s", strings.Join(wrong, "\n\t"), out)
			}
			if !strings.Contains(string(out), b.want) {
				t.Errorf("the output lacks %q:\n%s", b.want, out)
			}
		})
	}
}

func TestStepsMatchManifest(t *testing.T) {
	var ids []string
	for _, s := range Steps(Impl{}) {
		ids = append(ids, s.ID)
	}
	if !slices.Equal(ids, allSteps) {
		t.Errorf("Steps() = %v, want %v", ids, allSteps)
	}
}
