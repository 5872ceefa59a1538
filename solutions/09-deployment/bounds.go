package deployment

import (
	"math"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/rollout"
)

// Bounds resolves d's maxSurge and maxUnavailable (rollout.BoundsFunc), as
// upstream's MaxSurge and MaxUnavailable (pkg/controller/deployment/util/
// deployment_util.go).
func Bounds(d api.Deployment) rollout.Bounds {
	return rollout.Bounds{MaxSurge: maxSurge(&d), MaxUnavailable: maxUnavailable(&d)}
}

// isRollingUpdate is upstream's IsRollingUpdate.
func isRollingUpdate(d *api.Deployment) bool {
	return d.Spec.Strategy.Type == api.RollingUpdateDeploymentStrategyType
}

// specReplicas is d's spec.replicas, 1 when unset as the apiserver
// defaults it (SetDefaults_Deployment, pkg/apis/apps/v1/defaults.go).
func specReplicas(d *api.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// resolveFenceposts is upstream's ResolveFenceposts: maxSurge rounded up,
// maxUnavailable rounded down, and maxUnavailable 1 when both come to 0 so
// that the rollout can move. A missing value counts as 0 (upstream's
// ValueOrDefault); a value that is not a number or a percentage fails the
// whole resolution, and its callers then take 0 for both, as upstream's
// MaxSurge and MaxUnavailable ignore the error.
func resolveFenceposts(d *api.Deployment) (surge, unavailable int32, ok bool) {
	var s, u *api.IntOrString
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		s, u = ru.MaxSurge, ru.MaxUnavailable
	}
	zero := api.FromInt32(0)
	if s == nil {
		s = &zero
	}
	if u == nil {
		u = &zero
	}
	desired := int(specReplicas(d))
	sv, err := api.GetScaledValueFromIntOrPercent(s, desired, true)
	if err != nil {
		return 0, 0, false
	}
	uv, err := api.GetScaledValueFromIntOrPercent(u, desired, false)
	if err != nil {
		return 0, 0, false
	}
	if sv == 0 && uv == 0 {
		uv = 1
	}
	return clampInt32(sv), clampInt32(uv), true
}

// maxSurge is upstream's MaxSurge: 0 unless d rolls.
func maxSurge(d *api.Deployment) int32 {
	if !isRollingUpdate(d) {
		return 0
	}
	surge, _, _ := resolveFenceposts(d)
	return surge
}

// maxUnavailable is upstream's MaxUnavailable: 0 unless d rolls or when it
// wants no pods, and never more than spec.replicas.
func maxUnavailable(d *api.Deployment) int32 {
	replicas := specReplicas(d)
	if !isRollingUpdate(d) || replicas == 0 {
		return 0
	}
	_, unavailable, _ := resolveFenceposts(d)
	if unavailable > replicas {
		return replicas
	}
	return unavailable
}

// clampInt32 keeps an absurd percentage from wrapping around.
func clampInt32(n int) int32 {
	switch {
	case n > math.MaxInt32:
		return math.MaxInt32
	case n < math.MinInt32:
		return math.MinInt32
	}
	return int32(n)
}
