package scenario

import (
	"strings"
	"testing"
)

// renew-lease creates a node's Lease as a kubelet does (holderIdentity
// the node, leaseDurationSeconds 40), renews it in the background, and
// stops when told, saying how many renewals there were; bad use is
// refused with a usage line or says what is wrong.
func TestRenewLease(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters")
	}
	cfg := clusterConfig(t)
	cfg.Reference = nil
	ok := writeScenario(t, "renew_ok", `# renew-lease renews in the background
cluster-start
watch-start leases leases/kube-node-lease
renew-lease node-1 50ms
stdout '^renewing lease kube-node-lease/node-1 every 50ms$'
watch-expect leases ADDED node-1 --timeout 10s
get leases/kube-node-lease/node-1 {.spec.holderIdentity}/{.spec.leaseDurationSeconds}
stdout '^node-1/40$'
watch-expect leases MODIFIED node-1 --timeout 10s
watch-expect leases MODIFIED node-1 --timeout 10s
# The second renewal had returned before the third was sent.
renew-lease --stop node-1
stdout '^stopped renewing lease kube-node-lease/node-1 after ([2-9]|[1-9][0-9]+) renewals$'
renew-lease node-1 1h
stdout '^renewing lease kube-node-lease/node-1 every 1h0m0s$'
watch-expect leases MODIFIED node-1 --timeout 10s
`)
	cases := map[string]struct{ script, want string }{
		"usage_renew":       {"cluster-start\nrenew-lease node-1\n", "usage: renew-lease NODE EVERY | renew-lease --stop NODE"},
		"usage_renew-every": {"cluster-start\nrenew-lease node-1 0s\n", "usage: renew-lease NODE EVERY | renew-lease --stop NODE"},
		"renew_neg":         {"cluster-start\n! renew-lease node-1 1s\n", "renew-lease: unsupported with '!'"},
		"renew_no-cluster":  {"renew-lease node-1 1s\n", "renew-lease: no cluster is running (cluster-start first)"},
		"renew_twice":       {"cluster-start\nrenew-lease node-1 1s\nrenew-lease node-1 1s\n", "renew-lease node-1: already renewing it (renew-lease --stop node-1 first)"},
		"renew_stop-none":   {"cluster-start\nrenew-lease --stop node-1\n", "renew-lease --stop node-1: no renew-lease node-1 is running"},
		"usage_start-node":  {"cluster-start --node-monitor-grace-period soon\n", "usage: cluster-start [--reference] [--nodes N] [--admission-policy NAME,...] [--node-monitor-period D] [--node-monitor-grace-period D]"},
	}
	files := []string{ok}
	for name, c := range cases {
		files = append(files, writeScenario(t, name, "# "+name+"\n"+c.script))
	}
	rt := runRecorded(t, Params(cfg, ""), files...)
	if got := rt.results["renew_ok"]; got != "pass" {
		t.Errorf("renew_ok: the scenario %s, want pass\n%s", got, rt.logs["renew_ok"])
	}
	for name, c := range cases {
		if got := rt.results[name]; got != "fail" {
			t.Errorf("%s: the scenario %s, want fail\n%s", name, got, rt.logs[name])
			continue
		}
		if !strings.Contains(rt.logs[name], c.want) {
			t.Errorf("%s: the log does not say %q:\n%s", name, c.want, rt.logs[name])
		}
	}
}
