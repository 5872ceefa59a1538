package namespacetest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of steps 01-06: the rules of Decide (1-3), Sweep
// (1-3), GraceEstimate (1), Conditions (1-5), Next (1-3), Finalize (1)
// and ServiceAccountsToCreate (1-2), and "changes nothing it is given",
// each broken by an edit of the reference's source
// (solutions/12-namespace), each failing exactly the steps it lists.

func init() {
	addBugs(pureBugs, decideBugs)
	addBugs(pureBugs, sweepBugs)
	addBugs(pureBugs, conditionsBugs)
	addBugs(pureBugs, nextBugs)
	addBugs(pureBugs, finalizeBugs)
	addBugs(pureBugs, serviceAccountsBugs)
}

// pureEdit is a bug of a single edit of file that fails the steps given.
func pureEdit(file, old, new string, fails ...string) planted.Bug {
	return planted.Bug{Edits: []planted.Edit{{File: file, Old: old, New: new}}, Fails: fails}
}

// decideBugs break Decide's rules (decide.go).
var decideBugs = map[string]planted.Bug{
	// Rule 1: a namespace not being deleted is handled as one that is.
	"decide-ignores-deletion-timestamp": pureEdit("decide.go",
		"if ns.DeletionTimestamp.IsZero() {", "if false {", "01-decide"),
	// Rule 2: a namespace being deleted is never marked Terminating.
	"decide-never-marks-terminating": pureEdit("decide.go",
		"Terminating: ns.Status.Phase != api.NamespaceTerminating,", "Terminating: false,", "01-decide"),
	// Rule 2: only an Active namespace is marked (one with no phase yet
	// is not).
	"decide-marks-only-active": pureEdit("decide.go",
		"Terminating: ns.Status.Phase != api.NamespaceTerminating,", "Terminating: ns.Status.Phase == api.NamespaceActive,", "01-decide"),
	// Rule 2: a namespace with no finalizers is not marked ("whatever
	// rule 3 says").
	"decide-marks-only-when-emptying": pureEdit("decide.go",
		"Terminating: ns.Status.Phase != api.NamespaceTerminating,", "Terminating: ns.Status.Phase != api.NamespaceTerminating && len(ns.Spec.Finalizers) > 0,", "01-decide"),
	// Rule 3: only "kubernetes" (first) counts as a finalizer.
	"decide-empties-only-for-kubernetes": pureEdit("decide.go",
		"Empty: len(ns.Spec.Finalizers) > 0,", "Empty: len(ns.Spec.Finalizers) > 0 && ns.Spec.Finalizers[0] == namespaces.FinalizerKubernetes,", "01-decide"),
	// Rule 3: a namespace being marked is not emptied in the same sync.
	"decide-empties-only-when-terminating": pureEdit("decide.go",
		"Empty: len(ns.Spec.Finalizers) > 0,", "Empty: len(ns.Spec.Finalizers) > 0 && ns.Status.Phase == api.NamespaceTerminating,", "01-decide"),
	// Rule 3: a finalized namespace is emptied again.
	"decide-empties-finalized": pureEdit("decide.go",
		"Empty: len(ns.Spec.Finalizers) > 0,", "Empty: true,", "01-decide"),
}

// sweepBugs break Sweep's and GraceEstimate's rules (sweep.go).
var sweepBugs = map[string]planted.Bug{
	// Sweep rule 1: nothing left goes on to rule 3 (an estimate from the
	// grace, or MessageUnexpected).
	"sweep-nothing-left-not-done": pureEdit("sweep.go",
		"\tif len(left) == 0 {\n\t\treturn r\n\t}\n", "", "02-sweep"),
	// Sweep rule 1: nothing left still waits for the pods' grace.
	"sweep-nothing-left-keeps-grace": pureEdit("sweep.go",
		"\tif len(left) == 0 {\n\t\treturn r\n", "\tif len(left) == 0 {\n\t\tr.Estimate = max(grace, 0)\n\t\treturn r\n", "02-sweep"),
	// Sweep rule 2: Remaining counts finalizer entries, not leftovers.
	"sweep-remaining-counts-finalizers": {Edits: []planted.Edit{
		{File: "sweep.go", Old: "r.Remaining = len(left)", New: "r.Remaining = 0"},
		{File: "sweep.go", Old: "\t\t\tr.Finalizers[f]++\n", New: "\t\t\tr.Finalizers[f]++\n\t\t\tr.Remaining++\n"},
	}, Fails: []string{"02-sweep"}},
	// Sweep rule 2: only the first finalizer of a leftover is counted.
	"sweep-first-finalizer-only": pureEdit("sweep.go",
		"for j, f := range fins {", "for j, f := range fins[:min(1, len(fins))] {", "02-sweep"),
	// Sweep rule 2: a finalizer listed twice on one leftover counts twice
	// (upstream's count of entries; the contract counts leftovers).
	"sweep-finalizer-counted-per-entry": pureEdit("sweep.go",
		"if slices.Contains(fins[:j], f) {", "if false && slices.Contains(fins[:j], f) {", "02-sweep"),
	// Sweep rule 3: a finalizer's FinalizerEstimate wins over the grace.
	"sweep-finalizer-wins-over-grace": pureEdit("sweep.go",
		"case grace > 0:", "case grace > 0 && len(r.Finalizers) == 0:", "02-sweep"),
	// Sweep rule 3: a grace below 0 is taken as a grace.
	"sweep-grace-below-zero-counts": pureEdit("sweep.go",
		"case grace > 0:", "case grace != 0:", "02-sweep"),
	// Sweep rule 3: a finalizer does not make the leftovers expected.
	"sweep-finalizers-unexpected": pureEdit("sweep.go",
		"case len(r.Finalizers) > 0:", "case false:", "02-sweep"),
	// Sweep rule 3: unexpected leftovers are no error.
	"sweep-unexpected-no-error": pureEdit("sweep.go",
		"r.Err = fmt.Sprintf(namespaces.MessageUnexpected, ns, r.Resource)", "_ = fmt.Sprintf(namespaces.MessageUnexpected, ns, r.Resource)", "02-sweep"),
	// Sweep rule 3: MessageUnexpected names the resource without its
	// group ("pods", not "pods.").
	"sweep-unexpected-names-resource": pureEdit("sweep.go",
		"fmt.Sprintf(namespaces.MessageUnexpected, ns, r.Resource)", "fmt.Sprintf(namespaces.MessageUnexpected, ns, k.Resource)", "02-sweep"),
	// GraceEstimate rule 1: finished pods are counted.
	"grace-counts-finished-pods": pureEdit("sweep.go",
		"if p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed {", "if false {", "02-sweep"),
	// GraceEstimate rule 1: a Failed pod is counted.
	"grace-counts-failed-pods": pureEdit("sweep.go",
		"p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed", "p.Status.Phase == api.PodSucceeded", "02-sweep"),
	// GraceEstimate rule 1: only Running pods are counted (a Pending pod
	// has not finished).
	"grace-counts-running-only": pureEdit("sweep.go",
		"p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed", "p.Status.Phase != api.PodRunning", "02-sweep"),
	// GraceEstimate rule 1: the last pod's grace, not the largest.
	"grace-last-pod-wins": pureEdit("sweep.go",
		"g != nil && *g > est {", "g != nil {", "02-sweep"),
}

// conditionsBugs break Conditions's rules (conditions.go).
var conditionsBugs = map[string]planted.Bug{
	// Rule 1: the missing conditions are appended in reverse order.
	"conditions-appended-in-reverse": pureEdit("conditions.go",
		"for _, w := range want {", "for _, w := range slices.Backward(want[:]) {", "03-conditions"),
	// Rule 1: the ok variants have no message.
	"conditions-ok-without-message": pureEdit("conditions.go",
		"Reason: namespaces.OKReasons[typ], Message: namespaces.OKMessages[typ]}", "Reason: namespaces.OKReasons[typ]}", "03-conditions"),
	// Rule 2: a failed kind makes no ContentFailure.
	"conditions-failure-ignored": pureEdit("conditions.go",
		"if len(errs) > 0 {", "if false && len(errs) > 0 {", "03-conditions"),
	// Rule 2: the errors in the order of the results.
	"conditions-failure-unsorted": pureEdit("conditions.go",
		"\t\tslices.Sort(errs)\n", "", "03-conditions"),
	// Rule 2: the count is of all the kinds, not of those that failed.
	"conditions-failure-counts-all": pureEdit("conditions.go",
		"len(errs), strings.Join(errs", "len(results), strings.Join(errs", "03-conditions"),
	// Rule 3: remaining content makes no ContentRemaining.
	"conditions-remaining-ignored": pureEdit("conditions.go",
		"if left = condAddUp(left); len(left) > 0 {", "if left = condAddUp(left); false {", "03-conditions"),
	// Rules 3-4: counts of the same name are not added, the last kept.
	"conditions-counts-not-added": pureEdit("conditions.go",
		"c.n += cs[i].n", "c.n = cs[i].n", "03-conditions"),
	// Rules 3-4: the lists in reverse order.
	"conditions-lists-reversed": pureEdit("conditions.go",
		"\tslices.Sort(lines)\n", "\tslices.Sort(lines)\n\tslices.Reverse(lines)\n", "03-conditions"),
	// Rules 3-4: a count of 0 is named.
	"conditions-names-zero": pureEdit("conditions.go",
		"if c.n > 0 {", "if c.n >= 0 {", "03-conditions"),
	// Rule 4: finalizers holding objects make no FinalizersRemaining.
	"conditions-finalizers-ignored": pureEdit("conditions.go",
		"if held = condAddUp(held); len(held) > 0 {", "if held = condAddUp(held); false {", "03-conditions"),
	// Rule 4: upstream's older reason.
	"conditions-finalizers-old-reason": pureEdit("conditions.go",
		"want[wantFinalizersRemain].Reason = namespaces.ReasonSomeFinalizersRemain", `want[wantFinalizersRemain].Reason = "SomeFinalizerRemain"`, "03-conditions"),
	// Rule 5: a condition present is compared by status only.
	"conditions-compare-status-only": pureEdit("conditions.go",
		"if c.Status == w.Status && c.Reason == w.Reason && c.Message == w.Message {", "if c.Status == w.Status {", "03-conditions"),
	// Rule 5: any change moves lastTransitionTime.
	"conditions-transition-on-any-change": pureEdit("conditions.go",
		"if c.Status != w.Status {", "if true {", "03-conditions"),
	// Rule 5: a change of status keeps lastTransitionTime.
	"conditions-transition-never-moves": pureEdit("conditions.go",
		"if c.Status != w.Status {", "if false {", "03-conditions"),
	// Rule 5: a condition appended has no lastTransitionTime.
	"conditions-appended-without-time": pureEdit("conditions.go",
		"\t\t\tw.LastTransitionTime = ts\n", "", "03-conditions"),
	// Rule 5: changed is always true.
	"conditions-changed-always": pureEdit("conditions.go",
		"changed := false", "changed := true", "03-conditions"),
	// Rule 5: a condition changed in place does not count as a change.
	"conditions-change-in-place-unreported": pureEdit("conditions.go",
		"\t\tc.Status, c.Reason, c.Message = w.Status, w.Reason, w.Message\n\t\tchanged = true\n", "\t\tc.Status, c.Reason, c.Message = w.Status, w.Reason, w.Message\n", "03-conditions"),
	// Rule 5: conditions of other types are dropped.
	"conditions-drop-other-types": pureEdit("conditions.go",
		"\tcopy(out, conds)\n", "\tcopy(out, conds)\n\tout = slices.DeleteFunc(out, func(c api.NamespaceCondition) bool { return !slices.Contains(namespaces.ConditionTypes, c.Type) })\n", "03-conditions"),
	// Rule 5: conds itself is modified.
	"conditions-modify-input": pureEdit("conditions.go",
		"out := make([]api.NamespaceCondition, len(conds), len(conds)+len(want))\n\tcopy(out, conds)", "out := conds", "03-conditions"),
}

// nextBugs break Next's rules (next.go).
var nextBugs = map[string]planted.Bug{
	// Rule 1: an error after an estimate is waited out, not retried.
	"next-estimate-wins-over-error": pureEdit("next.go",
		`if results[i].Err != "" {`, `if results[i].Err != "" && est == 0 {`, "04-next"),
	// Rule 2: the whole estimate, not half of it and a second.
	"next-after-whole-estimate": pureEdit("next.go",
		"secs := est/2 + 1", "secs := est", "04-next"),
	// Rule 2: half the estimate, without the second.
	"next-after-half-estimate": pureEdit("next.go",
		"secs := est/2 + 1", "secs := est / 2", "04-next"),
	// Rule 2: the last estimate, not the largest.
	"next-last-estimate": pureEdit("next.go",
		"est = max(est, results[i].Estimate)", "est = results[i].Estimate", "04-next"),
	// Rule 3: nothing left, and still no Finalize.
	"next-never-finalize": pureEdit("next.go",
		"return namespaces.Step{Finalize: true}", "return namespaces.Step{}", "04-next"),
}

// finalizeBugs break Finalize's rule (finalize.go).
var finalizeBugs = map[string]planted.Bug{
	// Rule 1: "kubernetes" is kept.
	"finalize-keeps-kubernetes": pureEdit("finalize.go",
		"if f != namespaces.FinalizerKubernetes {", "if true {", "05-finalize"),
	// Rule 1: only the first "kubernetes" is removed.
	"finalize-removes-first-kubernetes-only": pureEdit("finalize.go",
		"\tfor _, f := range finalizers {\n\t\tif f != namespaces.FinalizerKubernetes {\n\t\t\tout = append(out, f)\n\t\t}\n\t}\n",
		"\tout = append(out, finalizers...)\n\tif i := slices.Index(out, namespaces.FinalizerKubernetes); i >= 0 {\n\t\tout = slices.Delete(out, i, i+1)\n\t}\n", "05-finalize"),
	// Rule 1: the others in their order, not sorted.
	"finalize-unsorted": pureEdit("finalize.go",
		"\tslices.Sort(out)\n", "", "05-finalize"),
	// Rule 1: the others kept as often as they are listed.
	"finalize-keeps-duplicates": pureEdit("finalize.go",
		"return slices.Compact(out)", "return out", "05-finalize"),
	// Rule 1: nothing left is nil.
	"finalize-nil-when-empty": pureEdit("finalize.go",
		"out := make([]api.FinalizerName, 0, len(finalizers))", "var out []api.FinalizerName", "05-finalize"),
	// Rule 1: the finalizers are filtered in place (finalizers itself is
	// modified).
	"finalize-in-place": pureEdit("finalize.go",
		"out := make([]api.FinalizerName, 0, len(finalizers))", "out := finalizers[:0]", "05-finalize"),
}

// serviceAccountsBugs break ServiceAccountsToCreate's rules
// (serviceaccounts.go).
var serviceAccountsBugs = map[string]planted.Bug{
	// Rule 1: any namespace gets its ServiceAccounts.
	"sa-ignores-phase": pureEdit("serviceaccounts.go",
		"if ns.Status.Phase != api.NamespaceActive {", "if false {", "06-service-accounts"),
	// Rule 1: only a Terminating namespace is skipped (one with no phase
	// yet is not).
	"sa-skips-terminating-only": pureEdit("serviceaccounts.go",
		"if ns.Status.Phase != api.NamespaceActive {", "if ns.Status.Phase == api.NamespaceTerminating {", "06-service-accounts"),
	// Rule 1: the deletionTimestamp decides, not the phase.
	"sa-skips-deleted": pureEdit("serviceaccounts.go",
		"if ns.Status.Phase != api.NamespaceActive {", "if ns.DeletionTimestamp != nil {", "06-service-accounts"),
	// Rule 2: the names there already are created again.
	"sa-ignores-have": pureEdit("serviceaccounts.go",
		"slices.Contains(have, name) || ", "", "06-service-accounts"),
	// Rule 2: a name wanted twice is created twice.
	"sa-duplicates": pureEdit("serviceaccounts.go",
		" || slices.Contains(out, name)", "", "06-service-accounts"),
	// Rule 2: sorted, not in want's order.
	"sa-sorted": pureEdit("serviceaccounts.go",
		"\treturn out\n", "\tslices.Sort(out)\n\treturn out\n", "06-service-accounts"),
}
