package servicestest

// The planted bugs of steps 06-10: each is the solution's Slices seen
// through a lens that changes its arguments, or with its Changes
// post-processed, so that exactly one rule of the README breaks.

import (
	"cmp"
	"maps"
	"reflect"
	"slices"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/servicenet"
	sol "github.com/kubekata/kubekata/solutions/14-services"
)

// esLens calls the solution on changed copies of its arguments.
func esLens(change func(svc *api.Service, pods []api.Pod, existing []api.EndpointSlice) ([]api.Pod, []api.EndpointSlice)) func() Impl {
	return func() Impl {
		i := solution()
		i.Slices = func(svc api.Service, pods []api.Pod, existing []api.EndpointSlice) servicenet.Changes {
			svc = api.DeepCopyValue(svc)
			pods, existing = change(&svc, api.DeepCopyValue(pods), api.DeepCopyValue(existing))
			return sol.Slices(svc, pods, existing)
		}
		return i
	}
}

// esEachPod is a lens that changes every pod.
func esEachPod(f func(svc api.Service, p *api.Pod)) func() Impl {
	return esLens(func(svc *api.Service, pods []api.Pod, existing []api.EndpointSlice) ([]api.Pod, []api.EndpointSlice) {
		for i := range pods {
			f(*svc, &pods[i])
		}
		return pods, existing
	})
}

// esPost changes the solution's Changes.
func esPost(change func(svc api.Service, existing []api.EndpointSlice, c *servicenet.Changes)) func() Impl {
	return func() Impl {
		i := solution()
		i.Slices = func(svc api.Service, pods []api.Pod, existing []api.EndpointSlice) servicenet.Changes {
			c := sol.Slices(svc, pods, existing)
			change(svc, existing, &c)
			return c
		}
		return i
	}
}

// esEachEndpoint changes every endpoint the solution writes.
func esEachEndpoint(f func(svc api.Service, ep *api.Endpoint)) func() Impl {
	return esPost(func(svc api.Service, _ []api.EndpointSlice, c *servicenet.Changes) {
		for _, ss := range [][]api.EndpointSlice{c.Create, c.Update} {
			for i := range ss {
				for j := range ss[i].Endpoints {
					f(svc, &ss[i].Endpoints[j])
				}
			}
		}
	})
}

// esEachWritten changes every slice the solution creates or updates.
func esEachWritten(f func(svc api.Service, s *api.EndpointSlice)) func() Impl {
	return esPost(func(svc api.Service, _ []api.EndpointSlice, c *servicenet.Changes) {
		for _, ss := range [][]api.EndpointSlice{c.Create, c.Update} {
			for i := range ss {
				f(svc, &ss[i])
			}
		}
	})
}

func esManaged(s api.EndpointSlice, svc api.Service) bool {
	return s.Labels[api.LabelManagedBy] == api.EndpointSliceControllerName && s.Labels[api.LabelServiceName] == svc.Name
}

func esNamed(ss []api.EndpointSlice, name string) (api.EndpointSlice, bool) {
	for _, s := range ss {
		if s.Name == name {
			return s, true
		}
	}
	return api.EndpointSlice{}, false
}

// esRecreate is s as a new slice.
func esRecreate(s api.EndpointSlice) api.EndpointSlice {
	s = api.DeepCopyValue(s)
	s.Name, s.ResourceVersion, s.UID = "", "", ""
	return s
}

// esAdded splits an update into the endpoints its slice had before and
// the ones added; pure says whether adding is all the update does.
func esAdded(old, upd api.EndpointSlice) (kept, added []api.Endpoint, pure bool) {
	had := map[string]api.Endpoint{}
	for _, ep := range old.Endpoints {
		had[ep.Addresses[0]] = ep
	}
	pure = maps.Equal(old.Labels, upd.Labels) && esPortSet(old.Ports) == esPortSet(upd.Ports)
	for _, ep := range upd.Endpoints {
		if o, ok := had[ep.Addresses[0]]; ok {
			kept = append(kept, ep)
			pure = pure && reflect.DeepEqual(o, ep)
		} else {
			added = append(added, ep)
		}
	}
	pure = pure && len(kept) == len(old.Endpoints)
	return kept, added, pure
}

// esMoveAdded moves the endpoints that updates add to new slices: those
// of the updates that only add (pure) or of the others.
func esMoveAdded(pureOnes bool) func() Impl {
	return esPost(func(svc api.Service, existing []api.EndpointSlice, c *servicenet.Changes) {
		var keep []api.EndpointSlice
		for _, u := range c.Update {
			old, ok := esNamed(existing, u.Name)
			kept, added, pure := esAdded(old, u)
			if !ok || len(added) == 0 || pure != pureOnes || esPortSet(old.Ports) != esPortSet(u.Ports) {
				keep = append(keep, u)
				continue
			}
			if !pure {
				u.Endpoints = kept
				keep = append(keep, u)
			}
			for len(added) > 0 {
				n := esRecreate(u)
				k := min(100, len(added))
				n.Endpoints, added = added[:k], added[k:]
				c.Create = append(c.Create, n)
			}
		}
		c.Update = keep
	})
}

var sliceBugs = map[string]bug{
	// 6.1-6.3: which Services and pods.
	"selectorless-service-selects-all": {
		impl: esLens(func(svc *api.Service, pods []api.Pod, ex []api.EndpointSlice) ([]api.Pod, []api.EndpointSlice) {
			if len(svc.Spec.Selector) == 0 {
				svc.Spec.Selector = map[string]string{"kata/all": "yes"}
				for i := range pods {
					pods[i].Labels = maps.Clone(pods[i].Labels)
					if pods[i].Labels == nil {
						pods[i].Labels = map[string]string{}
					}
					pods[i].Labels["kata/all"] = "yes"
				}
			}
			return pods, ex
		}),
		fail: []string{"06-endpoints"},
		want: "(rule 6.1: a Service without a selector gets no changes",
	},
	"externalname-gets-slices": {
		impl: esLens(func(svc *api.Service, pods []api.Pod, ex []api.EndpointSlice) ([]api.Pod, []api.EndpointSlice) {
			if svc.Spec.Type == api.ServiceTypeExternalName {
				svc.Spec.Type = api.ServiceTypeClusterIP
			}
			return pods, ex
		}),
		fail: []string{"06-endpoints"},
		want: "(rule 6.2: an ExternalName Service gets no changes)",
	},
	"finished-pods-kept": {
		impl: esEachPod(func(_ api.Service, p *api.Pod) {
			if p.Status.Phase == api.PodFailed || p.Status.Phase == api.PodSucceeded {
				p.Status.Phase = api.PodRunning
			}
		}),
		fail: []string{"06-endpoints", "10-fewest-changes"},
		want: "endpoints [web-a web-b], want [web-a] (rule 6.3: a Failed pod is not an endpoint)",
	},
	"pods-without-ip-kept": {
		impl: esEachPod(func(_ api.Service, p *api.Pod) {
			if p.Status.PodIP == "" {
				p.Status.PodIP, p.Status.PodIPs = "10.244.9.9", []api.PodIP{{IP: "10.244.9.9"}}
			}
		}),
		fail: []string{"06-endpoints"},
		want: "(rule 6.3: a pod without an IP is not an endpoint)",
	},
	"terminating-pods-dropped": {
		impl: esLens(func(_ *api.Service, pods []api.Pod, ex []api.EndpointSlice) ([]api.Pod, []api.EndpointSlice) {
			return slices.DeleteFunc(pods, func(p api.Pod) bool { return p.DeletionTimestamp != nil }), ex
		}),
		fail: []string{"06-endpoints", "07-endpoint-conditions"},
		want: "(rule 6.3: a terminating pod is an endpoint",
	},
	"pods-of-other-namespaces": {
		impl: esEachPod(func(svc api.Service, p *api.Pod) { p.Namespace = svc.Namespace }),
		fail: []string{"06-endpoints"},
		want: "(rule 6.3: a pod of another namespace is not selected)",
	},
	// 6.4-6.5: an endpoint's fields.
	"no-target-ref": {
		impl: esEachEndpoint(func(_ api.Service, ep *api.Endpoint) { ep.TargetRef = nil }),
		fail: []string{"06-endpoints", "10-fewest-changes"},
		want: "web-a's endpoint has targetRef unset, want {Kind:Pod Namespace:default Name:web-a UID:uid-web-a",
	},
	"hostname-dropped": {
		impl: esEachEndpoint(func(_ api.Service, ep *api.Endpoint) { ep.Hostname = nil }),
		fail: []string{"06-endpoints"},
		want: `web-a's endpoint has hostname unset, want "web-0" (rule 6.5`,
	},
	"hostname-without-subdomain": {
		impl: esEachPod(func(svc api.Service, p *api.Pod) {
			if p.Spec.Hostname != "" {
				p.Spec.Subdomain = svc.Name
			}
		}),
		fail: []string{"06-endpoints"},
		want: `web-b's endpoint has hostname "web-1", want unset (rule 6.5`,
	},
	// 6.6-6.9: a slice's metadata and ports.
	"owner-not-controller": {
		impl: esEachWritten(func(_ api.Service, s *api.EndpointSlice) {
			for i := range s.OwnerReferences {
				s.OwnerReferences[i].Controller = nil
			}
		}),
		fail: []string{"06-endpoints"},
		want: "ownerReferences [{v1 Service web uid uid-svc-web controller unset blockOwnerDeletion true}]",
	},
	"no-managed-by-label": {
		impl: esEachWritten(func(_ api.Service, s *api.EndpointSlice) {
			s.Labels = maps.Clone(s.Labels)
			delete(s.Labels, api.LabelManagedBy)
		}),
		fail: []string{"06-endpoints", "10-fewest-changes"},
		want: "labels {kubernetes.io/service-name=web}, want {endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io,kubernetes.io/service-name=web} (rule 6.7",
	},
	"headless-label-missing": {
		impl: esEachWritten(func(_ api.Service, s *api.EndpointSlice) {
			s.Labels = maps.Clone(s.Labels)
			delete(s.Labels, esLabelHeadless)
		}),
		fail: []string{"06-endpoints"},
		want: "want {endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io,kubernetes.io/service-name=web,service.kubernetes.io/headless=} (rule 6.7",
	},
	"service-labels-not-copied": {
		impl: esLens(func(svc *api.Service, pods []api.Pod, ex []api.EndpointSlice) ([]api.Pod, []api.EndpointSlice) {
			svc.Labels = nil
			return pods, ex
		}),
		fail: []string{"06-endpoints", "10-fewest-changes"},
		want: "team=shop,tier=front} (rule 6.7",
	},
	"app-protocol-dropped": {
		impl: esEachWritten(func(_ api.Service, s *api.EndpointSlice) {
			for i := range s.Ports {
				s.Ports[i].AppProtocol = nil
			}
		}),
		fail: []string{"06-endpoints"},
		want: "ports [dns:5353/UDP, http:8080/TCP], want [dns:5353/UDP, http:8080/TCP appProtocol h2c] (rule 6.8",
	},
	"port-defaults-missing": {
		impl: esEachWritten(func(svc api.Service, s *api.EndpointSlice) {
			for _, sp := range svc.Spec.Ports {
				if sp.TargetPort != api.FromInt32(0) && sp.TargetPort != api.FromString("") {
					continue
				}
				for i := range s.Ports {
					if p := &s.Ports[i]; p.Name != nil && *p.Name == sp.Name {
						zero, proto := int32(0), sp.Protocol
						p.Port, p.Protocol = &zero, &proto
					}
				}
			}
		}),
		fail: []string{"06-endpoints"},
		want: "ports [:0/], want [:80/TCP] (rule 6.9",
	},
	"no-placeholder": {
		impl: esPost(func(_ api.Service, _ []api.EndpointSlice, c *servicenet.Changes) {
			c.Create = slices.DeleteFunc(c.Create, func(s api.EndpointSlice) bool { return len(s.Endpoints) == 0 })
		}),
		fail: []string{"06-endpoints"},
		want: "0 new slices, want 1 (rule 6.10",
	},
	"foreign-slices-managed": {
		impl: esLens(func(_ *api.Service, pods []api.Pod, ex []api.EndpointSlice) ([]api.Pod, []api.EndpointSlice) {
			for i := range ex {
				if ex[i].Labels[api.LabelManagedBy] != "" {
					ex[i].Labels[api.LabelManagedBy] = api.EndpointSliceControllerName
				}
			}
			return pods, ex
		}),
		fail: []string{"06-endpoints"},
		want: "(rule 6.11: a slice managed by another controller is never updated nor deleted)",
	},
	// 6.12: every step checks that Slices leaves its arguments alone.
	"pods-sorted-in-place": {
		impl: func() Impl {
			i := solution()
			i.Slices = func(svc api.Service, pods []api.Pod, existing []api.EndpointSlice) servicenet.Changes {
				c := sol.Slices(svc, pods, existing)
				slices.SortFunc(pods, func(a, b api.Pod) int { return cmp.Compare(b.Name, a.Name) })
				return c
			}
			return i
		},
		fail: []string{"06-endpoints", "07-endpoint-conditions", "08-named-ports", "09-slice-size", "10-fewest-changes"},
		want: "want its arguments untouched; sort, filter and edit copies, never the caller's objects (rule 6.12)",
	},

	// 7.1-7.4: conditions.
	"unready-endpoints-kept": {
		impl: esEachEndpoint(func(_ api.Service, ep *api.Endpoint) {
			yes := true
			ep.Conditions.Ready = &yes
		}),
		fail: []string{"07-endpoint-conditions", "10-fewest-changes"},
		want: "web-b's endpoint has ready true, want false (rule 7.3: ready is serving and not terminating)",
	},
	"serving-follows-ready": {
		impl: esEachEndpoint(func(_ api.Service, ep *api.Endpoint) {
			s := *ep.Conditions.Ready
			ep.Conditions.Serving = &s
		}),
		fail: []string{"07-endpoint-conditions"},
		want: "web-d's endpoint has serving false, want true (rule 7.1",
	},
	"terminating-never-set": {
		impl: esEachEndpoint(func(_ api.Service, ep *api.Endpoint) {
			no := false
			ep.Conditions.Terminating = &no
		}),
		fail: []string{"07-endpoint-conditions"},
		want: "web-d's endpoint has terminating false, want true (rule 7.2",
	},
	"terminating-endpoints-ready": {
		impl: esEachEndpoint(func(svc api.Service, ep *api.Endpoint) {
			if !svc.Spec.PublishNotReadyAddresses {
				r := *ep.Conditions.Serving
				ep.Conditions.Ready = &r
			}
		}),
		fail: []string{"07-endpoint-conditions"},
		want: "web-d's endpoint has ready true, want false (rule 7.3",
	},
	"publish-not-ready-ignored": {
		impl: esLens(func(svc *api.Service, pods []api.Pod, ex []api.EndpointSlice) ([]api.Pod, []api.EndpointSlice) {
			svc.Spec.PublishNotReadyAddresses = false
			return pods, ex
		}),
		fail: []string{"07-endpoint-conditions"},
		want: "web-b's endpoint has ready false, want true (rule 7.4",
	},
	"publish-not-ready-serves": {
		impl: esEachEndpoint(func(svc api.Service, ep *api.Endpoint) {
			if svc.Spec.PublishNotReadyAddresses {
				yes := true
				ep.Conditions.Serving = &yes
			}
		}),
		fail: []string{"07-endpoint-conditions"},
		want: "web-b's endpoint has serving true, want false (rule 7.1",
	},

	// 8.1-8.4: named ports.
	"named-port-as-service-port": {
		impl: esLens(func(svc *api.Service, pods []api.Pod, ex []api.EndpointSlice) ([]api.Pod, []api.EndpointSlice) {
			for i, sp := range svc.Spec.Ports {
				if sp.TargetPort.Type == api.String && sp.TargetPort.StrVal != "" {
					svc.Spec.Ports[i].TargetPort = api.FromInt32(sp.Port)
				}
			}
			return pods, ex
		}),
		fail: []string{"08-named-ports", "09-slice-size"},
		want: "web-a is in a slice with ports [http:80/TCP], want [http:8080/TCP] (rule 8.1",
	},
	"named-port-protocol-ignored": {
		impl: esEachPod(func(svc api.Service, p *api.Pod) {
			for _, sp := range svc.Spec.Ports {
				for ci := range p.Spec.Containers {
					ports := slices.Clone(p.Spec.Containers[ci].Ports)
					for pi := range ports {
						if sp.TargetPort.Type == api.String && ports[pi].Name == sp.TargetPort.StrVal {
							ports[pi].Protocol = sp.Protocol
						}
					}
					p.Spec.Containers[ci].Ports = ports
				}
			}
		}),
		fail: []string{"08-named-ports"},
		want: "web-d is in a slice with ports [http:8080/TCP], want [] (rule 8.2",
	},
	"unresolved-port-kept": {
		impl: esEachPod(func(svc api.Service, p *api.Pod) {
			for _, sp := range svc.Spec.Ports {
				if sp.TargetPort.Type != api.String || sp.TargetPort.StrVal == "" {
					continue
				}
				found := false
				for _, c := range p.Spec.Containers {
					for _, cp := range c.Ports {
						found = found || cp.Name == sp.TargetPort.StrVal && cmp.Or(cp.Protocol, api.ProtocolTCP) == cmp.Or(sp.Protocol, api.ProtocolTCP)
					}
				}
				if !found {
					p.Spec.Containers = append(slices.Clone(p.Spec.Containers), api.Container{Name: "added",
						Ports: []api.ContainerPort{{Name: sp.TargetPort.StrVal, ContainerPort: sp.Port, Protocol: sp.Protocol}}})
				}
			}
		}),
		fail: []string{"08-named-ports"},
		want: "web-c is in a slice with ports [http:80/TCP], want [] (rule 8.3",
	},
	"one-slice-for-all-port-sets": {
		impl: esPost(func(_ api.Service, _ []api.EndpointSlice, c *servicenet.Changes) {
			n := 0
			for _, s := range c.Create {
				n += len(s.Endpoints)
			}
			if len(c.Create) < 2 || n > 100 {
				return
			}
			for _, s := range c.Create[1:] {
				c.Create[0].Endpoints = append(c.Create[0].Endpoints, s.Endpoints...)
			}
			c.Create = c.Create[:1]
		}),
		fail: []string{"08-named-ports"},
		want: "web-c is in a slice with ports [http:8080/TCP], want [] (rule 8.3: a pod that lacks the named port gets no port for it, and is still an endpoint); or it was put in web-a's slice, but endpoints with different ports never share one (rule 8.4)",
	},

	// 9.1-9.2: slice size.
	"slices-over-100": {
		impl: esPost(func(_ api.Service, _ []api.EndpointSlice, c *servicenet.Changes) {
			var merged []api.EndpointSlice
			for _, s := range c.Create {
				i := slices.IndexFunc(merged, func(m api.EndpointSlice) bool { return esPortSet(m.Ports) == esPortSet(s.Ports) })
				if i < 0 {
					merged = append(merged, s)
				} else {
					merged[i].Endpoints = append(merged[i].Endpoints, s.Endpoints...)
				}
			}
			c.Create = merged
		}),
		fail: []string{"09-slice-size"},
		want: "slices of 101 endpoints, want at most 100 each (rule 9.1",
	},
	"half-full-slices": {
		impl: esPost(func(_ api.Service, _ []api.EndpointSlice, c *servicenet.Changes) {
			if len(c.Create) < 2 {
				return
			}
			var split []api.EndpointSlice
			for _, s := range c.Create {
				if len(s.Endpoints) <= 50 {
					split = append(split, s)
					continue
				}
				half := api.DeepCopyValue(s)
				h := len(s.Endpoints) / 2
				s.Endpoints, half.Endpoints = s.Endpoints[:h], half.Endpoints[h:]
				split = append(split, s, half)
			}
			c.Create = split
		}),
		fail: []string{"09-slice-size"},
		want: "hold [50 50 1] endpoints, want [100 1] (rule 9.2",
	},

	// 10.1-10.9: existing slices.
	"touches-unchanged-slices": {
		impl: esPost(func(svc api.Service, existing []api.EndpointSlice, c *servicenet.Changes) {
			if len(svc.Spec.Selector) == 0 {
				return
			}
			for _, s := range existing {
				_, u := esNamed(c.Update, s.Name)
				_, d := esNamed(c.Delete, s.Name)
				if esManaged(s, svc) && !u && !d {
					c.Update = append(c.Update, api.DeepCopyValue(s))
				}
			}
		}),
		fail: []string{"10-fewest-changes"},
		want: "updates [web-1 web-2], want [] (rule 10.1",
	},
	"recreate-instead-of-update": {
		impl: esPost(func(_ api.Service, existing []api.EndpointSlice, c *servicenet.Changes) {
			for _, u := range c.Update {
				old, _ := esNamed(existing, u.Name)
				c.Delete = append(c.Delete, old)
				c.Create = append(c.Create, esRecreate(u))
			}
			c.Update = nil
		}),
		fail: []string{"10-fewest-changes"},
		want: "deletes [web-1], want [] (rule 10.2",
	},
	"update-without-resource-version": {
		impl: esPost(func(_ api.Service, _ []api.EndpointSlice, c *servicenet.Changes) {
			for i := range c.Update {
				c.Update[i].ResourceVersion = ""
			}
		}),
		fail: []string{"10-fewest-changes"},
		want: `the update of web-1 has resourceVersion "", want "11", the existing slice's (rule 10.2`,
	},
	"empty-slices-kept": {
		impl: esPost(func(svc api.Service, _ []api.EndpointSlice, c *servicenet.Changes) {
			var del []api.EndpointSlice
			for _, d := range c.Delete {
				if len(d.OwnerReferences) > 0 && d.OwnerReferences[0].UID == svc.UID {
					d = api.DeepCopyValue(d)
					d.Endpoints = []api.Endpoint{}
					c.Update = append(c.Update, d)
				} else {
					del = append(del, d)
				}
			}
			c.Delete = del
		}),
		fail: []string{"10-fewest-changes"},
		want: "deletes [], want [web-2] (rule 10.3",
	},
	"new-endpoints-skip-changing-slices": {
		impl: esMoveAdded(false),
		fail: []string{"10-fewest-changes"},
		want: "the update of web-1 holds [web-b], want [web-b web-e] (rule 10.4",
	},
	"unchanged-slices-never-filled": {
		impl: esMoveAdded(true),
		fail: []string{"10-fewest-changes"},
		want: "updates [], want [web-2] (rule 10.5",
	},
	"recreate-when-ports-change": {
		impl: esPost(func(_ api.Service, existing []api.EndpointSlice, c *servicenet.Changes) {
			var keep []api.EndpointSlice
			for _, u := range c.Update {
				old, _ := esNamed(existing, u.Name)
				if esPortSet(old.Ports) == esPortSet(u.Ports) {
					keep = append(keep, u)
					continue
				}
				c.Delete = append(c.Delete, old)
				c.Create = append(c.Create, esRecreate(u))
			}
			c.Update = keep
		}),
		fail: []string{"10-fewest-changes"},
		want: "deletes [web-1], want [] (rule 10.6",
	},
	"placeholder-recreated": {
		impl: esPost(func(svc api.Service, existing []api.EndpointSlice, c *servicenet.Changes) {
			if len(svc.Spec.Selector) == 0 || len(c.Create)+len(c.Update)+len(c.Delete) > 0 {
				return
			}
			for _, s := range existing {
				if esManaged(s, svc) && len(s.Endpoints) == 0 && len(s.Ports) == 0 {
					c.Delete = append(c.Delete, s)
					c.Create = append(c.Create, esRecreate(s))
				}
			}
		}),
		fail: []string{"10-fewest-changes"},
		want: "deletes [web-empty], want [] (rule 10.7",
	},
	"labels-not-synced": {
		impl: esLens(func(svc *api.Service, pods []api.Pod, ex []api.EndpointSlice) ([]api.Pod, []api.EndpointSlice) {
			for i := range ex {
				if esManaged(ex[i], *svc) {
					maps.Copy(ex[i].Labels, svc.Labels)
				}
			}
			return pods, ex
		}),
		fail: []string{"10-fewest-changes"},
		want: "updates [], want [web-1 web-2] (rule 10.8",
	},
	"foreign-owner-reused": {
		impl: esLens(func(svc *api.Service, pods []api.Pod, ex []api.EndpointSlice) ([]api.Pod, []api.EndpointSlice) {
			for i := range ex {
				for j := range ex[i].OwnerReferences {
					ex[i].OwnerReferences[j].UID = svc.UID
				}
			}
			return pods, ex
		}),
		fail: []string{"10-fewest-changes"},
		want: "deletes [], want [web-old] (rule 10.9",
	},
}
