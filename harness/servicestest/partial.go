package servicestest

// Steps 24-25: kube-proxy's partial sync. Since MinimizeIPTablesRestore
// went GA (1.28), syncProxyRules in pkg/proxy/iptables/proxier.go writes
// the KUBE-SVC- and KUBE-SEP- chains of a Service only when the Service
// or its EndpointSlices changed since the last sync (the others go to a
// buffer it throws away), writes the filter table and the nat table's
// top-level chains whole every time, and ends with "Delete chains no
// longer in use": each Service chain iptables-save lists that no Service
// uses is declared (flushed) and deleted with -X. The text goes to
// iptables-restore --noflush, which leaves every chain the text does not
// name as it was.
//
// The suite holds the node's tables in harness/iptables. Each case
// restores the implementation's own full sync (Rules) of the Services
// before a change, then its PartialRules of the Services after it, and
// wants the tables its own Rules of the Services after the change leaves
// on fresh tables: so a partial sync is checked against the learner's
// full sync, never against the suite's idea of the rules (steps 11-16
// check those): a bug that Rules and PartialRules share costs these
// steps nothing.
//
// Step 24 checks what the text writes (only the chains of the Services
// in changed; the filter table and the top-level chains whole); step 25
// what it deletes (every Service chain no Service uses, and nothing
// else), on tables that also hold the chains of other programs, and then
// 20 pseudo-random changes synced one after the other.

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/iptables"
	"github.com/kubekata/kubekata/harness/suite"
)

// ---------------------------------------------------------------- fixtures

// kpCluster is the Services and EndpointSlices kube-proxy sees.
type kpCluster struct {
	svcs   []api.Service
	slices []api.EndpointSlice
}

func (c kpCluster) clone() kpCluster {
	return kpCluster{api.DeepCopyValue(c.svcs), api.DeepCopyValue(c.slices)}
}

// kpPartialBase is the cluster every case of steps 24-25 starts from:
// two Services named web in two namespaces, one that rejects (no
// endpoint), one with a UDP and a TCP port, one with an unnamed port.
func kpPartialBase() kpCluster {
	return kpCluster{
		svcs: []api.Service{
			kpService("default", "web", "10.96.0.10", kpSvcPort("http", api.ProtocolTCP, 80, api.FromString("http"))),
			kpService("other", "web", "10.96.0.11", kpSvcPort("http", api.ProtocolTCP, 80, api.FromString("http"))),
			kpService("default", "db", "10.96.0.20", kpTcpPort("pg", 5432)),
			kpService("kube-system", "kube-dns", "10.96.0.53",
				kpSvcPort("dns", api.ProtocolUDP, 53, api.FromInt32(53)), kpTcpPort("dns-tcp", 53)),
			kpService("demo", "echo", "10.96.0.30", kpSvcPort("", api.ProtocolTCP, 80, api.FromInt32(5678))),
		},
		slices: []api.EndpointSlice{
			kpSlice("default", "web", "web-abc12", kpEPorts("http", 8080), kpReadyEps("10.244.1.5", "10.244.1.6")...),
			kpSlice("other", "web", "web-xyz98", kpEPorts("http", 8080), kpReadyEp("10.244.2.5")),
			kpSlice("default", "db", "db-k3j4h", kpEPorts("pg", 5432)),
			kpSlice("kube-system", "kube-dns", "kube-dns-x7k2p",
				[]api.EndpointPort{kpEPort("dns", api.ProtocolUDP, 53), kpEPort("dns-tcp", api.ProtocolTCP, 53)}, kpReadyEp("10.244.0.2")),
			kpSlice("demo", "echo", "echo-q9w8e", kpEPorts("", 5678), kpReadyEps("10.244.3.4", "10.244.3.5", "10.244.3.6")...),
		},
	}
}

// sliceOf is the slice of the Service "ns/name", nil if none.
func (c *kpCluster) sliceOf(key string) *api.EndpointSlice {
	for i := range c.slices {
		s := &c.slices[i]
		if s.Namespace+"/"+s.Labels[api.LabelServiceName] == key {
			return s
		}
	}
	return nil
}

// service is the Service "ns/name", nil if none.
func (c *kpCluster) service(key string) *api.Service {
	for i := range c.svcs {
		if c.svcs[i].Namespace+"/"+c.svcs[i].Name == key {
			return &c.svcs[i]
		}
	}
	return nil
}

func (c *kpCluster) addEndpoint(key, ip string) {
	s := c.sliceOf(key)
	s.Endpoints = append(s.Endpoints, kpReadyEp(ip))
}

func (c *kpCluster) removeEndpoint(key, ip string) {
	s := c.sliceOf(key)
	s.Endpoints = slices.DeleteFunc(s.Endpoints, func(e api.Endpoint) bool { return e.Addresses[0] == ip })
}

// setReady makes an endpoint ready, or neither ready nor serving (a pod
// that fails its readiness probe).
func (c *kpCluster) setReady(key, ip string, ready bool) {
	s := c.sliceOf(key)
	for i := range s.Endpoints {
		if s.Endpoints[i].Addresses[0] == ip {
			s.Endpoints[i] = kpEp(ip, ready, ready, false)
		}
	}
}

func (c *kpCluster) deleteService(key string) {
	c.svcs = slices.DeleteFunc(c.svcs, func(s api.Service) bool { return s.Namespace+"/"+s.Name == key })
	c.slices = slices.DeleteFunc(c.slices, func(s api.EndpointSlice) bool {
		return s.Namespace+"/"+s.Labels[api.LabelServiceName] == key
	})
}

// renamePort renames a port of a Service and of its slice.
func (c *kpCluster) renamePort(key, from, to string) {
	svc := c.service(key)
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Name == from {
			svc.Spec.Ports[i].Name = to
			if svc.Spec.Ports[i].TargetPort == api.FromString(from) {
				svc.Spec.Ports[i].TargetPort = api.FromString(to)
			}
		}
	}
	s := c.sliceOf(key)
	for i := range s.Ports {
		if p := s.Ports[i].Name; p != nil && *p == from {
			name := to
			s.Ports[i].Name = &name
		}
	}
}

// kpChanged names the Services that differ between two clusters, the
// Service itself or its slices, as kube-proxy's change trackers do
// (UpdatedServices of pkg/proxy/servicechangetracker.go and
// endpointschangetracker.go): sorted, then reversed, because a set comes
// in no particular order and an implementation must not sort the
// caller's.
func kpChanged(before, after kpCluster) []string {
	state := func(c kpCluster) map[string]string {
		m := map[string]string{}
		for _, s := range c.svcs {
			m[s.Namespace+"/"+s.Name] += snapshot(s)
		}
		for _, s := range c.slices {
			m[s.Namespace+"/"+s.Labels[api.LabelServiceName]] += snapshot(s)
		}
		return m
	}
	b, a := state(before), state(after)
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out
}

// kpNodeText are chains other programs keep in a node's tables, restored
// before kube-proxy's first sync in step 25: the kubelet's
// KUBE-MARK-DROP and canaries, kube-proxy's own canary, a CNI plugin's
// and Docker's chains, and the jumps from the built-in chains into
// kube-proxy's (iptablesJumpChains in proxier.go writes those apart from
// the restore). None is a Service chain: none may be flushed or deleted.
const kpNodeText = `*filter
:KUBE-FIREWALL - [0:0]
:KUBE-KUBELET-CANARY - [0:0]
-A INPUT -j KUBE-FIREWALL
COMMIT
*nat
:KUBE-SERVICES - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-DROP - [0:0]
:KUBE-KUBELET-CANARY - [0:0]
:KUBE-PROXY-CANARY - [0:0]
:CNI-HOSTPORT-DNAT - [0:0]
:DOCKER - [0:0]
-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A PREROUTING -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT
-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER
-A KUBE-MARK-DROP -j MARK --or-mark 0x8000
COMMIT
`

// kpLeftoverText are the chains of a Service an earlier kube-proxy wrote
// and no sync of this one has deleted (its Service went while it was
// down).
func kpLeftoverText() string {
	svc, sep := kpSvcChain("default/gone:http", "tcp"), kpSepChain("default/gone:http", "tcp", "10.244.9.9:80")
	return strings.Join([]string{
		"*nat",
		":" + svc + " - [0:0]",
		":" + sep + " - [0:0]",
		fmt.Sprintf(`-A %s -m comment --comment "default/gone:http -> 10.244.9.9:80" -j %s`, svc, sep),
		fmt.Sprintf(`-A %s -m comment --comment default/gone:http -m tcp -p tcp -j DNAT --to-destination 10.244.9.9:80`, sep),
		"COMMIT",
	}, "\n") + "\n"
}

// kpPartialCase is one change, synced in part.
type kpPartialCase struct {
	what   string
	change func(c *kpCluster)
	// leftover restores kpLeftoverText before the first sync.
	leftover bool
}

var kpAddCases = []kpPartialCase{
	{what: "an endpoint 10.244.1.7 added to default/web", change: func(c *kpCluster) { c.addEndpoint("default/web", "10.244.1.7") }},
	{what: "a Service default/api added, port grpc 9000, endpoint 10.244.1.8", change: func(c *kpCluster) {
		c.svcs = append(c.svcs, kpService("default", "api", "10.96.0.40", kpTcpPort("grpc", 9000)))
		c.slices = append(c.slices, kpSlice("default", "api", "api-def34", kpEPorts("grpc", 9000), kpReadyEp("10.244.1.8")))
	}},
	{what: "default/web's sessionAffinity turned to ClientIP", change: func(c *kpCluster) {
		*c.service("default/web") = kpWithAffinity(*c.service("default/web"), nil)
	}},
	{what: "default/web's second port https 443 -> 8443 added", change: func(c *kpCluster) {
		svc := c.service("default/web")
		svc.Spec.Ports = append(svc.Spec.Ports, kpSvcPort("https", api.ProtocolTCP, 443, api.FromInt32(8443)))
		s := c.sliceOf("default/web")
		s.Ports = append(s.Ports, kpEPort("https", api.ProtocolTCP, 8443))
	}},
	{what: "default/db, which had no endpoint, gets 10.244.4.1", change: func(c *kpCluster) { c.addEndpoint("default/db", "10.244.4.1") }},
	{what: "an endpoint 10.244.2.6 added to other/web (default/web, of the same name, unchanged)", change: func(c *kpCluster) {
		c.addEndpoint("other/web", "10.244.2.6")
	}},
	{what: "nothing changed (a periodic resync)", change: func(c *kpCluster) {}},
	{what: "two Services at once: demo/echo gets 10.244.3.7 and kube-system/kube-dns 10.244.0.3", change: func(c *kpCluster) {
		c.addEndpoint("demo/echo", "10.244.3.7")
		c.addEndpoint("kube-system/kube-dns", "10.244.0.3")
	}},
}

var kpStaleCases = []kpPartialCase{
	{what: "the endpoint 10.244.1.6 removed from default/web", change: func(c *kpCluster) { c.removeEndpoint("default/web", "10.244.1.6") }},
	{what: "demo/echo's endpoint 10.244.3.5 no longer ready", change: func(c *kpCluster) { c.setReady("demo/echo", "10.244.3.5", false) }},
	{what: "the Service other/web deleted, with its slice", change: func(c *kpCluster) { c.deleteService("other/web") }},
	{what: "kube-system/kube-dns's only endpoint removed (both its ports now reject)", change: func(c *kpCluster) {
		c.removeEndpoint("kube-system/kube-dns", "10.244.0.2")
	}},
	{what: "default/web's port http renamed web, in its slice too", change: func(c *kpCluster) { c.renamePort("default/web", "http", "web") }},
	{what: "nothing changed, and the tables hold the chains of default/gone, which an earlier kube-proxy wrote", change: func(c *kpCluster) {}, leftover: true},
	{what: "two Services at once: demo/echo loses 10.244.3.4 and default/web 10.244.1.5", change: func(c *kpCluster) {
		c.removeEndpoint("demo/echo", "10.244.3.4")
		c.removeEndpoint("default/web", "10.244.1.5")
	}},
}

// ---------------------------------------------------------------- the text

// kpRestoreTable is one table of an iptables-restore text: the chains it
// declares, its rules, the chains it deletes, and the ones it deletes
// before declaring them.
type kpRestoreTable struct {
	kpTable
	deletes    []string
	undeclared []string
}

// kpParseRestore reads the text of a partial sync: iptables-save's lines
// and "-X CHAIN".
func kpParseRestore(s string) (map[string]*kpRestoreTable, error) { return kpParseText(s, true) }

// kpTopLevel are the nat chains every sync writes whole.
var kpTopLevel = []string{"KUBE-SERVICES", "KUBE-NODEPORTS", "KUBE-POSTROUTING", "KUBE-MARK-MASQ"}

// kpServiceChain says whether chain is a Service's, the only chains a
// sync deletes (isServiceChainName in proxier.go; the kata has no
// KUBE-EXT-, KUBE-SVL- or KUBE-FW- chains).
func kpServiceChain(chain string) bool {
	return strings.HasPrefix(chain, "KUBE-SVC-") || strings.HasPrefix(chain, "KUBE-SEP-")
}

// kpOwners maps each KUBE-SVC- and KUBE-SEP- chain of a full sync's nat
// table to its Service, "ns/name", following the jumps from
// KUBE-SERVICES (so that the chain names are the implementation's own).
func kpOwners(nat *kpTable) map[string]string {
	own := map[string]string{}
	for _, r := range nat.chainRules("KUBE-SERVICES") {
		name, ok := strings.CutSuffix(kpComment(r), " cluster IP")
		if !ok {
			continue
		}
		key, _, _ := strings.Cut(name, ":")
		svc := kpJump(r)
		own[svc] = key
		for _, sr := range nat.chainRules(svc) {
			if sep := kpJump(sr); strings.HasPrefix(sep, "KUBE-SEP-") {
				own[sep] = key
			}
		}
	}
	return own
}

// kpDescribe names a chain of the tables by what its rules say.
func kpDescribe(tables *iptables.Tables, chain string) string {
	for _, r := range tables.Rules("nat", chain) {
		if m := kpDnatRe.FindStringSubmatch(r); m != nil {
			return fmt.Sprintf("%s (%s -> %s)", chain, kpComment(r), m[1])
		}
	}
	for _, r := range tables.Rules("nat", chain) {
		if c := kpComment(r); c != "" {
			name, _, _ := strings.Cut(c, " -> ")
			return fmt.Sprintf("%s (%s)", chain, name)
		}
	}
	return chain
}

// ---------------------------------------------------------------- one sync

// kpSync is one partial sync to check: the implementation's full syncs
// before and after the change, the tables of the first, and the
// PartialRules that should bring them to the second.
type kpSync struct {
	what          string
	before, after kpCluster
	changed       []string
	node          string // restored before the first sync, and in want
	leftover      string // restored before the first sync only
	state, want   *iptables.Tables
	full1         map[string]*kpTable
	text          string
	partial       map[string]*kpRestoreTable
	existing      []string
	checkWrites   bool // step 24: rules 24.1-24.3 on the text
	checkDeletes  bool // step 25: rules 25.1-25.3 on the text
}

// kpFullSync restores the implementation's Rules of c into tables; ok is
// false (and the step has failed) when it does not restore.
func kpFullSync(t *suite.T, impl Impl, tables *iptables.Tables, what string, c kpCluster) (map[string]*kpTable, bool) {
	t.Helper()
	out, parsed, ok := kpRender(t, impl, what, c.svcs, c.slices)
	if !ok {
		return nil, false
	}
	if err := tables.Restore(out); err != nil {
		t.Errorf("Rules(%s) does not restore: %v\n(a partial sync is checked over your own full sync: make steps 11-16 pass first)", what, err)
		return nil, false
	}
	return parsed, true
}

// kpRestoreFixture restores the suite's own text.
func kpRestoreFixture(t *suite.T, tables *iptables.Tables, text string) {
	t.Helper()
	if err := tables.Restore(text); err != nil {
		t.Fatalf("servicestest: the suite's own tables do not restore: %v", err)
	}
}

// prepare makes the tables before the change and the tables wanted after
// it; false when the implementation's Rules cannot make them.
func (s *kpSync) prepare(t *suite.T, impl Impl) bool {
	t.Helper()
	if s.state == nil {
		s.state = iptables.New()
		kpRestoreFixture(t, s.state, s.node)
		if s.leftover != "" {
			kpRestoreFixture(t, s.state, s.leftover)
		}
		if _, ok := kpFullSync(t, impl, s.state, "the Services before "+s.what, s.before); !ok {
			return false
		}
	}
	s.want = iptables.New()
	kpRestoreFixture(t, s.want, s.node)
	full1, ok := kpFullSync(t, impl, s.want, "the Services after "+s.what, s.after)
	s.full1 = full1
	return ok
}

// run calls PartialRules and checks its text, then restores it over
// s.state; it reports whether the tables are those wanted.
func (s *kpSync) run(t *suite.T, impl Impl) bool {
	t.Helper()
	need(t, "PartialRules", impl.PartialRules)
	s.existing = s.state.Chains("nat")
	svcs, sl := api.DeepCopyValue(s.after.svcs), api.DeepCopyValue(s.after.slices)
	changed, existing := slices.Clone(s.changed), slices.Clone(s.existing)
	s.text = impl.PartialRules(svcs, sl, changed, existing)
	call := s.call()
	var touched []string
	if !reflect.DeepEqual(svcs, s.after.svcs) {
		touched = append(touched, "the Services")
	}
	if !reflect.DeepEqual(sl, s.after.slices) {
		touched = append(touched, "the EndpointSlices")
	}
	if !slices.Equal(changed, s.changed) {
		touched = append(touched, "its argument changed")
	}
	if !slices.Equal(existing, s.existing) {
		touched = append(touched, "its argument existing")
	}
	if len(touched) > 0 {
		t.Errorf("%s wrote to %s: want its arguments untouched; sort and filter copies (rule 24.4)", call, strings.Join(touched, " and "))
	}
	partial, err := kpParseRestore(s.text)
	if err != nil {
		t.Errorf("%s is not iptables-restore text: %v\n%s", call, err, kpIndent(s.text))
		return false
	}
	s.partial = partial
	var problems []string
	if s.checkWrites {
		problems = append(problems, s.writes()...)
	}
	if s.checkDeletes {
		problems = append(problems, s.deletes()...)
	}
	if len(problems) > 0 {
		t.Errorf("%s:\n\t%s\nthe text:\n%s", call, strings.Join(problems, "\n\t"), kpIndent(s.text))
	}
	if err := s.state.Restore(s.text); err != nil {
		t.Errorf("%s does not restore over the tables of Rules(the Services before): %v\n(iptables-restore --noflush applies every line or none; the text:)\n%s", call, err, kpIndent(s.text))
		return false
	}
	got, want := s.state.Save(), s.want.Save()
	if got != want {
		t.Errorf("%s, restored over the tables of Rules(the Services before), leaves tables that differ from those of Rules(the Services after) restored on fresh tables (rule 24.1); iptables-save of the two: %s\nthe text:\n%s",
			call, kpDumpDiff(got, want), kpIndent(s.text))
		return false
	}
	return len(problems) == 0
}

func (s *kpSync) call() string {
	return fmt.Sprintf("PartialRules(after %s, changed %q, existing: the %d chains of the nat table)", s.what, s.changed, len(s.existing))
}

// writes checks rules 24.1-24.3: only the chains of the Services in
// changed, and the filter table and the top-level chains whole.
func (s *kpSync) writes() []string {
	var problems []string
	nat := s.partial["nat"]
	own := kpOwners(s.full1["nat"])
	isChanged := map[string]bool{}
	for _, c := range s.changed {
		isChanged[c] = true
	}
	// The Services not in changed whose chains the text writes, each
	// with the first chain it writes.
	rewritten := map[string]string{}
	var order []string
	note := func(chain string) {
		key := own[chain]
		if key == "" || isChanged[key] {
			return
		}
		if _, seen := rewritten[key]; !seen {
			rewritten[key] = chain
			order = append(order, key)
		}
	}
	for _, c := range nat.chains {
		if !slices.Contains(nat.deletes, c) {
			note(c)
		}
	}
	for _, r := range nat.rules {
		note(kpRuleChain(r))
	}
	for _, key := range order {
		rule := "rule 24.1: a Service not in changed has its KUBE-SVC- and KUBE-SEP- chains in the tables already, as this sync would write them; leave them out of the text"
		_, name, _ := strings.Cut(key, "/")
		for _, c := range s.changed {
			if _, n, _ := strings.Cut(c, "/"); n == name {
				rule = fmt.Sprintf("rule 24.2: changed names \"namespace/name\": %s is not %s", key, c)
			}
		}
		problems = append(problems, fmt.Sprintf("writes %s, a chain of %s, which is not in changed (%s)", rewritten[key], key, rule))
	}
	// The filter table, and the nat table's top-level chains, whole.
	full := s.full1
	if got, want := s.partial["filter"].rules, full["filter"].rules; !slices.Equal(got, want) {
		problems = append(problems, fmt.Sprintf("its filter table's rules are not those of Rules(the Services after) (rule 24.3: the filter table is written whole, the REJECT rules of every Service, changed or not)%s",
			kpLineLists(got, want)))
	}
	// The order of chain lines means nothing to iptables; the order of
	// a chain's rules does.
	if got, want := slices.Sorted(slices.Values(s.partial["filter"].chains)), slices.Sorted(slices.Values(full["filter"].chains)); !slices.Equal(got, want) {
		problems = append(problems, fmt.Sprintf("its filter table declares %v, want %v as Rules(the Services after) does (rule 24.3)", got, want))
	}
	for _, c := range kpTopLevel {
		got, want := nat.chainRules(c), full["nat"].chainRules(c)
		if !slices.Equal(got, want) || !slices.Contains(nat.chains, c) {
			problems = append(problems, fmt.Sprintf("its nat chain %s is not written whole as in Rules(the Services after) (rule 24.3: the top-level chains are declared, which flushes them, and get all their rules, for every Service, changed or not)%s",
				c, kpLineLists(got, want)))
		}
	}
	return problems
}

// kpLineLists lists the lines of want missing from got, and those of got
// not wanted.
func kpLineLists(got, want []string) string {
	var b strings.Builder
	for _, part := range []struct {
		title string
		lines []string
	}{{"missing", kpMissing(want, got)}, {"not wanted", kpMissing(got, want)}} {
		for i, l := range part.lines {
			if i == 5 {
				fmt.Fprintf(&b, "\n\t\t... and %d more %s", len(part.lines)-5, part.title)
				break
			}
			fmt.Fprintf(&b, "\n\t\t%s: %s", part.title, l)
		}
	}
	return b.String()
}

// deletes checks rules 25.1-25.3: every Service chain no Service uses is
// declared and deleted, and no other chain is touched.
func (s *kpSync) deletes() []string {
	var problems []string
	active := map[string]bool{}
	for _, c := range s.full1["nat"].chains {
		active[c] = true
	}
	own := kpOwners(s.full1["nat"])
	for _, table := range []string{"filter", "nat"} {
		tb := s.partial[table]
		for _, c := range tb.undeclared {
			problems = append(problems, fmt.Sprintf("deletes %s with -X without declaring it first: iptables deletes only an empty chain, and the line :%s - [0:0] before the -X is what empties it; without it iptables-restore fails (rule 25.2)", c, c))
		}
		for _, c := range tb.deletes {
			switch {
			case table != "nat" || !kpServiceChain(c):
				problems = append(problems, fmt.Sprintf("deletes %s of the %s table, which is no Service chain: only KUBE-SVC- and KUBE-SEP- chains of the nat table are kube-proxy's to delete; the others belong to other programs (rule 25.3)", c, table))
			case active[c]:
				problems = append(problems, fmt.Sprintf("deletes %s, a chain of %s that Rules(the Services after) still has (rule 25.1: only the chains no Service uses)", c, cmp.Or(own[c], "a Service")))
			case !slices.Contains(s.existing, c):
				problems = append(problems, fmt.Sprintf("deletes %s, which is not in existing: the tables have no such chain (rule 25.1)", c))
			}
		}
		for _, c := range tb.chains {
			if !kpServiceChain(c) && !slices.Contains(kpTopLevel, c) && slices.Contains(s.state.Chains(table), c) && !slices.Contains(s.full1[table].chains, c) {
				problems = append(problems, fmt.Sprintf("declares %s in the %s table, which flushes it, but it is no chain of kube-proxy's (rule 25.3: leave the chains of other programs alone)", c, table))
			}
		}
	}
	nat := s.partial["nat"]
	for _, c := range s.existing {
		if kpServiceChain(c) && !active[c] && !slices.Contains(nat.deletes, c) {
			problems = append(problems, fmt.Sprintf("leaves %s in the tables, which no Service uses any more: declare it and delete it with -X %s (rule 25.1)", kpDescribe(s.state, c), c))
		}
	}
	return problems
}

// kpPartialCases runs cases from kpPartialBase.
func kpPartialCases(t *suite.T, impl Impl, cases []kpPartialCase, node string, writes, deletes bool) {
	for _, c := range cases {
		after := kpPartialBase()
		c.change(&after)
		s := &kpSync{what: c.what, before: kpPartialBase(), after: after, changed: kpChanged(kpPartialBase(), after),
			node: node, checkWrites: writes, checkDeletes: deletes}
		if c.leftover {
			s.leftover = kpLeftoverText()
		}
		if !s.prepare(t, impl) {
			return
		}
		s.run(t, impl)
	}
}

// ---------------------------------------------------------------- 24

func partialSync(t *suite.T, impl Impl) {
	need(t, "Rules", impl.Rules)
	need(t, "PartialRules", impl.PartialRules)
	kpPartialCases(t, impl, kpAddCases, "", true, false)
}

// ---------------------------------------------------------------- 25

// kpSequenceSeed fixes step 25's pseudo-random changes, so that every
// run, and every learner, meets the same sequence.
const kpSequenceSeed = 1425

func staleChains(t *suite.T, impl Impl) {
	need(t, "Rules", impl.Rules)
	need(t, "PartialRules", impl.PartialRules)
	kpPartialCases(t, impl, kpStaleCases, kpNodeText, false, true)
	if t.Failed() {
		return
	}
	// Twenty changes synced one after the other, each over the tables
	// the last partial sync left, as a running kube-proxy does.
	rng := rand.New(rand.NewPCG(kpSequenceSeed, kpSequenceSeed))
	cur := kpPartialBase()
	var state *iptables.Tables
	var history []string
	for i := 1; i <= 20; i++ {
		next := cur.clone()
		var did []string
		for range 1 + rng.IntN(2) {
			did = append(did, kpRandomChange(rng, &next, i))
		}
		history = append(history, fmt.Sprintf("%d: %s", i, strings.Join(did, "; ")))
		s := &kpSync{
			what:   fmt.Sprintf("change %d of a sequence (%s)", i, strings.Join(did, "; ")),
			before: cur, after: next, changed: kpChanged(cur, next),
			node: kpNodeText, state: state, checkDeletes: true,
		}
		if !s.prepare(t, impl) {
			return
		}
		if !s.run(t, impl) {
			t.Errorf("(the changes so far, each followed by one partial sync over the tables the last one left:\n\t%s)", strings.Join(history, "\n\t"))
			return
		}
		cur, state = next, s.state
	}
}

// kpRandomChange changes one Service of c at random and says how.
func kpRandomChange(rng *rand.Rand, c *kpCluster, step int) string {
	pick := func() *api.Service { return &c.svcs[rng.IntN(len(c.svcs))] }
	key := func(s *api.Service) string { return s.Namespace + "/" + s.Name }
	ipOf := func(n int) string { return fmt.Sprintf("10.244.%d.%d", 20+step, n) }
	for {
		switch rng.IntN(7) {
		case 0:
			s := pick()
			ip := ipOf(10 + rng.IntN(200))
			if sl := c.sliceOf(key(s)); sl == nil || slices.ContainsFunc(sl.Endpoints, func(e api.Endpoint) bool { return e.Addresses[0] == ip }) {
				continue
			}
			c.addEndpoint(key(s), ip)
			return fmt.Sprintf("endpoint %s added to %s", ip, key(s))
		case 1:
			s := pick()
			sl := c.sliceOf(key(s))
			if sl == nil || len(sl.Endpoints) == 0 {
				continue
			}
			ip := sl.Endpoints[rng.IntN(len(sl.Endpoints))].Addresses[0]
			c.removeEndpoint(key(s), ip)
			return fmt.Sprintf("endpoint %s removed from %s", ip, key(s))
		case 2:
			s := pick()
			sl := c.sliceOf(key(s))
			if sl == nil || len(sl.Endpoints) == 0 {
				continue
			}
			e := sl.Endpoints[rng.IntN(len(sl.Endpoints))]
			ready, _, _ := kpConditionsOf(e)
			c.setReady(key(s), e.Addresses[0], !ready)
			return fmt.Sprintf("endpoint %s of %s made ready %v", e.Addresses[0], key(s), !ready)
		case 3:
			ns := []string{"default", "other"}[rng.IntN(2)]
			name := fmt.Sprintf("svc-%d", step)
			if c.service(ns+"/"+name) != nil {
				continue
			}
			c.svcs = append(c.svcs, kpService(ns, name, fmt.Sprintf("10.96.1.%d", step), kpTcpPort("http", 80)))
			var eps []api.Endpoint
			for j := range rng.IntN(3) {
				eps = append(eps, kpReadyEp(ipOf(j+1)))
			}
			c.slices = append(c.slices, kpSlice(ns, name, name+"-abcde", kpEPorts("http", 8080), eps...))
			return fmt.Sprintf("Service %s/%s added with %d endpoints", ns, name, len(eps))
		case 4:
			if len(c.svcs) <= 3 {
				continue
			}
			k := key(pick())
			c.deleteService(k)
			return fmt.Sprintf("Service %s deleted", k)
		case 5:
			s := pick()
			if s.Spec.SessionAffinity == api.ServiceAffinityClientIP {
				s.Spec.SessionAffinity, s.Spec.SessionAffinityConfig = api.ServiceAffinityNone, nil
				return fmt.Sprintf("sessionAffinity of %s turned off", key(s))
			}
			*s = kpWithAffinity(*s, kpSeconds(int32(60*(1+rng.IntN(10)))))
			return fmt.Sprintf("sessionAffinity of %s turned to ClientIP", key(s))
		case 6:
			s := pick()
			from, to := s.Spec.Ports[0].Name, fmt.Sprintf("p%d", step)
			if from == to {
				continue
			}
			c.renamePort(key(s), from, to)
			return fmt.Sprintf("port %q of %s renamed %q", from, key(s), to)
		}
	}
}

// kpConditionsOf reads an endpoint's conditions with their defaults.
func kpConditionsOf(e api.Endpoint) (ready, serving, terminating bool) {
	c := e.Conditions
	return c.Ready == nil || *c.Ready, c.Serving == nil || *c.Serving, c.Terminating != nil && *c.Terminating
}
