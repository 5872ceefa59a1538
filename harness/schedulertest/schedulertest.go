// Package schedulertest is the conformance suite of exercise 06, the
// scheduler (seed 000 §2.4), contract harness/framework.
//
// The suite takes the implementation as an Impl of six functions that the
// exercise's one-line test file fills from its package:
//
//	func TestScheduler(t *testing.T) {
//		schedulertest.Run(t, schedulertest.Impl{NewNodeInfo: NewNodeInfo, Filter: Filter, Score: Score, Schedule: Schedule, NewQueue: NewQueue, New: New})
//	}
//
// The suite:
//
//  1. Runs the 17 steps of the manifest in order (suite.Run), each on
//     fresh inputs; a function the test file left nil fails the steps
//     that need it, and a stub's panic fails its step only.
//  2. Steps 01-12 call the pure functions (NewNodeInfo, Filter, Score,
//     Schedule) on inputs built by hand: step 01 checks NewNodeInfo's
//     sums; steps 02-12 build their NodeInfos literally (numbers, not
//     NewNodeInfo), so that each step tests one idea. Every expected
//     value is worked out by hand from upstream's formulas, each case
//     naming its upstream file.
//  3. Every step checks that no input changed: a deep copy before the
//     call is compared with the input after it.
//  4. Steps 13 and 14 drive NewQueue with explicit times: no clock and
//     no sleep.
//  5. Steps 15-17 run New over a fake apiserver client in process, the
//     context cancelled at the step's end, and wait on conditions with
//     deadlines.
//
// BenchSchedule and BenchScheduleNaive are the exercise's decision
// benchmarks (bench.go), BenchSchedulingBasic its loop benchmark
// (bench_loop.go).
//
// The suite's own tests (mutants_test.go) run it against the reference
// in solutions/06-scheduler and against planted bugs, one rule broken
// each, every one in a child process that must fail exactly the steps it
// lists (core_test.go: steps 01-12; loop_test.go: 13-17).
package schedulertest

import (
	"reflect"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/suite"
)

// Impl is the implementation under test.
type Impl struct {
	// NewNodeInfo sums what pods bound to node use (requests, non-zero requests, host ports) and reads its allocatable.
	NewNodeInfo func(node *api.Node, pods ...*api.Pod) *framework.NodeInfo
	// Filter runs the filter plugins on one node in upstream's order and returns the first failing status (its Plugin set), nil when the pod fits.
	Filter func(pod *api.Pod, node *framework.NodeInfo) *framework.Status
	// Score runs the scoring plugins over the feasible nodes and returns, per node in the same order, each plugin's normalized, weighted score and the total.
	Score func(pod *api.Pod, nodes []*framework.NodeInfo) []framework.NodePluginScores
	// Schedule is one decision over all the nodes: filter (as many as percentageOfNodesToScore asks, from NextStartNodeIndex), score, select; a *framework.FitError when none fits.
	Schedule func(pod *api.Pod, nodes []*framework.NodeInfo, opts framework.ScheduleOptions) (framework.ScheduleResult, error)
	// NewQueue returns an empty scheduling queue.
	NewQueue func() framework.Queue
	// New returns the scheduler's loop over the apiserver c.
	New func(c client.Interface, opts framework.Options) framework.Scheduler
}

// Run runs the graded steps of exercise 06-scheduler against impl.
func Run(t *testing.T, impl Impl) {
	t.Helper()
	suite.Run(t, "06-scheduler", Steps(impl))
}

// Steps are the graded steps, in manifest order. Run is what tests call;
// Steps is exported so that the suite's own tests can run one step alone.
func Steps(impl Impl) []suite.Step {
	step := func(id string, run func(t *suite.T, impl Impl)) suite.Step {
		return suite.Step{ID: id, Run: func(t *suite.T) { run(t, impl) }}
	}
	return []suite.Step{
		// 01 in nodeinfo.go; 02-07 in filters.go; 08-10 in scores.go;
		// 11-12 in schedule.go.
		step("01-node-info", nodeInfo),
		step("02-node-unschedulable-and-name", nodeUnschedulableAndName),
		step("03-resources-fit", resourcesFit),
		step("04-node-affinity", nodeAffinity),
		step("05-taint-toleration", taintToleration),
		step("06-node-ports", nodePorts),
		step("07-filter-order", filterOrder),
		step("08-least-allocated", leastAllocated),
		step("09-balanced-allocation", balancedAllocation),
		step("10-taint-and-affinity-scores", taintAndAffinityScores),
		// 11 makes 3,000 decisions and some over 1,000 and 6,000 nodes.
		{ID: "11-select-host", Timeout: time.Minute, Run: func(t *suite.T) { selectHost(t, impl) }},
		step("12-fit-error", fitError),
		// 13-14 in queue.go; 15-17 in loop.go.
		step("13-queue-order-and-backoff", queueOrderAndBackoff),
		step("14-unschedulable-pods", unschedulablePods),
		step("15-bind", bind),
		step("16-unschedulable-and-retry", unschedulableAndRetry),
		step("17-assumed-pods", assumedPods),
	}
}

// need stops the step when the test file left a function out.
func need(t *suite.T, name string, fn any) {
	t.Helper()
	if v := reflect.ValueOf(fn); !v.IsValid() || v.IsNil() {
		t.Fatalf("schedulertest: Impl.%s is nil: the test file must pass your %s function", name, name)
	}
}
