package reconciletest

import (
	"cmp"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
)

// options switch on one deliberate mistake each in refPlan, a compact
// correct planner that lives here because the harness must not import
// the solution.
type options struct {
	imperative    bool // create desired pods, whatever exists
	neverDelete   bool
	sortsInPlace  bool // reorders the caller's slice
	countFinished bool
	oldestFirst   bool
}

func refPlan(o options) replicas.Func {
	return func(desired int, pods []api.Pod) replicas.Plan {
		if o.imperative {
			return replicas.Plan{Create: desired}
		}
		var active []api.Pod
		if o.sortsInPlace {
			active = pods
		}
		if !o.sortsInPlace {
			for _, p := range pods {
				finished := p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed || p.DeletionTimestamp != nil
				if o.countFinished || !finished {
					active = append(active, p)
				}
			}
		}
		if diff := desired - len(active); diff >= 0 {
			return replicas.Plan{Create: diff}
		}
		if o.neverDelete {
			return replicas.Plan{}
		}
		rank := map[api.PodPhase]int{api.PodPending: 0, api.PodUnknown: 1, api.PodRunning: 2}
		ready := func(p api.Pod) bool {
			return slices.ContainsFunc(p.Status.Conditions, func(c api.PodCondition) bool {
				return c.Type == api.PodReady && c.Status == api.ConditionTrue
			})
		}
		b2i := func(b bool) int {
			if b {
				return 1
			}
			return 0
		}
		slices.SortFunc(active, func(a, b api.Pod) int {
			age := b.CreationTimestamp.Compare(a.CreationTimestamp.Time)
			if o.oldestFirst {
				age = -age
			}
			return cmp.Or(
				cmp.Compare(b2i(a.Spec.NodeName != ""), b2i(b.Spec.NodeName != "")),
				cmp.Compare(rank[a.Status.Phase], rank[b.Status.Phase]),
				cmp.Compare(b2i(ready(a)), b2i(ready(b))),
				age,
				strings.Compare(a.Name, b.Name),
			)
		})
		var p replicas.Plan
		for _, pod := range active[:len(active)-desired] {
			p.Delete = append(p.Delete, pod.Name)
		}
		return p
	}
}

var allSteps = []string{"01-create-missing", "02-steady-state", "03-delete-extra", "04-idempotent", "05-skip-finished", "06-delete-order"}

// variants: the steps each must fail (all others must pass) and a line
// of the output that shows the suite caught the right thing.
var variants = map[string]struct {
	plan replicas.Func
	fail []string
	want string
}{
	"correct": {plan: refPlan(options{})},
	"imperative": {
		plan: refPlan(options{imperative: true}),
		fail: []string{"01-create-missing", "02-steady-state", "03-delete-extra", "04-idempotent", "05-skip-finished", "06-delete-order"},
		want: "= {Create: 2, Delete: []}\n",
	},
	"never-delete": {
		plan: refPlan(options{neverDelete: true}),
		fail: []string{"03-delete-extra", "05-skip-finished", "06-delete-order"},
		want: "want Create 0 and 1 distinct pod names of the list in Delete",
	},
	"sorts-in-place": {
		plan: refPlan(options{sortsInPlace: true}),
		fail: []string{"04-idempotent", "05-skip-finished"},
		want: "changed its input",
	},
	"counts-finished": {
		plan: refPlan(options{countFinished: true}),
		fail: []string{"05-skip-finished"},
		want: "want {Create: 1, Delete: []}",
	},
	"oldest-first": {
		plan: refPlan(options{oldestFirst: true}),
		fail: []string{"06-delete-order"},
		want: "newest first: Plan(1, [",
	},
	"panics": {
		plan: func(int, []api.Pod) replicas.Plan { panic("not implemented: Plan") },
		fail: allSteps,
		want: "panic: not implemented: Plan",
	},
}

const variantEnv = "RECONCILETEST_VARIANT"

// TestReconcile runs the suite against one variant in a child process
// (the suite only runs under the manifest's test name); on its own it
// does nothing.
func TestReconcile(t *testing.T) {
	v, ok := variants[os.Getenv(variantEnv)]
	if !ok {
		t.Skip("fixture for TestSuiteCatchesMistakes")
	}
	Run(t, v.plan)
}

var stepLine = regexp.MustCompile(`--- (PASS|FAIL|SKIP): TestReconcile/(\S+)`)

func TestSuiteCatchesMistakes(t *testing.T) {
	if os.Getenv(variantEnv) != "" {
		t.Skip("running as a fixture")
	}
	for name, v := range variants {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestReconcile$", "-test.v")
			cmd.Env = append(os.Environ(), variantEnv+"="+name)
			out, _ := cmd.CombinedOutput()
			got := map[string]string{}
			for _, m := range stepLine.FindAllStringSubmatch(string(out), -1) {
				got[m[2]] = m[1]
			}
			for _, id := range allSteps {
				want := "PASS"
				if slices.Contains(v.fail, id) {
					want = "FAIL"
				}
				if got[id] != want {
					t.Errorf("step %s: %q, want %s\n%s", id, got[id], want, out)
				}
			}
			if !strings.Contains(string(out), v.want) {
				t.Errorf("the output lacks %q:\n%s", v.want, out)
			}
		})
	}
}

func TestStepsMatchManifest(t *testing.T) {
	var ids []string
	for _, s := range Steps(nil) {
		ids = append(ids, s.ID)
	}
	if !slices.Equal(ids, allSteps) {
		t.Errorf("Steps() = %v, want %v", ids, allSteps)
	}
}

func TestApplyAndClone(t *testing.T) {
	pods := Pods(running("web-a", 0), pending("web-b", 1))
	clone := ClonePods(pods)
	clone[0].Status.Conditions[0].Status = api.ConditionFalse
	if pods[0].Status.Conditions[0].Status != api.ConditionTrue {
		t.Errorf("ClonePods shares conditions with its input")
	}
	after := Apply(pods, replicas.Plan{Create: 2, Delete: []string{"web-a"}})
	var names []string
	for _, p := range after {
		names = append(names, p.Name)
	}
	if want := []string{"web-b", "web-new-0", "web-new-1"}; !slices.Equal(names, want) {
		t.Errorf("Apply = %v, want %v", names, want)
	}
}
