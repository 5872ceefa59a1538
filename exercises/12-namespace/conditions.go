package namespace

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/namespaces"
)

// The namespace's deletion conditions: namespaces.ConditionsFunc's five
// rules. Upstream builds them in namespaceConditionUpdater
// (ProcessContentTotals, makeDeleteContentCondition) and writes them over
// the old ones in updateConditions
// (pkg/controller/namespace/deletion/status_condition_utils.go).

// Conditions returns the namespace's conditions after a pass whose kinds
// gave results, at now, and whether they differ from conds. It changes
// nothing it is given.
func Conditions(conds []api.NamespaceCondition, results []namespaces.KindResult, now time.Time) ([]api.NamespaceCondition, bool) {
	// TODO: build the five wanted conditions in ConditionTypes order: discovery and parsing ok (rule 1); content failure from the Errs (rule 2); content remaining from the counts per resource (rule 3); finalizers remaining from the counts per finalizer (rule 4); then merge them into a copy of conds (rule 5) (task 3).
	panic("not implemented: Conditions")
}

// wanted is rules 1 to 4: the five conditions a pass with these results
// calls for, in namespaces.ConditionTypes order, each with status, reason
// and message (okCondition for those not failing).
func wanted(results []namespaces.KindResult) []api.NamespaceCondition {
	// TODO: gather the sorted Errs, the Remaining per Resource and the counts per finalizer (summed, 0 left out), and make each condition True with its reason and message, or its ok variant (task 3).
	panic("not implemented: wanted")
}

// okCondition is the ok variant of condition type typ: status False,
// namespaces.OKReasons and namespaces.OKMessages (newSuccessfulCondition).
func okCondition(typ string) api.NamespaceCondition {
	// TODO: type, False, the ok reason and message (task 3).
	panic("not implemented: okCondition")
}

// merge is rule 5 (updateConditions): each of want into a copy of conds,
// appended when missing, changed in place when its status, reason or
// message differs (lastTransitionTime now only when the status changed).
func merge(conds, want []api.NamespaceCondition, now time.Time) ([]api.NamespaceCondition, bool) {
	// TODO: copy conds; for each wanted condition find its type, append or change it, and say whether anything changed (task 3).
	panic("not implemented: merge")
}
