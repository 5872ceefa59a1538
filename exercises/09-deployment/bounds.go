package deployment

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/rollout"
)

// Bounds resolves d's maxSurge and maxUnavailable to pod counts by
// rollout.BoundsFunc's four rules: upstream's MaxSurge, MaxUnavailable
// and ResolveFenceposts (pkg/controller/deployment/util/
// deployment_util.go). d is defaulted (rollout.WithDefaults); Bounds
// changes nothing in it.
func Bounds(d api.Deployment) rollout.Bounds {
	// TODO: give a Recreate Deployment {0, 0}; else resolve its rollingUpdate values against spec.replicas with resolveFenceposts, and keep maxUnavailable within spec.replicas (task 1).
	panic("not implemented: Bounds")
}

// resolveFenceposts turns maxSurge and maxUnavailable into pod counts for
// desired replicas (ResolveFenceposts): a number as it is, a percentage of
// desired rounded up for the surge and down for the unavailable (see
// api.GetScaledValueFromIntOrPercent), and maxUnavailable 1 when both
// come to 0. When either is neither a number nor a percentage the whole
// resolution fails, and both are 0.
func resolveFenceposts(maxSurge, maxUnavailable *api.IntOrString, desired int32) (surge, unavailable int32) {
	// TODO: scale both values against desired, surge rounded up and unavailable down; either malformed, return 0, 0; when both are 0, unavailable is 1 (task 1).
	panic("not implemented: resolveFenceposts")
}
