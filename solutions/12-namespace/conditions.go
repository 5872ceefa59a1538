package namespace

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/namespaces"
)

// Conditions are the namespace's deletion conditions after a pass
// (namespaces.ConditionsFunc): upstream's namespaceConditionUpdater, its
// ProcessContentTotals, makeDeleteContentCondition and updateConditions
// (pkg/controller/namespace/deletion/status_condition_utils.go), over the
// totals deleteAllContent adds up
// (pkg/controller/namespace/deletion/namespaced_resources_deleter.go).
// The result is a new slice; conds is not modified.
func Conditions(conds []api.NamespaceCondition, results []namespaces.KindResult, now time.Time) ([]api.NamespaceCondition, bool) {
	want := wantConditions(results)

	// Rule 5: merge into a copy of conds (updateConditions).
	out := make([]api.NamespaceCondition, len(conds), len(conds)+len(want))
	copy(out, conds)
	ts := api.NewTime(now)
	changed := false
	for _, w := range want {
		i := conditionIndex(out, w.Type)
		if i < 0 {
			// A type missing is appended, its transition now.
			w.LastTransitionTime = ts
			out = append(out, w)
			changed = true
			continue
		}
		c := &out[i]
		if c.Status == w.Status && c.Reason == w.Reason && c.Message == w.Message {
			continue
		}
		// A type present that differs changes where it is; its
		// transition time moves only with its status.
		if c.Status != w.Status {
			c.LastTransitionTime = ts
		}
		c.Status, c.Reason, c.Message = w.Status, w.Reason, w.Message
		changed = true
	}
	return out, changed
}

// The places in namespaces.ConditionTypes of the three conditions a pass
// can find failing.
const (
	wantContentFailure   = 2 // namespaces.ConditionContentFailure
	wantContentRemaining = 3 // namespaces.ConditionContentRemaining
	wantFinalizersRemain = 4 // namespaces.ConditionFinalizersRemain
)

// wantConditions are the five conditions a pass with results asks for,
// in ConditionTypes' order, without their transition times.
func wantConditions(results []namespaces.KindResult) [5]api.NamespaceCondition {
	var want [5]api.NamespaceCondition
	// Rule 1: every type starts at its ok variant (newSuccessfulCondition);
	// discovery and group version parsing never fail here.
	for i, typ := range namespaces.ConditionTypes {
		want[i] = api.NamespaceCondition{Type: typ, Status: api.ConditionFalse, Reason: namespaces.OKReasons[typ], Message: namespaces.OKMessages[typ]}
	}

	// Rule 2: the kinds that failed (makeDeleteContentCondition: their
	// errors sorted and joined, with their count).
	var errs []string
	for i := range results {
		if results[i].Err != "" {
			errs = append(errs, results[i].Err)
		}
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		want[wantContentFailure].Status = api.ConditionTrue
		want[wantContentFailure].Reason = namespaces.ReasonContentDeletionFailed
		want[wantContentFailure].Message = fmt.Sprintf(namespaces.MessageContentFailure, len(errs), strings.Join(errs, ", "))
	}

	// Rule 3: the resources that remain, counts of the same resource added
	// (deleteAllContent's gvrToNumRemaining, ProcessContentTotals).
	left := make([]condCount, 0, len(results))
	for i := range results {
		if results[i].Remaining > 0 {
			left = append(left, condCount{results[i].Resource, results[i].Remaining})
		}
	}
	if left = condAddUp(left); len(left) > 0 {
		want[wantContentRemaining].Status = api.ConditionTrue
		want[wantContentRemaining].Reason = namespaces.ReasonSomeResourcesRemain
		want[wantContentRemaining].Message = fmt.Sprintf(namespaces.MessageContentRemaining, condList(left, "%s has %d resource instances"))
	}

	// Rule 4: the finalizers that hold objects, counts of all results
	// added per finalizer (deleteAllContent's finalizersToNumRemaining).
	nHeld := 0
	for i := range results {
		nHeld += len(results[i].Finalizers)
	}
	held := make([]condCount, 0, nHeld)
	for i := range results {
		for f, n := range results[i].Finalizers {
			held = append(held, condCount{f, n})
		}
	}
	if held = condAddUp(held); len(held) > 0 {
		want[wantFinalizersRemain].Status = api.ConditionTrue
		want[wantFinalizersRemain].Reason = namespaces.ReasonSomeFinalizersRemain
		want[wantFinalizersRemain].Message = fmt.Sprintf(namespaces.MessageFinalizersRemain, condList(held, "%s in %d resource instances"))
	}
	return want
}

// condCount is a number of objects under a name: a resource's or a
// finalizer's.
type condCount struct {
	name string
	n    int
}

// condAddUp adds the counts of the same name together, in place, and drops
// the totals that are not above 0 (upstream names no 0).
func condAddUp(cs []condCount) []condCount {
	slices.SortFunc(cs, func(a, b condCount) int { return cmp.Compare(a.name, b.name) })
	out := cs[:0]
	for i := 0; i < len(cs); {
		c := cs[i]
		for i++; i < len(cs) && cs[i].name == c.name; i++ {
			c.n += cs[i].n
		}
		if c.n > 0 {
			out = append(out, c)
		}
	}
	return out
}

// condList formats each count with format, sorts the lines (upstream
// sorts them "for stable updates") and joins them with ", ".
func condList(cs []condCount, format string) string {
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = fmt.Sprintf(format, c.name, c.n)
	}
	slices.Sort(lines)
	return strings.Join(lines, ", ")
}

// conditionIndex is the index of the first condition of type typ, -1
// when there is none (upstream's getCondition).
func conditionIndex(conds []api.NamespaceCondition, typ string) int {
	for i := range conds {
		if conds[i].Type == typ {
			return i
		}
	}
	return -1
}

var _ namespaces.ConditionsFunc = Conditions
