package namespace

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/namespaces"
)

// What one kind left behind: namespaces.SweepFunc's three rules and
// namespaces.GraceEstimateFunc's one. Upstream works them out in
// deleteAllContentForGroupVersionResource and
// estimateGracefulTerminationForPods
// (pkg/controller/namespace/deletion/namespaced_resources_deleter.go).

// Sweep says what kind k left in namespace ns after its objects were
// deleted: left are the objects still listed, grace what the pods asked
// for (0 for any other kind). It changes nothing it is given.
func Sweep(ns string, k api.Kind, left []namespaces.Leftover, grace int64) namespaces.KindResult {
	// TODO: Resource is namespaces.ResourceKey(k); nothing left: that is all (rule 1); else count the leftovers and, per finalizer, those carrying it (rule 2); then the estimate: grace, or FinalizerEstimate when a finalizer holds one, or 0 with Err MessageUnexpected (rule 3) (task 2).
	panic("not implemented: Sweep")
}

// GraceEstimate is how many seconds the pods of a namespace ask to stop:
// the largest spec.terminationGracePeriodSeconds among those not
// finished. It changes nothing it is given.
func GraceEstimate(pods []api.Pod) int64 {
	// TODO: skip the pods in phase Succeeded or Failed and those without terminationGracePeriodSeconds; keep the largest, 0 when none (task 2).
	panic("not implemented: GraceEstimate")
}
