package schedulertest_test

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/schedulertest"
)

// The mutants of steps 01-12: the reference with one rule of the pure
// core broken, each by a wrapper around one of NewNodeInfo, Filter, Score
// and Schedule that changes a copy of what goes in or what comes out.
// The wrapped function is the Impl's only: the reference's Schedule keeps
// calling its own filters and scores, so a Filter mutant fails the filter
// steps and not 11-12.

// pure is a mutant that changes the pure functions only (it runs steps
// 01-12).
func pure(change func(ref schedulertest.Impl) schedulertest.Impl, fails ...string) mutant {
	return mutant{change: change, steps: pureSteps, fails: fails}
}

func init() {
	register(map[string]mutant{
		// The exercise's stubs: every function panics "not implemented".
		// Every step fails, each on its own (none hangs or takes the
		// others down).
		"stubs": {whole: func() schedulertest.Impl {
			return schedulertest.Impl{
				NewNodeInfo: func(*api.Node, ...*api.Pod) *framework.NodeInfo { panic("not implemented: NewNodeInfo") },
				Filter:      func(*api.Pod, *framework.NodeInfo) *framework.Status { panic("not implemented: Filter") },
				Score:       func(*api.Pod, []*framework.NodeInfo) []framework.NodePluginScores { panic("not implemented: Score") },
				Schedule: func(*api.Pod, []*framework.NodeInfo, framework.ScheduleOptions) (framework.ScheduleResult, error) {
					panic("not implemented: Schedule")
				},
				NewQueue: func() framework.Queue { panic("not implemented: NewQueue") },
				New:      func(client.Interface, framework.Options) framework.Scheduler { panic("not implemented: New") },
			}
		}, fails: allSteps},
		// A test file that passes no function: every step fails, saying
		// which function is missing.
		"nil-functions": {whole: func() schedulertest.Impl { return schedulertest.Impl{} }, fails: allSteps},

		// 01: NewNodeInfo.
		"requests-not-summed": pure(func(ref schedulertest.Impl) schedulertest.Impl {
			inner := ref.NewNodeInfo
			ref.NewNodeInfo = func(node *api.Node, pods ...*api.Pod) *framework.NodeInfo {
				ni := inner(node, pods...)
				if len(pods) > 1 {
					first := inner(node, pods[0])
					ni.Requested, ni.NonZeroRequested = first.Requested, first.NonZeroRequested
				}
				return ni
			}
			return ref
		}, "01-node-info"),
		"init-containers-summed": pure(podsChanged(func(p *api.Pod) {
			for _, c := range p.Spec.InitContainers {
				c.RestartPolicy = nil
				c.Ports = nil
				p.Spec.Containers = append(p.Spec.Containers, c)
			}
			p.Spec.InitContainers = nil
		}), "01-node-info"),
		"sidecars-as-init-containers": pure(podsChanged(func(p *api.Pod) {
			for i := range p.Spec.InitContainers {
				p.Spec.InitContainers[i].RestartPolicy = nil
			}
		}), "01-node-info"),
		"overhead-ignored": pure(podsChanged(func(p *api.Pod) { p.Spec.Overhead = nil }), "01-node-info"),
		"non-zero-defaults-missing": pure(func(ref schedulertest.Impl) schedulertest.Impl {
			inner := ref.NewNodeInfo
			ref.NewNodeInfo = func(node *api.Node, pods ...*api.Pod) *framework.NodeInfo {
				ni := inner(node, pods...)
				ni.NonZeroRequested = ni.Requested
				return ni
			}
			return ref
		}, "01-node-info"),
		"node-info-changes-its-pods": pure(func(ref schedulertest.Impl) schedulertest.Impl {
			inner := ref.NewNodeInfo
			ref.NewNodeInfo = func(node *api.Node, pods ...*api.Pod) *framework.NodeInfo {
				for _, p := range pods {
					p.Spec.NodeName = node.Name
				}
				return inner(node, pods...)
			}
			return ref
		}, "01-node-info"),

		// 02-07: Filter.
		"node-name-ignored": pure(filterInputs(func(p *api.Pod, _ *framework.NodeInfo) { p.Spec.NodeName = "" }),
			"02-node-unschedulable-and-name", "07-filter-order"),
		"unresolvable-as-unschedulable": pure(filterResult(func(_ *api.Pod, _ *framework.NodeInfo, st *framework.Status) *framework.Status {
			if !st.IsSuccess() && st.Plugin == "NodeResourcesFit" {
				st.Code = framework.Unschedulable
			}
			return st
		}), "03-resources-fit"),
		"fit-reports-first-reason-only": pure(filterResult(func(_ *api.Pod, _ *framework.NodeInfo, st *framework.Status) *framework.Status {
			if !st.IsSuccess() && st.Plugin == "NodeResourcesFit" {
				st.Reasons = st.Reasons[:1]
			}
			return st
		}), "03-resources-fit", "07-filter-order"),
		"notin-misses-absent-label": pure(func(ref schedulertest.Impl) schedulertest.Impl {
			inner := ref.Filter
			ref.Filter = func(pod *api.Pod, node *framework.NodeInfo) *framework.Status {
				st := inner(pod, node)
				if !st.IsSuccess() && st.Plugin != "NodePorts" && st.Plugin != "NodeResourcesFit" {
					return st
				}
				for _, r := range requiredExpressions(pod) {
					if _, has := node.Node.Labels[r.Key]; r.Operator == api.NodeSelectorOpNotIn && !has {
						return notAffine()
					}
				}
				return st
			}
			return ref
		}, "04-node-affinity"),
		"gt-lt-compare-strings": pure(filterInputs(func(p *api.Pod, node *framework.NodeInfo) {
			for _, r := range requiredExpressions(p) {
				if r.Operator != api.NodeSelectorOpGt && r.Operator != api.NodeSelectorOpLt {
					continue
				}
				label, has := node.Node.Labels[r.Key]
				match := has && (r.Operator == api.NodeSelectorOpGt && label > r.Values[0] || r.Operator == api.NodeSelectorOpLt && label < r.Values[0])
				r.Operator, r.Values = api.NodeSelectorOpExists, nil
				if !match {
					r.Key = "no-node-has-this-label"
				}
			}
		}), "04-node-affinity"),
		"noexecute-ignored": pure(filterInputs(func(_ *api.Pod, node *framework.NodeInfo) {
			node.Node.Spec.Taints = slices.DeleteFunc(node.Node.Spec.Taints, func(t api.Taint) bool { return t.Effect == api.TaintEffectNoExecute })
		}), "05-taint-toleration"),
		"exists-with-empty-key-not-all": pure(filterInputs(func(p *api.Pod, _ *framework.NodeInfo) {
			p.Spec.Tolerations = slices.DeleteFunc(p.Spec.Tolerations, func(t api.Toleration) bool { return t.Key == "" && t.Operator == api.TolerationOpExists })
		}), "05-taint-toleration"),
		"host-ip-wildcard-ignored": pure(func(ref schedulertest.Impl) schedulertest.Impl {
			inner := ref.Filter
			ref.Filter = func(pod *api.Pod, node *framework.NodeInfo) *framework.Status {
				// The reference without ports, then ports compared
				// with the IPs taken literally, in NodePorts' place.
				p, n := api.DeepCopy(pod), api.DeepCopyValue(node)
				for i := range p.Spec.Containers {
					p.Spec.Containers[i].Ports = nil
				}
				n.UsedPorts = nil
				st := inner(p, n)
				if !st.IsSuccess() && st.Plugin != "NodeResourcesFit" {
					return st
				}
				for _, c := range pod.Spec.Containers {
					for _, want := range c.Ports {
						if want.HostPort > 0 && slices.Contains(node.UsedPorts, hostPort(want)) {
							return &framework.Status{Code: framework.Unschedulable, Reasons: []string{"node(s) didn't have free ports for the requested pod ports"}, Plugin: "NodePorts"}
						}
					}
				}
				return st
			}
			return ref
		}, "06-node-ports"),
		"node-ports-before-node-affinity": pure(func(ref schedulertest.Impl) schedulertest.Impl {
			inner := ref.Filter
			ref.Filter = func(pod *api.Pod, node *framework.NodeInfo) *framework.Status {
				st := inner(pod, node)
				if st.IsSuccess() || st.Plugin != "NodeAffinity" {
					return st
				}
				p := api.DeepCopy(pod)
				p.Spec.NodeSelector, p.Spec.Affinity = nil, nil
				if later := inner(p, node); !later.IsSuccess() && later.Plugin == "NodePorts" {
					return later
				}
				return st
			}
			return ref
		}, "07-filter-order"),
		"filter-changes-its-pod": pure(func(ref schedulertest.Impl) schedulertest.Impl {
			inner := ref.Filter
			ref.Filter = func(pod *api.Pod, node *framework.NodeInfo) *framework.Status {
				pod.Spec.NodeName = node.Name()
				return inner(pod, node)
			}
			return ref
		}, "02-node-unschedulable-and-name", "03-resources-fit", "04-node-affinity", "05-taint-toleration", "06-node-ports", "07-filter-order"),

		// 08-10: Score.
		"least-allocated-without-non-zero-defaults": pure(func(ref schedulertest.Impl) schedulertest.Impl {
			inner := ref.Score
			ref.Score = func(pod *api.Pod, nodes []*framework.NodeInfo) []framework.NodePluginScores {
				// Explicit zero requests get no default; nodes count
				// what their pods really request.
				p := api.DeepCopy(pod)
				zero := func(cs []api.Container) {
					for i := range cs {
						if cs[i].Resources.Requests == nil {
							cs[i].Resources.Requests = api.ResourceList{}
						}
						for _, r := range []api.ResourceName{api.ResourceCPU, api.ResourceMemory} {
							if _, ok := cs[i].Resources.Requests[r]; !ok {
								cs[i].Resources.Requests[r] = api.MustParse("0")
							}
						}
					}
				}
				zero(p.Spec.Containers)
				zero(p.Spec.InitContainers)
				ns := api.DeepCopyValue(nodes)
				for _, n := range ns {
					n.NonZeroRequested = n.Requested
				}
				return inner(p, ns)
			}
			return ref
		}, "08-least-allocated"),
		"least-allocated-averages-resources-not-offered": pure(func(ref schedulertest.Impl) schedulertest.Impl {
			inner := ref.Score
			ref.Score = func(pod *api.Pod, nodes []*framework.NodeInfo) []framework.NodePluginScores {
				scores := inner(pod, nodes)
				for i, n := range nodes {
					if (n.Allocatable.MilliCPU == 0) == (n.Allocatable.Memory == 0) {
						continue
					}
					// A resource the node does not offer counted as 0.
					for j, p := range scores[i].Scores {
						if p.Name == "NodeResourcesFit" {
							scores[i].Scores[j].Score = p.Score / 2
							scores[i].TotalScore -= p.Score - p.Score/2
						}
					}
				}
				return scores
			}
			return ref
		}, "08-least-allocated"),
		"balanced-allocation-scores-best-effort-pods": pure(scoresChanged(func(pod *api.Pod, scores []framework.NodePluginScores) {
			if requestsSomething(pod) {
				return
			}
			for i := range scores {
				scores[i].Scores = append(scores[i].Scores, framework.PluginScore{Name: "NodeResourcesBalancedAllocation", Score: 100})
				scores[i].TotalScore += 100
			}
		}), "09-balanced-allocation"),
		"taint-toleration-score-not-reversed": pure(scoresChanged(func(_ *api.Pod, scores []framework.NodePluginScores) {
			for i := range scores {
				for j, s := range scores[i].Scores {
					if s.Name == "TaintToleration" {
						scores[i].Scores[j].Score = 300 - s.Score
						scores[i].TotalScore += 300 - 2*s.Score
					}
				}
			}
		}), "10-taint-and-affinity-scores", "11-select-host"),

		// 11: Schedule's choice and search.
		"weights-ignored": pure(reselect(func(scores []framework.NodePluginScores, _ uint64) string {
			weight := map[string]int64{"TaintToleration": 3, "NodeAffinity": 2}
			unweighted := func(s framework.NodePluginScores) (total int64) {
				for _, p := range s.Scores {
					total += p.Score / cmp.Or(weight[p.Name], 1)
				}
				return total
			}
			return slices.MaxFunc(scores, func(a, b framework.NodePluginScores) int { return cmp.Compare(unweighted(a), unweighted(b)) }).Name
		}), "11-select-host"),
		"tie-always-first": pure(reselect(func(scores []framework.NodePluginScores, _ uint64) string {
			best := scores[0]
			for _, s := range scores[1:] {
				if s.TotalScore > best.TotalScore {
					best = s
				}
			}
			return best.Name
		}), "11-select-host"),
		"tie-always-last": pure(reselect(func(scores []framework.NodePluginScores, _ uint64) string {
			best := scores[0]
			for _, s := range scores[1:] {
				if s.TotalScore >= best.TotalScore {
					best = s
				}
			}
			return best.Name
		}), "11-select-host"),
		"percentage-ignored": pure(scheduleOptions(func(o *framework.ScheduleOptions) { o.PercentageOfNodesToScore = 100 }), "11-select-host"),
		"next-start-ignored": pure(scheduleOptions(func(o *framework.ScheduleOptions) { o.NextStartNodeIndex = 0 }), "11-select-host"),
		"schedule-reorders-its-nodes": pure(func(ref schedulertest.Impl) schedulertest.Impl {
			inner := ref.Schedule
			ref.Schedule = func(pod *api.Pod, nodes []*framework.NodeInfo, opts framework.ScheduleOptions) (framework.ScheduleResult, error) {
				slices.SortStableFunc(nodes, func(a, b *framework.NodeInfo) int { return strings.Compare(b.Name(), a.Name()) })
				return inner(pod, nodes, opts)
			}
			return ref
		}, "11-select-host", "12-fit-error"),

		// 12: the FitError.
		"fit-error-reasons-by-count": pure(fitErrorChanged(func(fe *framework.FitError) {
			counts := map[string]int{}
			for _, st := range fe.Diagnosis.NodeToStatus {
				for _, r := range st.Reasons {
					counts[r]++
				}
			}
			reasons := make([]string, 0, len(counts))
			for r := range counts {
				reasons = append(reasons, r)
			}
			slices.SortFunc(reasons, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b)) })
			for i, r := range reasons {
				reasons[i] = fmt.Sprintf("%d %s", counts[r], r)
			}
			fe.Message = fmt.Sprintf("0/%d nodes are available: %s.", fe.NumAllNodes, strings.Join(reasons, ", "))
			if fe.Diagnosis.PostFilterMsg != "" {
				fe.Message += " " + fe.Diagnosis.PostFilterMsg
			}
		}), "12-fit-error"),
		"fit-error-without-preemption": pure(fitErrorChanged(func(fe *framework.FitError) {
			fe.Message = strings.TrimSuffix(fe.Message, " "+fe.Diagnosis.PostFilterMsg)
			fe.Diagnosis.PostFilterMsg = ""
		}), "12-fit-error"),
		"preemption-policy-ignored": pure(func(ref schedulertest.Impl) schedulertest.Impl {
			inner := ref.Schedule
			ref.Schedule = func(pod *api.Pod, nodes []*framework.NodeInfo, opts framework.ScheduleOptions) (framework.ScheduleResult, error) {
				p := api.DeepCopy(pod)
				p.Spec.PreemptionPolicy = nil
				return inner(p, nodes, opts)
			}
			return ref
		}, "12-fit-error"),
	})
}

// podsChanged is NewNodeInfo over copies of the pods changed by change.
func podsChanged(change func(*api.Pod)) func(schedulertest.Impl) schedulertest.Impl {
	return func(ref schedulertest.Impl) schedulertest.Impl {
		inner := ref.NewNodeInfo
		ref.NewNodeInfo = func(node *api.Node, pods ...*api.Pod) *framework.NodeInfo {
			copies := make([]*api.Pod, len(pods))
			for i, p := range pods {
				copies[i] = api.DeepCopy(p)
				change(copies[i])
			}
			return inner(node, copies...)
		}
		return ref
	}
}

// filterInputs is Filter over copies of its inputs changed by change.
func filterInputs(change func(*api.Pod, *framework.NodeInfo)) func(schedulertest.Impl) schedulertest.Impl {
	return func(ref schedulertest.Impl) schedulertest.Impl {
		inner := ref.Filter
		ref.Filter = func(pod *api.Pod, node *framework.NodeInfo) *framework.Status {
			p, n := api.DeepCopy(pod), api.DeepCopyValue(node)
			change(p, n)
			return inner(p, n)
		}
		return ref
	}
}

// filterResult is Filter with its status (a copy) changed by change.
func filterResult(change func(*api.Pod, *framework.NodeInfo, *framework.Status) *framework.Status) func(schedulertest.Impl) schedulertest.Impl {
	return func(ref schedulertest.Impl) schedulertest.Impl {
		inner := ref.Filter
		ref.Filter = func(pod *api.Pod, node *framework.NodeInfo) *framework.Status {
			st := inner(pod, node)
			if st != nil {
				c := *st
				c.Reasons = slices.Clone(st.Reasons)
				st = &c
			}
			return change(pod, node, st)
		}
		return ref
	}
}

// scoresChanged is Score with its result changed by change.
func scoresChanged(change func(*api.Pod, []framework.NodePluginScores)) func(schedulertest.Impl) schedulertest.Impl {
	return func(ref schedulertest.Impl) schedulertest.Impl {
		inner := ref.Score
		ref.Score = func(pod *api.Pod, nodes []*framework.NodeInfo) []framework.NodePluginScores {
			scores := inner(pod, nodes)
			change(pod, scores)
			return scores
		}
		return ref
	}
}

// reselect is Schedule choosing among the same feasible nodes with pick:
// the reference decides how many nodes to search and which fit; the
// feasible ones are scored again and pick chooses.
func reselect(pick func(scores []framework.NodePluginScores, seed uint64) string) func(schedulertest.Impl) schedulertest.Impl {
	return func(ref schedulertest.Impl) schedulertest.Impl {
		inner, filter, score := ref.Schedule, ref.Filter, ref.Score
		ref.Schedule = func(pod *api.Pod, nodes []*framework.NodeInfo, opts framework.ScheduleOptions) (framework.ScheduleResult, error) {
			res, err := inner(pod, nodes, opts)
			if err != nil || res.FeasibleNodes < 2 {
				return res, err
			}
			var feasible []*framework.NodeInfo
			for i := range res.EvaluatedNodes {
				if n := nodes[(opts.NextStartNodeIndex+i)%len(nodes)]; filter(pod, n).IsSuccess() {
					feasible = append(feasible, n)
				}
			}
			res.SuggestedHost = pick(score(pod, feasible), opts.Seed)
			return res, nil
		}
		return ref
	}
}

// scheduleOptions is Schedule with its options changed by change.
func scheduleOptions(change func(*framework.ScheduleOptions)) func(schedulertest.Impl) schedulertest.Impl {
	return func(ref schedulertest.Impl) schedulertest.Impl {
		inner := ref.Schedule
		ref.Schedule = func(pod *api.Pod, nodes []*framework.NodeInfo, opts framework.ScheduleOptions) (framework.ScheduleResult, error) {
			change(&opts)
			return inner(pod, nodes, opts)
		}
		return ref
	}
}

// fitErrorChanged is Schedule with its FitError (a copy) changed by change.
func fitErrorChanged(change func(*framework.FitError)) func(schedulertest.Impl) schedulertest.Impl {
	return func(ref schedulertest.Impl) schedulertest.Impl {
		inner := ref.Schedule
		ref.Schedule = func(pod *api.Pod, nodes []*framework.NodeInfo, opts framework.ScheduleOptions) (framework.ScheduleResult, error) {
			res, err := inner(pod, nodes, opts)
			var fe *framework.FitError
			if errors.As(err, &fe) {
				c := api.DeepCopyValue(*fe)
				change(&c)
				return res, &c
			}
			return res, err
		}
		return ref
	}
}

// requiredExpressions are pointers into the match expressions of pod's
// required node affinity.
func requiredExpressions(pod *api.Pod) []*api.NodeSelectorRequirement {
	var out []*api.NodeSelectorRequirement
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		for i := range terms {
			for j := range terms[i].MatchExpressions {
				out = append(out, &terms[i].MatchExpressions[j])
			}
		}
	}
	return out
}

func notAffine() *framework.Status {
	return &framework.Status{Code: framework.UnschedulableAndUnresolvable, Reasons: []string{"node(s) didn't match Pod's node affinity/selector"}, Plugin: "NodeAffinity"}
}

// hostPort is a container port as NodeInfo.UsedPorts writes it.
func hostPort(p api.ContainerPort) framework.HostPort {
	return framework.HostPort{IP: cmp.Or(p.HostIP, "0.0.0.0"), Protocol: string(cmp.Or(p.Protocol, api.ProtocolTCP)), Port: p.HostPort}
}

// requestsSomething says whether any container of pod requests anything.
func requestsSomething(pod *api.Pod) bool {
	for _, c := range append(slices.Clone(pod.Spec.Containers), pod.Spec.InitContainers...) {
		for _, q := range c.Resources.Requests {
			if !q.IsZero() {
				return true
			}
		}
	}
	return false
}
