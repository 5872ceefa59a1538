package scheduler

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// Upstream's messages when preemption finds no node to free
// (pkg/scheduler/framework/preemption/preemption.go,
// plugins/defaultpreemption/default_preemption.go).
const (
	msgPreemptionNever      = "not eligible due to preemptionPolicy=Never."
	msgNoVictims            = "No preemption victims found for incoming pod"
	msgPreemptionNotHelpful = "Preemption is not helpful for scheduling"
)

// newFitError is the error of a decision where no node fits: every
// failing node's status, what the preemption step would say, and the
// message upstream prints (FitError.Error, pkg/scheduler/framework/types.go).
func newFitError(p *cyclePod, nodes []*framework.NodeInfo, failed map[string]*framework.Status) *framework.FitError {
	if failed == nil {
		failed = map[string]*framework.Status{}
	}
	fe := &framework.FitError{
		Pod:         p.pod.Namespace + "/" + p.pod.Name,
		NumAllNodes: len(nodes),
		Diagnosis: framework.Diagnosis{
			NodeToStatus:  failed,
			PostFilterMsg: "preemption: " + preemptionMessage(p, nodes, failed),
		},
	}
	fe.Message = fitErrorMessage(fe.NumAllNodes, fe.Diagnosis.NodeToStatus, fe.Diagnosis.PostFilterMsg)
	return fe
}

// fitErrorMessage is FitError.Error: "0/N nodes are available:", then
// each reason with the number of nodes that gave it, sorted as strings
// ("1 Insufficient cpu, 2 node(s) didn't match ..."), then the
// preemption step's message.
func fitErrorMessage(numAllNodes int, statuses map[string]*framework.Status, postFilterMsg string) string {
	counts := map[string]int{}
	for _, s := range statuses {
		for _, r := range s.Reasons {
			counts[r]++
		}
	}
	histogram := make([]string, 0, len(counts))
	for r, c := range counts {
		histogram = append(histogram, fmt.Sprintf("%v %v", c, r))
	}
	sort.Strings(histogram)
	msg := fmt.Sprintf("0/%v nodes are available:", numAllNodes)
	if len(histogram) > 0 {
		msg += fmt.Sprintf(" %v.", strings.Join(histogram, ", "))
	}
	if postFilterMsg != "" {
		msg += " " + postFilterMsg
	}
	return msg
}

// preemptionMessage is what upstream's DefaultPreemption says when it
// finds no node where evicting lower-priority pods makes room (the kata
// never preempts): a pod that may not preempt says so; otherwise each
// node that failed only on something evictions change (Unschedulable) is
// tried without its lower-priority pods (SelectVictimsOnNode), and every
// other node is one where preemption does not help
// (nodesWherePreemptionMightHelp).
func preemptionMessage(p *cyclePod, nodes []*framework.NodeInfo, failed map[string]*framework.Status) string {
	if pp := p.pod.Spec.PreemptionPolicy; pp != nil && *pp == "Never" {
		return msgPreemptionNever
	}
	priority := podPriority(p.pod)
	statuses := make(map[string]*framework.Status, len(nodes))
	for _, ni := range nodes {
		name := ni.Name()
		s, ok := failed[name]
		if !ok || s.Code != framework.Unschedulable {
			statuses[name] = framework.NewStatus(framework.UnschedulableAndUnresolvable, msgPreemptionNotHelpful)
			continue
		}
		statuses[name] = dryRunPreemption(p, ni, priority)
	}
	return fitErrorMessage(len(nodes), statuses, "")
}

// dryRunPreemption removes the pods of lower priority from a copy of the
// node and filters again. Kata simplification: a node where the pod
// would then fit counts as one without victims, since the kata evicts
// nothing (upstream would nominate it and evict).
func dryRunPreemption(p *cyclePod, ni *framework.NodeInfo, priority int32) *framework.Status {
	noVictims := framework.NewStatus(framework.UnschedulableAndUnresolvable, msgNoVictims)
	trial := *ni
	trial.Pods = append([]*api.Pod(nil), ni.Pods...)
	trial.UsedPorts = append([]framework.HostPort(nil), ni.UsedPorts...)
	victims := 0
	for _, pod := range ni.Pods {
		if podPriority(pod) < priority {
			removePodFromNodeInfo(&trial, pod)
			victims++
		}
	}
	if victims == 0 {
		return noVictims
	}
	if s := runFilters(p, &trial); s != nil {
		return s
	}
	return noVictims
}
