package services

// The EndpointSlice controller's reconciler for one Service, after
// upstream's staging/src/k8s.io/endpointslice (k8s.io/endpointslice
// v0.32.0, Kubernetes 1.32): reconciler.go (Reconcile,
// reconcileByAddressType, reconcileByPortMapping, finalize), utils.go
// (podToEndpoint, getEndpointPorts, newEndpointSlice, ownedBy,
// setEndpointSliceLabels, getSliceToFill) and util/controller_utils.go
// (ShouldPodBeInEndpoints, EndpointsEqualBeyondHash); syncService in
// pkg/controller/endpointslice/endpointslice_controller.go decides which
// Services it works on. Upstream walks Go maps and sets, so its choices
// are in random order; here pods are taken by name and slices in the
// order given, so that the same input gives the same Changes.

import (
	"cmp"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/servicenet"
)

const (
	// maxEndpointsPerSlice is kube-controller-manager's default
	// --max-endpoints-per-slice (pkg/controller/endpointslice/config/
	// v1alpha1/defaults.go).
	maxEndpointsPerSlice = 100
	// labelHeadless is v1.IsHeadlessService, set on the slices of a
	// Service without a cluster IP.
	labelHeadless = "service.kubernetes.io/headless"
)

// Slices returns the changes that bring svc's EndpointSlices from
// existing to what pods say: the EndpointSlice controller's reconcile
// for one Service. pods are the pods of svc's namespace; existing are
// the slices labelled with svc's name.
func Slices(svc api.Service, pods []api.Pod, existing []api.EndpointSlice) servicenet.Changes {
	// syncService: an ExternalName Service gets no endpoints, and a
	// Service without a selector gets its slices from someone else
	// (upstream tests selector == nil; an empty map does not survive
	// the JSON round trip, so the two are the same here).
	if svc.Spec.Type == api.ServiceTypeExternalName || len(svc.Spec.Selector) == 0 {
		return servicenet.Changes{}
	}
	// syncService lists only the slices labelled with the Service's
	// name and managed by this controller; the others are not ours.
	var mine []api.EndpointSlice
	for _, s := range existing {
		if s.Labels[api.LabelManagedBy] == api.EndpointSliceControllerName && s.Labels[api.LabelServiceName] == svc.Name {
			mine = append(mine, s)
		}
	}

	var create, update, del []api.EndpointSlice
	// reconcileByAddressType: group the slices we own by their port set;
	// a slice owned by something else (an older Service of the same
	// name) is deleted.
	groups := map[string]*sliceGroup{}
	var order []string
	group := func(ports []api.EndpointPort) *sliceGroup {
		k := portsKey(ports)
		g, ok := groups[k]
		if !ok {
			g = &sliceGroup{ports: ports}
			groups[k] = g
			order = append(order, k)
		}
		return g
	}
	for _, s := range mine {
		if !ownedBy(s, svc) {
			del = append(del, s)
			continue
		}
		g := group(s.Ports)
		g.existing = append(g.existing, s)
	}
	sorted := slices.Clone(pods)
	slices.SortStableFunc(sorted, func(a, b api.Pod) int { return cmp.Compare(a.Name, b.Name) })
	for i := range sorted {
		pod := &sorted[i]
		if pod.Namespace != svc.Namespace || !selects(svc.Spec.Selector, pod.Labels) || !shouldBeEndpoint(pod) {
			continue
		}
		g := group(endpointPortsFor(svc, pod))
		g.desired = true
		if ep := podToEndpoint(pod, svc); len(ep.Addresses) > 0 {
			g.want = append(g.want, ep)
		}
	}
	for _, k := range order {
		g := groups[k]
		if !g.desired {
			// A port set no pod has any more: its slices go.
			del = append(del, g.existing...)
			continue
		}
		c, u, d := reconcileGroup(svc, g)
		create, update, del = append(create, c...), append(update, u...), append(del, d...)
	}

	// A Service with no endpoints keeps one empty placeholder slice, so
	// that "no endpoints" is written down; an existing placeholder is
	// left as it is rather than deleted and made again.
	if len(mine) == len(del) && len(create) == 0 {
		placeholder := newSlice(svc, []api.EndpointPort{})
		if len(del) == 1 && isPlaceholder(del[0], placeholder) {
			del = nil
		} else {
			create = append(create, placeholder)
		}
	}

	// finalize: rather than delete a slice and create another, write the
	// new contents into the slice that would be deleted. Upstream sends
	// that update without a resourceVersion; servicenet.Changes keeps it
	// on every update.
	for i := 0; i < len(del) && len(create) > 0; {
		d := del[i]
		if d.AddressType != api.AddressTypeIPv4 || !ownedBy(d, svc) {
			i++
			continue
		}
		s := create[len(create)-1]
		s.Name, s.ResourceVersion = d.Name, d.ResourceVersion
		create = create[:len(create)-1]
		update = append(update, s)
		del = slices.Delete(del, i, i+1)
	}
	return servicenet.Changes{Create: create, Update: update, Delete: del}
}

// sliceGroup is one port set: the endpoints that want it and the slices
// that have it.
type sliceGroup struct {
	ports    []api.EndpointPort
	desired  bool // some pod has this port set
	want     []api.Endpoint
	existing []api.EndpointSlice
}

// reconcileGroup is reconcileByPortMapping: it keeps every endpoint that
// stays where it is, and places the new ones so that as few slices as
// possible change.
func reconcileGroup(svc api.Service, g *sliceGroup) (create, update, del []api.EndpointSlice) {
	want := map[string]int{} // identity -> index in g.want
	for i, ep := range g.want {
		want[endpointIdentity(ep)] = i
	}
	placed := make([]bool, len(g.want))

	// 1. Walk the existing slices: drop the endpoints no longer wanted,
	//    refresh the ones that changed, and sync the Service's labels.
	var toUpdate, unchanged []*api.EndpointSlice
	for _, s := range g.existing {
		var kept []api.Endpoint
		changed := false
		for _, ep := range s.Endpoints {
			i, ok := want[endpointIdentity(ep)]
			if !ok || placed[i] {
				continue
			}
			kept = append(kept, g.want[i])
			placed[i] = true
			if !sameBeyondIdentity(g.want[i], ep) {
				changed = true
			}
		}
		labels, labelsChanged := sliceLabels(s, svc)
		switch {
		case changed || len(kept) != len(s.Endpoints):
			if len(kept) == 0 {
				del = append(del, s)
				continue
			}
			u := api.DeepCopyValue(s)
			u.Endpoints, u.Labels = kept, labels
			toUpdate = append(toUpdate, &u)
		case labelsChanged:
			u := api.DeepCopyValue(s)
			u.Labels = labels
			toUpdate = append(toUpdate, &u)
		default:
			unchanged = append(unchanged, &s)
		}
	}
	var rest []api.Endpoint
	for i, ep := range g.want {
		if !placed[i] {
			rest = append(rest, ep)
		}
	}
	fill := func(s *api.EndpointSlice) {
		n := min(len(rest), maxEndpointsPerSlice-len(s.Endpoints))
		if n > 0 {
			s.Endpoints = append(s.Endpoints, rest[:n]...)
			rest = rest[n:]
		}
	}

	// 2. Fill the slices that change anyway, the fullest first.
	slices.SortStableFunc(toUpdate, func(a, b *api.EndpointSlice) int { return len(b.Endpoints) - len(a.Endpoints) })
	for _, s := range toUpdate {
		fill(s)
	}

	// 3. Put what is left into an unchanged slice that takes it all
	//    (the one left closest to full), or else into new slices.
	for len(rest) > 0 {
		var s *api.EndpointSlice
		if len(rest) < maxEndpointsPerSlice {
			if i := sliceToFill(unchanged, len(rest)); i >= 0 {
				c := api.DeepCopyValue(*unchanged[i])
				s = &c
				unchanged = slices.Delete(unchanged, i, i+1)
				toUpdate = append(toUpdate, s)
			}
		}
		if s == nil {
			n := newSlice(svc, g.ports)
			s = &n
			fill(s)
			create = append(create, *s)
			continue
		}
		fill(s)
	}
	for _, s := range toUpdate {
		update = append(update, *s)
	}
	return create, update, del
}

// sliceToFill is getSliceToFill: the slice that n more endpoints bring
// closest to full, or -1 if none has room for them all.
func sliceToFill(candidates []*api.EndpointSlice, n int) int {
	best, bestRoom := -1, maxEndpointsPerSlice
	for i, s := range candidates {
		room := maxEndpointsPerSlice - (n + len(s.Endpoints))
		if room >= 0 && room < bestRoom {
			best, bestRoom = i, room
		}
	}
	return best
}

// newSlice is newEndpointSlice: an empty slice for svc with the given
// ports, named by the apiserver from generateName, controlled by svc.
func newSlice(svc api.Service, ports []api.EndpointPort) api.EndpointSlice {
	yes := true
	s := api.EndpointSlice{
		ObjectMeta: api.ObjectMeta{
			GenerateName: svc.Name + "-",
			Namespace:    svc.Namespace,
			// metav1.NewControllerRef sets both flags.
			OwnerReferences: []api.OwnerReference{{
				APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID,
				Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		},
		AddressType: api.AddressTypeIPv4,
		Endpoints:   []api.Endpoint{},
		Ports:       api.DeepCopyValue(ports),
	}
	s.Labels, _ = sliceLabels(s, svc)
	return s
}

// sliceLabels is setEndpointSliceLabels: the Service's labels (but the
// reserved ones), the headless label when the Service has no cluster
// IP, and the slice's own two. changed says whether the slice's
// non-reserved labels differ from the Service's.
func sliceLabels(s api.EndpointSlice, svc api.Service) (map[string]string, bool) {
	reserved := func(k string, _ string) bool {
		return k == api.LabelServiceName || k == api.LabelManagedBy || k == labelHeadless
	}
	have := maps.Clone(s.Labels)
	maps.DeleteFunc(have, reserved)
	labels := maps.Clone(svc.Labels)
	maps.DeleteFunc(labels, reserved)
	changed := !maps.Equal(have, labels)
	if labels == nil {
		labels = map[string]string{}
	}
	// isServiceIPSet: "None" and "" both mean no cluster IP.
	if svc.Spec.ClusterIP == api.ClusterIPNone || svc.Spec.ClusterIP == "" {
		labels[labelHeadless] = ""
	}
	labels[api.LabelServiceName] = svc.Name
	labels[api.LabelManagedBy] = api.EndpointSliceControllerName
	return labels, changed
}

// isPlaceholder says whether s is the placeholder svc would have
// (placeholderSliceCompare: namespace and labels, no endpoints, no
// ports). Upstream deep-compares the rest too; the kata leaves out
// TypeMeta, which a client may or may not fill in.
func isPlaceholder(s, placeholder api.EndpointSlice) bool {
	return s.Namespace == placeholder.Namespace && maps.Equal(s.Labels, placeholder.Labels) &&
		s.AddressType == placeholder.AddressType && len(s.Endpoints) == 0 && len(s.Ports) == 0
}

// ownedBy: a slice belongs to svc when an ownerReference names svc's UID.
func ownedBy(s api.EndpointSlice, svc api.Service) bool {
	for _, o := range s.OwnerReferences {
		if o.UID == svc.UID && o.Kind == "Service" && o.APIVersion == "v1" {
			return true
		}
	}
	return false
}

// selects: a Service's selector is a plain map, every pair must match.
func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if l, ok := labels[k]; !ok || l != v {
			return false
		}
	}
	return true
}

// shouldBeEndpoint is ShouldPodBeInEndpoints(pod, true): a pod that has
// finished never serves again, a pod without an IP cannot yet, and a
// terminating pod is kept (its conditions say it is terminating).
func shouldBeEndpoint(pod *api.Pod) bool {
	if pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
		return false
	}
	return pod.Status.PodIP != "" || len(pod.Status.PodIPs) > 0
}

// podReady is IsPodReady: the Ready condition is True.
func podReady(pod *api.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == api.PodReady {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}

// podToEndpoint turns a pod into its endpoint.
func podToEndpoint(pod *api.Pod, svc api.Service) api.Endpoint {
	serving := podReady(pod)
	terminating := pod.DeletionTimestamp != nil
	// "ready" is never true for a terminating pod, unless the Service
	// publishes not-ready addresses.
	ready := svc.Spec.PublishNotReadyAddresses || (serving && !terminating)
	ep := api.Endpoint{
		Addresses:  []string{},
		Conditions: api.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  &api.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	// getEndpointAddresses reads status.podIPs and keeps the IPv4 ones.
	for _, ip := range pod.Status.PodIPs {
		if a, err := netip.ParseAddr(ip.IP); err != nil || a.Is4() || a.Is4In6() {
			ep.Addresses = append(ep.Addresses, ip.IP)
		}
	}
	if pod.Spec.NodeName != "" {
		node := pod.Spec.NodeName
		ep.NodeName = &node
	}
	// ShouldSetHostname: a pod that names this Service as its subdomain
	// gets a DNS name under it.
	if pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Name && pod.Namespace == svc.Namespace {
		h := pod.Spec.Hostname
		ep.Hostname = &h
	}
	return ep
}

// endpointPortsFor is getEndpointPorts: one port per Service port that
// the pod resolves.
func endpointPortsFor(svc api.Service, pod *api.Pod) []api.EndpointPort {
	ports := []api.EndpointPort{}
	for _, sp := range svc.Spec.Ports {
		num, ok := findPort(pod, sp)
		if !ok {
			continue
		}
		name, proto := sp.Name, protocolOf(sp.Protocol)
		ports = append(ports, api.EndpointPort{Name: &name, Protocol: &proto, Port: &num, AppProtocol: cloneString(sp.AppProtocol)})
	}
	return ports
}

// findPort is pkg/api/v1/pod FindPort: a number is that port; a name is
// looked up in the pod's containers' ports, with the Service port's
// protocol. The kata's apiserver does not default, so do what
// pkg/apis/core/v1/defaults.go would: no targetPort is the port itself,
// no protocol is TCP.
func findPort(pod *api.Pod, sp api.ServicePort) (int32, bool) {
	tp := sp.TargetPort
	switch {
	case tp.Type == api.Int && tp.IntVal == 0, tp.Type == api.String && tp.StrVal == "":
		return sp.Port, true
	case tp.Type == api.Int:
		return tp.IntVal, true
	}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == tp.StrVal && protocolOf(p.Protocol) == protocolOf(sp.Protocol) {
				return p.ContainerPort, true
			}
		}
	}
	return 0, false
}

func protocolOf(p api.Protocol) api.Protocol {
	if p == "" {
		return api.ProtocolTCP
	}
	return p
}

func cloneString(s *string) *string {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// portsKey names a port set whatever its order (NewPortMapKey hashes
// the sorted ports).
func portsKey(ports []api.EndpointPort) string {
	keys := make([]string, len(ports))
	for i, p := range ports {
		keys[i] = strPtr(p.Name) + "/" + strPtr((*string)(p.Protocol)) + "/" + strPtr(p.AppProtocol) + "/"
		if p.Port != nil {
			keys[i] += strconv.Itoa(int(*p.Port))
		}
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

func strPtr(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return strconv.Quote(*s)
}

// endpointIdentity is hashEndpoint: what makes two endpoints the same
// one (its addresses, hostname and pod), so that a change of anything
// else is an update in place.
func endpointIdentity(ep api.Endpoint) string {
	addrs := slices.Sorted(slices.Values(ep.Addresses))
	k := strings.Join(addrs, ",") + "|" + strPtr(ep.Hostname)
	if ep.TargetRef != nil {
		k += "|" + ep.TargetRef.Namespace + "/" + ep.TargetRef.Name
	}
	return k
}

// sameBeyondIdentity is EndpointsEqualBeyondHash: node, zone,
// conditions and the pod reference (but its resourceVersion).
func sameBeyondIdentity(a, b api.Endpoint) bool {
	ref := func(r *api.ObjectReference) api.ObjectReference {
		if r == nil {
			return api.ObjectReference{ResourceVersion: "<nil>"}
		}
		c := *r
		c.ResourceVersion = ""
		return c
	}
	return strPtr(a.NodeName) == strPtr(b.NodeName) && strPtr(a.Zone) == strPtr(b.Zone) &&
		boolPtr(a.Conditions.Ready) == boolPtr(b.Conditions.Ready) &&
		boolPtr(a.Conditions.Serving) == boolPtr(b.Conditions.Serving) &&
		boolPtr(a.Conditions.Terminating) == boolPtr(b.Conditions.Terminating) &&
		ref(a.TargetRef) == ref(b.TargetRef)
}

func boolPtr(b *bool) string {
	if b == nil {
		return "<nil>"
	}
	return strconv.FormatBool(*b)
}
