package replicasettest

import "github.com/kubekata/kubekata/harness/suite"

// loopSteps are steps 06-15, the controller's loop (helper B writes
// them; until then each fails).
func loopSteps(impl Impl) []suite.Step {
	ids := []string{"06-create", "07-carry-out-plan", "08-self-heal", "09-adopt-release",
		"10-expectations-in-flight", "11-burst", "12-slow-start", "13-events",
		"14-status-updates", "15-workers"}
	steps := make([]suite.Step, len(ids))
	for i, id := range ids {
		steps[i] = suite.Step{ID: id, Run: func(t *suite.T) { t.Fatal("replicasettest: step not written yet") }}
	}
	return steps
}
