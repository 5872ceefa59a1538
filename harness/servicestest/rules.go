package servicestest

// Steps 11-16: kube-proxy's rules. Rules renders what one full sync of
// upstream's iptables proxier hands to iptables-restore
// (syncProxyRules and writeServiceToEndpointRules in
// pkg/proxy/iptables/proxier.go), for ClusterIP traffic on IPv4. The
// expected lines copy the shape of upstream's expected dumps
// (TestOverallIPTablesRules in pkg/proxy/iptables/proxier_test.go); the
// endpoints come from pkg/proxy/endpointslicecache.go and are chosen as
// CategorizeEndpoints in pkg/proxy/topology.go chooses them.
//
// Step 11 pins the chain names; steps 13-16 find the chains through the
// output's own jumps (KUBE-SERVICES -> KUBE-SVC-... -> KUBE-SEP-... ->
// DNAT), so that a wrong name fails step 11 (and the whole dumps of step
// 12), not every step.

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base32"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/suite"
)

// ---------------------------------------------------------------- fixtures

// kpService is a ClusterIP Service.
func kpService(ns, name, clusterIP string, ports ...api.ServicePort) api.Service {
	return api.Service{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name},
		Spec:       api.ServiceSpec{Type: api.ServiceTypeClusterIP, ClusterIP: clusterIP, Ports: ports},
	}
}

// kpWithAffinity sets sessionAffinity ClientIP, with timeoutSeconds when
// timeout is not nil.
func kpWithAffinity(s api.Service, timeout *int32) api.Service {
	s.Spec.SessionAffinity = api.ServiceAffinityClientIP
	if timeout != nil {
		s.Spec.SessionAffinityConfig = &api.SessionAffinityConfig{ClientIP: &api.ClientIPConfig{TimeoutSeconds: timeout}}
	}
	return s
}

// kpSvcPort is a Service port; target is its targetPort.
func kpSvcPort(name string, proto api.Protocol, port int32, target api.IntOrString) api.ServicePort {
	return api.ServicePort{Name: name, Protocol: proto, Port: port, TargetPort: target}
}

// kpTcpPort is a TCP Service port whose targetPort is its port.
func kpTcpPort(name string, port int32) api.ServicePort {
	return kpSvcPort(name, api.ProtocolTCP, port, api.FromInt32(port))
}

// kpSlice is an IPv4 EndpointSlice of the Service svc, labelled as the
// EndpointSlice controller labels it.
func kpSlice(ns, svc, name string, ports []api.EndpointPort, eps ...api.Endpoint) api.EndpointSlice {
	return api.EndpointSlice{
		TypeMeta: api.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{
			api.LabelServiceName: svc,
			api.LabelManagedBy:   api.EndpointSliceControllerName,
		}},
		AddressType: api.AddressTypeIPv4,
		Endpoints:   eps,
		Ports:       ports,
	}
}

// kpEPort is a port of a slice.
func kpEPort(name string, proto api.Protocol, port int32) api.EndpointPort {
	return api.EndpointPort{Name: &name, Protocol: &proto, Port: &port}
}

// kpEPorts is one TCP slice port.
func kpEPorts(name string, port int32) []api.EndpointPort {
	return []api.EndpointPort{kpEPort(name, api.ProtocolTCP, port)}
}

// kpEp is an endpoint with all three conditions set.
func kpEp(ip string, ready, serving, terminating bool) api.Endpoint {
	return api.Endpoint{
		Addresses:  []string{ip},
		Conditions: api.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
	}
}

// kpReadyEp is a ready endpoint, as the controller writes a ready pod.
func kpReadyEp(ip string) api.Endpoint { return kpEp(ip, true, true, false) }

// kpReadyEps are ready endpoints.
func kpReadyEps(ips ...string) []api.Endpoint {
	var out []api.Endpoint
	for _, ip := range ips {
		out = append(out, kpReadyEp(ip))
	}
	return out
}

// ---------------------------------------------------------------- the dump

// The lines a full sync writes whatever the Services (proxier.go), for
// the kata's settings: IPv4, localhostNodePorts on (the default, hence
// KUBE-FIREWALL), no nfacct counters, no --random-fully (as upstream's
// fake iptables in proxier_test.go), masquerade mark 0x4000.
var (
	kpFilterHead = []string{
		"*filter",
		":KUBE-SERVICES - [0:0]",
		":KUBE-EXTERNAL-SERVICES - [0:0]",
		":KUBE-FORWARD - [0:0]",
		":KUBE-NODEPORTS - [0:0]",
		":KUBE-PROXY-FIREWALL - [0:0]",
		":KUBE-FIREWALL - [0:0]",
		`-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`,
	}
	kpFilterTail = []string{
		"-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP",
		`-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT`,
		`-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
		"COMMIT",
	}
	kpNatChains = []string{
		"*nat",
		":KUBE-SERVICES - [0:0]",
		":KUBE-NODEPORTS - [0:0]",
		":KUBE-POSTROUTING - [0:0]",
		":KUBE-MARK-MASQ - [0:0]",
	}
	kpNatMasq = []string{
		"-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN",
		"-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000",
		`-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE`,
		"-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000",
	}
	kpNatTail = []string{
		`-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS`,
		"COMMIT",
	}
)

// kpWholeDump is the full output around the given Service rules: filter
// (the REJECT rules), then nat, whose KUBE-SVC- and KUBE-SEP- chains are
// declared in the order their rules first appear.
func kpWholeDump(filter, nat []string) string {
	var lines []string
	lines = append(lines, kpFilterHead...)
	lines = append(lines, filter...)
	lines = append(lines, kpFilterTail...)
	lines = append(lines, kpNatChains...)
	var declared []string
	for _, r := range nat {
		c := kpRuleChain(r)
		if (strings.HasPrefix(c, "KUBE-SVC-") || strings.HasPrefix(c, "KUBE-SEP-")) && !slices.Contains(declared, c) {
			declared = append(declared, c)
			lines = append(lines, ":"+c+" - [0:0]")
		}
	}
	lines = append(lines, kpNatMasq...)
	lines = append(lines, nat...)
	lines = append(lines, kpNatTail...)
	return strings.Join(lines, "\n") + "\n"
}

// kpRuleChain is the chain of a "-A CHAIN ..." line, "" for other lines.
func kpRuleChain(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "-A" {
		return ""
	}
	return f[1]
}

// kpTable is one table of a dump: its declared chains and its rules, in
// order.
type kpTable struct {
	chains []string
	rules  []string
}

// chainRules are the rules of chain, in order.
func (t *kpTable) chainRules(chain string) []string {
	var out []string
	for _, r := range t.rules {
		if kpRuleChain(r) == chain {
			out = append(out, r)
		}
	}
	return out
}

// declared are the declared chains whose names start with prefix.
func (t *kpTable) declared(prefix string) []string {
	var out []string
	for _, c := range t.chains {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// kpParseDump reads iptables-save text: "*table", ":CHAIN - [0:0]" lines,
// "-A CHAIN ..." lines and "COMMIT", table after table.
func kpParseDump(s string) (map[string]*kpTable, error) {
	rt, err := kpParseText(s, false)
	if err != nil {
		return nil, err
	}
	tables := make(map[string]*kpTable, len(rt))
	for name, t := range rt {
		tables[name] = &t.kpTable
	}
	return tables, nil
}

// kpParseText reads iptables-save text, and with deletions the "-X
// CHAIN" lines of an iptables-restore text too (a partial sync's).
func kpParseText(s string, deletions bool) (map[string]*kpRestoreTable, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("the text is empty; want *filter ... COMMIT, then *nat ... COMMIT")
	}
	tables := map[string]*kpRestoreTable{}
	var cur *kpRestoreTable
	for i, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		n := i + 1
		switch {
		case strings.HasPrefix(l, "*"):
			if cur != nil {
				return nil, fmt.Errorf("line %d: %q starts a table before the last one's COMMIT", n, l)
			}
			name := l[1:]
			if tables[name] != nil {
				return nil, fmt.Errorf("line %d: table %q a second time", n, name)
			}
			cur = &kpRestoreTable{}
			tables[name] = cur
		case l == "COMMIT":
			if cur == nil {
				return nil, fmt.Errorf("line %d: COMMIT outside a table", n)
			}
			cur = nil
		case cur == nil:
			return nil, fmt.Errorf("line %d: %q outside a table (a table starts with a line such as *nat and ends with COMMIT)", n, l)
		case strings.HasPrefix(l, ":"):
			f := strings.Fields(l[1:])
			if len(f) != 3 || f[1] != "-" || f[2] != "[0:0]" {
				return nil, fmt.Errorf("line %d: %q is not a chain line such as :KUBE-SERVICES - [0:0]", n, l)
			}
			cur.chains = append(cur.chains, f[0])
		case kpRuleChain(l) != "":
			cur.rules = append(cur.rules, l)
		case deletions && strings.HasPrefix(l, "-X "):
			f := strings.Fields(l)
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: %q is not -X CHAIN", n, l)
			}
			if !slices.Contains(cur.chains, f[1]) {
				cur.undeclared = append(cur.undeclared, f[1])
			}
			cur.deletes = append(cur.deletes, f[1])
		case deletions:
			return nil, fmt.Errorf("line %d: %q is neither a chain line (:CHAIN - [0:0]), a rule (-A CHAIN ...) nor a deletion (-X CHAIN)", n, l)
		default:
			return nil, fmt.Errorf("line %d: %q is neither a chain line (:CHAIN - [0:0]) nor a rule (-A CHAIN ...)", n, l)
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("the last table has no COMMIT")
	}
	for _, name := range []string{"filter", "nat"} {
		if tables[name] == nil {
			tables[name] = &kpRestoreTable{}
		}
	}
	return tables, nil
}

// kpRender calls Rules and parses what it returns; ok is false (and the
// step has failed) when the text is not iptables-save's.
func kpRender(t *suite.T, impl Impl, what string, svcs []api.Service, sl []api.EndpointSlice) (out string, tables map[string]*kpTable, ok bool) {
	t.Helper()
	need(t, "Rules", impl.Rules)
	inSvcs, inSlices := api.DeepCopyValue(svcs), api.DeepCopyValue(sl)
	out = impl.Rules(inSvcs, inSlices)
	var changed []string
	if !reflect.DeepEqual(inSvcs, svcs) {
		changed = append(changed, "the Services")
	}
	if !reflect.DeepEqual(inSlices, sl) {
		changed = append(changed, "the EndpointSlices")
	}
	if len(changed) > 0 {
		t.Errorf("Rules(%s) changed %s it was given: want its arguments untouched; sort and filter copies, never the caller's objects (rule 11.4)", what, strings.Join(changed, " and "))
	}
	tables, err := kpParseDump(out)
	if err != nil {
		t.Errorf("Rules(%s) is not iptables-save text: %v\n%s", what, err, kpIndent(out))
		return out, nil, false
	}
	return out, tables, true
}

// kpIndent indents text for a failure message.
func kpIndent(s string) string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return "\t(empty)"
	}
	return "\t" + strings.ReplaceAll(s, "\n", "\n\t")
}

// kpDumpDiff says how two dumps differ, line by line: the first line that
// differs, then the lines missing and the lines not wanted.
func kpDumpDiff(got, want string) string {
	g := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	w := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	var b strings.Builder
	for i := 0; i < max(len(g), len(w)); i++ {
		gl, wl := "(no line)", "(no line)"
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			fmt.Fprintf(&b, "first difference at line %d:\n\tgot:  %s\n\twant: %s\n", i+1, gl, wl)
			break
		}
	}
	list := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s:\n", title)
		for i, l := range lines {
			if i == 10 {
				fmt.Fprintf(&b, "\t... and %d more\n", len(lines)-10)
				break
			}
			fmt.Fprintf(&b, "\t%s\n", l)
		}
	}
	list("lines wanted but missing", kpMissing(w, g))
	list("lines not wanted", kpMissing(g, w))
	if d := suite.Diff(got, want); d != "" {
		b.WriteString(d)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// kpMissing are the lines of a that b lacks (counting repeats).
func kpMissing(a, b []string) []string {
	left := map[string]int{}
	for _, l := range b {
		left[l]++
	}
	var out []string
	for _, l := range a {
		if left[l] > 0 {
			left[l]--
			continue
		}
		out = append(out, l)
	}
	return out
}

// kpChainHash is the suite's own portProtoHash (proxier.go), for the want
// side of step 11: the first 16 characters of base32(sha256(s)).
func kpChainHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base32.StdEncoding.EncodeToString(sum[:])[:16]
}

// kpSvcChain and kpSepChain are the chain names of a service port and of one
// of its endpoints; proto is in lower case.
func kpSvcChain(name, proto string) string { return "KUBE-SVC-" + kpChainHash(name+proto) }
func kpSepChain(name, proto, endpoint string) string {
	return "KUBE-SEP-" + kpChainHash(name+proto+endpoint)
}

// ---------------------------------------------------------------- 11

// kpChainCase is a case of step 11: the KUBE-SVC- and KUBE-SEP- chains the
// nat table must declare, each with the string it is hashed from.
type kpChainCase struct {
	what   string
	svcs   []api.Service
	slices []api.EndpointSlice
	want   []kpWantChain
}

type kpWantChain struct {
	name, from string
	rule       int
}

// kpSvcWant and kpSepWant are wanted chains computed by the suite.
func kpSvcWant(name, proto string, rule int) kpWantChain {
	return kpWantChain{kpSvcChain(name, proto), name + proto, rule}
}
func kpSepWant(name, proto, endpoint string) kpWantChain {
	return kpWantChain{kpSepChain(name, proto, endpoint), name + proto + endpoint, 3}
}

// kpChainCases are the cases of step 11. The first two use chain names
// copied from upstream's TestOverallIPTablesRules (proxier_test.go), so
// that the hash input is pinned by upstream, not only by this suite.
var kpChainCases = []kpChainCase{
	{
		what:   "ns1/svc1 port p80/TCP, endpoint 10.180.0.1:80",
		svcs:   []api.Service{kpService("ns1", "svc1", "172.30.0.41", kpTcpPort("p80", 80))},
		slices: []api.EndpointSlice{kpSlice("ns1", "svc1", "svc1-abcde", kpEPorts("p80", 80), kpReadyEp("10.180.0.1"))},
		want: []kpWantChain{
			{"KUBE-SVC-XPGD46QRK7WJZT7O", "ns1/svc1:p80tcp", 2},
			{"KUBE-SEP-SXIVWICOYRO3J4NJ", "ns1/svc1:p80tcp10.180.0.1:80", 3},
		},
	},
	{
		what:   "ns4/svc4 port p80/TCP, endpoints 10.180.0.4:80 and 10.180.0.5:80",
		svcs:   []api.Service{kpService("ns4", "svc4", "172.30.0.44", kpTcpPort("p80", 80))},
		slices: []api.EndpointSlice{kpSlice("ns4", "svc4", "svc4-abcde", kpEPorts("p80", 80), kpReadyEps("10.180.0.4", "10.180.0.5")...)},
		want: []kpWantChain{
			{"KUBE-SVC-4SW47YFZTEDKD3PK", "ns4/svc4:p80tcp", 2},
			{"KUBE-SEP-UKSFD7AGPMPPLUHC", "ns4/svc4:p80tcp10.180.0.4:80", 3},
			{"KUBE-SEP-C6EBXVWJJZMIWKLZ", "ns4/svc4:p80tcp10.180.0.5:80", 3},
		},
	},
	{
		what: "kube-system/kube-dns ports dns/UDP and dns-tcp/TCP, both 53, endpoint 10.244.0.2",
		svcs: []api.Service{kpService("kube-system", "kube-dns", "10.96.0.10",
			kpSvcPort("dns", api.ProtocolUDP, 53, api.FromInt32(53)), kpTcpPort("dns-tcp", 53))},
		slices: []api.EndpointSlice{kpSlice("kube-system", "kube-dns", "kube-dns-x7k2p",
			[]api.EndpointPort{kpEPort("dns", api.ProtocolUDP, 53), kpEPort("dns-tcp", api.ProtocolTCP, 53)}, kpReadyEp("10.244.0.2"))},
		want: []kpWantChain{
			kpSvcWant("kube-system/kube-dns:dns", "udp", 2),
			kpSepWant("kube-system/kube-dns:dns", "udp", "10.244.0.2:53"),
			kpSvcWant("kube-system/kube-dns:dns-tcp", "tcp", 2),
			kpSepWant("kube-system/kube-dns:dns-tcp", "tcp", "10.244.0.2:53"),
		},
	},
	{
		what:   "demo/echo with one unnamed port 5678/TCP, endpoint 10.244.3.4",
		svcs:   []api.Service{kpService("demo", "echo", "10.96.200.7", kpTcpPort("", 5678))},
		slices: []api.EndpointSlice{kpSlice("demo", "echo", "echo-q9w8e", kpEPorts("", 5678), kpReadyEp("10.244.3.4"))},
		want: []kpWantChain{
			// rule 11.1: an unnamed port's name is "demo/echo", no colon.
			kpSvcWant("demo/echo", "tcp", 1),
			kpSepWant("demo/echo", "tcp", "10.244.3.4:5678"),
		},
	},
}

func chainNames(t *suite.T, impl Impl) {
	for _, c := range kpChainCases {
		_, tables, ok := kpRender(t, impl, c.what, c.svcs, c.slices)
		if !ok {
			continue
		}
		nat := tables["nat"]
		got := append(nat.declared("KUBE-SVC-"), nat.declared("KUBE-SEP-")...)
		var wantNames []string
		for _, w := range c.want {
			wantNames = append(wantNames, w.name)
			if !slices.Contains(got, w.name) {
				kind := "KUBE-SVC-"
				if strings.HasPrefix(w.name, "KUBE-SEP-") {
					kind = "KUBE-SEP-"
				}
				t.Errorf("Rules(%s): the nat table declares %v, want a chain line :%s - [0:0]: %q + the first 16 characters of base32(sha256(%q)) (rule 11.%d)",
					c.what, got, w.name, kind, w.from, w.rule)
			}
		}
		for _, g := range got {
			if !slices.Contains(wantNames, g) {
				t.Errorf("Rules(%s): the nat table declares %s, which is none of the chains wanted, %v (rules 11.2 and 11.3)", c.what, g, wantNames)
			}
		}
	}
}

// ---------------------------------------------------------------- 12

// kpDumpCase is a case compared whole: the Service rules of the filter and
// nat tables, framed by kpWholeDump.
type kpDumpCase struct {
	what   string
	svcs   []api.Service
	slices []api.EndpointSlice
	filter []string
	nat    []string
	rule   string
}

// upstream's ns1/svc1 (proxier_test.go), the simplest Service.
var (
	kpSvc1      = kpService("ns1", "svc1", "172.30.0.41", kpTcpPort("p80", 80))
	kpSvc1Slice = kpSlice("ns1", "svc1", "svc1-abcde", kpEPorts("p80", 80), kpReadyEp("10.180.0.1"))
	kpSvc1Nat   = []string{
		`-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O`,
		`-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ`,
		`-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ`,
		`-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80`,
	}
)

// kpOneEndpoint is the nat rules of a service port with one endpoint.
func kpOneEndpoint(name, proto, clusterIP string, port int32, endpoint string) []string {
	svc, sep := kpSvcChain(name, proto), kpSepChain(name, proto, endpoint)
	ip, _, _ := strings.Cut(endpoint, ":")
	return []string{
		fmt.Sprintf(`-A KUBE-SERVICES -m comment --comment "%s cluster IP" -m %s -p %s -d %s --dport %d -j %s`, name, proto, proto, clusterIP, port, svc),
		fmt.Sprintf(`-A %s -m comment --comment "%s -> %s" -j %s`, svc, name, endpoint, sep),
		fmt.Sprintf(`-A %s -m comment --comment %s -s %s -j KUBE-MARK-MASQ`, sep, name, ip),
		fmt.Sprintf(`-A %s -m comment --comment %s -m %s -p %s -j DNAT --to-destination %s`, sep, name, proto, proto, endpoint),
	}
}

func kpConcat(parts ...[]string) []string { return slices.Concat(parts...) }

// kpUnlabelled drops a slice's service-name label.
func kpUnlabelled(s api.EndpointSlice) api.EndpointSlice {
	s.Labels = map[string]string{api.LabelManagedBy: api.EndpointSliceControllerName}
	return s
}

var kpWeb = kpService("default", "web", "10.96.104.23",
	kpSvcPort("http", api.ProtocolTCP, 80, api.FromString("http")),
	kpSvcPort("https", api.ProtocolTCP, 443, api.FromInt32(8443)))

var kpClusterIPCases = []kpDumpCase{
	{
		what:   "ns1/svc1 port p80/TCP, endpoint 10.180.0.1:80",
		svcs:   []api.Service{kpSvc1},
		slices: []api.EndpointSlice{kpSvc1Slice},
		nat:    kpSvc1Nat,
		rule:   "rules 12.3-12.7",
	},
	{
		what: "kube-system/kube-dns port dns/UDP 53, endpoint 10.244.0.2:53",
		svcs: []api.Service{kpService("kube-system", "kube-dns", "10.96.0.10", kpSvcPort("dns", api.ProtocolUDP, 53, api.FromInt32(53)))},
		slices: []api.EndpointSlice{kpSlice("kube-system", "kube-dns", "kube-dns-x7k2p",
			[]api.EndpointPort{kpEPort("dns", api.ProtocolUDP, 53)}, kpReadyEp("10.244.0.2"))},
		nat:  kpOneEndpoint("kube-system/kube-dns:dns", "udp", "10.96.0.10", 53, "10.244.0.2:53"),
		rule: "rules 12.3 and 12.5: -m udp -p udp for UDP",
	},
	{
		what: "headless default/db (clusterIP None), ExternalName default/ext (no clusterIP) and default/v6 (clusterIP fd00:10:96::a), each with a slice",
		svcs: []api.Service{
			kpService("default", "db", api.ClusterIPNone, kpTcpPort("pg", 5432)),
			kpService("default", "v6", "fd00:10:96::a", kpTcpPort("http", 80)),
			func() api.Service {
				s := kpService("default", "ext", "", kpTcpPort("https", 443))
				s.Spec.Type, s.Spec.ExternalName = api.ServiceTypeExternalName, "example.com"
				return s
			}(),
		},
		slices: []api.EndpointSlice{
			kpSlice("default", "db", "db-k3j4h", kpEPorts("pg", 5432), kpReadyEp("10.244.2.9")),
			kpSlice("default", "ext", "ext-p0o9i", kpEPorts("https", 443), kpReadyEp("10.244.2.10")),
			kpSlice("default", "v6", "v6-r5t6y", kpEPorts("http", 80), kpReadyEp("10.244.2.11")),
		},
		rule: "rule 12.1: no rules at all for a Service without an IPv4 cluster IP",
	},
	{
		what: "default/web ports http 80 -> targetPort \"http\" and https 443 -> 8443, its slice says http is 8080",
		svcs: []api.Service{kpWeb},
		slices: []api.EndpointSlice{kpSlice("default", "web", "web-abc12",
			[]api.EndpointPort{kpEPort("http", api.ProtocolTCP, 8080), kpEPort("https", api.ProtocolTCP, 8443)}, kpReadyEp("10.244.1.5"))},
		nat: kpConcat(
			kpOneEndpoint("default/web:http", "tcp", "10.96.104.23", 80, "10.244.1.5:8080"),
			kpOneEndpoint("default/web:https", "tcp", "10.96.104.23", 443, "10.244.1.5:8443")),
		rule: "rule 12.2: the endpoint's port is the slice port's number; rule 12.6: service ports in name order",
	},
	{
		what: "default/web port http, its slice in default, and decoys: a slice labelled web in namespace other, one labelled api, one without the label, an IPv6 one",
		svcs: []api.Service{kpService("default", "web", "10.96.104.23", kpTcpPort("http", 8080))},
		slices: []api.EndpointSlice{
			kpSlice("other", "web", "web-zzzzz", kpEPorts("http", 8080), kpReadyEp("10.244.9.9")),
			kpSlice("default", "api", "api-yyyyy", kpEPorts("http", 8080), kpReadyEp("10.244.8.8")),
			kpUnlabelled(kpSlice("default", "web", "web-xxxxx", kpEPorts("http", 8080), kpReadyEp("10.244.7.7"))),
			func() api.EndpointSlice {
				s := kpSlice("default", "web", "web-v6v6v", kpEPorts("http", 8080), kpReadyEp("fd00:10:244::5"))
				s.AddressType = api.AddressTypeIPv6
				return s
			}(),
			kpSlice("default", "web", "web-abc12", kpEPorts("http", 8080), kpReadyEp("10.244.1.5")),
		},
		nat:  kpOneEndpoint("default/web:http", "tcp", "10.96.104.23", 8080, "10.244.1.5:8080"),
		rule: "rule 12.2: only the IPv4 slices of the Service's namespace labelled kubernetes.io/service-name=web",
	},
	{
		what: "kube-system/kube-dns port dns/UDP, slices with port dns/UDP (10.244.0.2), dns/TCP (10.244.0.3) and metrics/UDP (10.244.0.4)",
		svcs: []api.Service{kpService("kube-system", "kube-dns", "10.96.0.10", kpSvcPort("dns", api.ProtocolUDP, 53, api.FromInt32(53)))},
		slices: []api.EndpointSlice{
			kpSlice("kube-system", "kube-dns", "kube-dns-aaaaa", []api.EndpointPort{kpEPort("dns", api.ProtocolTCP, 53)}, kpReadyEp("10.244.0.3")),
			kpSlice("kube-system", "kube-dns", "kube-dns-bbbbb", []api.EndpointPort{kpEPort("metrics", api.ProtocolUDP, 53)}, kpReadyEp("10.244.0.4")),
			kpSlice("kube-system", "kube-dns", "kube-dns-ccccc", []api.EndpointPort{kpEPort("dns", api.ProtocolUDP, 53)}, kpReadyEp("10.244.0.2")),
		},
		nat:  kpOneEndpoint("kube-system/kube-dns:dns", "udp", "10.96.0.10", 53, "10.244.0.2:53"),
		rule: "rule 12.2: the slice port must have the service port's name and protocol",
	},
	{
		what: "Services given as default/web, ns1/svc1, default/api",
		svcs: []api.Service{
			kpService("default", "web", "10.96.104.23", kpTcpPort("http", 8080)),
			kpSvc1,
			kpService("default", "api", "10.96.33.4", kpTcpPort("grpc", 9000)),
		},
		slices: []api.EndpointSlice{
			kpSlice("default", "web", "web-abc12", kpEPorts("http", 8080), kpReadyEp("10.244.1.5")),
			kpSvc1Slice,
			kpSlice("default", "api", "api-def34", kpEPorts("grpc", 9000), kpReadyEp("10.244.1.6")),
		},
		nat: kpConcat(
			kpOneEndpoint("default/api:grpc", "tcp", "10.96.33.4", 9000, "10.244.1.6:9000"),
			kpOneEndpoint("default/web:http", "tcp", "10.96.104.23", 8080, "10.244.1.5:8080"),
			kpSvc1Nat),
		rule: "rule 12.6: service ports in the order of their names",
	},
}

// The golden case: a small cluster's Services, compared whole with
// testdata/cluster-ip.rules.
//
//go:embed testdata/cluster-ip.rules
var kpClusterIPGolden string

// kpGoldenInput is the input of testdata/cluster-ip.rules.
func kpGoldenInput() ([]api.Service, []api.EndpointSlice) {
	ext := kpService("default", "ext", "", kpTcpPort("https", 443))
	ext.Spec.Type, ext.Spec.ExternalName = api.ServiceTypeExternalName, "example.com"
	svcs := []api.Service{
		kpService("kube-system", "kube-dns", "10.96.0.10",
			kpSvcPort("dns", api.ProtocolUDP, 53, api.FromInt32(53)),
			kpTcpPort("dns-tcp", 53),
			kpTcpPort("metrics", 9153)),
		kpWeb,
		kpService("demo", "echo", "10.96.200.7", kpSvcPort("", api.ProtocolTCP, 80, api.FromInt32(5678))),
		kpService("default", "db", api.ClusterIPNone, kpTcpPort("pg", 5432)),
		kpService("default", "kubernetes", "10.96.0.1", kpSvcPort("https", api.ProtocolTCP, 443, api.FromInt32(6443))),
		ext,
	}
	sl := []api.EndpointSlice{
		kpSlice("default", "kubernetes", "kubernetes", kpEPorts("https", 6443), kpReadyEp("172.18.0.2")),
		kpSlice("kube-system", "kube-dns", "kube-dns-x7k2p", []api.EndpointPort{
			kpEPort("dns", api.ProtocolUDP, 53), kpEPort("dns-tcp", api.ProtocolTCP, 53), kpEPort("metrics", api.ProtocolTCP, 9153),
		}, kpReadyEp("10.244.0.2")),
		kpSlice("default", "web", "web-abc12", []api.EndpointPort{
			kpEPort("http", api.ProtocolTCP, 8080), kpEPort("https", api.ProtocolTCP, 8443),
		}, kpReadyEp("10.244.1.5")),
		kpSlice("demo", "echo", "echo-q9w8e", kpEPorts("", 5678), kpReadyEp("10.244.3.4")),
		kpSlice("default", "db", "db-k3j4h", kpEPorts("pg", 5432), kpReadyEp("10.244.2.9")),
	}
	return svcs, sl
}

const kpGoldenWhat = "default/kubernetes, default/web (two ports), default/db (headless), default/ext (ExternalName), demo/echo (unnamed port), kube-system/kube-dns (dns/UDP, dns-tcp, metrics)"

func clusterIPRules(t *suite.T, impl Impl) {
	for _, c := range kpClusterIPCases {
		out, _, ok := kpRender(t, impl, c.what, c.svcs, c.slices)
		if !ok {
			continue
		}
		if want := kpWholeDump(c.filter, c.nat); out != want {
			t.Errorf("Rules(%s) is not the dump wanted (%s); %s\nwant:\n%s", c.what, c.rule, kpDumpDiff(out, want), kpIndent(want))
		}
	}
	svcs, sl := kpGoldenInput()
	out, _, ok := kpRender(t, impl, kpGoldenWhat, svcs, sl)
	if ok && out != kpClusterIPGolden {
		t.Errorf("Rules(%s) is not harness/servicestest/testdata/cluster-ip.rules (rules 12.1-12.7); %s", kpGoldenWhat, kpDumpDiff(out, kpClusterIPGolden))
	}
}

// ---------------------------------------------------------------- following the jumps

var (
	kpCommentRe = regexp.MustCompile(`--comment ("[^"]*"|\S+)`)
	kpJumpRe    = regexp.MustCompile(` -j (\S+)`)
	kpProbRe    = regexp.MustCompile(` -m statistic --mode random --probability (\S+)`)
	kpDnatRe    = regexp.MustCompile(` -j DNAT --to-destination (\S+)`)
)

// kpComment is a rule's comment, unquoted.
func kpComment(rule string) string {
	m := kpCommentRe.FindStringSubmatch(rule)
	if m == nil {
		return ""
	}
	return strings.Trim(m[1], `"`)
}

// kpJump is a rule's target.
func kpJump(rule string) string {
	m := kpJumpRe.FindStringSubmatch(rule)
	if m == nil {
		return ""
	}
	return m[1]
}

// kpSvcChainOf is the chain KUBE-SERVICES sends a service port's traffic to
// ("" when none).
func kpSvcChainOf(nat *kpTable, name string) string {
	for _, r := range nat.chainRules("KUBE-SERVICES") {
		if kpComment(r) == name+" cluster IP" {
			return kpJump(r)
		}
	}
	return ""
}

// kpDnatOf is where an endpoint chain sends traffic ("" when nowhere).
func kpDnatOf(nat *kpTable, chain string) string {
	for _, r := range nat.chainRules(chain) {
		if m := kpDnatRe.FindStringSubmatch(r); m != nil {
			return m[1]
		}
	}
	return ""
}

// kpBalanced is one balancing rule of a KUBE-SVC- chain: the endpoint it
// ends at and its probability ("" when unconditional).
type kpBalanced struct {
	endpoint, prob string
}

func (b kpBalanced) String() string {
	if b.prob == "" {
		return b.endpoint + " (no probability)"
	}
	return b.endpoint + " (probability " + b.prob + ")"
}

// kpBalancing follows a service port's traffic: KUBE-SERVICES, its
// KUBE-SVC- chain's rules other than the affinity ones, the KUBE-SEP-
// chain each jumps to and that chain's DNAT destination.
func kpBalancing(nat *kpTable, name string) []kpBalanced {
	svc := kpSvcChainOf(nat, name)
	if svc == "" {
		return nil
	}
	var out []kpBalanced
	for _, r := range nat.chainRules(svc) {
		if strings.Contains(r, " -m recent ") {
			continue
		}
		b := kpBalanced{endpoint: kpDnatOf(nat, kpJump(r))}
		if b.endpoint == "" {
			b.endpoint = "(" + kpJump(r) + ", which has no DNAT rule)"
		}
		if m := kpProbRe.FindStringSubmatch(r); m != nil {
			b.prob = m[1]
		}
		out = append(out, b)
	}
	return out
}

func kpEndpointsOf(bs []kpBalanced) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.endpoint)
	}
	return out
}

// ---------------------------------------------------------------- 13

// kpProbCase is a case of step 13: one service port ns1/svc1:p80 whose
// balancing rules must be want.
type kpProbCase struct {
	what   string
	slices []api.EndpointSlice
	want   []kpBalanced
}

// kpEvenly is want for endpoints in order: 1/(n-i) with ten decimals, the
// last unconditional.
func kpEvenly(eps ...string) []kpBalanced {
	out := make([]kpBalanced, len(eps))
	for i, e := range eps {
		out[i].endpoint = e
		if i < len(eps)-1 {
			out[i].prob = fmt.Sprintf("%0.10f", 1.0/float64(len(eps)-i))
		}
	}
	return out
}

var kpProbCases = []kpProbCase{
	{
		what:   "two endpoints",
		slices: []api.EndpointSlice{kpSlice("ns1", "svc1", "svc1-abcde", kpEPorts("p80", 80), kpReadyEps("10.180.0.1", "10.180.0.2")...)},
		want:   []kpBalanced{{"10.180.0.1:80", "0.5000000000"}, {"10.180.0.2:80", ""}},
	},
	{
		what:   "three endpoints",
		slices: []api.EndpointSlice{kpSlice("ns1", "svc1", "svc1-abcde", kpEPorts("p80", 80), kpReadyEps("10.180.0.1", "10.180.0.2", "10.180.0.3")...)},
		want:   []kpBalanced{{"10.180.0.1:80", "0.3333333333"}, {"10.180.0.2:80", "0.5000000000"}, {"10.180.0.3:80", ""}},
	},
	{
		what: "seven endpoints",
		slices: []api.EndpointSlice{kpSlice("ns1", "svc1", "svc1-abcde", kpEPorts("p80", 80),
			kpReadyEps("10.180.0.1", "10.180.0.2", "10.180.0.3", "10.180.0.4", "10.180.0.5", "10.180.0.6", "10.180.0.7")...)},
		want: kpEvenly("10.180.0.1:80", "10.180.0.2:80", "10.180.0.3:80", "10.180.0.4:80", "10.180.0.5:80", "10.180.0.6:80", "10.180.0.7:80"),
	},
	{
		what: "endpoints 10.180.0.9 and 10.180.0.10 in one slice, 10.180.0.1 in a second",
		slices: []api.EndpointSlice{
			kpSlice("ns1", "svc1", "svc1-abcde", kpEPorts("p80", 80), kpReadyEps("10.180.0.9", "10.180.0.10")...),
			kpSlice("ns1", "svc1", "svc1-fghij", kpEPorts("p80", 80), kpReadyEp("10.180.0.1")),
		},
		want: kpEvenly("10.180.0.10:80", "10.180.0.1:80", "10.180.0.9:80"),
	},
}

func probability(t *suite.T, impl Impl) {
	for _, c := range kpProbCases {
		what := "ns1/svc1 port p80, " + c.what
		_, tables, ok := kpRender(t, impl, what, []api.Service{kpSvc1}, c.slices)
		if !ok {
			continue
		}
		got := kpBalancing(tables["nat"], "ns1/svc1:p80")
		if slices.Equal(got, c.want) {
			continue
		}
		rule := "rule 13.2: endpoint i of n gets --probability 1/(n-i), printed with ten decimals"
		switch {
		case !slices.Equal(kpEndpointsOf(got), kpEndpointsOf(c.want)):
			rule = "rule 13.1: endpoints in the string order of \"ip:port\""
		case len(got) > 0 && got[len(got)-1].prob != "":
			rule = "rule 13.3: the last endpoint takes what is left, with no probability"
		}
		t.Errorf("Rules(%s): the KUBE-SVC- chain of ns1/svc1:p80 sends to\n\t%v\nwant\n\t%v\n(%s)", what, got, c.want, rule)
	}
}

// ---------------------------------------------------------------- 14

// kpReadyCase is a case of step 14: the endpoints ns1/svc1:p80 must use.
type kpReadyCase struct {
	what string
	eps  []api.Endpoint
	want []string
	rule string
}

var kpReadyCases = []kpReadyCase{
	{
		what: "10.180.0.1 ready, 10.180.0.2 neither ready nor serving, 10.180.0.3 ready",
		eps:  []api.Endpoint{kpReadyEp("10.180.0.1"), kpEp("10.180.0.2", false, false, false), kpReadyEp("10.180.0.3")},
		want: []string{"10.180.0.1:80", "10.180.0.3:80"},
		rule: "rule 14.2: the ready endpoints, and only them",
	},
	{
		what: "10.180.0.1 with no conditions (unknown), 10.180.0.2 ready",
		eps:  []api.Endpoint{{Addresses: []string{"10.180.0.1"}}, kpReadyEp("10.180.0.2")},
		want: []string{"10.180.0.1:80", "10.180.0.2:80"},
		rule: "rule 14.1: an unknown ready condition counts as ready",
	},
	{
		what: "10.180.0.1 serving and terminating, 10.180.0.2 ready",
		eps:  []api.Endpoint{kpEp("10.180.0.1", false, true, true), kpReadyEp("10.180.0.2")},
		want: []string{"10.180.0.2:80"},
		rule: "rule 14.2: while an endpoint is ready, the terminating ones get nothing",
	},
	{
		what: "none ready: 10.180.0.1 serving and terminating, 10.180.0.2 terminating and not serving, 10.180.0.3 serving and terminating, 10.180.0.4 neither ready nor serving",
		eps: []api.Endpoint{
			kpEp("10.180.0.1", false, true, true), kpEp("10.180.0.2", false, false, true),
			kpEp("10.180.0.3", false, true, true), kpEp("10.180.0.4", false, false, false),
		},
		want: []string{"10.180.0.1:80", "10.180.0.3:80"},
		rule: "rule 14.3: with no ready endpoint, those that are serving and terminating",
	},
	{
		what: "none ready: 10.180.0.1 serving but not terminating, 10.180.0.2 serving and terminating",
		eps:  []api.Endpoint{kpEp("10.180.0.1", false, true, false), kpEp("10.180.0.2", false, true, true)},
		want: []string{"10.180.0.2:80"},
		rule: "rule 14.3: the fallback is the endpoints serving AND terminating",
	},
}

func readyEndpoints(t *suite.T, impl Impl) {
	for _, c := range kpReadyCases {
		what := "ns1/svc1 port p80, " + c.what
		sl := []api.EndpointSlice{kpSlice("ns1", "svc1", "svc1-abcde", kpEPorts("p80", 80), c.eps...)}
		_, tables, ok := kpRender(t, impl, what, []api.Service{kpSvc1}, sl)
		if !ok {
			continue
		}
		nat := tables["nat"]
		got := kpEndpointsOf(kpBalancing(nat, "ns1/svc1:p80"))
		if !slices.Equal(got, c.want) {
			t.Errorf("Rules(%s): ns1/svc1:p80 sends to %v, want %v (%s)", what, got, c.want, c.rule)
			continue
		}
		// No endpoint chain for an endpoint that takes no traffic.
		for _, sep := range nat.declared("KUBE-SEP-") {
			if d := kpDnatOf(nat, sep); !slices.Contains(c.want, d) {
				t.Errorf("Rules(%s): the nat table declares %s, which sends to %q, want endpoint chains only for %v (%s)", what, sep, d, c.want, c.rule)
			}
		}
	}
}

// ---------------------------------------------------------------- 15

// kpRejectCase is a case of step 15: the filter table's REJECT rules, and
// how many service ports still get a KUBE-SVC- chain.
type kpRejectCase struct {
	what   string
	svcs   []api.Service
	slices []api.EndpointSlice
	reject []string
	// rejected are the service ports that must have nothing in nat.
	rejected  []string
	svcChains int // how many KUBE-SVC- chains the nat table declares
}

func kpRejectLine(name, proto, clusterIP string, port int32) string {
	return fmt.Sprintf(`-A KUBE-SERVICES -m comment --comment "%s has no endpoints" -m %s -p %s -d %s --dport %d -j REJECT`, name, proto, proto, clusterIP, port)
}

var kpSvc6 = kpService("ns6", "svc6", "172.30.0.46", kpTcpPort("p80", 80))

var kpRejectCases = []kpRejectCase{
	{
		what:     "ns6/svc6 port p80 and no slice",
		svcs:     []api.Service{kpSvc6},
		reject:   []string{kpRejectLine("ns6/svc6:p80", "tcp", "172.30.0.46", 80)},
		rejected: []string{"ns6/svc6:p80"},
	},
	{
		what:     "ns6/svc6 port p80, its slice has no endpoint",
		svcs:     []api.Service{kpSvc6},
		slices:   []api.EndpointSlice{kpSlice("ns6", "svc6", "svc6-abcde", kpEPorts("p80", 80))},
		reject:   []string{kpRejectLine("ns6/svc6:p80", "tcp", "172.30.0.46", 80)},
		rejected: []string{"ns6/svc6:p80"},
	},
	{
		what: "ns6/svc6 port p80, its endpoints neither ready nor serving",
		svcs: []api.Service{kpSvc6},
		slices: []api.EndpointSlice{kpSlice("ns6", "svc6", "svc6-abcde", kpEPorts("p80", 80),
			kpEp("10.180.0.1", false, false, false), kpEp("10.180.0.2", false, false, true))},
		reject:   []string{kpRejectLine("ns6/svc6:p80", "tcp", "172.30.0.46", 80)},
		rejected: []string{"ns6/svc6:p80"},
	},
	{
		what: "kube-system/kube-dns ports dns/UDP and metrics/TCP, its slice only has dns",
		svcs: []api.Service{kpService("kube-system", "kube-dns", "10.96.0.10",
			kpSvcPort("dns", api.ProtocolUDP, 53, api.FromInt32(53)), kpTcpPort("metrics", 9153))},
		slices: []api.EndpointSlice{kpSlice("kube-system", "kube-dns", "kube-dns-x7k2p",
			[]api.EndpointPort{kpEPort("dns", api.ProtocolUDP, 53)}, kpReadyEp("10.244.0.2"))},
		reject:    []string{kpRejectLine("kube-system/kube-dns:metrics", "tcp", "10.96.0.10", 9153)},
		rejected:  []string{"kube-system/kube-dns:metrics"},
		svcChains: 1,
	},
	{
		what: "kube-system/kube-dns ports metrics/TCP and dns/UDP, and no slice",
		svcs: []api.Service{kpService("kube-system", "kube-dns", "10.96.0.10",
			kpTcpPort("metrics", 9153), kpSvcPort("dns", api.ProtocolUDP, 53, api.FromInt32(53)))},
		reject: []string{
			kpRejectLine("kube-system/kube-dns:dns", "udp", "10.96.0.10", 53),
			kpRejectLine("kube-system/kube-dns:metrics", "tcp", "10.96.0.10", 9153),
		},
		rejected: []string{"kube-system/kube-dns:dns", "kube-system/kube-dns:metrics"},
	},
	{
		what:     "kube-system/kube-dns port dns/UDP and no slice",
		svcs:     []api.Service{kpService("kube-system", "kube-dns", "10.96.0.10", kpSvcPort("dns", api.ProtocolUDP, 53, api.FromInt32(53)))},
		reject:   []string{kpRejectLine("kube-system/kube-dns:dns", "udp", "10.96.0.10", 53)},
		rejected: []string{"kube-system/kube-dns:dns"},
	},
}

func noEndpoints(t *suite.T, impl Impl) {
	for _, c := range kpRejectCases {
		_, tables, ok := kpRender(t, impl, c.what, c.svcs, c.slices)
		if !ok {
			continue
		}
		// The filter table's rules whole: the REJECT rules between
		// KUBE-FIREWALL's and KUBE-FORWARD's, in service port order.
		want := kpConcat(kpFilterHead[len(kpFilterHead)-1:], c.reject, kpFilterTail[:len(kpFilterTail)-1])
		if got := tables["filter"].rules; !slices.Equal(got, want) {
			t.Errorf("Rules(%s): the filter table's rules are\n%s\nwant\n%s\n(rule 15.1: a port with no endpoint left is rejected in the filter table, after KUBE-FIREWALL's rule, before KUBE-FORWARD's, in the order of the ports' names)",
				c.what, kpIndent(strings.Join(got, "\n")), kpIndent(strings.Join(want, "\n")))
		}
		nat := tables["nat"]
		for _, name := range c.rejected {
			for _, r := range nat.rules {
				if cm := kpComment(r); cm == name+" cluster IP" || cm == name || strings.HasPrefix(cm, name+" -> ") {
					t.Errorf("Rules(%s): the nat table has\n\t%s\nwant no nat rule for %s (rule 15.2: it has no endpoint)", c.what, r, name)
				}
			}
		}
		if got := nat.declared("KUBE-SVC-"); len(got) != c.svcChains {
			t.Errorf("Rules(%s): the nat table declares the service chains %v, want %d (rule 15.2: no KUBE-SVC- chain for a port with no endpoint)", c.what, got, c.svcChains)
		}
	}
}

// ---------------------------------------------------------------- 16

// kpAffinityCase is a case of step 16 on ns5/svc5:p80 (upstream's Service
// with session affinity in TestOverallIPTablesRules).
type kpAffinityCase struct {
	what    string
	svc     api.Service
	eps     []string
	timeout int // 0: no affinity rules at all
	rule    string
}

func kpSeconds(s int32) *int32 { return &s }

var kpSvc5 = kpService("ns5", "svc5", "172.30.0.45", kpTcpPort("p80", 80))

var kpAffinityCases = []kpAffinityCase{
	{
		what:    "sessionAffinity ClientIP, timeoutSeconds 10800, endpoint 10.180.0.3",
		svc:     kpWithAffinity(kpSvc5, kpSeconds(10800)),
		eps:     []string{"10.180.0.3"},
		timeout: 10800,
		rule:    "rules 16.1 and 16.3",
	},
	{
		what:    "sessionAffinity ClientIP, timeoutSeconds 60, endpoints 10.180.0.3 and 10.180.0.4",
		svc:     kpWithAffinity(kpSvc5, kpSeconds(60)),
		eps:     []string{"10.180.0.3", "10.180.0.4"},
		timeout: 60,
		rule:    "rule 16.2: --seconds is sessionAffinityConfig.clientIP.timeoutSeconds",
	},
	{
		what:    "sessionAffinity ClientIP without sessionAffinityConfig, endpoints 10.180.0.3 and 10.180.0.4",
		svc:     kpWithAffinity(kpSvc5, nil),
		eps:     []string{"10.180.0.3", "10.180.0.4"},
		timeout: 10800,
		rule:    "rule 16.2: the timeout defaults to 10800 seconds",
	},
	{
		what: "sessionAffinity None, endpoints 10.180.0.3 and 10.180.0.4",
		svc: func() api.Service {
			s := kpSvc5
			s.Spec.SessionAffinity = api.ServiceAffinityNone
			return s
		}(),
		eps:  []string{"10.180.0.3", "10.180.0.4"},
		rule: "no affinity rules without ClientIP",
	},
}

// kpSepByDNAT is the endpoint chain whose DNAT rule sends to endpoint.
func kpSepByDNAT(nat *kpTable, endpoint string) string {
	for _, c := range nat.declared("KUBE-SEP-") {
		if kpDnatOf(nat, c) == endpoint {
			return c
		}
	}
	return ""
}

func sessionAffinity(t *suite.T, impl Impl) {
	const name = "ns5/svc5:p80"
	for _, c := range kpAffinityCases {
		what := "ns5/svc5 port p80, " + c.what
		sl := []api.EndpointSlice{kpSlice("ns5", "svc5", "svc5-abcde", kpEPorts("p80", 80), kpReadyEps(c.eps...)...)}
		_, tables, ok := kpRender(t, impl, what, []api.Service{c.svc}, sl)
		if !ok {
			continue
		}
		nat := tables["nat"]
		svc := kpSvcChainOf(nat, name)
		if svc == "" {
			t.Errorf("Rules(%s): KUBE-SERVICES has no rule with the comment \"%s cluster IP\" (step 12)", what, name)
			continue
		}
		var wantRecent, wantDNAT []string
		for _, ip := range c.eps {
			endpoint := ip + ":80"
			sep := kpSepByDNAT(nat, endpoint)
			if sep == "" {
				t.Errorf("Rules(%s): no KUBE-SEP- chain sends to %s (step 12)", what, endpoint)
				continue
			}
			recent, set := "", ""
			if c.timeout != 0 {
				recent = fmt.Sprintf(`-A %s -m comment --comment "%s -> %s" -m recent --name %s --rcheck --seconds %d --reap -j %s`, svc, name, endpoint, sep, c.timeout, sep)
				wantRecent = append(wantRecent, recent)
				set = fmt.Sprintf(" -m recent --name %s --set", sep)
			}
			wantDNAT = append(wantDNAT, fmt.Sprintf("-A %s -m comment --comment %s%s -m tcp -p tcp -j DNAT --to-destination %s", sep, name, set, endpoint))
		}
		rules := nat.chainRules(svc)
		var gotRecent []string
		for i, r := range rules {
			if !strings.Contains(r, " -m recent ") {
				continue
			}
			gotRecent = append(gotRecent, r)
			if i >= len(wantRecent) {
				t.Errorf("Rules(%s): %s has the affinity rule\n\t%s\nafter a balancing rule, want the affinity rules first (rule 16.1: a client seen before goes back to its endpoint before any balancing)", what, svc, r)
			}
		}
		if !slices.Equal(gotRecent, wantRecent) {
			rule := c.rule
			if c.timeout != 0 {
				rule = "rule 16.1: one --rcheck rule per endpoint, in endpoint order; " + c.rule
			}
			t.Errorf("Rules(%s): the affinity rules of %s are\n%s\nwant\n%s\n(%s)", what, svc, kpIndent(strings.Join(gotRecent, "\n")), kpIndent(strings.Join(wantRecent, "\n")), rule)
		}
		for _, want := range wantDNAT {
			sep := kpRuleChain(want)
			var got []string
			for _, r := range nat.chainRules(sep) {
				if kpDnatRe.MatchString(r) {
					got = append(got, r)
				}
			}
			if !slices.Equal(got, []string{want}) {
				rule := "rule 16.3: the DNAT rule records the client with -m recent --set"
				if c.timeout == 0 {
					rule = c.rule
				}
				t.Errorf("Rules(%s): the DNAT rule of %s is\n%s\nwant\n\t%s\n(%s)", what, sep, kpIndent(strings.Join(got, "\n")), want, rule)
			}
		}
	}
}
