package reconciletest

// The suite is tested against the reference solution and against planted
// bugs. This file imports solutions/01-reconcile, so kata classroom export
// leaves it out of a student copy; a planted bug is the solution's Plan
// seen through a lens that breaks exactly one rule (it hides the deletion
// cost, moves pods to nodes of their own, ...), never a second working
// Plan.

import (
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
	reconcile "github.com/kubekata/kubekata/solutions/01-reconcile"
)

// lens calls the solution on a changed copy of the pods (and of now).
func lens(change func(pods []api.Pod, now *time.Time)) replicas.Func {
	return func(desired int, pods []api.Pod, now time.Time) replicas.Plan {
		pods = clone(pods)
		change(pods, &now)
		return reconcile.Plan(desired, pods, now)
	}
}

// clone copies the pods and every part of them a lens changes (a deep
// copy by reflection is slow on the suite's long lists under -race).
func clone(pods []api.Pod) []api.Pod {
	pods = slices.Clone(pods)
	for i := range pods {
		p := &pods[i]
		p.Annotations = maps.Clone(p.Annotations)
		p.Status.Conditions = slices.Clone(p.Status.Conditions)
		p.Status.ContainerStatuses = slices.Clone(p.Status.ContainerStatuses)
	}
	return pods
}

// each applies f to every pod.
func each(f func(p *api.Pod)) func([]api.Pod, *time.Time) {
	return func(pods []api.Pod, _ *time.Time) {
		for i := range pods {
			f(&pods[i])
		}
	}
}

// both applies two lenses.
func both(fs ...func([]api.Pod, *time.Time)) func([]api.Pod, *time.Time) {
	return func(pods []api.Pod, now *time.Time) {
		for _, f := range fs {
			f(pods, now)
		}
	}
}

func finished(p *api.Pod) bool {
	return p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed || p.DeletionTimestamp != nil
}

func readyCond(p *api.Pod) *api.PodCondition {
	for i := range p.Status.Conditions {
		if c := &p.Status.Conditions[i]; c.Type == api.PodReady {
			return c
		}
	}
	return nil
}

func isReady(p *api.Pod) bool {
	c := readyCond(p)
	return c != nil && c.Status == api.ConditionTrue
}

// The lenses, one rule each.
var (
	noCost   = each(func(p *api.Pod) { delete(p.Annotations, replicas.PodDeletionCost) })
	ownNodes = each(func(p *api.Pod) {
		if p.Spec.NodeName != "" {
			p.Spec.NodeName += "/" + p.Name
		}
	})
	sameReady    = each(func(p *api.Pod) { setReadyTime(p, api.NewTime(Now.Add(-time.Hour))) })
	noRestarts   = each(func(p *api.Pod) { p.Status.ContainerStatuses = nil })
	sameCreation = each(func(p *api.Pod) { p.CreationTimestamp = api.NewTime(Now.Add(-time.Hour)) })
	uidIsName    = each(func(p *api.Pod) { p.UID = api.UID(p.Name) })
	noBuckets    = func(_ []api.Pod, now *time.Time) { *now = time.Time{} }
)

func setReadyTime(p *api.Pod, t api.Time) {
	if c := readyCond(p); c != nil && c.Status == api.ConditionTrue {
		c.LastTransitionTime = t
	}
}

// strictCost reads a deletion cost the way the README says (0 when it is
// missing or invalid), for lenses that rewrite costs.
func strictCost(v string) int64 {
	if v == "" || v[0] == '+' || (v[0] == '0' && v != "0") {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return n
}

// bucketStart moves a time to the start of its log2 bucket before now.
func bucketStart(t api.Time, now time.Time) api.Time {
	d := now.Sub(t.Time)
	if t.IsZero() || d <= 0 {
		return t
	}
	return api.NewTime(now.Add(-time.Duration(math.Exp2(math.Floor(math.Log2(float64(d)))))))
}

// noBurstCap does what the solution does, without the cap: it counts, and
// deletes by calling the solution again on what is left.
func noBurstCap(desired int, pods []api.Pod, now time.Time) replicas.Plan {
	active := 0
	for i := range pods {
		if !finished(&pods[i]) {
			active++
		}
	}
	if desired > active {
		return replicas.Plan{Create: desired - active}
	}
	var out replicas.Plan
	left := slices.Clone(pods)
	for {
		p := reconcile.Plan(desired, left, now)
		if len(p.Delete) == 0 {
			return out
		}
		out.Delete = append(out.Delete, p.Delete...)
		left = slices.DeleteFunc(left, func(pod api.Pod) bool { return slices.Contains(p.Delete, pod.Name) })
	}
}

var allSteps = []string{
	"01-create-missing", "02-steady-state", "03-delete-extra", "04-idempotent", "05-skip-finished",
	"06-delete-order", "07-deletion-cost", "08-spread", "09-ready-time", "10-restarts", "11-newest-first", "12-burst",
}

// stepsFrom lists the steps from id on.
func stepsFrom(id string) []string { return allSteps[slices.Index(allSteps, id):] }

// variants: the steps each must fail (all others must pass) and a line
// of the output that shows the suite caught the right thing.
var variants = map[string]struct {
	plan replicas.Func
	fail []string
	want string
}{
	"correct": {plan: reconcile.Plan},
	"panics": {
		plan: func(int, []api.Pod, time.Time) replicas.Plan { panic("not implemented: Plan") },
		fail: allSteps,
		want: "panic: not implemented: Plan",
	},
	"imperative": {
		plan: func(desired int, _ []api.Pod, _ time.Time) replicas.Plan { return replicas.Plan{Create: desired} },
		fail: allSteps,
		want: "= {Create: 2, Delete: []}\n",
	},
	"never-delete": {
		plan: func(desired int, pods []api.Pod, now time.Time) replicas.Plan {
			p := reconcile.Plan(desired, pods, now)
			p.Delete = nil
			return p
		},
		fail: []string{"03-delete-extra", "05-skip-finished", "06-delete-order", "07-deletion-cost", "08-spread", "09-ready-time", "10-restarts", "11-newest-first", "12-burst"},
		want: "want Create 0 and 1 distinct pod names of the list in Delete",
	},
	"sorts-in-place": {
		plan: func(desired int, pods []api.Pod, now time.Time) replicas.Plan {
			p := reconcile.Plan(desired, pods, now)
			slices.SortFunc(pods, func(a, b api.Pod) int { return strings.Compare(b.Name, a.Name) })
			return p
		},
		fail: allSteps,
		want: "changed its input",
	},
	"filters-in-place": {
		plan: func(desired int, pods []api.Pod, now time.Time) replicas.Plan {
			active := pods[:0]
			for _, p := range pods {
				if !finished(&p) {
					active = append(active, p)
				}
			}
			return reconcile.Plan(desired, active, now)
		},
		fail: []string{"05-skip-finished", "06-delete-order", "08-spread"},
		want: "changed its input",
	},
	"edits-a-pod": {
		plan: func(desired int, pods []api.Pod, now time.Time) replicas.Plan {
			for i := range pods {
				if c := readyCond(&pods[i]); c != nil && c.Status != api.ConditionTrue {
					c.Status = api.ConditionUnknown
				}
			}
			return reconcile.Plan(desired, pods, now)
		},
		fail: []string{"02-steady-state", "04-idempotent", "06-delete-order", "07-deletion-cost", "08-spread", "09-ready-time", "10-restarts", "11-newest-first"},
		want: "changed its input",
	},
	"counts-finished": {
		plan: lens(each(func(p *api.Pod) {
			if finished(p) {
				p.Status.Phase, p.DeletionTimestamp = api.PodRunning, nil
			}
		})),
		fail: []string{"05-skip-finished", "06-delete-order", "08-spread"},
		want: "want {Create: 1, Delete: []}",
	},
	"no-node-rule": {
		plan: lens(each(func(p *api.Pod) {
			if p.Spec.NodeName == "" {
				p.Spec.NodeName = "node-of-" + p.Name
			}
		})),
		fail: []string{"06-delete-order"},
		want: "a pod with no node goes first: Plan(1, [",
	},
	"phase-rule-omitted": {
		plan: lens(each(func(p *api.Pod) {
			if !finished(p) {
				p.Status.Phase = api.PodRunning
			}
		})),
		fail: []string{"06-delete-order"},
		want: "Pending, then Unknown, then Running: Plan(0, [",
	},
	"readiness-before-phase": {
		// A pod that is not ready is seen as Pending, so readiness
		// decides before the phase does.
		plan: lens(each(func(p *api.Pod) {
			if !finished(p) && !isReady(p) {
				p.Status.Phase = api.PodPending
			}
		})),
		fail: []string{"06-delete-order"},
		want: "the phase beats readiness: Plan(1, [",
	},
	"readiness-omitted": {
		plan: lens(each(func(p *api.Pod) {
			p.Status.Conditions = slices.DeleteFunc(p.Status.Conditions, func(c api.PodCondition) bool { return c.Type == api.PodReady })
		})),
		fail: []string{"06-delete-order", "07-deletion-cost", "08-spread", "09-ready-time", "10-restarts"},
		want: "not ready before ready: Plan(2, [",
	},
	"cost-omitted": {
		plan: lens(noCost),
		fail: []string{"07-deletion-cost", "08-spread"},
		want: "the lower deletion cost goes first: Plan(1, [",
	},
	"cost-reversed": {
		plan: lens(each(func(p *api.Pod) {
			if v, ok := p.Annotations[replicas.PodDeletionCost]; ok {
				p.Annotations[replicas.PodDeletionCost] = strconv.FormatInt(-strictCost(v), 10)
			}
		})),
		fail: []string{"07-deletion-cost", "08-spread"},
		want: "the lower deletion cost goes first: Plan(1, [",
	},
	"cost-parsed-leniently": {
		// "+5" and "007" read as numbers instead of as invalid.
		plan: lens(each(func(p *api.Pod) {
			if v, ok := p.Annotations[replicas.PodDeletionCost]; ok {
				if n, err := strconv.Atoi(v); err == nil && n >= math.MinInt32 && n <= math.MaxInt32 {
					p.Annotations[replicas.PodDeletionCost] = strconv.Itoa(n)
				}
			}
		})),
		fail: []string{"07-deletion-cost"},
		want: "a value with a sign '+' is invalid and counts as 0",
	},
	"spread-omitted": {
		plan: lens(ownNodes),
		fail: []string{"08-spread", "09-ready-time"},
		want: "the pod on the more crowded node goes first: Plan(1, [",
	},
	"spread-before-cost": {
		// The crowd is folded into the cost, so it decides first.
		plan: lens(func(pods []api.Pod, _ *time.Time) {
			onNode := map[string]int{}
			for i := range pods {
				if !finished(&pods[i]) {
					onNode[pods[i].Spec.NodeName]++
				}
			}
			for i := range pods {
				p := &pods[i]
				c := strictCost(p.Annotations[replicas.PodDeletionCost])
				if p.Annotations == nil {
					p.Annotations = map[string]string{}
				}
				p.Annotations[replicas.PodDeletionCost] = strconv.FormatInt(c-1000*int64(onNode[p.Spec.NodeName]), 10)
			}
		}),
		fail: []string{"08-spread"},
		want: "the deletion cost beats the crowd: Plan(2, [",
	},
	"spread-counts-finished": {
		// Finished pods become active pods that are never chosen (the
		// highest cost, Running and ready), so they crowd their node; the
		// desired count grows by as many, so the counting is unchanged.
		plan: func(desired int, pods []api.Pod, now time.Time) replicas.Plan {
			pods = clone(pods)
			for i := range pods {
				p := &pods[i]
				if !finished(p) {
					continue
				}
				desired++
				p.Status.Phase, p.DeletionTimestamp = api.PodRunning, nil
				p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
				p.Annotations = map[string]string{replicas.PodDeletionCost: strconv.Itoa(math.MaxInt32)}
			}
			return reconcile.Plan(desired, pods, now)
		},
		fail: []string{"08-spread"},
		want: "only active pods crowd a node: Plan(2, [",
	},
	"ready-time-omitted": {
		plan: lens(sameReady),
		fail: []string{"09-ready-time", "10-restarts"},
		want: "the pod ready for less time goes first: Plan(1, [",
	},
	"no-log2-buckets": {
		plan: lens(noBuckets),
		fail: []string{"09-ready-time", "10-restarts", "11-newest-first"},
		want: "ready times in one log2 bucket: the UID decides: Plan(1, [",
	},
	"bucket-tie-falls-through": {
		// Same-bucket ready times made equal: restarts decide, not the UID.
		plan: lens(func(pods []api.Pod, now *time.Time) {
			for i := range pods {
				if c := readyCond(&pods[i]); c != nil && c.Status == api.ConditionTrue {
					c.LastTransitionTime = bucketStart(c.LastTransitionTime, *now)
				}
			}
		}),
		fail: []string{"10-restarts"},
		want: "in one ready-time bucket the UID decides, before restarts: Plan(1, [",
	},
	"wall-clock": {
		plan: lens(func(_ []api.Pod, now *time.Time) { *now = time.Now() }),
		fail: []string{"09-ready-time", "10-restarts", "11-newest-first"},
		want: "buckets count from now, the time Plan is given: Plan(1, [",
	},
	"restarts-omitted": {
		plan: lens(noRestarts),
		fail: []string{"10-restarts", "11-newest-first"},
		want: "more restarts go first: Plan(1, [",
	},
	"restarts-summed": {
		plan: lens(each(func(p *api.Pod) {
			var sum int32
			for _, c := range p.Status.ContainerStatuses {
				sum += c.RestartCount
			}
			if len(p.Status.ContainerStatuses) > 0 {
				p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "c0", RestartCount: sum}}
			}
		})),
		fail: []string{"10-restarts"},
		want: "the most restarts of one container count, not their sum: Plan(1, [",
	},
	"fewer-restarts-first": {
		plan: lens(each(func(p *api.Pod) {
			for i := range p.Status.ContainerStatuses {
				p.Status.ContainerStatuses[i].RestartCount = 100 - p.Status.ContainerStatuses[i].RestartCount
			}
		})),
		fail: []string{"10-restarts", "11-newest-first"},
		want: "more restarts go first: Plan(1, [",
	},
	"creation-omitted": {
		plan: lens(sameCreation),
		fail: []string{"11-newest-first"},
		want: "the newer pod goes first: Plan(1, [",
	},
	"oldest-first": {
		plan: lens(each(func(p *api.Pod) {
			if !p.CreationTimestamp.IsZero() {
				p.CreationTimestamp = api.NewTime(Now.Add(-2000*time.Second + Now.Sub(p.CreationTimestamp.Time)))
			}
		})),
		fail: []string{"11-newest-first"},
		want: "the newer pod goes first: Plan(1, [",
	},
	"names-break-ties": {
		plan: lens(uidIsName),
		fail: []string{"09-ready-time", "10-restarts", "11-newest-first", "12-burst"},
		want: "when everything else is equal, the UID decides: Plan(1, [",
	},
	"no-burst-cap": {
		plan: noBurstCap,
		fail: []string{"12-burst"},
		want: "at most 500 deletions in one pass",
	},
	// The ranking kata taught before upstream's: node, phase, readiness,
	// newest first without buckets, then the name.
	"newest-then-name": {
		plan: lens(both(noCost, ownNodes, sameReady, noRestarts, noBuckets, uidIsName)),
		fail: stepsFrom("07-deletion-cost"),
		want: "the lower deletion cost goes first",
	},
	// A learner part way: each stage passes its steps and fails the
	// rest (the lenses keep the solution's cap of step 12, which the
	// stages that order by UID pass).
	"done-through-06": {
		plan: lens(both(noCost, ownNodes, sameReady, noRestarts, sameCreation, uidIsName)),
		fail: stepsFrom("07-deletion-cost"),
		want: "--- PASS: TestReconcile/06-delete-order",
	},
	"done-through-07": {
		plan: lens(both(ownNodes, sameReady, noRestarts, sameCreation, uidIsName)),
		fail: stepsFrom("08-spread"),
		want: "--- PASS: TestReconcile/07-deletion-cost",
	},
	"done-through-08": {
		plan: lens(both(sameReady, noRestarts, sameCreation, uidIsName)),
		fail: stepsFrom("09-ready-time"),
		want: "--- PASS: TestReconcile/08-spread",
	},
	"done-through-09": {
		plan: lens(both(noRestarts, sameCreation)),
		fail: []string{"10-restarts", "11-newest-first"},
		want: "--- PASS: TestReconcile/09-ready-time",
	},
	"done-through-10": {
		plan: lens(sameCreation),
		fail: []string{"11-newest-first"},
		want: "--- PASS: TestReconcile/10-restarts",
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
				if slices.Contains(v.fail, id) {
					want = "FAIL"
				}
				if got[id] != want {
					wrong = append(wrong, fmt.Sprintf("%s: %q, want %s", id, got[id], want))
				}
			}
			if len(wrong) > 0 {
				t.Errorf("steps:\n\t%s\n%s", strings.Join(wrong, "\n\t"), out)
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

func TestPodAndApply(t *testing.T) {
	p := Pod(PodState{Name: "web-a", Node: "node-1", Phase: api.PodRunning, Ready: true, Age: 600, ReadyFor: 60, Restarts: []int32{2}, Cost: "5"})
	if got, want := p.CreationTimestamp.Time, Now.Add(-600*time.Second); !got.Equal(want) {
		t.Errorf("Pod(Age 600).CreationTimestamp = %v, want %v", got, want)
	}
	if c := readyCond(&p); c == nil || c.Status != api.ConditionTrue || !c.LastTransitionTime.Time.Equal(Now.Add(-60*time.Second)) {
		t.Errorf("Pod(Ready, ReadyFor 60) Ready condition = %+v, want True since 60s before Now", c)
	}
	if p.UID != "uid-web-a" || p.Annotations[replicas.PodDeletionCost] != "5" || p.Status.ContainerStatuses[0].RestartCount != 2 {
		t.Errorf("Pod() = uid %q, annotations %v, statuses %+v", p.UID, p.Annotations, p.Status.ContainerStatuses)
	}
	if z := Pod(PodState{Name: "z", Age: NoTime}); !z.CreationTimestamp.IsZero() {
		t.Errorf("Pod(Age NoTime).CreationTimestamp = %v, want zero", z.CreationTimestamp)
	}
	after := Apply(Pods(running("web-a"), pending("web-b")), replicas.Plan{Create: 2, Delete: []string{"web-a"}})
	var names []string
	for _, p := range after {
		names = append(names, p.Name)
	}
	if want := []string{"web-b", "web-new-0", "web-new-1"}; !slices.Equal(names, want) {
		t.Errorf("Apply = %v, want %v", names, want)
	}
	if got := bucketStart(api.NewTime(Now.Add(-100*time.Second)), Now); !got.Time.Equal(Now.Add(-time.Duration(1 << 36))) {
		t.Errorf("bucketStart(100s ago) = %v, want 2^36 ns before Now", got)
	}
}
