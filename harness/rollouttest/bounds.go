package rollouttest

import (
	"fmt"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 01: Bounds, upstream's MaxSurge, MaxUnavailable and
// ResolveFenceposts (pkg/controller/deployment/util/deployment_util.go),
// with intstr's GetScaledValueFromIntOrPercent (k8s.io/apimachinery/pkg/
// util/intstr/intstr.go) for a percentage: surge rounded up, unavailable
// rounded down. Each case names the rule of rollout.BoundsFunc that
// decides it; the pairs where an earlier rule overrides a later one that
// also holds say so (DESIGN.md rule 11).
//
// Upstream resolves both values in one ResolveFenceposts call and gives
// up on both when either is malformed (validation keeps such values out
// of a real cluster): MaxSurge and MaxUnavailable then take 0 each, with
// no maxUnavailable of 1. The cases follow upstream.

// boundsCase is one call of Bounds.
type boundsCase struct {
	rule     int
	upstream string
	why      string
	d        api.Deployment
	want     rollout.Bounds
}

// Upstream functions the cases name.
const (
	boundsMaxSurge       = "MaxSurge, ResolveFenceposts"
	boundsMaxUnavailable = "MaxUnavailable, ResolveFenceposts"
	boundsBoth           = "MaxSurge, MaxUnavailable, ResolveFenceposts"
)

// boundsRolling is Deployment web with n replicas and a RollingUpdate
// strategy of surge and unavailable ("25%", "3", ...).
func boundsRolling(n int32, surge, unavailable string) api.Deployment {
	return withStrategy(newDeployment("web", n, "web:1"), api.RollingUpdateDeploymentStrategyType, surge, unavailable)
}

// boundsRecreate is Deployment web with n replicas and the Recreate
// strategy.
func boundsRecreate(n int32) api.Deployment {
	return withStrategy(newDeployment("web", n, "web:1"), api.RecreateDeploymentStrategyType, "", "")
}

func boundsStep(t *suite.T, impl Impl) {
	need(t, "Bounds", impl.Bounds)
	// A Recreate Deployment that still carries rollingUpdate bounds (the
	// kata's apiserver stores what it is sent): the strategy decides.
	recreateWithBounds := boundsRecreate(10)
	recreateWithBounds.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intOrStr("3"), MaxUnavailable: intOrStr("2")}

	boundsRun(t, impl, []boundsCase{
		// Rule 1.
		{1, boundsBoth, "a Recreate Deployment has no bounds: it never runs old and new pods together",
			boundsRecreate(10), rollout.Bounds{}},
		{1, boundsBoth, "a Recreate Deployment has no bounds even when it carries rollingUpdate values: IsRollingUpdate looks at the strategy's type",
			recreateWithBounds, rollout.Bounds{}},
		{1, boundsBoth, "rule 1 over rule 3: a Recreate Deployment's bounds are both 0, and maxUnavailable is not raised to 1",
			boundsRecreate(5), rollout.Bounds{}},

		// Rule 2.
		{2, boundsBoth, "25% of 10 is 2.5: maxSurge rounds up to 3, maxUnavailable down to 2",
			boundsRolling(10, "25%", "25%"), rollout.Bounds{MaxSurge: 3, MaxUnavailable: 2}},
		{2, boundsBoth, "25% of 1 is 0.25: maxSurge rounds up to 1, maxUnavailable down to 0 (not both 0, so rule 3 does not apply)",
			boundsRolling(1, "25%", "25%"), rollout.Bounds{MaxSurge: 1, MaxUnavailable: 0}},
		{2, boundsBoth, "33% of 10 is 3.3: maxSurge 4, maxUnavailable 3",
			boundsRolling(10, "33%", "33%"), rollout.Bounds{MaxSurge: 4, MaxUnavailable: 3}},
		{2, boundsBoth, "a whole percentage needs no rounding: 50% of 8 is 4 each",
			boundsRolling(8, "50%", "50%"), rollout.Bounds{MaxSurge: 4, MaxUnavailable: 4}},
		{2, boundsBoth, "numbers are taken as they are, not as percentages of spec.replicas",
			boundsRolling(10, "3", "2"), rollout.Bounds{MaxSurge: 3, MaxUnavailable: 2}},
		{2, boundsMaxSurge, "maxSurge is never clamped: 5 with 2 replicas is 5",
			boundsRolling(2, "5", "1"), rollout.Bounds{MaxSurge: 5, MaxUnavailable: 1}},
		{2, boundsMaxSurge, "maxSurge is never clamped: 150% of 4 is 6, above spec.replicas",
			boundsRolling(4, "150%", "0"), rollout.Bounds{MaxSurge: 6, MaxUnavailable: 0}},
		{2, boundsBoth, "a number and a percentage mix: surge 0, unavailable 30% of 10 is 3",
			boundsRolling(10, "0", "30%"), rollout.Bounds{MaxSurge: 0, MaxUnavailable: 3}},

		// Rule 3.
		{3, boundsMaxUnavailable, "0% and 10% of 5 both come to 0 (10% of 5 is 0.5, rounded down): maxUnavailable becomes 1 so that the rollout can move",
			boundsRolling(5, "0%", "10%"), rollout.Bounds{MaxSurge: 0, MaxUnavailable: 1}},
		{3, boundsMaxUnavailable, "0 and 0 come to 0: maxUnavailable becomes 1",
			boundsRolling(5, "0", "0"), rollout.Bounds{MaxSurge: 0, MaxUnavailable: 1}},
		{3, boundsMaxUnavailable, "a surge above 0 keeps maxUnavailable 0: only both at 0 raise it",
			boundsRolling(5, "1", "0"), rollout.Bounds{MaxSurge: 1, MaxUnavailable: 0}},

		// Rule 4.
		{4, boundsMaxUnavailable, "maxUnavailable is at most spec.replicas: 20 of 10 is 10",
			boundsRolling(10, "1", "20"), rollout.Bounds{MaxSurge: 1, MaxUnavailable: 10}},
		{4, boundsMaxUnavailable, "maxUnavailable 150% of 4 is 6, clamped to 4",
			boundsRolling(4, "0", "150%"), rollout.Bounds{MaxSurge: 0, MaxUnavailable: 4}},
		{4, boundsMaxUnavailable, "rule 4 over rule 3: with 0 replicas both come to 0, and maxUnavailable is 0, not 1",
			boundsRolling(0, "25%", "25%"), rollout.Bounds{MaxSurge: 0, MaxUnavailable: 0}},
		{4, boundsMaxUnavailable, "with 0 replicas maxUnavailable is 0 whatever it says; maxSurge is still taken as it is",
			boundsRolling(0, "1", "3"), rollout.Bounds{MaxSurge: 1, MaxUnavailable: 0}},

		// A malformed value (rollout.BoundsFunc's last sentence), as
		// upstream: ResolveFenceposts fails as a whole, and MaxSurge and
		// MaxUnavailable ignore the error and take its zeros.
		{2, boundsBoth, "a maxSurge that is neither a number nor a percentage (\"abc\") counts as 0, and so does maxUnavailable with it: upstream resolves both in one ResolveFenceposts call, which fails, and both callers take 0 (not 25% of 8)",
			boundsRolling(8, "abc", "25%"), rollout.Bounds{MaxSurge: 0, MaxUnavailable: 0}},
		{2, boundsBoth, "a percentage that is not a number (maxUnavailable \"x%\") fails the resolution: both are 0, maxSurge too (not 2)",
			boundsRolling(8, "2", "x%"), rollout.Bounds{MaxSurge: 0, MaxUnavailable: 0}},
		{3, boundsMaxUnavailable, "two malformed values give 0 and 0, and maxUnavailable is not raised to 1: rule 3 is part of the resolution that failed",
			boundsRolling(8, "abc", "abc"), rollout.Bounds{MaxSurge: 0, MaxUnavailable: 0}},
	})
}

// boundsRun calls Bounds on each case and checks its result and that it
// changed nothing it was given.
func boundsRun(t *suite.T, impl Impl, cases []boundsCase) {
	t.Helper()
	for _, c := range cases {
		call := "Bounds(" + boundsDescribe(c.d) + ")"
		before := snapshot(c.d)
		got := impl.Bounds(c.d)
		if after := snapshot(c.d); after != before {
			t.Errorf("%s changed its input: %s", call, suite.Diff(after, before))
		}
		if got != c.want {
			t.Errorf("%s = %s, want %s: rule %d (%s): %s", call, boundsString(got), boundsString(c.want), c.rule, c.upstream, c.why)
		}
	}
}

// boundsDescribe prints what Bounds reads of d.
func boundsDescribe(d api.Deployment) string {
	s := fmt.Sprintf("deployment %s replicas %s %s", d.Name, replicasOf(d.Spec.Replicas), d.Spec.Strategy.Type)
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		s += fmt.Sprintf(" surge %q unavailable %q", ru.MaxSurge.String(), ru.MaxUnavailable.String())
	}
	return s
}

func boundsString(b rollout.Bounds) string {
	return fmt.Sprintf("{maxSurge %d, maxUnavailable %d}", b.MaxSurge, b.MaxUnavailable)
}
