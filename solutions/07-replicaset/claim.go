package replicaset

import (
	"slices"

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
	var c replicas.Claim
	// An invalid selector makes upstream's sync give up before it claims
	// anything (metav1.LabelSelectorAsSelector fails in syncReplicaSet,
	// pkg/controller/replicaset/replica_set.go): neither adopt nor
	// release on a selector the apiserver should have refused.
	if !validSelector(rs.Spec.Selector) {
		return c
	}
	deleting := rs.DeletionTimestamp != nil
	// In steady state rs owns spec.replicas pods: room for them at once
	// saves the growing appends in every sync.
	c.Owned = make([]string, 0, min(max(int(desiredReplicas(rs)), 0), len(pods)))
	for _, pod := range pods {
		// The lister upstream lists rs's namespace only; a pod elsewhere
		// can never be rs's.
		if pod.Namespace != rs.Namespace {
			continue
		}
		// The selector is read only for pods that may be rs's: in a
		// namespace of many ReplicaSets most pods are another's.
		if ref := api.GetControllerOf(pod); ref != nil {
			switch {
			case ref.UID != rs.UID:
				// Another controller's pod, even one of the same kind
				// and name: never touched.
			case selectorMatches(rs.Spec.Selector, pod.Labels):
				// Already ours: keeping it takes no action, so it stays
				// owned even while rs is being deleted.
				c.Owned = append(c.Owned, pod.Name)
			case !deleting:
				// Ours but the labels moved away: let it go, unless rs
				// is on its way out and the garbage collector will
				// handle its pods.
				c.Release = append(c.Release, pod.Name)
			}
			continue
		}
		// An orphan (a non-controller owner reference to rs counts as
		// none): adopt it if rs is alive, its labels match and it is not
		// itself going away.
		if deleting || pod.DeletionTimestamp != nil || !selectorMatches(rs.Spec.Selector, pod.Labels) {
			continue
		}
		c.Adopt = append(c.Adopt, pod.Name)
		c.Owned = append(c.Owned, pod.Name)
	}
	return c
}

// validSelector reports whether sel is one metav1.LabelSelectorAsSelector
// accepts (k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go): In and
// NotIn need values, Exists and DoesNotExist take none, and there are no
// other operators. (Label key and value syntax is the apiserver's to
// check.) A nil selector is valid: it selects nothing.
func validSelector(sel *api.LabelSelector) bool {
	if sel == nil {
		return true
	}
	for _, r := range sel.MatchExpressions {
		switch r.Operator {
		case api.LabelSelectorOpIn, api.LabelSelectorOpNotIn:
			if len(r.Values) == 0 {
				return false
			}
		case api.LabelSelectorOpExists, api.LabelSelectorOpDoesNotExist:
			if len(r.Values) != 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// selectorMatches reports whether labels satisfy sel, as the selector
// metav1.LabelSelectorAsSelector makes of it would (k8s.io/apimachinery/
// pkg/apis/meta/v1/helpers.go, k8s.io/apimachinery/pkg/labels/
// selector.go): nil selects nothing, an empty selector everything, and
// every matchLabels pair and matchExpressions term must hold. It reads
// the selector as it is, without building one, so matching allocates
// nothing. sel must be valid (validSelector).
func selectorMatches(sel *api.LabelSelector, labels map[string]string) bool {
	if sel == nil {
		return false
	}
	for k, v := range sel.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range sel.MatchExpressions {
		v, ok := labels[r.Key]
		switch r.Operator {
		case api.LabelSelectorOpIn:
			if !ok || !slices.Contains(r.Values, v) {
				return false
			}
		case api.LabelSelectorOpNotIn:
			// A pod without the key is not in any set of values.
			if ok && slices.Contains(r.Values, v) {
				return false
			}
		case api.LabelSelectorOpExists:
			if !ok {
				return false
			}
		case api.LabelSelectorOpDoesNotExist:
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}
