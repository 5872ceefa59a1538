package namespace

import (
	"math"
	"time"

	"github.com/kubekata/kubekata/harness/namespaces"
)

// Next says what follows a pass (namespaces.NextFunc): upstream's
// deleteAllContent (its aggregated error and estimate,
// pkg/controller/namespace/deletion/namespaced_resources_deleter.go) as
// syncNamespaceFromKey acts on them
// (pkg/controller/namespace/namespace_controller.go).
func Next(results []namespaces.KindResult) namespaces.Step {
	var est int64
	for i := range results {
		// Rule 1: any kind's error is the pass's error: the key goes back
		// with back-off (syncNamespaceFromKey returns it to the worker,
		// which calls AddRateLimited).
		if results[i].Err != "" {
			return namespaces.Step{Retry: true}
		}
		est = max(est, results[i].Estimate)
	}
	// Rule 2: content remains that is expected to go: look again after
	// half the estimate and a second (the ResourcesRemainingError branch
	// of syncNamespaceFromKey, AddAfter estimate/2+1 seconds). An estimate
	// too large for a Duration waits as long as a Duration can.
	if est > 0 {
		secs := est/2 + 1
		if secs > int64(math.MaxInt64/time.Second) {
			return namespaces.Step{After: time.Duration(math.MaxInt64)}
		}
		return namespaces.Step{After: time.Duration(secs) * time.Second}
	}
	// Rule 3: nothing left: finalize (Delete's finalizeNamespace).
	return namespaces.Step{Finalize: true}
}

var _ namespaces.NextFunc = Next
