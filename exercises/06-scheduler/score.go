package scheduler

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// A score plugin ranks the feasible nodes (upstream's PreScorePlugin,
// ScorePlugin and ScoreExtensions.NormalizeScore,
// pkg/scheduler/framework/interface.go).
type scorePlugin interface {
	Name() string
	// PreScore says whether the plugin has anything to say about the
	// pod; false is upstream's Skip status.
	PreScore(p *cyclePod) bool
	// Score is the node's raw score.
	Score(p *cyclePod, n *framework.NodeInfo) int64
	// NormalizeScore rescales the raw scores of all the nodes in place,
	// or leaves them.
	NormalizeScore(scores []int64)
}

// scorePlugins are the default profile's scoring plugins that the kata
// runs, in upstream's order, with upstream's weights
// (pkg/scheduler/apis/config/v1/default_plugins.go). Kata
// simplification: ImageLocality, PodTopologySpread and InterPodAffinity
// do not run.
var scorePlugins = []struct {
	plugin scorePlugin
	weight int64
}{
	// TODO: list the four scoring plugins, in upstream's order, each with its weight (tasks 8-10).
}

// Score runs the scoring plugins over the feasible nodes and returns, per
// node in the same order, each plugin's normalized, weighted score and
// the total (upstream's RunScorePlugins). A plugin whose PreScore skips
// the pod is absent from every node's scores.
func Score(pod *api.Pod, nodes []*framework.NodeInfo) []framework.NodePluginScores {
	// TODO: return one NodePluginScores per node, in the nodes' order: each plugin that ran with its weighted score, and their total (tasks 8-10).
	panic("not implemented: Score")
}

// runScorePlugins scores nodes plugin by plugin: raw scores, then
// NormalizeScore over all the nodes, then the weight. Each weighted score
// goes to each, when not nil, and is added to totals, when not nil (as
// long as nodes). It allocates one slice per call, none per node.
func runScorePlugins(p *cyclePod, nodes []*framework.NodeInfo, totals []int64, each func(plugin string, node int, score int64)) {
	// TODO: for each of scorePlugins that PreScore does not skip: score every node, normalize over all of them, multiply by the weight, and hand each weighted score to each and add it to totals when they are not nil (tasks 8-10).
	panic("not implemented: runScorePlugins")
}

// defaultNormalizeScore is upstream's helper.DefaultNormalizeScore
// (plugins/helper/normalize_score.go) with MaxNodeScore: scores scaled so
// that the highest is 100, then reversed (100 - score) if reverse; when
// every score is 0 they stay 0, or all become 100 if reverse.
func defaultNormalizeScore(scores []int64, reverse bool) {
	// TODO: scale the scores so that the highest is 100 (100 * score / highest), then 100 minus that when reverse; when the highest is 0, all become 100 if reverse, else stay 0 (task 10).
	panic("not implemented: defaultNormalizeScore")
}
