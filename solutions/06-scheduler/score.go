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
	{taintToleration{}, 3},
	{nodeAffinity{}, 2},
	{nodeResourcesFit{}, 1},
	{balancedAllocation{}, 1},
}

// Score runs the scoring plugins over the feasible nodes and returns, per
// node in the same order, each plugin's normalized, weighted score and
// the total (upstream's RunScorePlugins). A plugin whose PreScore skips
// the pod is absent from every node's scores.
func Score(pod *api.Pod, nodes []*framework.NodeInfo) []framework.NodePluginScores {
	out := make([]framework.NodePluginScores, len(nodes))
	for i, n := range nodes {
		out[i].Name = n.Name()
	}
	runScorePlugins(newCyclePod(pod), nodes, nil, func(plugin string, node int, score int64) {
		out[node].Scores = append(out[node].Scores, framework.PluginScore{Name: plugin, Score: score})
		out[node].TotalScore += score
	})
	return out
}

// runScorePlugins scores nodes plugin by plugin: raw scores, then
// NormalizeScore over all the nodes, then the weight. Each weighted score
// goes to each, when not nil, and is added to totals, when not nil (as
// long as nodes). It allocates one slice per call, none per node.
func runScorePlugins(p *cyclePod, nodes []*framework.NodeInfo, totals []int64, each func(plugin string, node int, score int64)) {
	scores := make([]int64, len(nodes))
	for _, sp := range scorePlugins {
		if !sp.plugin.PreScore(p) {
			continue
		}
		for i, n := range nodes {
			scores[i] = sp.plugin.Score(p, n)
		}
		sp.plugin.NormalizeScore(scores)
		name := sp.plugin.Name()
		for i := range nodes {
			w := scores[i] * sp.weight
			if totals != nil {
				totals[i] += w
			}
			if each != nil {
				each(name, i, w)
			}
		}
	}
}

// defaultNormalizeScore is upstream's helper.DefaultNormalizeScore
// (plugins/helper/normalize_score.go) with MaxNodeScore: scores scaled so
// that the highest is 100, then reversed (100 - score) if reverse; when
// every score is 0 they stay 0, or all become 100 if reverse.
func defaultNormalizeScore(scores []int64, reverse bool) {
	var highest int64
	for _, s := range scores {
		highest = max(highest, s)
	}
	if highest == 0 {
		if reverse {
			for i := range scores {
				scores[i] = framework.MaxNodeScore
			}
		}
		return
	}
	for i, s := range scores {
		s = framework.MaxNodeScore * s / highest
		if reverse {
			s = framework.MaxNodeScore - s
		}
		scores[i] = s
	}
}
