package servicestest

// The planted bugs of steps 24-25: each is the solution's PartialRules
// seen through a wrapper that breaks one rule of tasks 24 and 25, by
// changing its arguments or rewriting its text.

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/servicenet"
	sol "github.com/kubekata/kubekata/solutions/14-services"
)

// ppImpl is the solution with PartialRules replaced.
func ppImpl(fn servicenet.PartialRulesFunc) func() Impl {
	return func() Impl {
		i := solution()
		i.PartialRules = fn
		return i
	}
}

// ppRewrite is the solution's PartialRules with its text rewritten; f
// also gets the arguments.
func ppRewrite(f func(text string, svcs []api.Service, sl []api.EndpointSlice, changed, existing []string) string) func() Impl {
	return ppImpl(func(svcs []api.Service, sl []api.EndpointSlice, changed, existing []string) string {
		return f(sol.PartialRules(svcs, sl, changed, existing), svcs, sl, changed, existing)
	})
}

// ppDrop drops the lines drop picks.
func ppDrop(text string, drop func(line string) bool) string {
	var out []string
	for _, l := range strings.SplitAfter(text, "\n") {
		if l != "" && !drop(strings.TrimSuffix(l, "\n")) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// ppNat adds chain lines at the start of the nat table and lines at its
// end.
func ppNat(text string, chains, tail []string) string {
	var decl, end string
	for _, c := range chains {
		decl += ":" + c + " - [0:0]\n"
	}
	for _, l := range tail {
		end += l + "\n"
	}
	at := strings.Index(text, "*nat\n") + len("*nat\n")
	text = text[:at] + decl + text[at:]
	last := strings.LastIndex(text, "COMMIT\n")
	return text[:last] + end + text[last:]
}

// ppDeclared are the chains a text declares.
func ppDeclared(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, ":") {
			out = append(out, strings.Fields(l[1:])[0])
		}
	}
	return out
}

// ppKeyOf is the Service ("ns/name") a KUBE-SERVICES rule is about.
func ppKeyOf(rule string) string {
	c := kpComment(rule)
	c, _, _ = strings.Cut(c, " ")
	key, _, _ := strings.Cut(c, ":")
	return key
}

// ppAllSepChains are the KUBE-SEP- chains of every endpoint of every
// Service port, ready or not.
func ppAllSepChains(svcs []api.Service, sl []api.EndpointSlice) map[string]bool {
	out := map[string]bool{}
	for _, svc := range svcs {
		for _, p := range svc.Spec.Ports {
			name := svc.Namespace + "/" + svc.Name
			if p.Name != "" {
				name += ":" + p.Name
			}
			proto := strings.ToLower(string(cmpProto(p.Protocol)))
			for _, s := range sl {
				if s.Namespace != svc.Namespace || s.Labels[api.LabelServiceName] != svc.Name {
					continue
				}
				for _, sp := range s.Ports {
					if sp.Name == nil || *sp.Name != p.Name || sp.Port == nil {
						continue
					}
					for _, e := range s.Endpoints {
						out[kpSepChain(name, proto, e.Addresses[0]+":"+strconv.Itoa(int(*sp.Port)))] = true
					}
				}
			}
		}
	}
	return out
}

func cmpProto(p api.Protocol) api.Protocol {
	if p == "" {
		return api.ProtocolTCP
	}
	return p
}

// ppKeep drops the declarations and deletions of the chains keep picks.
func ppKeep(text string, keep func(chain string) bool) string {
	return ppDrop(text, func(l string) bool {
		if c, ok := strings.CutPrefix(l, "-X "); ok {
			return keep(c)
		}
		if strings.HasPrefix(l, ":") {
			return keep(strings.Fields(l[1:])[0])
		}
		return false
	})
}

// ppDeleted are the chains a text deletes.
func ppDeleted(text string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if c, ok := strings.CutPrefix(l, "-X "); ok {
			out[c] = true
		}
	}
	return out
}

var partialBugs = map[string]bug{
	// 24: only the changed Services' chains, the rest whole.
	"renders-everything": {
		impl: ppImpl(func(svcs []api.Service, sl []api.EndpointSlice, changed, existing []string) string {
			var all []string
			for _, s := range svcs {
				all = append(all, s.Namespace+"/"+s.Name)
			}
			return sol.PartialRules(svcs, sl, all, existing)
		}),
		fail: []string{"24-partial-sync"},
		want: `, a chain of other/web, which is not in changed (rule 24.1: a Service not in changed has its KUBE-SVC- and KUBE-SEP- chains in the tables already`,
	},
	"changed-by-name": {
		impl: ppImpl(func(svcs []api.Service, sl []api.EndpointSlice, changed, existing []string) string {
			var wide []string
			for _, c := range changed {
				_, name, _ := strings.Cut(c, "/")
				for _, s := range svcs {
					if s.Name == name {
						wide = append(wide, s.Namespace+"/"+s.Name)
					}
				}
			}
			return sol.PartialRules(svcs, sl, wide, existing)
		}),
		fail: []string{"24-partial-sync"},
		want: `a chain of default/web, which is not in changed (rule 24.2: changed names "namespace/name": default/web is not other/web)`,
	},
	"flushes-unchanged": {
		// Declares every chain of the full sync: the unchanged
		// Services' chains are flushed, and stay empty.
		impl: ppRewrite(func(text string, svcs []api.Service, sl []api.EndpointSlice, _, _ []string) string {
			have := ppDeclared(text)
			var more []string
			for _, c := range ppDeclared(sol.Rules(svcs, sl)) {
				if kpServiceChain(c) && !slices.Contains(have, c) {
					more = append(more, c)
				}
			}
			return ppNat(text, more, nil)
		}),
		fail: []string{"24-partial-sync", "25-stale-chains"},
		want: `which is not in changed (rule 24.1`,
	},
	"kube-services-only-changed": {
		impl: ppRewrite(func(text string, _ []api.Service, _ []api.EndpointSlice, changed, _ []string) string {
			return ppDrop(text, func(l string) bool {
				return strings.HasPrefix(l, "-A KUBE-SERVICES ") && strings.Contains(l, ` cluster IP" `) && !slices.Contains(changed, ppKeyOf(l))
			})
		}),
		fail: []string{"24-partial-sync", "25-stale-chains"},
		want: `its nat chain KUBE-SERVICES is not written whole as in Rules(the Services after) (rule 24.3`,
	},
	"filter-only-changed": {
		impl: ppRewrite(func(text string, _ []api.Service, _ []api.EndpointSlice, changed, _ []string) string {
			return ppDrop(text, func(l string) bool {
				return strings.HasPrefix(l, "-A KUBE-SERVICES ") && strings.HasSuffix(l, "-j REJECT") && !slices.Contains(changed, ppKeyOf(l))
			})
		}),
		fail: []string{"24-partial-sync", "25-stale-chains"},
		want: `its filter table's rules are not those of Rules(the Services after) (rule 24.3`,
	},
	"partial-sorts-changed": {
		impl: ppImpl(func(svcs []api.Service, sl []api.EndpointSlice, changed, existing []string) string {
			sort.Strings(changed)
			return sol.PartialRules(svcs, sl, changed, existing)
		}),
		fail: []string{"24-partial-sync", "25-stale-chains"},
		want: `wrote to its argument changed: want its arguments untouched; sort and filter copies (rule 24.4)`,
	},

	// 25: the stale chains, and only them.
	"no-stale-deletion": {
		impl: ppImpl(func(svcs []api.Service, sl []api.EndpointSlice, changed, _ []string) string {
			return sol.PartialRules(svcs, sl, changed, nil)
		}),
		fail: []string{"25-stale-chains"},
		want: `(default/web:http -> 10.244.1.6:8080) in the tables, which no Service uses any more: declare it and delete it with -X`,
	},
	"delete-without-flush": {
		impl: ppRewrite(func(text string, _ []api.Service, _ []api.EndpointSlice, _, _ []string) string {
			deleted := ppDeleted(text)
			return ppDrop(text, func(l string) bool {
				return strings.HasPrefix(l, ":") && deleted[strings.Fields(l[1:])[0]]
			})
		}),
		fail: []string{"25-stale-chains"},
		want: `with -X without declaring it first: iptables deletes only an empty chain`,
	},
	"deletes-foreign-chains": {
		// Takes every KUBE- chain it does not write for stale.
		impl: ppRewrite(func(text string, _ []api.Service, _ []api.EndpointSlice, _, existing []string) string {
			have := ppDeclared(text)
			var foreign, dels []string
			for _, c := range existing {
				if strings.HasPrefix(c, "KUBE-") && !kpServiceChain(c) && !slices.Contains(have, c) {
					foreign = append(foreign, c)
					dels = append(dels, "-X "+c)
				}
			}
			return ppNat(text, foreign, dels)
		}),
		fail: []string{"25-stale-chains"},
		want: `deletes KUBE-KUBELET-CANARY of the nat table, which is no Service chain`,
	},
	"stale-unready": {
		// Keeps the chain of every endpoint of the slices, ready or not.
		impl: ppRewrite(func(text string, svcs []api.Service, sl []api.EndpointSlice, _, _ []string) string {
			all := ppAllSepChains(svcs, sl)
			return ppKeep(text, func(c string) bool { return all[c] && ppDeleted(text)[c] })
		}),
		fail: []string{"25-stale-chains"},
		want: "leaves " + kpSepChain("demo/echo", "tcp", "10.244.3.5:5678") + " (demo/echo -> 10.244.3.5:5678) in the tables",
	},
	"stale-means-unchanged": {
		// Takes the chains of the Services not in changed for stale.
		impl: ppRewrite(func(text string, _ []api.Service, _ []api.EndpointSlice, _, existing []string) string {
			have := ppDeclared(text)
			var gone, dels []string
			for _, c := range existing {
				if kpServiceChain(c) && !slices.Contains(have, c) {
					gone = append(gone, c)
					dels = append(dels, "-X "+c)
				}
			}
			return ppNat(text, gone, dels)
		}),
		fail: []string{"24-partial-sync", "25-stale-chains"},
		want: `that Rules(the Services after) still has (rule 25.1: only the chains no Service uses)`,
	},
}
