package remote

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
)

// planArgs are the arguments of replicas.Func.
type planArgs struct {
	Desired int       `json:"desired"`
	Pods    []api.Pod `json:"pods"`
	Now     time.Time `json:"now"`
}

// ReconcileService serves exercise 01's contract, plan.
func ReconcileService(plan replicas.Func) Service {
	return Service{exercise: "01-reconcile", methods: map[string]method{
		"reconcile.Plan": func(c *serverCall) *frame {
			var a planArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			return resultFrame(plan(a.Desired, a.Pods, a.Now), nil)
		},
	}}
}

// Plan is a replicas.Func that calls the program's Plan. The pods cross
// as JSON, as the apiserver would hand them to a controller.
func Plan(p *Program) replicas.Func {
	return func(desired int, pods []api.Pod, now time.Time) replicas.Plan {
		var out replicas.Plan
		p.pure("reconcile.Plan", planArgs{Desired: desired, Pods: pods, Now: now}, &out)
		return out
	}
}
