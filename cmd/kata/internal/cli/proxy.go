package cli

import (
	"errors"
	"fmt"

	"github.com/kubekata/kubekata/harness/cluster/program"
)

// kata proxy rules prints the rules kube-proxy applies in the cluster
// running on --data-dir (default .kata/cluster): exercise 14's Rules over
// the cluster's Services and EndpointSlices, in iptables-save's shape,
// so that a learner can read them beside a real node's
// `iptables-save -t nat`. The cluster's forwarder sends each connection
// to a Service address where these rules say.

func init() {
	register("proxy", &command{
		summary: "print the kube-proxy rules of the running cluster, as iptables-save prints a node's",
		usage:   "proxy rules [--data-dir DIR]",
		run:     runProxy,
	})
}

func runProxy(env *Env, args []string) error {
	if len(args) == 0 || args[0] != "rules" {
		return errUsage
	}
	fs := flags(env, "proxy rules")
	dataDir := fs.String("data-dir", "", "the data directory of the running cluster (default .kata/cluster in the checkout)")
	pos, err := parseArgs(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return errUsage
	}
	dir, err := dataDirFlag(env, *dataDir)
	if err != nil {
		return err
	}
	text, err := program.ProxyRules(env.Ctx, dir)
	if err != nil {
		if errors.Is(err, program.ErrNoCluster) {
			return fmt.Errorf("kata proxy rules: no cluster is running with its data in %s; start one with kata up (--data-dir %s)", dir, dir)
		}
		return fmt.Errorf("kata proxy rules: %s", trimPrefixes(err.Error()))
	}
	if text == "" {
		fmt.Fprintln(env.Stderr, "kata proxy rules: kube-proxy has not synced yet; try again in a moment")
		return nil
	}
	fmt.Fprint(env.Stdout, text)
	return nil
}
