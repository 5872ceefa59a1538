package nodelifecycletest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of steps 01-08: the rules of Health (1-5), Decide
// (1-4), SwapTaints (1-5), Disruption (1-4), Evict (1-4) and NotReady
// (1-2), and "changes nothing it is given", each broken by one edit of
// the reference's source (solutions/11-nodelifecycle), each failing
// exactly the steps it lists.

func init() {
	addBugs(pureBugs, healthBugs)
	addBugs(pureBugs, taintBugs)
	addBugs(pureBugs, disruptionBugs)
	addBugs(pureBugs, evictBugs)
	addBugs(pureBugs, notReadyBugs)
}

// healthBugs break Health's rules (health.go).
var healthBugs = map[string]planted.Bug{
	// Rule 1: a node that never posted Ready gets the ordinary grace.
	"health-no-startup-grace": {
		Edits: []planted.Edit{{File: "health.go", Old: "grace = in.StartupGracePeriod", New: "grace = in.GracePeriod"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 1: Was empty, not Unknown, for a node with no Ready condition.
	"health-was-empty-without-ready": {
		Edits: []planted.Edit{{File: "health.go", Old: "was := api.ConditionUnknown", New: "var was api.ConditionStatus"}},
		Fails: []string{"01-heard-from", "02-unknown"},
	},
	// Rule 1: Was is always Unknown.
	"health-was-always-unknown": {
		Edits: []planted.Edit{{File: "health.go", Old: "\t\twas = conds[ready].Status\n", New: ""}},
		Fails: []string{"01-heard-from", "02-unknown"},
	},
	// Rule 2: first sight of a node with no Ready condition counts from
	// now, not from its creationTimestamp.
	"health-first-sight-without-ready-now": {
		Edits: []planted.Edit{{File: "health.go", Old: "obs.ProbeTime = node.CreationTimestamp.Time", New: "obs.ProbeTime = in.Now"}},
		Fails: []string{"01-heard-from", "02-unknown"},
	},
	// Rule 2: first sight of a node with a Ready condition counts from
	// its creationTimestamp, not from now.
	"health-first-sight-with-ready-creation": {
		Edits: []planted.Edit{{File: "health.go", Old: "\t\tif ready < 0 {\n\t\t\tobs.ProbeTime = node.CreationTimestamp.Time\n\t\t} else {\n\t\t\tobs.ProbeTime = in.Now\n\t\t}", New: "\t\tobs.ProbeTime = node.CreationTimestamp.Time"}},
		Fails: []string{"01-heard-from", "02-unknown"},
	},
	// Rule 2: a Ready condition that appeared is not news.
	"health-ready-appeared-not-news": {
		Edits: []planted.Edit{{File: "health.go", Old: "// The controller restarted over a node that has posted.\n\t\t\tobs.ProbeTime = in.Now", New: "// The controller restarted over a node that has posted."}},
		Fails: []string{"01-heard-from"},
	},
	// Rule 2: a Ready condition that went away is not news.
	"health-ready-gone-not-news": {
		Edits: []planted.Edit{{File: "health.go", Old: "// status first); the contract keeps it.\n\t\t\tobs.ProbeTime = in.Now", New: "// status first); the contract keeps it."}},
		Fails: []string{"01-heard-from"},
	},
	// Rule 2: a heartbeat that moved is not news.
	"health-heartbeat-ignored": {
		Edits: []planted.Edit{{File: "health.go", Old: "case saved != nil && ready >= 0 && !saved.LastHeartbeatTime.Time.Equal(conds[ready].LastHeartbeatTime.Time):", New: "case false:"}},
		Fails: []string{"01-heard-from"},
	},
	// Rule 2: only a later heartbeat is news (upstream compares for
	// difference).
	"health-heartbeat-must-be-later": {
		Edits: []planted.Edit{{File: "health.go", Old: "!saved.LastHeartbeatTime.Time.Equal(conds[ready].LastHeartbeatTime.Time)", New: "saved.LastHeartbeatTime.Time.Before(conds[ready].LastHeartbeatTime.Time)"}},
		Fails: []string{"01-heard-from"},
	},
	// Rule 2: a change of status with the same heartbeat is taken as
	// news.
	"health-status-change-is-news": {
		Edits: []planted.Edit{{File: "health.go", Old: "!saved.LastHeartbeatTime.Time.Equal(conds[ready].LastHeartbeatTime.Time)", New: "(!saved.LastHeartbeatTime.Time.Equal(conds[ready].LastHeartbeatTime.Time) || saved.Status != conds[ready].Status)"}},
		Fails: []string{"01-heard-from"},
	},
	// Rule 3: a Lease with the renewTime kept counts as renewed.
	"health-lease-same-renew-counts": {
		Edits: []planted.Edit{{File: "health.go", Old: "renew == nil || renew.Time.Before(lease.Time)", New: "renew == nil || !lease.Time.Before(renew.Time)"}},
		Fails: []string{"01-heard-from", "02-unknown"},
	},
	// Rule 3: a Lease counts only against a renewTime kept.
	"health-lease-first-sight-ignored": {
		Edits: []planted.Edit{{File: "health.go", Old: "renew == nil || renew.Time.Before(lease.Time)", New: "renew != nil && renew.Time.Before(lease.Time)"}},
		Fails: []string{"01-heard-from"},
	},
	// Rule 3: the renewTime seen is not kept.
	"health-lease-renew-not-kept": {
		Edits: []planted.Edit{{File: "health.go", Old: "\t\t\trenew = lease\n", New: ""}},
		Fails: []string{"01-heard-from", "02-unknown"},
	},
	// Rule 3: a renewed Lease makes the probe time its renewTime, not now
	// (the controller's own clock).
	"health-lease-probe-renew-time": {
		Edits: []planted.Edit{{File: "health.go", Old: "renew = lease\n\t\t\tobs.ProbeTime = in.Now", New: "renew = lease\n\t\t\tobs.ProbeTime = lease.Time"}},
		Fails: []string{"01-heard-from", "02-unknown"},
	},
	// Rule 4: Unknown at the grace already, not only after it.
	"health-unknown-at-grace": {
		Edits: []planted.Edit{{File: "health.go", Old: "if in.Now.After(obs.ProbeTime.Add(grace)) {", New: "if !in.Now.Before(obs.ProbeTime.Add(grace)) {"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 4: a condition never posted is added with heartbeat now.
	"health-never-updated-heartbeat-now": {
		Edits: []planted.Edit{{File: "health.go", Old: "LastHeartbeatTime:  node.CreationTimestamp,", New: "LastHeartbeatTime:  now,"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 4: a condition never posted gets NodeStatusUnknown.
	"health-never-updated-wrong-reason": {
		Edits: []planted.Edit{{File: "health.go", Old: "Reason:             nodelifecycle.ReasonNodeStatusNeverUpdated,", New: "Reason:             nodelifecycle.ReasonNodeStatusUnknown,"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 4: only a missing Ready condition is added.
	"health-missing-pressures-not-added": {
		Edits: []planted.Edit{{File: "health.go", Old: "\t\t\tcase i < 0:\n", New: "\t\t\tcase i < 0 && typ != api.NodeReady:\n\t\t\t\tcontinue\n\t\t\tcase i < 0:\n"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 4: the missing conditions appended in the reverse of
	// Conditions' order.
	"health-appended-in-reverse": {
		Edits: []planted.Edit{{File: "health.go", Old: "for _, typ := range nodelifecycle.Conditions {", New: "for _, typ := range []api.NodeConditionType{api.NodePIDPressure, api.NodeDiskPressure, api.NodeMemoryPressure, api.NodeReady} {"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 4: a condition turned Unknown gets heartbeat now too.
	"health-unknown-heartbeat-now": {
		Edits: []planted.Edit{{File: "health.go", Old: "\t\t\t\tconds[i].LastTransitionTime = now\n", New: "\t\t\t\tconds[i].LastTransitionTime = now\n\t\t\t\tconds[i].LastHeartbeatTime = now\n"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 4: a condition turned Unknown keeps the kubelet's reason.
	"health-unknown-keeps-reason": {
		Edits: []planted.Edit{{File: "health.go", Old: "\t\t\t\tconds[i].Reason = nodelifecycle.ReasonNodeStatusUnknown\n", New: ""}},
		Fails: []string{"02-unknown"},
	},
	// Rule 4: a condition Unknown already is turned Unknown again (a new
	// reason and lastTransitionTime).
	"health-unknown-rewritten": {
		Edits: []planted.Edit{{File: "health.go", Old: "case conds[i].Status != api.ConditionUnknown:", New: "case true:"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 4: NetworkUnavailable turns Unknown too.
	"health-network-unavailable-unknown": {
		Edits: []planted.Edit{{File: "health.go", Old: "for _, typ := range nodelifecycle.Conditions {", New: "for _, typ := range append([]api.NodeConditionType{api.NodeNetworkUnavailable}, nodelifecycle.Conditions...) {"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 5: any condition changed is written, not only Ready.
	"health-write-any-change": {
		Edits: []planted.Edit{{File: "health.go", Old: "\t\t\tif typ == api.NodeReady {\n\t\t\t\treadyChanged = true\n\t\t\t}\n", New: "\t\t\treadyChanged = true\n"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 5: the status written has only the conditions.
	"health-status-only-conditions": {
		Edits: []planted.Edit{{File: "health.go", Old: "st := api.DeepCopyValue(node.Status)", New: "st := api.NodeStatus{}"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 5: a write makes the probe time now.
	"health-write-resets-probe": {
		Edits: []planted.Edit{{File: "health.go", Old: "\t\tout.Status = &st\n", New: "\t\tout.Status = &st\n\t\tobs.ProbeTime = in.Now\n"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 5: Ready is the status as given, not after the write.
	"health-ready-as-given": {
		Edits: []planted.Edit{{File: "health.go", Old: "out.Ready = c.Status", New: "out.Ready = c.Status\n\t\tif r := nodeConditionIndex(node.Status.Conditions, api.NodeReady); r >= 0 {\n\t\t\tout.Ready = node.Status.Conditions[r].Status\n\t\t}"}},
		Fails: []string{"02-unknown"},
	},
	// Rule 5: Observed.Ready is the node's Ready condition as given, not
	// as written.
	"health-observed-ready-as-given": {
		Edits: []planted.Edit{{File: "health.go", Old: "\t\tobs.Ready = &c\n", New: "\t\tobs.Ready = &c\n\t\tif r := nodeConditionIndex(node.Status.Conditions, api.NodeReady); r >= 0 {\n\t\t\tg := node.Status.Conditions[r]\n\t\t\tobs.Ready = &g\n\t\t}\n"}},
		Fails: []string{"02-unknown"},
	},
	// Health changes nothing it is given: the conditions turned Unknown
	// in the given node's own slice.
	"health-changes-its-input": {
		Edits: []planted.Edit{{File: "health.go", Old: "\t\tconds = append(make([]api.NodeCondition, 0, len(conds)+len(nodelifecycle.Conditions)), conds...)\n", New: ""}},
		Fails: []string{"02-unknown"},
	},
}

// taintBugs break Decide's and SwapTaints' rules (taints.go).
var taintBugs = map[string]planted.Bug{
	// Decide rule 1: False on a node tainted unreachable waits in the
	// queue instead of swapping now.
	"decide-false-never-swaps": {
		Edits: []planted.Edit{{File: "taints.go", Old: "\t\tif hasNoExecuteTaint(taints, api.TaintNodeUnreachable) {\n\t\t\treturn nodelifecycle.Decision{Action: nodelifecycle.Swap}", New: "\t\tif false {\n\t\t\treturn nodelifecycle.Decision{Action: nodelifecycle.Swap}"}},
		Fails: []string{"03-decide"},
	},
	// Decide rule 1: False never requeues.
	"decide-false-never-requeues": {
		Edits: []planted.Edit{{File: "taints.go", Old: "Requeue: !hasNoExecuteTaint(taints, api.TaintNodeNotReady)}", New: "Requeue: false}"}},
		Fails: []string{"03-decide"},
	},
	// Decide rule 1: False requeues when the node lacks the unreachable
	// taint (the wrong one).
	"decide-false-requeue-wrong-taint": {
		Edits: []planted.Edit{{File: "taints.go", Old: "Requeue: !hasNoExecuteTaint(taints, api.TaintNodeNotReady)}", New: "Requeue: !hasNoExecuteTaint(taints, api.TaintNodeUnreachable)}"}},
		Fails: []string{"03-decide"},
	},
	// Decide rule 2: Unknown on a node tainted not-ready waits in the
	// queue instead of swapping now.
	"decide-unknown-never-swaps": {
		Edits: []planted.Edit{{File: "taints.go", Old: "\t\tif hasNoExecuteTaint(taints, api.TaintNodeNotReady) {\n\t\t\treturn nodelifecycle.Decision{Action: nodelifecycle.Swap}", New: "\t\tif false {\n\t\t\treturn nodelifecycle.Decision{Action: nodelifecycle.Swap}"}},
		Fails: []string{"03-decide"},
	},
	// Decide rule 2: Unknown always requeues.
	"decide-unknown-always-requeues": {
		Edits: []planted.Edit{{File: "taints.go", Old: "Requeue: !hasNoExecuteTaint(taints, api.TaintNodeUnreachable)}", New: "Requeue: true}"}},
		Fails: []string{"03-decide"},
	},
	// Decide rule 3: True untaints only a node with taints.
	"decide-true-untaints-only-tainted": {
		Edits: []planted.Edit{{File: "taints.go", Old: "\t\treturn nodelifecycle.Decision{Action: nodelifecycle.Untaint}\n", New: "\t\tif len(taints) == 0 {\n\t\t\treturn nodelifecycle.Decision{}\n\t\t}\n\t\treturn nodelifecycle.Decision{Action: nodelifecycle.Untaint}\n"}},
		Fails: []string{"03-decide"},
	},
	// Decide rule 4: any other status untaints.
	"decide-other-status-untaints": {
		Edits: []planted.Edit{{File: "taints.go", Old: "\t// Rule 4: any other status is left alone (the switch has no default).\n\treturn nodelifecycle.Decision{}", New: "\treturn nodelifecycle.Decision{Action: nodelifecycle.Untaint}"}},
		Fails: []string{"03-decide"},
	},
	// Decide and SwapTaints: a taint counts by its key alone, whatever
	// its effect.
	"taint-matched-by-key-only": {
		Edits: []planted.Edit{{File: "taints.go", Old: "if taints[i].Key == key && taints[i].Effect == api.TaintEffectNoExecute {", New: "if taints[i].Key == key {"}},
		Fails: []string{"03-decide", "04-swap-taints"},
	},
	// Decide and SwapTaints: a taint with a value does not count.
	"taint-value-counts": {
		Edits: []planted.Edit{{File: "taints.go", Old: "if taints[i].Key == key && taints[i].Effect == api.TaintEffectNoExecute {", New: "if taints[i].Key == key && taints[i].Effect == api.TaintEffectNoExecute && taints[i].Value == \"\" {"}},
		Fails: []string{"03-decide", "04-swap-taints"},
	},
	// SwapTaints rule 1: the taint added has no time in timeAdded.
	"swap-added-without-time": {
		Edits: []planted.Edit{{File: "taints.go", Old: "at := api.NewTime(now)", New: "at := api.Time{}"}},
		Fails: []string{"04-swap-taints"},
	},
	// SwapTaints rules 1 and 5: the taint added goes first, not last.
	"swap-added-first": {
		Edits: []planted.Edit{{File: "taints.go", Old: "out = append(out, api.Taint{Key: add, Effect: api.TaintEffectNoExecute, TimeAdded: &at})", New: "out = append([]api.Taint{{Key: add, Effect: api.TaintEffectNoExecute, TimeAdded: &at}}, out...)"}},
		Fails: []string{"04-swap-taints"},
	},
	// SwapTaints rule 1: a taint already there is written afresh, with
	// timeAdded now (upstream's AddOrUpdateTaint).
	"swap-present-taint-refreshed": {
		Edits: []planted.Edit{
			{File: "taints.go", Old: "\t\treturn t.Key == remove\n", New: "\t\treturn t.Key == remove || t.Key == add\n"},
			{File: "taints.go", Old: "missing := add != \"\" && !hasNoExecuteTaint(taints, add)", New: "missing := add != \"\""},
		},
		Fails: []string{"04-swap-taints"},
	},
	// SwapTaints rules 1 and 2: the other taint of the controller stays.
	"swap-other-taint-kept": {
		Edits: []planted.Edit{{File: "taints.go", Old: "\t\treturn t.Key == remove\n", New: "\t\t_ = remove\n\t\treturn false\n"}},
		Fails: []string{"04-swap-taints"},
	},
	// SwapTaints rule 3: True takes off the unreachable taint only.
	"swap-true-keeps-not-ready": {
		Edits: []planted.Edit{{File: "taints.go", Old: "return t.Key == api.TaintNodeNotReady || t.Key == api.TaintNodeUnreachable", New: "return t.Key == api.TaintNodeUnreachable"}},
		Fails: []string{"04-swap-taints"},
	},
	// SwapTaints rule 4: any other status is taken as False.
	"swap-other-status-as-false": {
		Edits: []planted.Edit{{File: "taints.go", Old: "\t\t// Rule 4: nothing to do for any other status.\n\t\treturn taints, false\n", New: "\t\tadd, remove = api.TaintNodeNotReady, api.TaintNodeUnreachable\n"}},
		Fails: []string{"04-swap-taints"},
	},
	// SwapTaints rule 5: the other taints come out in reverse order.
	"swap-order-reversed": {
		Edits: []planted.Edit{{File: "taints.go", Old: "\tfor i := range taints {\n\t\tif drop(&taints[i]) {\n\t\t\tcontinue\n\t\t}", New: "\tfor i := len(taints) - 1; i >= 0; i-- {\n\t\tif drop(&taints[i]) {\n\t\t\tcontinue\n\t\t}"}},
		Fails: []string{"04-swap-taints"},
	},
	// SwapTaints rule 5: the controller's keys are taken off whatever
	// their effect (NoSchedule ones too).
	"swap-drops-any-effect": {
		Edits: []planted.Edit{{File: "taints.go", Old: "\t\tif t.Effect != api.TaintEffectNoExecute {\n\t\t\treturn false\n\t\t}\n", New: ""}},
		Fails: []string{"04-swap-taints"},
	},
	// SwapTaints rule 5: changed is true whatever happened.
	"swap-always-changed": {
		Edits: []planted.Edit{{File: "taints.go", Old: "\tif removed == 0 && !missing {\n\t\treturn taints, false\n\t}", New: "\tif removed == 0 && !missing {\n\t\treturn taints, true\n\t}"}},
		Fails: []string{"04-swap-taints"},
	},
	// SwapTaints changes nothing it is given: the result is built in the
	// given slice's array.
	"swap-changes-its-input": {
		Edits: []planted.Edit{{File: "taints.go", Old: "out := make([]api.Taint, 0, len(taints)-removed+1)", New: "out := taints[:0]"}},
		Fails: []string{"04-swap-taints"},
	},
}

// disruptionBugs break Disruption's rules (disruption.go).
var disruptionBugs = map[string]planted.Bug{
	// Rule 1: only False is unhealthy; Unknown and "" count as healthy.
	"disruption-only-false-unhealthy": {
		Edits: []planted.Edit{{File: "disruption.go", Old: "if s == api.ConditionTrue {", New: "if s != api.ConditionFalse {"}},
		Fails: []string{"05-disruption"},
	},
	// Rule 1: a node with no Ready condition counts as healthy.
	"disruption-empty-healthy": {
		Edits: []planted.Edit{{File: "disruption.go", Old: "if s == api.ConditionTrue {", New: "if s == api.ConditionTrue || s == \"\" {"}},
		Fails: []string{"05-disruption"},
	},
	// Rule 1: Unhealthy counts every node.
	"disruption-unhealthy-counts-all": {
		Edits: []planted.Edit{{File: "disruption.go", Old: "out := nodelifecycle.Disruption{Unhealthy: notReady}", New: "out := nodelifecycle.Disruption{Unhealthy: ready + notReady}"}},
		Fails: []string{"05-disruption"},
	},
	// Rule 2: FullDisruption keeps tainting at the eviction rate (a
	// zone's rate upstream, when some other zone is not fully disrupted).
	"disruption-full-keeps-rate": {
		Edits: []planted.Edit{{File: "disruption.go", Old: "\t\tout.Rate = 0\n", New: "\t\tout.Rate = in.EvictionRate\n"}},
		Fails: []string{"05-disruption"},
	},
	// Rule 2: no nodes is FullDisruption.
	"disruption-empty-cluster-full": {
		Edits: []planted.Edit{{File: "disruption.go", Old: "case ready == 0 && notReady > 0:", New: "case ready == 0:"}},
		Fails: []string{"05-disruption"},
	},
	// Rule 3: two nodes not healthy are enough.
	"disruption-two-unhealthy-partial": {
		Edits: []planted.Edit{{File: "disruption.go", Old: "case notReady > 2 &&", New: "case notReady >= 2 &&"}},
		Fails: []string{"05-disruption"},
	},
	// Rule 3: the threshold itself is not enough.
	"disruption-threshold-strict": {
		Edits: []planted.Edit{{File: "disruption.go", Old: ">= in.UnhealthyThreshold", New: "> in.UnhealthyThreshold"}},
		Fails: []string{"05-disruption"},
	},
	// Rule 3: the share is of the healthy nodes, not of all.
	"disruption-share-of-healthy": {
		Edits: []planted.Edit{{File: "disruption.go", Old: "float64(notReady)/float64(ready+notReady)", New: "float64(notReady)/float64(ready)"}},
		Fails: []string{"05-disruption"},
	},
	// Rule 3: a cluster of exactly LargeClusterThreshold nodes is large.
	"disruption-large-at-threshold": {
		Edits: []planted.Edit{{File: "disruption.go", Old: "if ready+notReady > in.LargeClusterThreshold {", New: "if ready+notReady >= in.LargeClusterThreshold {"}},
		Fails: []string{"05-disruption"},
	},
	// Rule 3: PartialDisruption always keeps the secondary rate.
	"disruption-partial-always-secondary": {
		Edits: []planted.Edit{{File: "disruption.go", Old: "if ready+notReady > in.LargeClusterThreshold {", New: "if true {"}},
		Fails: []string{"05-disruption"},
	},
	// Rule 4: Normal's rate is the default, not the one given.
	"disruption-normal-default-rate": {
		Edits: []planted.Edit{{File: "disruption.go", Old: "\t\tout.Rate = in.EvictionRate\n\t}", New: "\t\tout.Rate = nodelifecycle.DefaultEvictionRate\n\t}"}},
		Fails: []string{"05-disruption"},
	},
}

// evictBugs break Evict's rules (evict.go).
var evictBugs = map[string]planted.Bug{
	// Rule 1: NoSchedule taints count too.
	"evict-every-effect-counts": {
		Edits: []planted.Edit{{File: "evict.go", Old: "\t\tif taints[i].Effect != api.TaintEffectNoExecute {\n\t\t\tcontinue\n\t\t}\n\t\tnoExecute = true", New: "\t\tnoExecute = true"}},
		Fails: []string{"06-tolerate"},
	},
	// Rule 1: no NoExecute taint deletes now.
	"evict-no-taint-deletes": {
		Edits: []planted.Edit{{File: "evict.go", Old: "\tif !noExecute {\n\t\treturn nodelifecycle.Eviction{Never: true}", New: "\tif !noExecute {\n\t\treturn nodelifecycle.Eviction{}"}},
		Fails: []string{"06-tolerate"},
	},
	// Rule 2: an empty effect matches no effect.
	"tolerate-empty-effect-matches-none": {
		Edits: []planted.Edit{{File: "evict.go", Old: "if t.Effect != \"\" && t.Effect != taint.Effect {", New: "if t.Effect != taint.Effect {"}},
		Fails: []string{"06-tolerate", "07-toleration-seconds"},
	},
	// Rule 2: the effect is not looked at.
	"tolerate-effect-ignored": {
		Edits: []planted.Edit{{File: "evict.go", Old: "\tif t.Effect != \"\" && t.Effect != taint.Effect {\n\t\treturn false\n\t}\n", New: ""}},
		Fails: []string{"06-tolerate", "07-toleration-seconds"},
	},
	// Rule 2: an empty key with Exists matches only an empty key.
	"tolerate-empty-key-matches-none": {
		Edits: []planted.Edit{{File: "evict.go", Old: "return t.Key == \"\" || t.Key == taint.Key", New: "return t.Key == taint.Key"}},
		Fails: []string{"06-tolerate", "07-toleration-seconds"},
	},
	// Rule 2: Exists compares the values too.
	"tolerate-exists-compares-value": {
		Edits: []planted.Edit{{File: "evict.go", Old: "return t.Key == \"\" || t.Key == taint.Key", New: "return (t.Key == \"\" || t.Key == taint.Key) && t.Value == taint.Value"}},
		// 07's case of a catch-all toleration for a taint with a value
		// needs Exists to tolerate any value.
		Fails: []string{"06-tolerate", "07-toleration-seconds"},
	},
	// Rule 2: Equal does not compare the values.
	"tolerate-equal-ignores-value": {
		Edits: []planted.Edit{{File: "evict.go", Old: "return t.Key == taint.Key && t.Value == taint.Value", New: "return t.Key == taint.Key"}},
		Fails: []string{"06-tolerate"},
	},
	// Rule 2: an empty key with Equal matches every key (upstream's
	// ToleratesTaint; validation forbids it).
	"tolerate-empty-key-equal": {
		Edits: []planted.Edit{{File: "evict.go", Old: "return t.Key == taint.Key && t.Value == taint.Value", New: "return (t.Key == \"\" || t.Key == taint.Key) && t.Value == taint.Value"}},
		Fails: []string{"06-tolerate"},
	},
	// Rule 2: no operator is not Equal: it tolerates nothing.
	"tolerate-empty-operator-not-equal": {
		Edits: []planted.Edit{{File: "evict.go", Old: "case \"\", api.TolerationOpEqual:", New: "case api.TolerationOpEqual:"}},
		Fails: []string{"06-tolerate"},
	},
	// Rule 2: an operator other than Exists and Equal is taken as Exists.
	"tolerate-unknown-operator-exists": {
		Edits: []planted.Edit{{File: "evict.go", Old: "\tcase api.TolerationOpExists:\n", New: "\tdefault:\n"}},
		Fails: []string{"06-tolerate"},
	},
	// Rule 3: a taint that nothing tolerates leaves the pod alone.
	"evict-untolerated-never": {
		Edits: []planted.Edit{{File: "evict.go", Old: "\t\tif !toleratedByAny(tols, &taints[i]) {\n\t\t\treturn nodelifecycle.Eviction{}", New: "\t\tif !toleratedByAny(tols, &taints[i]) {\n\t\t\treturn nodelifecycle.Eviction{Never: true}"}},
		Fails: []string{"06-tolerate", "07-toleration-seconds"},
	},
	// Rule 3: only the first NoExecute taint must be tolerated.
	"evict-first-taint-only": {
		Edits: []planted.Edit{{File: "evict.go", Old: "\t\tnoExecute = true\n", New: "\t\tif noExecute {\n\t\t\tcontinue\n\t\t}\n\t\tnoExecute = true\n"}},
		Fails: []string{"06-tolerate", "07-toleration-seconds"},
	},
	// Rule 4: tolerationSeconds 0 is taken as no tolerationSeconds.
	"evict-zero-seconds-forever": {
		Edits: []planted.Edit{{File: "evict.go", Old: "if *t.TolerationSeconds <= 0 {", New: "if *t.TolerationSeconds == 0 {\n\t\t\tcontinue\n\t\t}\n\t\tif *t.TolerationSeconds < 0 {"}},
		Fails: []string{"07-toleration-seconds"},
	},
	// Rule 4: a negative tolerationSeconds does not delete now.
	"evict-negative-seconds-not-now": {
		Edits: []planted.Edit{{File: "evict.go", Old: "if *t.TolerationSeconds <= 0 {", New: "if *t.TolerationSeconds == 0 {"}},
		Fails: []string{"07-toleration-seconds"},
	},
	// Rule 4: the greatest tolerationSeconds, not the least.
	"evict-greatest-seconds": {
		Edits: []planted.Edit{{File: "evict.go", Old: "least = min(least, *t.TolerationSeconds)", New: "if least == math.MaxInt64 || *t.TolerationSeconds > least {\n\t\t\tleast = *t.TolerationSeconds\n\t\t}"}},
		Fails: []string{"07-toleration-seconds"},
	},
	// Rule 4: every toleration with tolerationSeconds counts, used or
	// not.
	"evict-unused-tolerations-count": {
		Edits: []planted.Edit{{File: "evict.go", Old: "if t.TolerationSeconds == nil || !firstForSome(tols, j, taints) {", New: "if t.TolerationSeconds == nil {"}},
		Fails: []string{"07-toleration-seconds"},
	},
	// Rule 4: a toleration used for a NoSchedule taint counts.
	"evict-no-schedule-toleration-used": {
		Edits: []planted.Edit{{File: "evict.go", Old: "\t\tif taints[i].Effect != api.TaintEffectNoExecute {\n\t\t\tcontinue\n\t\t}\n\t\tfor k := range tols {", New: "\t\tfor k := range tols {"}},
		Fails: []string{"07-toleration-seconds"},
	},
	// Rule 4: every toleration that tolerates a NoExecute taint is used,
	// not only the first for each taint (a later, shorter one wins).
	"evict-every-matching-toleration": {
		Edits: []planted.Edit{
			{File: "evict.go", Old: "if t.TolerationSeconds == nil || !firstForSome(tols, j, taints) {", New: "if t.TolerationSeconds == nil || !anyNoExecute(t, taints) {"},
			{File: "evict.go", Old: "var _ nodelifecycle.EvictFunc = Evict", New: "var _ nodelifecycle.EvictFunc = Evict\n\nfunc anyNoExecute(t *api.Toleration, taints []api.Taint) bool {\n\tfor i := range taints {\n\t\tif taints[i].Effect == api.TaintEffectNoExecute && tolerates(t, &taints[i]) {\n\t\t\treturn true\n\t\t}\n\t}\n\treturn false\n}"},
		},
		Fails: []string{"07-toleration-seconds"},
	},
	// Rule 4: the tolerations used are looked for on the first NoExecute
	// taint only, not on each.
	"evict-first-toleration-only": {
		Edits: []planted.Edit{
			{File: "evict.go", Old: "\t\t\t\tif k == j {\n\t\t\t\t\treturn true\n\t\t\t\t}\n\t\t\t\tbreak", New: "\t\t\t\treturn k == j"},
		},
		Fails: []string{"07-toleration-seconds"},
	},
	// Rule 4: tolerations with no tolerationSeconds delete now.
	"evict-forever-deletes": {
		Edits: []planted.Edit{{File: "evict.go", Old: "\tif least == math.MaxInt64 {\n\t\treturn nodelifecycle.Eviction{Never: true}", New: "\tif least == math.MaxInt64 {\n\t\treturn nodelifecycle.Eviction{}"}},
		Fails: []string{"06-tolerate", "07-toleration-seconds"},
	},
}

// notReadyBugs break NotReady's rules (notready.go).
var notReadyBugs = map[string]planted.Bug{
	// Rule 1: the Ready condition keeps its lastTransitionTime.
	"not-ready-transition-kept": {
		Edits: []planted.Edit{{File: "notready.go", Old: "\tst.Conditions[i].LastTransitionTime = api.NewTime(now)\n", New: ""}},
		Fails: []string{"08-not-ready"},
	},
	// Rule 1: the Ready condition loses its reason and message.
	"not-ready-reason-cleared": {
		Edits: []planted.Edit{{File: "notready.go", Old: "\tst.Conditions[i].Status = api.ConditionFalse\n", New: "\tst.Conditions[i].Status = api.ConditionFalse\n\tst.Conditions[i].Reason, st.Conditions[i].Message = \"\", \"\"\n"}},
		Fails: []string{"08-not-ready"},
	},
	// Rule 1: the status written has only the conditions.
	"not-ready-status-only-conditions": {
		Edits: []planted.Edit{{File: "notready.go", Old: "st := api.DeepCopyValue(pod.Status)", New: "st := api.DeepCopyValue(api.PodStatus{Conditions: pod.Status.Conditions})"}},
		Fails: []string{"08-not-ready"},
	},
	// Rule 1: the Ready condition goes last.
	"not-ready-condition-moved-last": {
		Edits: []planted.Edit{{File: "notready.go", Old: "\treturn &st\n", New: "\tc := st.Conditions[i]\n\tst.Conditions = append(append(st.Conditions[:i:i], st.Conditions[i+1:]...), c)\n\treturn &st\n"}},
		Fails: []string{"08-not-ready"},
	},
	// Rule 2: Ready False already is written again.
	"not-ready-false-rewritten": {
		Edits: []planted.Edit{{File: "notready.go", Old: "if i < 0 || pod.Status.Conditions[i].Status == api.ConditionFalse {", New: "if i < 0 {"}},
		Fails: []string{"08-not-ready"},
	},
	// Rule 1: only Ready True turns False; Unknown is left.
	"not-ready-unknown-left": {
		Edits: []planted.Edit{{File: "notready.go", Old: "pod.Status.Conditions[i].Status == api.ConditionFalse {", New: "pod.Status.Conditions[i].Status != api.ConditionTrue {"}},
		Fails: []string{"08-not-ready"},
	},
	// NotReady changes nothing it is given: the status shares the pod's
	// conditions.
	"not-ready-changes-its-input": {
		Edits: []planted.Edit{{File: "notready.go", Old: "st := api.DeepCopyValue(pod.Status)", New: "st := pod.Status"}},
		Fails: []string{"08-not-ready"},
	},
}
