package servicestest

import (
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/servicenet"
	sol "github.com/kubekata/kubekata/solutions/14-services"
)

// dnsLookup is the solution with Lookup replaced.
func dnsLookup(fn servicenet.LookupFunc) func() Impl {
	return func() Impl {
		i := solution()
		i.Lookup = fn
		return i
	}
}

// dnsEnv is the solution with Env replaced.
func dnsEnv(fn servicenet.EnvFunc) func() Impl {
	return func() Impl {
		i := solution()
		i.Env = fn
		return i
	}
}

// envWithout is the solution's Env without the variables drop picks.
func envWithout(drop func(name string) bool) func() Impl {
	return dnsEnv(func(pod api.Pod, svcs []api.Service) []api.EnvVar {
		var out []api.EnvVar
		for _, v := range sol.Env(pod, svcs) {
			if !drop(v.Name) {
				out = append(out, v)
			}
		}
		return out
	})
}

// cloneSlices deep-copies slices, so that a bug can change its copy and
// never the caller's.
func cloneSlices(sl []api.EndpointSlice) []api.EndpointSlice {
	return api.DeepCopyValue(sl)
}

var dnsBugs = map[string]bug{
	// 20: names.
	"dns-case-sensitive": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			if q.Name != strings.ToLower(q.Name) {
				return servicenet.Answer{Rcode: servicenet.NXDomain}
			}
			return sol.Lookup(q, svcs, sl)
		}),
		fail: []string{"20-dns-names", "21-dns-headless", "22-dns-srv"},
		want: "Lookup(Web.Default.SVC.Cluster.Local. A) = NXDOMAIN with no records, want NOERROR (rule 20.2",
	},
	"dns-records-keep-the-asked-case": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			a := sol.Lookup(q, svcs, sl)
			for i := range a.Records {
				a.Records[i].Name = q.Name
			}
			return a
		}),
		fail: []string{"20-dns-names", "21-dns-headless", "22-dns-srv"},
		want: "want name web.default.svc.cluster.local., type A and a TTL above 0 (rule 20.1",
	},
	"dns-any-namespace": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			// Finds the Service by name alone: rewrites the namespace
			// label to the first namespace with such a Service.
			labels := strings.Split(strings.ToLower(q.Name), ".")
			for i := 0; i+2 < len(labels); i++ {
				if labels[i+2] == "svc" {
					for _, s := range svcs {
						if s.Name == labels[i] {
							labels[i+1] = s.Namespace
							break
						}
					}
					break
				}
			}
			q.Name = strings.Join(labels, ".")
			return sol.Lookup(q, svcs, sl)
		}),
		fail: []string{"20-dns-names"},
		want: "Lookup(web.other.svc.cluster.local. A) = NOERROR [web.default.svc.cluster.local. 5 A 10.96.0.12], want NXDOMAIN with no records (rule 20.3",
	},
	"dns-cluster-ip-answers-endpoints": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			// Every Service read as headless: its name answers with its
			// endpoints.
			svcs = slices.Clone(svcs)
			for i := range svcs {
				if svcs[i].Spec.Type != api.ServiceTypeExternalName {
					svcs[i].Spec.ClusterIP = api.ClusterIPNone
				}
			}
			return sol.Lookup(q, svcs, sl)
		}),
		fail: []string{"20-dns-names", "22-dns-srv"},
		want: `want A records ["10.96.0.12"] (rule 20.1: a Service with a ClusterIP has one A record, its ClusterIP, never its endpoints)`,
	},
	"dns-nxdomain-for-other-types": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			a := sol.Lookup(q, svcs, sl)
			if len(a.Records) == 0 {
				a.Rcode = servicenet.NXDomain
			}
			return a
		}),
		fail: []string{"20-dns-names", "21-dns-headless"},
		want: "Lookup(web.default.svc.cluster.local. AAAA) = NXDOMAIN with no records, want NOERROR with no records (rule 20.4",
	},
	"dns-external-name-unqualified": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			a := sol.Lookup(q, svcs, sl)
			for i, r := range a.Records {
				if r.Type == servicenet.TypeCNAME {
					a.Records[i].Data = strings.TrimSuffix(r.Data, ".")
				}
			}
			return a
		}),
		fail: []string{"20-dns-names"},
		want: `want CNAME records ["db.example.com."] (rule 20.5`,
	},

	// 21: headless Services.
	"dns-headless-unready-kept": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			sl = cloneSlices(sl)
			yes := true
			for i := range sl {
				for j := range sl[i].Endpoints {
					sl[i].Endpoints[j].Conditions.Ready = &yes
				}
			}
			return sol.Lookup(q, svcs, sl)
		}),
		fail: []string{"21-dns-headless", "22-dns-srv"},
		want: `want A records ["10.244.1.3" "10.244.1.5"] (rule 21.1`,
	},
	"dns-headless-first-slice-only": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			var first []api.EndpointSlice
			seen := map[string]bool{}
			for _, s := range sl {
				key := s.Namespace + "/" + s.Labels[api.LabelServiceName]
				if !seen[key] {
					seen[key] = true
					first = append(first, s)
				}
			}
			return sol.Lookup(q, svcs, first)
		}),
		fail: []string{"21-dns-headless", "22-dns-srv"},
		want: `want A records ["10.244.1.3" "10.244.1.5"] (rule 21.1`,
	},
	"dns-no-hostname-records": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			// Endpoints' hostnames ignored.
			sl = cloneSlices(sl)
			for i := range sl {
				for j := range sl[i].Endpoints {
					sl[i].Endpoints[j].Hostname = nil
				}
			}
			return sol.Lookup(q, svcs, sl)
		}),
		fail: []string{"21-dns-headless"},
		want: `Lookup(db-0.db.default.svc.cluster.local. A) = NXDOMAIN with no records, want NOERROR (rule 21.3`,
	},
	"dns-headless-duplicates": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			// Answers every slice's endpoints, a duplicate twice.
			a := sol.Lookup(q, svcs, sl)
			if len(a.Records) > 1 && a.Records[0].Type == servicenet.TypeA {
				n := 0
				for _, s := range sl {
					for _, e := range s.Endpoints {
						if e.Conditions.Ready != nil && *e.Conditions.Ready && slices.ContainsFunc(a.Records, func(r servicenet.Record) bool { return r.Data == e.Addresses[0] }) {
							n++
						}
					}
				}
				for len(a.Records) < n {
					a.Records = append(a.Records, a.Records[0])
				}
			}
			return a
		}),
		fail: []string{"21-dns-headless"},
		want: "rule 21.1: each ready address once",
	},

	// 22: SRV records.
	"dns-srv-ignores-protocol": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			q.Name = strings.Replace(strings.ToLower(q.Name), "._udp.", "._tcp.", 1)
			a := sol.Lookup(q, svcs, sl)
			if a.Rcode == servicenet.NXDomain {
				q.Name = strings.Replace(q.Name, "._tcp.", "._udp.", 1)
				a = sol.Lookup(q, svcs, sl)
			}
			return a
		}),
		fail: []string{"22-dns-srv"},
		want: "rule 22.2: the port's name and its protocol must both match",
	},
	"dns-srv-target-port": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			// Gives the targetPort where the Service's port belongs.
			svcs = slices.Clone(svcs)
			for i := range svcs {
				ports := slices.Clone(svcs[i].Spec.Ports)
				for j := range ports {
					if ports[j].TargetPort.IntVal != 0 {
						ports[j].Port = ports[j].TargetPort.IntVal
					}
				}
				svcs[i].Spec.Ports = ports
			}
			return sol.Lookup(q, svcs, sl)
		}),
		fail: []string{"22-dns-srv"},
		want: "want one SRV record, port 53, target web.default.svc.cluster.local. (rule 22.1",
	},
	"dns-srv-headless-names-the-service": {
		impl: dnsLookup(func(q servicenet.Question, svcs []api.Service, sl []api.EndpointSlice) servicenet.Answer {
			a := sol.Lookup(q, svcs, sl)
			for i, r := range a.Records {
				if r.Type != servicenet.TypeSRV {
					continue
				}
				f := strings.Fields(r.Data)
				if _, svc, ok := strings.Cut(f[3], "."); ok && strings.Count(f[3], ".") > 5 {
					f[3] = svc
				}
				a.Records[i].Data = strings.Join(f, " ")
			}
			return a
		}),
		fail: []string{"22-dns-srv"},
		want: "want port 5432 and a target <name>.db.default.svc.cluster.local. (rule 22.3",
	},

	// 23: environment variables.
	"env-dashes-kept": {
		impl: dnsEnv(func(pod api.Pod, svcs []api.Service) []api.EnvVar {
			svcs = slices.Clone(svcs)
			for i := range svcs {
				svcs[i].Name = strings.ReplaceAll(svcs[i].Name, "-", ".")
			}
			out := sol.Env(pod, svcs)
			for i := range out {
				out[i].Name = strings.ReplaceAll(out[i].Name, ".", "-")
			}
			return out
		}),
		fail: []string{"23-service-env"},
		want: "has MY-DNS_SERVICE_HOST=10.96.0.53, want no such variable",
	},
	"env-all-namespaces": {
		impl: dnsEnv(func(pod api.Pod, svcs []api.Service) []api.EnvVar {
			svcs = slices.Clone(svcs)
			for i := range svcs {
				if svcs[i].Namespace != api.NamespaceDefault {
					svcs[i].Namespace = pod.Namespace
				}
			}
			return sol.Env(pod, svcs)
		}),
		fail: []string{"23-service-env"},
		want: "want no such variable (rule",
	},
	"env-links-ignored": {
		impl: dnsEnv(func(pod api.Pod, svcs []api.Service) []api.EnvVar {
			pod.Spec.EnableServiceLinks = nil
			return sol.Env(pod, svcs)
		}),
		fail: []string{"23-service-env"},
		want: "has CART_PORT=tcp://10.96.0.20:8080, want no such variable (rule 23.4",
	},
	"env-master-dropped-without-links": {
		impl: dnsEnv(func(pod api.Pod, svcs []api.Service) []api.EnvVar {
			if pod.Spec.EnableServiceLinks != nil && !*pod.Spec.EnableServiceLinks {
				return nil
			}
			return sol.Env(pod, svcs)
		}),
		fail: []string{"23-service-env"},
		want: "lacks KUBERNETES_SERVICE_HOST=10.96.0.1 (rule 23.4",
	},
	"env-headless-included": {
		impl: dnsEnv(func(pod api.Pod, svcs []api.Service) []api.EnvVar {
			svcs = slices.Clone(svcs)
			for i := range svcs {
				if svcs[i].Spec.ClusterIP == api.ClusterIPNone {
					svcs[i].Spec.ClusterIP = "None "
				}
			}
			out := sol.Env(pod, svcs)
			for i := range out {
				out[i].Value = strings.ReplaceAll(out[i].Value, "None ", "None")
			}
			return out
		}),
		fail: []string{"23-service-env"},
		want: "has DB_SERVICE_HOST=None, want no such variable",
	},
	"env-simple-only": {
		impl: envWithout(func(name string) bool { return !strings.Contains(name, "_SERVICE_") }),
		fail: []string{"23-service-env"},
		want: "lacks CART_PORT=tcp://10.96.0.20:8080 (rules 23.1-23.3",
	},
	"env-first-port-unnamed-only": {
		impl: envWithout(func(name string) bool { return strings.HasSuffix(name, "_SERVICE_PORT_HTTP") }),
		fail: []string{"23-service-env"},
		want: "lacks CART_SERVICE_PORT_HTTP=8080",
	},
	"env-unsorted": {
		impl: dnsEnv(func(pod api.Pod, svcs []api.Service) []api.EnvVar {
			out := sol.Env(pod, svcs)
			slices.Reverse(out)
			return out
		}),
		fail: []string{"23-service-env"},
		want: "want them sorted by name (rule 23.5",
	},
	"env-own-kubernetes-loses": {
		impl: dnsEnv(func(pod api.Pod, svcs []api.Service) []api.EnvVar {
			var keep []api.Service
			for _, s := range svcs {
				if s.Name != "kubernetes" || s.Namespace == api.NamespaceDefault {
					keep = append(keep, s)
				}
			}
			return sol.Env(pod, keep)
		}),
		fail: []string{"23-service-env"},
		want: "has KUBERNETES_SERVICE_HOST=10.96.0.1, want KUBERNETES_SERVICE_HOST=10.96.0.77",
	},
}
