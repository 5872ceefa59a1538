package lifecycle

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
)

// When a pod on a tainted node goes: nodelifecycle.EvictFunc's four
// rules. Upstream's taint eviction controller decides in processPodOnNode
// with GetMatchingTolerations and getMinTolerationTime
// (pkg/controller/tainteviction/taint_eviction.go); a toleration
// tolerates a taint by ToleratesTaint (k8s.io/api/core/v1/toleration.go).

// Evict says what the NoExecute taints of a pod's node mean for it:
// Never, or After how long it is to be deleted (0: now). It changes
// nothing it is given.
func Evict(pod api.Pod, taints []api.Taint) nodelifecycle.Eviction {
	// TODO: keep the NoExecute taints (none: Never, rule 1); one that no toleration of the pod tolerates: After 0 (rule 3); else the tolerations used decide: for each NoExecute taint, the first toleration in the pod's order that tolerates it (rule 4, minTolerationTime) (tasks 6, 7).
	panic("not implemented: Evict")
}

// tolerates reports whether toleration t tolerates taint: its effect is
// empty or the taint's, and its key is empty with operator Exists (every
// taint) or the taint's key, with operator Exists (any value) or Equal,
// the default, with the taint's value (ToleratesTaint, rule 2).
func tolerates(t api.Toleration, taint api.Taint) bool {
	// TODO: check the effect, then the key, then the operator and the value; an empty operator means Equal (task 6).
	panic("not implemented: tolerates")
}

// minTolerationTime is rule 4 over the tolerations used: 0 and false
// when one has tolerationSeconds 0 or less (delete now), the least of
// their tolerationSeconds when some have one, and never true when none
// has (getMinTolerationTime).
func minTolerationTime(used []api.Toleration) (after time.Duration, never bool) {
	// TODO: skip tolerations without tolerationSeconds; one ≤ 0 ends it at 0; else keep the least; none with seconds: never (task 7).
	panic("not implemented: minTolerationTime")
}
