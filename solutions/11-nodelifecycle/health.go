package lifecycle

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
)

// Health is what one monitor pass makes of a node (nodelifecycle.HealthFunc):
// upstream's tryUpdateNodeHealth
// (pkg/controller/nodelifecycle/node_lifecycle_controller.go), with the
// node's Lease and what the last pass kept given instead of read from a
// lister and a map. It changes nothing it is given: the status it returns
// is a deep copy, and Observed shares no pointer with the input.
func Health(in nodelifecycle.HealthInput) nodelifecycle.Health {
	node := &in.Node
	conds := node.Status.Conditions
	ready := nodeConditionIndex(conds, api.NodeReady)

	// Rule 1: a node that never posted Ready is treated as if it had
	// posted Ready Unknown at its creation, with the startup grace
	// (tryUpdateNodeHealth's fake observedReadyCondition).
	grace := in.GracePeriod
	was := api.ConditionUnknown
	if ready < 0 {
		grace = in.StartupGracePeriod
	} else {
		was = conds[ready].Status
	}

	// Rule 2: when the controller last heard from the node
	// (tryUpdateNodeHealth's cases on the saved and the current Ready
	// condition).
	var obs nodelifecycle.Observed
	// renew is the Lease renewTime to keep; it points into the input
	// until the end, where it is copied.
	var renew *api.MicroTime
	if in.Observed == nil {
		// No entry yet: a node that never posted counts from its
		// creation, one that did from now (tryUpdateNodeHealth's branch
		// for a node it has no health data of).
		if ready < 0 {
			obs.ProbeTime = node.CreationTimestamp.Time
		} else {
			obs.ProbeTime = in.Now
		}
	} else {
		obs.ProbeTime = in.Observed.ProbeTime
		renew = in.Observed.LeaseRenewTime
		saved := in.Observed.Ready
		switch {
		case saved == nil && ready >= 0:
			// The controller restarted over a node that has posted.
			obs.ProbeTime = in.Now
		case saved != nil && ready < 0:
			// The Ready condition was removed: treated as news.
			// Upstream cannot reach this case (it overwrites the saved
			// status first); the contract keeps it.
			obs.ProbeTime = in.Now
		case saved != nil && ready >= 0 && !saved.LastHeartbeatTime.Time.Equal(conds[ready].LastHeartbeatTime.Time):
			// The kubelet posted a new heartbeat.
			obs.ProbeTime = in.Now
		}
	}

	// Rule 3: a Lease renewed since the last pass is a sign of life,
	// whatever the Ready condition says (tryUpdateNodeHealth compares
	// the Lease's renewTime with the one it kept, on every pass).
	if in.Lease != nil && in.Lease.Spec.RenewTime != nil {
		if lease := in.Lease.Spec.RenewTime; renew == nil || renew.Time.Before(lease.Time) {
			renew = lease
			obs.ProbeTime = in.Now
		}
	}
	if renew != nil {
		t := *renew
		obs.LeaseRenewTime = &t
	}

	out := nodelifecycle.Health{Was: was}
	readyChanged := false
	if in.Now.After(obs.ProbeTime.Add(grace)) {
		// Rule 4: quiet for longer than the grace: every condition the
		// kubelet owns turns Unknown (tryUpdateNodeHealth's loop over
		// nodeConditionTypes). Work on a copy of the conditions; the
		// given node keeps its own.
		conds = append(make([]api.NodeCondition, 0, len(conds)+len(nodelifecycle.Conditions)), conds...)
		now := api.NewTime(in.Now)
		for _, typ := range nodelifecycle.Conditions {
			i := nodeConditionIndex(conds, typ)
			switch {
			case i < 0:
				conds = append(conds, api.NodeCondition{
					Type:               typ,
					Status:             api.ConditionUnknown,
					Reason:             nodelifecycle.ReasonNodeStatusNeverUpdated,
					Message:            nodelifecycle.MessageNodeStatusNeverUpdated,
					LastHeartbeatTime:  node.CreationTimestamp,
					LastTransitionTime: now,
				})
			case conds[i].Status != api.ConditionUnknown:
				conds[i].Status = api.ConditionUnknown
				conds[i].Reason = nodelifecycle.ReasonNodeStatusUnknown
				conds[i].Message = nodelifecycle.MessageNodeStatusUnknown
				conds[i].LastTransitionTime = now
			default:
				continue
			}
			if typ == api.NodeReady {
				readyChanged = true
			}
		}
	}

	// Rule 5: the status is written only when the Ready condition
	// changed (tryUpdateNodeHealth compares observedReadyCondition with
	// currentReadyCondition before UpdateStatus).
	if readyChanged {
		st := api.DeepCopyValue(node.Status)
		st.Conditions = conds
		out.Status = &st
	}
	if i := nodeConditionIndex(conds, api.NodeReady); i >= 0 {
		c := conds[i]
		out.Ready = c.Status
		obs.Ready = &c
	}
	out.Observed = obs
	return out
}

// nodeConditionIndex is the index of the first condition of type typ,
// -1 when there is none (upstream's GetNodeCondition).
func nodeConditionIndex(conds []api.NodeCondition, typ api.NodeConditionType) int {
	for i := range conds {
		if conds[i].Type == typ {
			return i
		}
	}
	return -1
}

var _ nodelifecycle.HealthFunc = Health
