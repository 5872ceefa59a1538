package servicestest

// The planted bugs of steps 11-16: each is the solution's Rules seen
// through a wrapper that breaks one rule of the README, by changing a
// copy of its input (kpPre) or rewriting its text (kpPost).

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	sol "github.com/kubekata/kubekata/solutions/14-services"
)

// kpPre is the solution run on a changed copy of its input. Its
// PartialRules has the same bug, as a learner's would that shares its
// code with Rules: steps 24-25 compare the two, and a bug of Rules alone
// is for steps 11-16 to find.
func kpPre(change func(svcs []api.Service, sl []api.EndpointSlice) []api.EndpointSlice) func() Impl {
	return func() Impl {
		i := solution()
		i.Rules = func(svcs []api.Service, sl []api.EndpointSlice) string {
			svcs, sl = api.DeepCopyValue(svcs), api.DeepCopyValue(sl)
			return sol.Rules(svcs, change(svcs, sl))
		}
		i.PartialRules = func(svcs []api.Service, sl []api.EndpointSlice, changed, existing []string) string {
			svcs, sl = api.DeepCopyValue(svcs), api.DeepCopyValue(sl)
			return sol.PartialRules(svcs, change(svcs, sl), changed, existing)
		}
		return i
	}
}

// kpPost is the solution with its text rewritten, that of PartialRules
// too (see kpPre).
func kpPost(rewrite func(out string) string) func() Impl {
	return func() Impl {
		i := solution()
		i.Rules = func(svcs []api.Service, sl []api.EndpointSlice) string {
			return rewrite(sol.Rules(svcs, sl))
		}
		i.PartialRules = func(svcs []api.Service, sl []api.EndpointSlice, changed, existing []string) string {
			return rewrite(sol.PartialRules(svcs, sl, changed, existing))
		}
		return i
	}
}

// kpEachEndpoint changes every endpoint of every slice.
func kpEachEndpoint(f func(e *api.Endpoint)) func() Impl {
	return kpPre(func(_ []api.Service, sl []api.EndpointSlice) []api.EndpointSlice {
		for i := range sl {
			for j := range sl[i].Endpoints {
				f(&sl[i].Endpoints[j])
			}
		}
		return sl
	})
}

// kpEachService changes every Service.
func kpEachService(f func(s *api.Service)) func() Impl {
	return kpPre(func(svcs []api.Service, sl []api.EndpointSlice) []api.EndpointSlice {
		for i := range svcs {
			f(&svcs[i])
		}
		return sl
	})
}

// kpServiceOf is the Service a slice belongs to, nil if none.
func kpServiceOf(svcs []api.Service, s api.EndpointSlice) *api.Service {
	for i := range svcs {
		if svcs[i].Namespace == s.Namespace && svcs[i].Name == s.Labels[api.LabelServiceName] {
			return &svcs[i]
		}
	}
	return nil
}

// kpEachSlicePort changes every slice port that has a Service port of
// its name.
func kpEachSlicePort(f func(p *api.EndpointPort, sp api.ServicePort)) func() Impl {
	return kpPre(func(svcs []api.Service, sl []api.EndpointSlice) []api.EndpointSlice {
		for i := range sl {
			svc := kpServiceOf(svcs, sl[i])
			if svc == nil {
				continue
			}
			for j := range sl[i].Ports {
				p := &sl[i].Ports[j]
				for _, sp := range svc.Spec.Ports {
					if p.Name != nil && *p.Name == sp.Name {
						f(p, sp)
					}
				}
			}
		}
		return sl
	})
}

// kpLines rewrites the text line by line; a line f returns "" for is
// dropped.
func kpLines(f func(line string) string) func() Impl {
	return kpPost(func(out string) string {
		var b strings.Builder
		for _, l := range strings.SplitAfter(out, "\n") {
			if l == "" {
				continue
			}
			if l = f(strings.TrimSuffix(l, "\n")); l != "" {
				b.WriteString(l + "\n")
			}
		}
		return b.String()
	})
}

var kpProtoRe = regexp.MustCompile(` -p (\S+)`)

// kpRename renames the KUBE-SVC- and KUBE-SEP- chains as if they were
// hashed from svcIn(name, proto) and sepIn(name, proto, endpoint).
func kpRename(svcIn func(name, proto string) string, sepIn func(name, proto, endpoint string) string) func() Impl {
	return kpPost(func(out string) string {
		tables, err := kpParseDump(out)
		if err != nil {
			return out
		}
		nat := tables["nat"]
		var pairs []string
		for _, r := range nat.chainRules("KUBE-SERVICES") {
			name, ok := strings.CutSuffix(kpComment(r), " cluster IP")
			if !ok {
				continue
			}
			proto := kpProtoRe.FindStringSubmatch(r)[1]
			svc := kpJump(r)
			pairs = append(pairs, svc, "KUBE-SVC-"+kpChainHash(svcIn(name, proto)))
			for _, sr := range nat.chainRules(svc) {
				if sep := kpJump(sr); strings.HasPrefix(sep, "KUBE-SEP-") && !slices.Contains(pairs, sep) {
					pairs = append(pairs, sep, "KUBE-SEP-"+kpChainHash(sepIn(name, proto, kpDnatOf(nat, sep))))
				}
			}
		}
		return strings.NewReplacer(pairs...).Replace(out)
	})
}

var (
	kpBalanceRe = regexp.MustCompile(`^(-A (KUBE-SVC-\S+) -m comment --comment "[^"]* -> ([^"]*)")( -m statistic --mode random --probability (\S+))?( -j \S+)$`)
	kpRecentRe  = regexp.MustCompile(` -m recent --name \S+ --set`)
)

// kpRewriteBalancing rewrites each KUBE-SVC- chain's balancing rules: f gets
// their endpoints and probability parts in order and returns them.
func kpRewriteBalancing(f func(svcChain string, heads, probs, tails []string) ([]string, []string, []string)) func() Impl {
	return kpPost(func(out string) string {
		lines := strings.Split(out, "\n")
		idx := map[string][]int{}
		var order []string
		for i, l := range lines {
			if m := kpBalanceRe.FindStringSubmatch(l); m != nil {
				if idx[m[2]] == nil {
					order = append(order, m[2])
				}
				idx[m[2]] = append(idx[m[2]], i)
			}
		}
		for _, c := range order {
			var heads, probs, tails []string
			for _, i := range idx[c] {
				m := kpBalanceRe.FindStringSubmatch(lines[i])
				heads, probs, tails = append(heads, m[1]), append(probs, m[4]), append(tails, m[6])
			}
			heads, probs, tails = f(c, heads, probs, tails)
			for k, i := range idx[c] {
				lines[i] = heads[k] + probs[k] + tails[k]
			}
		}
		return strings.Join(lines, "\n")
	})
}

func kpProb(p string) string { return " -m statistic --mode random --probability " + p }

// kpSliceOrder is the solution with each KUBE-SVC- chain's endpoints in
// the order the slices list them, as if it forgot to sort.
func kpSliceOrder() Impl {
	// reorder is the solution whose balancing rules follow the order of
	// the endpoints in sl.
	reorder := func(sl []api.EndpointSlice) Impl {
		var seen []string
		for _, s := range sl {
			for _, e := range s.Endpoints {
				if len(e.Addresses) > 0 && !slices.Contains(seen, e.Addresses[0]) {
					seen = append(seen, e.Addresses[0])
				}
			}
		}
		at := func(head string) int {
			ip, _, _ := strings.Cut(kpBalanceRe.FindStringSubmatch(head + " -j X")[3], ":")
			return slices.Index(seen, ip)
		}
		return kpRewriteBalancing(func(_ string, heads, probs, tails []string) ([]string, []string, []string) {
			type pair struct{ head, tail string }
			ps := make([]pair, len(heads))
			for k := range heads {
				ps[k] = pair{heads[k], tails[k]}
			}
			slices.SortStableFunc(ps, func(a, b pair) int { return at(a.head) - at(b.head) })
			for k := range ps {
				heads[k], tails[k] = ps[k].head, ps[k].tail
			}
			return heads, probs, tails
		})()
	}
	i := solution()
	i.Rules = func(svcs []api.Service, sl []api.EndpointSlice) string { return reorder(sl).Rules(svcs, sl) }
	i.PartialRules = func(svcs []api.Service, sl []api.EndpointSlice, changed, existing []string) string {
		return reorder(sl).PartialRules(svcs, sl, changed, existing)
	}
	return i
}

// kpConditions reads an endpoint's conditions as upstream does.
func kpConditions(e api.Endpoint) (ready, serving, terminating bool) {
	c := e.Conditions
	return c.Ready == nil || *c.Ready, c.Serving == nil || *c.Serving, c.Terminating != nil && *c.Terminating
}

func kpBool(b bool) *bool { return &b }

var ruleBugs = map[string]bug{
	// 11: chain names, and the arguments left alone.
	"rules-changes-its-arguments": {
		impl: func() Impl {
			i := solution()
			i.Rules = func(svcs []api.Service, sl []api.EndpointSlice) string {
				out := sol.Rules(svcs, sl)
				// Lower-cases the protocols in place, through the
				// caller's slices.
				for i := range svcs {
					for j := range svcs[i].Spec.Ports {
						p := &svcs[i].Spec.Ports[j]
						p.Protocol = api.Protocol(strings.ToLower(string(p.Protocol)))
					}
				}
				return out
			}
			return i
		},
		// Steps 24-25 restore Rules' text too.
		fail: []string{"11-chain-names", "12-cluster-ip-rules", "13-probability", "14-ready-endpoints", "15-no-endpoints", "16-session-affinity", "24-partial-sync", "25-stale-chains"},
		want: `changed the Services it was given: want its arguments untouched; sort and filter copies, never the caller's objects (rule 11.4)`,
	},
	"svc-chain-protocol-not-lowercased": {
		impl: kpRename(func(name, proto string) string { return name + strings.ToUpper(proto) },
			func(name, proto, endpoint string) string { return name + proto + endpoint }),
		// a rename of the whole dump: the solution's PartialRules takes the renamed chains of existing for stale (steps 24-25 fail too).
		fail: []string{"11-chain-names", "12-cluster-ip-rules", "24-partial-sync", "25-stale-chains"},
		want: `want a chain line :KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]: "KUBE-SVC-" + the first 16 characters of base32(sha256("ns1/svc1:p80tcp")) (rule 11.2)`,
	},
	"sep-chain-without-port": {
		impl: kpRename(func(name, proto string) string { return name + proto },
			func(name, proto, endpoint string) string {
				ip, _, _ := strings.Cut(endpoint, ":")
				return name + proto + ip
			}),
		// a rename of the whole dump: the solution's PartialRules takes the renamed chains of existing for stale (steps 24-25 fail too).
		fail: []string{"11-chain-names", "12-cluster-ip-rules", "24-partial-sync", "25-stale-chains"},
		want: `want a chain line :KUBE-SEP-SXIVWICOYRO3J4NJ - [0:0]: "KUBE-SEP-" + the first 16 characters of base32(sha256("ns1/svc1:p80tcp10.180.0.1:80")) (rule 11.3)`,
	},
	"unnamed-port-with-colon": {
		impl: kpRename(func(name, proto string) string {
			if !strings.Contains(name, ":") {
				name += ":"
			}
			return name + proto
		}, func(name, proto, endpoint string) string { return name + proto + endpoint }),
		// a rename of the whole dump: the solution's PartialRules takes the renamed chains of existing for stale (steps 24-25 fail too).
		fail: []string{"11-chain-names", "12-cluster-ip-rules", "24-partial-sync", "25-stale-chains"},
		want: `base32(sha256("demo/echotcp")) (rule 11.1)`,
	},

	// 12: the rules of a service port.
	"headless-gets-rules": {
		impl: kpEachService(func(s *api.Service) {
			if s.Spec.ClusterIP == api.ClusterIPNone {
				s.Spec.ClusterIP = "10.96.0.250"
			}
		}),
		fail: []string{"12-cluster-ip-rules"},
		want: `rule 12.1: no rules at all for a Service without an IPv4 cluster IP`,
	},
	"ipv6-cluster-ip-gets-rules": {
		impl: kpEachService(func(s *api.Service) {
			if strings.Contains(s.Spec.ClusterIP, ":") {
				s.Spec.ClusterIP = "10.96.0.251"
			}
		}),
		fail: []string{"12-cluster-ip-rules"},
		want: `rule 12.1: no rules at all for a Service without an IPv4 cluster IP`,
	},
	"slices-of-every-namespace": {
		impl: kpPre(func(svcs []api.Service, sl []api.EndpointSlice) []api.EndpointSlice {
			for _, s := range slices.Clone(sl) {
				for _, svc := range svcs {
					if svc.Namespace != s.Namespace {
						c := api.DeepCopyValue(s)
						c.Namespace = svc.Namespace
						sl = append(sl, c)
					}
				}
			}
			return sl
		}),
		// a Service's chains then depend on other Services' slices, which a partial sync of the changed Services cannot follow (steps 24-25 fail too).
		fail: []string{"12-cluster-ip-rules", "24-partial-sync", "25-stale-chains"},
		want: `rule 12.2: only the IPv4 slices of the Service's namespace labelled kubernetes.io/service-name=web`,
	},
	"ipv6-slices-used": {
		impl: kpPre(func(_ []api.Service, sl []api.EndpointSlice) []api.EndpointSlice {
			for i := range sl {
				sl[i].AddressType = api.AddressTypeIPv4
			}
			return sl
		}),
		fail: []string{"12-cluster-ip-rules"},
		want: `--to-destination fd00:10:244::5:8080`,
	},
	"slice-port-protocol-ignored": {
		impl: kpEachSlicePort(func(p *api.EndpointPort, sp api.ServicePort) {
			proto := sp.Protocol
			p.Protocol = &proto
		}),
		fail: []string{"12-cluster-ip-rules"},
		want: `rule 12.2: the slice port must have the service port's name and protocol`,
	},
	"dnat-to-service-port": {
		impl: kpEachSlicePort(func(p *api.EndpointPort, sp api.ServicePort) {
			port := sp.Port
			p.Port = &port
		}),
		fail: []string{"12-cluster-ip-rules"},
		want: `rule 12.2: the endpoint's port is the slice port's number`,
	},
	"udp-matched-as-tcp": {
		impl: kpPost(func(out string) string { return strings.ReplaceAll(out, "-m udp -p udp", "-m tcp -p tcp") }),
		fail: []string{"12-cluster-ip-rules", "15-no-endpoints"},
		want: `rules 12.3 and 12.5: -m udp -p udp for UDP`,
	},
	"balancing-comment-without-endpoint": {
		impl: kpLines(func(l string) string {
			return regexp.MustCompile(`--comment "([^" ]*) -> [^"]*"`).ReplaceAllString(l, "--comment $1")
		}),
		fail: []string{"12-cluster-ip-rules", "16-session-affinity"},
		want: `-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ`,
	},
	"no-hairpin-masquerade": {
		impl: kpLines(func(l string) string {
			if strings.HasPrefix(l, "-A KUBE-SEP-") && strings.HasSuffix(l, "-j KUBE-MARK-MASQ") {
				return ""
			}
			return l
		}),
		fail: []string{"12-cluster-ip-rules"},
		want: `-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ`,
	},
	"services-unsorted": {
		impl: kpPost(func(out string) string {
			lines := strings.Split(out, "\n")
			var at []int
			for i, l := range lines {
				if strings.HasPrefix(l, "-A KUBE-SERVICES ") && strings.Contains(l, ` cluster IP" `) {
					at = append(at, i)
				}
			}
			for i, j := 0, len(at)-1; i < j; i, j = i+1, j-1 {
				lines[at[i]], lines[at[j]] = lines[at[j]], lines[at[i]]
			}
			return strings.Join(lines, "\n")
		}),
		fail: []string{"12-cluster-ip-rules"},
		want: `rule 12.6: service ports in the order of their names`,
	},
	"no-postrouting-rules": {
		impl: kpLines(func(l string) string {
			if strings.HasPrefix(l, "-A KUBE-POSTROUTING ") {
				return ""
			}
			return l
		}),
		fail: []string{"12-cluster-ip-rules"},
		want: `-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN`,
	},

	// 13: probabilities.
	"endpoints-in-slice-order": {
		impl: kpSliceOrder,
		fail: []string{"13-probability"},
		want: `rule 13.1: endpoints in the string order of "ip:port"`,
	},
	"probability-1-over-n": {
		impl: kpRewriteBalancing(func(_ string, heads, probs, tails []string) ([]string, []string, []string) {
			for k := range probs {
				if probs[k] != "" {
					probs[k] = kpProb(fmt.Sprintf("%0.10f", 1.0/float64(len(probs))))
				}
			}
			return heads, probs, tails
		}),
		fail: []string{"13-probability"},
		want: `rule 13.2: endpoint i of n gets --probability 1/(n-i), printed with ten decimals`,
	},
	"last-endpoint-conditional": {
		impl: kpRewriteBalancing(func(_ string, heads, probs, tails []string) ([]string, []string, []string) {
			probs[len(probs)-1] = kpProb("1.0000000000")
			return heads, probs, tails
		}),
		fail: []string{"12-cluster-ip-rules", "13-probability"},
		want: `rule 13.3: the last endpoint takes what is left, with no probability`,
	},
	"probability-five-decimals": {
		impl: kpRewriteBalancing(func(_ string, heads, probs, tails []string) ([]string, []string, []string) {
			for k := range probs {
				if p := strings.TrimPrefix(probs[k], kpProb("")); p != "" {
					probs[k] = kpProb(p[:7])
				}
			}
			return heads, probs, tails
		}),
		fail: []string{"13-probability"},
		want: `10.180.0.1:80 (probability 0.33333)`,
	},

	// 14: which endpoints.
	"unknown-readiness-not-ready": {
		impl: kpEachEndpoint(func(e *api.Endpoint) {
			if e.Conditions.Ready == nil {
				e.Conditions.Ready = kpBool(false)
			}
		}),
		fail: []string{"14-ready-endpoints"},
		want: `rule 14.1: an unknown ready condition counts as ready`,
	},
	"rules-unready-endpoints-kept": {
		impl: kpEachEndpoint(func(e *api.Endpoint) { e.Conditions.Ready = kpBool(true) }),
		fail: []string{"14-ready-endpoints", "15-no-endpoints"},
		want: `rule 14.2: the ready endpoints, and only them`,
	},
	"terminating-preferred-over-ready": {
		impl: kpPre(func(svcs []api.Service, sl []api.EndpointSlice) []api.EndpointSlice {
			// A Service with a serving terminating endpoint uses those.
			prefer := map[string]bool{}
			for _, s := range sl {
				for _, e := range s.Endpoints {
					if _, serving, terminating := kpConditions(e); serving && terminating {
						prefer[s.Namespace+"/"+s.Labels[api.LabelServiceName]] = true
					}
				}
			}
			for i := range sl {
				if prefer[sl[i].Namespace+"/"+sl[i].Labels[api.LabelServiceName]] {
					for j := range sl[i].Endpoints {
						if _, _, terminating := kpConditions(sl[i].Endpoints[j]); !terminating {
							sl[i].Endpoints[j].Conditions.Ready = kpBool(false)
						}
					}
				}
			}
			return sl
		}),
		fail: []string{"14-ready-endpoints"},
		want: `rule 14.2: while an endpoint is ready, the terminating ones get nothing`,
	},
	"terminating-not-serving-kept": {
		impl: kpEachEndpoint(func(e *api.Endpoint) {
			if _, _, terminating := kpConditions(*e); terminating {
				e.Conditions.Serving = kpBool(true)
			}
		}),
		fail: []string{"14-ready-endpoints", "15-no-endpoints"},
		want: `rule 14.3: with no ready endpoint, those that are serving and terminating`,
	},
	"serving-not-terminating-used": {
		impl: kpEachEndpoint(func(e *api.Endpoint) {
			if ready, serving, _ := kpConditions(*e); !ready && serving {
				e.Conditions.Terminating = kpBool(true)
			}
		}),
		fail: []string{"14-ready-endpoints"},
		want: `rule 14.3: the fallback is the endpoints serving AND terminating`,
	},
	"no-fallback-to-terminating": {
		impl: kpEachEndpoint(func(e *api.Endpoint) {
			if _, _, terminating := kpConditions(*e); terminating {
				e.Conditions.Serving = kpBool(false)
			}
		}),
		fail: []string{"14-ready-endpoints"},
		want: `ns1/svc1:p80 sends to [], want [10.180.0.1:80 10.180.0.3:80] (rule 14.3`,
	},

	// 15: no endpoint left.
	"no-endpoints-no-reject": {
		impl: kpLines(func(l string) string {
			if strings.HasSuffix(l, "-j REJECT") {
				return ""
			}
			return l
		}),
		fail: []string{"15-no-endpoints"},
		want: `(rule 15.1: a port with no endpoint left is rejected in the filter table,`,
	},
	"reject-after-forward": {
		impl: kpPost(func(out string) string {
			var rejects, rest []string
			for _, l := range strings.Split(out, "\n") {
				if strings.HasSuffix(l, "-j REJECT") {
					rejects = append(rejects, l)
				} else {
					rest = append(rest, l)
				}
			}
			out = strings.Join(rest, "\n")
			return strings.Replace(out, "COMMIT\n*nat", strings.Join(append(rejects, "COMMIT\n*nat"), "\n"), 1)
		}),
		fail: []string{"15-no-endpoints"},
		want: `after KUBE-FIREWALL's rule, before KUBE-FORWARD's`,
	},
	"rejects-unsorted": {
		impl: kpPost(func(out string) string {
			lines := strings.Split(out, "\n")
			var at []int
			for i, l := range lines {
				if strings.HasSuffix(l, "-j REJECT") {
					at = append(at, i)
				}
			}
			for i, j := 0, len(at)-1; i < j; i, j = i+1, j-1 {
				lines[at[i]], lines[at[j]] = lines[at[j]], lines[at[i]]
			}
			return strings.Join(lines, "\n")
		}),
		fail: []string{"15-no-endpoints"},
		want: `Rules(kube-system/kube-dns ports metrics/TCP and dns/UDP, and no slice): the filter table's rules are`,
	},
	"no-endpoints-keeps-svc-chain": {
		impl: kpPost(func(out string) string {
			var filter, chains, jumps []string
			for _, l := range strings.Split(out, "\n") {
				name, ok := strings.CutSuffix(kpComment(l), " has no endpoints")
				if !ok || !strings.HasSuffix(l, "-j REJECT") {
					filter = append(filter, l)
					continue
				}
				proto := kpProtoRe.FindStringSubmatch(l)[1]
				svc := kpSvcChain(name, proto)
				chains = append(chains, ":"+svc+" - [0:0]")
				l = strings.Replace(l, " has no endpoints", " cluster IP", 1)
				jumps = append(jumps, strings.TrimSuffix(l, "REJECT")+svc)
			}
			out = strings.Join(filter, "\n")
			out = strings.Replace(out, ":KUBE-MARK-MASQ - [0:0]\n", ":KUBE-MARK-MASQ - [0:0]\n"+strings.Join(append(chains, ""), "\n"), 1)
			last := `-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports;`
			return strings.Replace(out, last, strings.Join(append(jumps, ""), "\n")+last, 1)
		}),
		// a rewrite of the whole dump: in a partial sync it jumps to chains of unchanged Services that were never written (steps 24-25 fail too).
		fail: []string{"15-no-endpoints", "24-partial-sync", "25-stale-chains"},
		want: `want no nat rule for ns6/svc6:p80 (rule 15.2: it has no endpoint)`,
	},

	// 16: session affinity.
	"affinity-after-balancing": {
		impl: kpPost(func(out string) string {
			lines := strings.Split(out, "\n")
			for start := 0; start < len(lines); {
				c := kpRuleChain(lines[start])
				end := start
				for end < len(lines) && kpRuleChain(lines[end]) == c {
					end++
				}
				if strings.HasPrefix(c, "KUBE-SVC-") {
					run := slices.Clone(lines[start:end])
					slices.SortStableFunc(run, func(a, b string) int {
						return strings.Count(a, " -m recent ") - strings.Count(b, " -m recent ")
					})
					copy(lines[start:end], run)
				}
				start = max(end, start+1)
			}
			return strings.Join(lines, "\n")
		}),
		fail: []string{"16-session-affinity"},
		want: `after a balancing rule, want the affinity rules first (rule 16.1`,
	},
	"affinity-timeout-ignored": {
		impl: kpEachService(func(s *api.Service) { s.Spec.SessionAffinityConfig = nil }),
		fail: []string{"16-session-affinity"},
		want: `rule 16.2: --seconds is sessionAffinityConfig.clientIP.timeoutSeconds`,
	},
	"affinity-default-zero": {
		impl: kpEachService(func(s *api.Service) {
			if s.Spec.SessionAffinity == api.ServiceAffinityClientIP && s.Spec.SessionAffinityConfig == nil {
				s.Spec.SessionAffinityConfig = &api.SessionAffinityConfig{ClientIP: &api.ClientIPConfig{TimeoutSeconds: new(int32)}}
			}
		}),
		fail: []string{"16-session-affinity"},
		want: `rule 16.2: the timeout defaults to 10800 seconds`,
	},
	"affinity-without-set": {
		impl: kpPost(func(out string) string { return kpRecentRe.ReplaceAllString(out, "") }),
		fail: []string{"16-session-affinity"},
		want: `(rule 16.3: the DNAT rule records the client with -m recent --set)`,
	},
}

var updateRules = flag.Bool("update-rules", false, "rewrite testdata/cluster-ip.rules from the solution")

// TestRulesGolden keeps testdata/cluster-ip.rules the solution's output;
// go test -run TestRulesGolden -update-rules rewrites it.
func TestRulesGolden(t *testing.T) {
	svcs, sl := kpGoldenInput()
	got := sol.Rules(svcs, sl)
	if *updateRules {
		if err := os.WriteFile("testdata/cluster-ip.rules", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != kpClusterIPGolden {
		t.Errorf("the solution's Rules differs from testdata/cluster-ip.rules (go test -run TestRulesGolden -update-rules rewrites it): %s", kpDumpDiff(got, kpClusterIPGolden))
	}
}

// TestChainHashIsUpstreams checks the suite's hash against names copied
// from upstream's TestOverallIPTablesRules (pkg/proxy/iptables/proxier_test.go).
func TestChainHashIsUpstreams(t *testing.T) {
	for in, want := range map[string]string{
		"ns1/svc1:p80tcp":              "XPGD46QRK7WJZT7O",
		"ns1/svc1:p80tcp10.180.0.1:80": "SXIVWICOYRO3J4NJ",
		"ns2/svc2:p80tcp":              "GNZBNJ2PO5MGZ6GT",
		"ns5/svc5:p80tcp":              "NUKIZ6OKUXPJNT4C",
		"ns5/svc5:p80tcp10.180.0.3:80": "I77PXRDZVX7PMWMN",
	} {
		if got := kpChainHash(in); got != want {
			t.Errorf("kpChainHash(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseDumpRejectsOtherText(t *testing.T) {
	for _, in := range []string{
		"-A KUBE-SERVICES -j X\n",
		"*nat\n:KUBE-SERVICES\nCOMMIT\n",
		"*nat\n-A KUBE-SERVICES -j X\n",
		"*nat\nCOMMIT\n*nat\nCOMMIT\n",
		"*nat\nhello\nCOMMIT\n",
	} {
		if _, err := kpParseDump(in); err == nil {
			t.Errorf("kpParseDump(%q) = nil error, want one", in)
		}
	}
	tables, err := kpParseDump("*filter\nCOMMIT\n*nat\n:KUBE-SVC-A - [0:0]\n-A KUBE-SVC-A -j KUBE-SEP-B\nCOMMIT\n")
	if err != nil || !slices.Equal(tables["nat"].declared("KUBE-SVC-"), []string{"KUBE-SVC-A"}) || len(tables["nat"].chainRules("KUBE-SVC-A")) != 1 {
		t.Errorf("kpParseDump = %v, %v", tables, err)
	}
}
