package deployment

import (
	"fmt"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/rollout"
)

// benchInput is a Deployment of 100 replicas in the middle of a rolling
// update to image v11, with ten old ReplicaSets (v1..v10, the newest
// holding the old pods) and the new one part way up: the heaviest input
// one sync of a real rollout sees.
func benchInput() rollout.Input {
	d := planDeployment("web", 100, "kata/http-echo:v11")
	d.Status = api.DeploymentStatus{ObservedGeneration: 1, Replicas: 125, UpdatedReplicas: 25, AvailableReplicas: 100}
	var rss []api.ReplicaSet
	for v := 1; v <= 10; v++ {
		n := int32(0)
		if v == 10 {
			n = 100
		}
		rss = append(rss, planRS(d, fmt.Sprintf("kata/http-echo:v%d", v), v, n, 100, 125, time.Duration(v)*time.Minute))
	}
	rss = append(rss, planRS(d, "kata/http-echo:v11", 11, 25, 100, 125, time.Hour))
	return rollout.Input{Deployment: d, ReplicaSets: rss, Now: planT0.Add(2 * time.Hour)}
}

// BenchmarkPlan is one sync's decision over benchInput.
func BenchmarkPlan(b *testing.B) {
	in := benchInput()
	b.ReportAllocs()
	for b.Loop() {
		_ = Plan(in)
	}
}

// BenchmarkPlanBaselineCopy is the baseline of BenchmarkPlan: deep copies
// of the same input's Deployment and ReplicaSets, the least a Plan that
// must not change its input does before it decides anything.
func BenchmarkPlanBaselineCopy(b *testing.B) {
	in := benchInput()
	b.ReportAllocs()
	for b.Loop() {
		_ = api.DeepCopy(&in.Deployment)
		for i := range in.ReplicaSets {
			_ = api.DeepCopy(&in.ReplicaSets[i])
		}
	}
}
