package replicaset

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
)

// Claim decides which pods rs owns, adopts and releases: upstream's
// ClaimPods and claimObject (pkg/controller/controller_ref_manager.go),
// pod by pod in the order given. Upstream rechecks, just before its first
// adoption, that rs is not being deleted (RecheckDeletionTimestamp); here
// rs.DeletionTimestamp decides and the loop GETs rs fresh before it
// adopts.
func Claim(rs *api.ReplicaSet, pods []*api.Pod) replicas.Claim {
	// TODO: return the pods rs owns, adopts and releases, in the order given: orphans that match are adopted, its own pods that no longer match are released, other namespaces and other controllers' pods are left alone (tasks 2-3).
	panic("not implemented: Claim")
}

// validSelector reports whether sel is one metav1.LabelSelectorAsSelector
// accepts (k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go): In and
// NotIn need values, Exists and DoesNotExist take none, and there are no
// other operators. (Label key and value syntax is the apiserver's to
// check.) A nil selector is valid: it selects nothing.
func validSelector(sel *api.LabelSelector) bool {
	// TODO: say whether sel is a selector upstream accepts: In and NotIn with values, Exists and DoesNotExist without, no other operator; nil is valid (task 2).
	panic("not implemented: validSelector")
}

// selectorMatches reports whether labels satisfy sel, as the selector
// metav1.LabelSelectorAsSelector makes of it would (k8s.io/apimachinery/
// pkg/apis/meta/v1/helpers.go, k8s.io/apimachinery/pkg/labels/
// selector.go): nil selects nothing, an empty selector everything, and
// every matchLabels pair and matchExpressions term must hold. It reads
// the selector as it is, without building one, so matching allocates
// nothing. sel must be valid (validSelector).
func selectorMatches(sel *api.LabelSelector, labels map[string]string) bool {
	// TODO: say whether labels satisfy sel: nil matches nothing, {} everything, every matchLabels pair and every matchExpressions requirement must hold (task 2).
	panic("not implemented: selectorMatches")
}
