package servicestest

// Steps 06-10: the EndpointSlices of a Service, as the EndpointSlice
// controller computes them. Upstream (k8s.io/endpointslice v0.32.0,
// Kubernetes 1.32): staging/src/k8s.io/endpointslice/reconciler.go
// (reconcileByAddressType, reconcileByPortMapping, finalize), utils.go
// (podToEndpoint, getEndpointPorts, newEndpointSlice, ownedBy,
// setEndpointSliceLabels, getSliceToFill), util/controller_utils.go
// (ShouldPodBeInEndpoints, EndpointsEqualBeyondHash) and syncService in
// pkg/controller/endpointslice/endpointslice_controller.go.
//
// Upstream places endpoints by popping Go sets, so which endpoint lands
// in which new slice, and the order of endpoints and ports in a slice,
// are unspecified: the suite compares them as sets, and where upstream
// only fixes how many endpoints a slice gets, it checks counts.
//
// Failure messages cite the README's rules as "rule <step>.<n>".

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/servicenet"
	"github.com/kubekata/kubekata/harness/suite"
)

// ---------------------------------------------------------------- fixtures

const (
	esNamespace = "default"
	esSvcUID    = api.UID("uid-svc-web")
	// esLabelHeadless is v1.IsHeadlessService.
	esLabelHeadless = "service.kubernetes.io/headless"
)

// esDeleted is the deletionTimestamp of a terminating pod.
var esDeleted = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// esService is Service default/web: clusterIP 10.96.0.10, selector
// app=web, port http 80 -> 8080/TCP.
func esService(opts ...func(*api.Service)) api.Service {
	s := api.Service{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: esNamespace, UID: esSvcUID},
		Spec: api.ServiceSpec{
			Type:      api.ServiceTypeClusterIP,
			ClusterIP: "10.96.0.10",
			Selector:  map[string]string{"app": "web"},
			Ports:     []api.ServicePort{{Name: "http", Protocol: api.ProtocolTCP, Port: 80, TargetPort: api.FromInt32(8080)}},
		},
	}
	for _, o := range opts {
		o(&s)
	}
	return s
}

// esIP is the IP of the pod numbered n.
func esIP(n int) string { return fmt.Sprintf("10.244.%d.%d", n/200, n%200+1) }

// esPod is a running, ready pod of app=web on node-1 whose container
// "web" listens on port "http" 8080/TCP; n numbers its IP.
func esPod(name string, n int, opts ...func(*api.Pod)) api.Pod {
	ip := esIP(n)
	p := api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: esNamespace, UID: api.UID("uid-" + name), Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{
			NodeName:   "node-1",
			Containers: []api.Container{{Name: "web", Image: "kata/http-echo", Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: api.ProtocolTCP}}}},
		},
		Status: api.PodStatus{
			Phase:      api.PodRunning,
			PodIP:      ip,
			PodIPs:     []api.PodIP{{IP: ip}},
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}},
		},
	}
	for _, o := range opts {
		o(&p)
	}
	return p
}

// esPods are count pods web-000, web-001, ... numbered from first.
func esPods(first, count int, opts ...func(*api.Pod)) []api.Pod {
	pods := make([]api.Pod, 0, count)
	for i := first; i < first+count; i++ {
		pods = append(pods, esPod(fmt.Sprintf("web-%03d", i), i, opts...))
	}
	return pods
}

func esNotReady(p *api.Pod) {
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse}}
}

func esNoReadyCondition(p *api.Pod) { p.Status.Conditions = nil }

func esTerminating(p *api.Pod) {
	t := api.NewTime(esDeleted)
	p.DeletionTimestamp = &t
}

func esPhase(ph api.PodPhase) func(*api.Pod) { return func(p *api.Pod) { p.Status.Phase = ph } }

func esNoIP(p *api.Pod) { p.Status.PodIP, p.Status.PodIPs = "", nil }

func esPodLabels(l map[string]string) func(*api.Pod) { return func(p *api.Pod) { p.Labels = l } }

// esContainerPorts replaces the pod's containers: one container per
// list of ports, named c0, c1, ...
func esContainerPorts(lists ...[]api.ContainerPort) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Spec.Containers = nil
		for i, ports := range lists {
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "c" + strconv.Itoa(i), Image: "kata/http-echo", Ports: ports})
		}
	}
}

func esCPort(name string, port int32, proto api.Protocol) api.ContainerPort {
	return api.ContainerPort{Name: name, ContainerPort: port, Protocol: proto}
}

// esEP is the endpoint the controller writes for esPod(name, n), ready
// or not.
func esEP(name string, n int, ready bool) api.Endpoint {
	no, node := false, "node-1"
	r, s := ready, ready
	return api.Endpoint{
		Addresses:  []string{esIP(n)},
		Conditions: api.EndpointConditions{Ready: &r, Serving: &s, Terminating: &no},
		TargetRef:  &api.ObjectReference{Kind: "Pod", Namespace: esNamespace, Name: name, UID: api.UID("uid-" + name)},
		NodeName:   &node,
	}
}

// esEPs are the ready endpoints of esPods(first, count).
func esEPs(first, count int) []api.Endpoint {
	var eps []api.Endpoint
	for i := first; i < first+count; i++ {
		eps = append(eps, esEP(fmt.Sprintf("web-%03d", i), i, true))
	}
	return eps
}

// esHTTP is the port set of the default Service on targetPort port.
func esHTTP(port int32) []api.EndpointPort {
	name, proto := "http", api.ProtocolTCP
	return []api.EndpointPort{{Name: &name, Protocol: &proto, Port: &port}}
}

// esSlice is a slice the controller wrote for esService earlier.
func esSlice(name, rv string, ports []api.EndpointPort, eps []api.Endpoint) api.EndpointSlice {
	yes := true
	if eps == nil {
		eps = []api.Endpoint{}
	}
	return api.EndpointSlice{
		ObjectMeta: api.ObjectMeta{
			Name: name, GenerateName: "web-", Namespace: esNamespace, ResourceVersion: rv, UID: api.UID("uid-" + name),
			Labels:          map[string]string{api.LabelServiceName: "web", api.LabelManagedBy: api.EndpointSliceControllerName},
			OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: "web", UID: esSvcUID, Controller: &yes, BlockOwnerDeletion: &yes}},
		},
		AddressType: api.AddressTypeIPv4,
		Endpoints:   eps,
		Ports:       ports,
	}
}

// ---------------------------------------------------------------- calls

// esCall runs Slices and checks, as every step does, that it left its
// arguments as they were (rule 6.12).
func esCall(t *suite.T, impl Impl, svc api.Service, pods []api.Pod, existing []api.EndpointSlice) (servicenet.Changes, string, bool) {
	t.Helper()
	svc0, pods0, existing0 := api.DeepCopyValue(svc), api.DeepCopyValue(pods), api.DeepCopyValue(existing)
	call := fmt.Sprintf("Slices(%s,\n\t\tpods %s,\n\t\texisting %s)", esDescribeService(svc), esDescribePods(pods), esDescribeSlices(existing))
	got := impl.Slices(svc, pods, existing)
	var changed []string
	if !reflect.DeepEqual(svc, svc0) {
		changed = append(changed, "the Service")
	}
	if !reflect.DeepEqual(pods, pods0) {
		changed = append(changed, "the pods (now "+esDescribePods(pods)+")")
	}
	if !reflect.DeepEqual(existing, existing0) {
		changed = append(changed, "the existing slices (now "+esDescribeSlices(existing)+")")
	}
	if len(changed) > 0 {
		t.Errorf("%s changed %s: want its arguments untouched; sort, filter and edit copies, never the caller's objects (rule 6.12)", call, strings.Join(changed, " and "))
		return got, call, false
	}
	return got, call, true
}

// esCase is one call and what its Changes must be.
type esCase struct {
	rule  string // "6.3"
	what  string // what the rule says here
	svc   api.Service
	pods  []api.Pod
	slice []api.EndpointSlice
	// check returns "" when got is right, else what is wrong: "got
	// ..., want ...".
	check func(got servicenet.Changes) string
}

func esRun(t *suite.T, impl Impl, cases []esCase) {
	t.Helper()
	for _, c := range cases {
		got, call, ok := esCall(t, impl, c.svc, c.pods, c.slice)
		if !ok {
			continue
		}
		if p := c.check(got); p != "" {
			t.Errorf("%s\n\t= %s\n\t%s (rule %s: %s)", call, esDescribeChanges(got), p, c.rule, c.what)
		}
	}
}

// ---------------------------------------------------------------- checks

// esNothing: the Changes are empty.
func esNothing(got servicenet.Changes) string {
	if n := len(got.Create) + len(got.Update) + len(got.Delete); n > 0 {
		return fmt.Sprintf("%d changes, want none", n)
	}
	return ""
}

// esCreates checks that got only creates, n slices, then runs then.
func esCreates(n int, then func(created []api.EndpointSlice) string) func(servicenet.Changes) string {
	return func(got servicenet.Changes) string {
		if len(got.Update)+len(got.Delete) > 0 {
			return fmt.Sprintf("%d updates and %d deletes, want none: there were no slices of this Service to update or delete", len(got.Update), len(got.Delete))
		}
		if len(got.Create) != n {
			return fmt.Sprintf("%d new slices, want %d", len(got.Create), n)
		}
		if then == nil {
			return ""
		}
		return then(got.Create)
	}
}

// esWho names the endpoint: its pod, else its addresses.
func esWho(ep api.Endpoint) string {
	if ep.TargetRef != nil && ep.TargetRef.Name != "" {
		return ep.TargetRef.Name
	}
	if len(ep.Addresses) == 0 {
		return "(no address)"
	}
	return strings.Join(ep.Addresses, ",")
}

// esAddrs lists the addresses of every endpoint of the slices, sorted,
// with repeats.
func esAddrs(ss []api.EndpointSlice) []string {
	var out []string
	for _, s := range ss {
		for _, ep := range s.Endpoints {
			out = append(out, ep.Addresses...)
		}
	}
	slices.Sort(out)
	return out
}

// esNamesOf names the pods whose addresses those are, sorted; an
// address of no pod stays as it is.
func esNamesOf(pods []api.Pod, addrs []string) []string {
	byIP := map[string]string{}
	for _, p := range pods {
		byIP[p.Status.PodIP] = p.Name
	}
	var out []string
	for _, a := range addrs {
		if n, ok := byIP[a]; ok {
			out = append(out, n)
		} else {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// esEndpointsAre checks that the slices hold exactly the endpoints of
// the named pods, each once.
func esEndpointsAre(pods []api.Pod, names ...string) func([]api.EndpointSlice) string {
	return func(ss []api.EndpointSlice) string {
		got := esNamesOf(pods, esAddrs(ss))
		want := slices.Sorted(slices.Values(names))
		if !slices.Equal(got, want) {
			return fmt.Sprintf("endpoints %v, want %v", got, want)
		}
		return ""
	}
}

// esFind returns the endpoint with address addr.
func esFind(ss []api.EndpointSlice, addr string) (api.Endpoint, api.EndpointSlice, bool) {
	for _, s := range ss {
		for _, ep := range s.Endpoints {
			if slices.Contains(ep.Addresses, addr) {
				return ep, s, true
			}
		}
	}
	return api.Endpoint{}, api.EndpointSlice{}, false
}

func esStr(s *string) string {
	if s == nil {
		return "unset"
	}
	return strconv.Quote(*s)
}

func esBool(b *bool) string {
	if b == nil {
		return "unset"
	}
	return strconv.FormatBool(*b)
}

// esPortString prints an endpoint port as name:port/protocol
// [appProtocol]; an unset name prints as the empty name.
func esPortString(p api.EndpointPort) string {
	name := ""
	if p.Name != nil {
		name = *p.Name
	}
	s := name + ":"
	if p.Port != nil {
		s += strconv.Itoa(int(*p.Port))
	} else {
		s += "?"
	}
	if p.Protocol != nil {
		s += "/" + string(*p.Protocol)
	} else {
		s += "/unset"
	}
	if p.AppProtocol != nil {
		s += " appProtocol " + *p.AppProtocol
	}
	return s
}

// esPortSet prints a slice's ports, sorted, as a set.
func esPortSet(ports []api.EndpointPort) string {
	var out []string
	for _, p := range ports {
		out = append(out, esPortString(p))
	}
	slices.Sort(out)
	return "[" + strings.Join(out, ", ") + "]"
}

// ---------------------------------------------------------------- descriptions

func esDescribeService(s api.Service) string {
	var b strings.Builder
	fmt.Fprintf(&b, "service %s/%s", s.Namespace, s.Name)
	if s.Spec.Type != api.ServiceTypeClusterIP {
		fmt.Fprintf(&b, " type %q", s.Spec.Type)
	}
	if s.Spec.ClusterIP != "10.96.0.10" {
		fmt.Fprintf(&b, " clusterIP %q", s.Spec.ClusterIP)
	}
	if len(s.Spec.Selector) == 0 {
		b.WriteString(" no selector")
	} else {
		fmt.Fprintf(&b, " selector %s", esMap(s.Spec.Selector))
	}
	var ports []string
	for _, p := range s.Spec.Ports {
		tp := p.TargetPort.String()
		if p.TargetPort.Type == api.Int && p.TargetPort.IntVal == 0 {
			tp = "(no targetPort)"
		}
		proto := string(p.Protocol)
		if proto == "" {
			proto = "(no protocol)"
		}
		ps := fmt.Sprintf("%s %d→%s/%s", strconv.Quote(p.Name), p.Port, tp, proto)
		if p.AppProtocol != nil {
			ps += " appProtocol " + *p.AppProtocol
		}
		ports = append(ports, ps)
	}
	fmt.Fprintf(&b, " ports [%s]", strings.Join(ports, ", "))
	if len(s.Labels) > 0 {
		fmt.Fprintf(&b, " labels %s", esMap(s.Labels))
	}
	if s.Spec.PublishNotReadyAddresses {
		b.WriteString(" publishNotReadyAddresses")
	}
	return b.String()
}

func esMap(m map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, k+"="+m[k])
	}
	return "{" + strings.Join(kv, ",") + "}"
}

func esDescribePods(pods []api.Pod) string {
	if len(pods) == 0 {
		return "[]"
	}
	if len(pods) > 8 {
		return fmt.Sprintf("[%d pods %s … %s]", len(pods), esDescribePod(pods[0]), esDescribePod(pods[len(pods)-1]))
	}
	var out []string
	for _, p := range pods {
		out = append(out, esDescribePod(p))
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func esDescribePod(p api.Pod) string {
	var notes []string
	if p.Namespace != esNamespace {
		notes = append(notes, "namespace "+p.Namespace)
	}
	if !maps.Equal(p.Labels, map[string]string{"app": "web"}) {
		notes = append(notes, "labels "+esMap(p.Labels))
	}
	if p.Status.Phase != api.PodRunning {
		notes = append(notes, string(p.Status.Phase))
	}
	if p.Status.PodIP == "" {
		notes = append(notes, "no IP")
	}
	ready := "no Ready condition"
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady {
			ready = "Ready=" + string(c.Status)
		}
	}
	if ready != "Ready=True" {
		notes = append(notes, ready)
	}
	if p.DeletionTimestamp != nil {
		notes = append(notes, "terminating")
	}
	if p.Spec.NodeName != "node-1" {
		notes = append(notes, fmt.Sprintf("nodeName %q", p.Spec.NodeName))
	}
	if p.Spec.Hostname != "" || p.Spec.Subdomain != "" {
		notes = append(notes, fmt.Sprintf("hostname %q subdomain %q", p.Spec.Hostname, p.Spec.Subdomain))
	}
	def := len(p.Spec.Containers) == 1 && reflect.DeepEqual(p.Spec.Containers[0].Ports, []api.ContainerPort{esCPort("http", 8080, api.ProtocolTCP)})
	if !def {
		var cs []string
		for _, c := range p.Spec.Containers {
			var ps []string
			for _, cp := range c.Ports {
				ps = append(ps, fmt.Sprintf("%q %d/%s", cp.Name, cp.ContainerPort, cp.Protocol))
			}
			cs = append(cs, c.Name+" ["+strings.Join(ps, ", ")+"]")
		}
		notes = append(notes, "containers "+strings.Join(cs, ", "))
	}
	s := p.Name
	if p.Status.PodIP != "" {
		s += " " + p.Status.PodIP
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

func esDescribeSlices(ss []api.EndpointSlice) string {
	if len(ss) == 0 {
		return "[]"
	}
	var out []string
	for _, s := range ss {
		out = append(out, esDescribeSlice(s))
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func esDescribeSlice(s api.EndpointSlice) string {
	name := s.Name
	if name == "" {
		name = "(new, generateName " + strconv.Quote(s.GenerateName) + ")"
	}
	var notes []string
	if s.ResourceVersion != "" {
		notes = append(notes, "rv "+s.ResourceVersion)
	}
	if m := s.Labels[api.LabelManagedBy]; m != api.EndpointSliceControllerName {
		notes = append(notes, "managed-by "+strconv.Quote(m))
	}
	notes = append(notes, "ports "+esPortSet(s.Ports))
	var who []string
	for _, ep := range s.Endpoints {
		who = append(who, esWho(ep))
	}
	if len(who) > 6 {
		notes = append(notes, fmt.Sprintf("%d endpoints", len(who)))
	} else {
		notes = append(notes, "endpoints ["+strings.Join(who, " ")+"]")
	}
	return name + " (" + strings.Join(notes, ", ") + ")"
}

func esDescribeChanges(c servicenet.Changes) string {
	if len(c.Create)+len(c.Update)+len(c.Delete) == 0 {
		return "no changes"
	}
	var names []string
	for _, s := range c.Delete {
		names = append(names, s.Name)
	}
	return fmt.Sprintf("create %s\n\t  update %s\n\t  delete [%s]", esDescribeSlices(c.Create), esDescribeSlices(c.Update), strings.Join(names, " "))
}

// ---------------------------------------------------------------- 06

func endpoints(t *suite.T, impl Impl) {
	need(t, "Slices", impl.Slices)
	esRun(t, impl, esEndpointCases())
}

// esEndpointCases are the calls of step 06.
func esEndpointCases() []esCase {
	a, b := esPod("web-a", 1), esPod("web-b", 2)
	two := []api.Pod{a, b}
	noSelector := esService(func(s *api.Service) { s.Spec.Selector = nil })
	theirs := esSlice("web-manual", "5", esHTTP(8080), []api.Endpoint{esEP("web-x", 99, true)})
	theirs.Labels[api.LabelManagedBy] = "my-controller"
	theirs.OwnerReferences = nil
	ours := esSlice("web-abc12", "7", esHTTP(8080), []api.Endpoint{esEP("web-a", 1, true)})

	cases := []esCase{
		// syncService: "services without a selector receive no endpoint
		// slices from this controller".
		{rule: "6.1", what: "a Service without a selector gets no changes, its slices are someone else's",
			svc: noSelector, pods: two, check: esNothing},
		{rule: "6.1", what: "a Service without a selector gets no changes, its slices are someone else's",
			svc: noSelector, pods: two, slice: []api.EndpointSlice{ours, theirs}, check: esNothing},
		// syncService: "services with Type ExternalName receive no
		// endpoints from this controller".
		{rule: "6.2", what: "an ExternalName Service gets no changes",
			svc: esService(func(s *api.Service) {
				s.Spec.Type, s.Spec.ClusterIP, s.Spec.ExternalName = api.ServiceTypeExternalName, "", "web.example.com"
			}), pods: two, check: esNothing},
		{rule: "6.3", what: "every selected pod with an IP is an endpoint",
			svc: esService(), pods: two, check: esCreates(1, esEndpointsAre(two, "web-a", "web-b"))},
	}
	// ShouldPodBeInEndpoints(pod, includeTerminating=true), and the
	// selector and namespace of syncService's pod lister.
	for _, c := range []struct {
		what string
		pod  api.Pod
		in   bool
	}{
		{"a Failed pod is not an endpoint", esPod("web-b", 2, esPhase(api.PodFailed), esNotReady), false},
		{"a Succeeded pod is not an endpoint", esPod("web-b", 2, esPhase(api.PodSucceeded), esNotReady), false},
		{"a pod without an IP is not an endpoint", esPod("web-b", 2, esPhase(api.PodPending), esNoIP, esNotReady), false},
		{"a Pending pod that has an IP is an endpoint", esPod("web-b", 2, esPhase(api.PodPending), esNotReady), true},
		{"a pod that is not ready is an endpoint (its conditions say so)", esPod("web-b", 2, esNotReady), true},
		{"a terminating pod is an endpoint (its conditions say so)", esPod("web-b", 2, esTerminating), true},
		{"a pod of another namespace is not selected", esPod("web-b", 2, func(p *api.Pod) { p.Namespace = "other" }), false},
		{"a pod whose labels do not match is not selected", esPod("web-b", 2, esPodLabels(map[string]string{"app": "api"})), false},
		{"a pod missing a label of the selector is not selected", esPod("web-b", 2, esPodLabels(map[string]string{"tier": "web"})), false},
		{"a pod with more labels than the selector is selected", esPod("web-b", 2, esPodLabels(map[string]string{"app": "web", "tier": "front"})), true},
	} {
		pods := []api.Pod{a, c.pod}
		want := []string{"web-a"}
		if c.in {
			want = append(want, "web-b")
		}
		cases = append(cases, esCase{rule: "6.3", what: c.what, svc: esService(), pods: pods, check: esCreates(1, esEndpointsAre(pods, want...))})
	}

	noNode := esPod("web-b", 2, esPhase(api.PodPending), esNotReady, func(p *api.Pod) { p.Spec.NodeName = "" })
	cases = append(cases,
		esCase{rule: "6.4", what: "an endpoint has the pod's IP, a targetRef to the pod and the pod's nodeName",
			svc: esService(), pods: []api.Pod{a, noNode}, check: esCreates(1, func(ss []api.EndpointSlice) string {
				for _, c := range []struct {
					pod  api.Pod
					node *string
				}{{a, &a.Spec.NodeName}, {noNode, nil}} {
					ep, _, ok := esFind(ss, c.pod.Status.PodIP)
					if !ok {
						return fmt.Sprintf("no endpoint with address %s, want one for %s", c.pod.Status.PodIP, c.pod.Name)
					}
					if !slices.Equal(ep.Addresses, []string{c.pod.Status.PodIP}) {
						return fmt.Sprintf("%s's endpoint has addresses %v, want [%s]", c.pod.Name, ep.Addresses, c.pod.Status.PodIP)
					}
					wantRef := api.ObjectReference{Kind: "Pod", Namespace: esNamespace, Name: c.pod.Name, UID: c.pod.UID}
					if ep.TargetRef == nil || *ep.TargetRef != wantRef {
						got := "unset"
						if ep.TargetRef != nil {
							got = fmt.Sprintf("%+v", *ep.TargetRef)
						}
						return fmt.Sprintf("%s's endpoint has targetRef %s, want %+v", c.pod.Name, got, wantRef)
					}
					if esStr(ep.NodeName) != esStr(c.node) {
						return fmt.Sprintf("%s's endpoint has nodeName %s, want %s", c.pod.Name, esStr(ep.NodeName), esStr(c.node))
					}
				}
				return ""
			})})

	// ShouldSetHostname: the pod's hostname, when its subdomain is the
	// Service (and it is in the Service's namespace).
	host := func(h, sub string) func(*api.Pod) {
		return func(p *api.Pod) { p.Spec.Hostname, p.Spec.Subdomain = h, sub }
	}
	hostPods := []api.Pod{esPod("web-a", 1, host("web-0", "web")), esPod("web-b", 2, host("web-1", "other")), esPod("web-c", 3)}
	cases = append(cases, esCase{rule: "6.5", what: "an endpoint has the pod's hostname when the pod's subdomain is the Service's name",
		svc: esService(), pods: hostPods, check: esCreates(1, func(ss []api.EndpointSlice) string {
			web0 := "web-0"
			for _, c := range []struct {
				pod  api.Pod
				want *string
			}{{hostPods[0], &web0}, {hostPods[1], nil}, {hostPods[2], nil}} {
				ep, _, ok := esFind(ss, c.pod.Status.PodIP)
				if !ok {
					return "no endpoint for " + c.pod.Name
				}
				if esStr(ep.Hostname) != esStr(c.want) {
					return fmt.Sprintf("%s's endpoint has hostname %s, want %s", c.pod.Name, esStr(ep.Hostname), esStr(c.want))
				}
			}
			return ""
		})})

	// newEndpointSlice: generateName, namespace, a controller reference
	// (metav1.NewControllerRef: controller and blockOwnerDeletion true).
	cases = append(cases, esCase{rule: "6.6", what: "a new slice has no name, generateName \"web-\", the Service's namespace, addressType IPv4 and a controller reference to the Service",
		svc: esService(), pods: two, check: esCreates(1, func(ss []api.EndpointSlice) string {
			s := ss[0]
			if s.Name != "" || s.GenerateName != "web-" || s.Namespace != esNamespace {
				return fmt.Sprintf("name %q generateName %q namespace %q, want name \"\" (the apiserver picks it) generateName \"web-\" namespace %q", s.Name, s.GenerateName, s.Namespace, esNamespace)
			}
			if s.AddressType != api.AddressTypeIPv4 {
				return fmt.Sprintf("addressType %q, want %q", s.AddressType, api.AddressTypeIPv4)
			}
			yes := true
			want := []api.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: "web", UID: esSvcUID, Controller: &yes, BlockOwnerDeletion: &yes}}
			if !reflect.DeepEqual(s.OwnerReferences, want) {
				return fmt.Sprintf("ownerReferences %s, want %s", esOwners(s.OwnerReferences), esOwners(want))
			}
			return ""
		})})

	// setEndpointSliceLabels: the Service's labels, the headless label
	// when it has no cluster IP (isServiceIPSet), and the two of ours.
	labels := func(svc api.Service, extra map[string]string) esCase {
		want := map[string]string{api.LabelServiceName: "web", api.LabelManagedBy: api.EndpointSliceControllerName}
		maps.Copy(want, extra)
		return esCase{rule: "6.7", what: "a slice's labels are the Service's, service-name, managed-by, and headless when the Service has no cluster IP",
			svc: svc, pods: two, check: esCreates(1, func(ss []api.EndpointSlice) string {
				if !maps.Equal(ss[0].Labels, want) {
					return fmt.Sprintf("labels %s, want %s", esMap(ss[0].Labels), esMap(want))
				}
				return ""
			})}
	}
	cases = append(cases,
		labels(esService(), nil),
		labels(esService(func(s *api.Service) { s.Labels = map[string]string{"team": "shop", "tier": "front"} }), map[string]string{"team": "shop", "tier": "front"}),
		labels(esService(func(s *api.Service) { s.Spec.ClusterIP = api.ClusterIPNone }), map[string]string{esLabelHeadless: ""}),
		labels(esService(func(s *api.Service) { s.Spec.ClusterIP = "" }), map[string]string{esLabelHeadless: ""}),
	)

	// getEndpointPorts: one port per Service port, the target port's
	// number, the Service port's name, protocol and appProtocol.
	h2 := "h2c"
	ports := func(what, rule string, sps []api.ServicePort, want ...string) esCase {
		return esCase{rule: rule, what: what,
			svc: esService(func(s *api.Service) { s.Spec.Ports = sps }), pods: two, check: esCreates(1, func(ss []api.EndpointSlice) string {
				w := "[" + strings.Join(slices.Sorted(slices.Values(want)), ", ") + "]"
				if got := esPortSet(ss[0].Ports); got != w {
					return fmt.Sprintf("ports %s, want %s", got, w)
				}
				return ""
			})}
	}
	cases = append(cases,
		ports("a slice has one port per Service port: its name, protocol and appProtocol, and the target port's number", "6.8",
			[]api.ServicePort{
				{Name: "http", Protocol: api.ProtocolTCP, Port: 80, TargetPort: api.FromInt32(8080), AppProtocol: &h2},
				{Name: "dns", Protocol: api.ProtocolUDP, Port: 53, TargetPort: api.FromInt32(5353)},
			}, "http:8080/TCP appProtocol h2c", "dns:5353/UDP"),
		ports("a Service port without a protocol is TCP, without a targetPort targets its own port", "6.9",
			[]api.ServicePort{{Port: 80}}, ":80/TCP"),
		ports("a Service port without a protocol is TCP, without a targetPort targets its own port", "6.9",
			[]api.ServicePort{{Name: "a", Port: 80}, {Name: "b", Port: 81, TargetPort: api.FromString("")}}, "a:80/TCP", "b:81/TCP"),
	)

	// reconcileByAddressType: "When no endpoint slices would usually
	// exist, we need to add a placeholder."
	placeholder := func(what string, pods []api.Pod) esCase {
		return esCase{rule: "6.10", what: what, svc: esService(), pods: pods, check: esCreates(1, func(ss []api.EndpointSlice) string {
			s := ss[0]
			if len(s.Endpoints) != 0 || len(s.Ports) != 0 {
				return fmt.Sprintf("a slice with %d endpoints and ports %s, want an empty placeholder: no endpoints, no ports", len(s.Endpoints), esPortSet(s.Ports))
			}
			want := map[string]string{api.LabelServiceName: "web", api.LabelManagedBy: api.EndpointSliceControllerName}
			if s.GenerateName != "web-" || !maps.Equal(s.Labels, want) || len(s.OwnerReferences) != 1 || s.AddressType != api.AddressTypeIPv4 {
				return fmt.Sprintf("placeholder generateName %q labels %s owners %s addressType %q, want it made like any new slice (rules 6.6 and 6.7)",
					s.GenerateName, esMap(s.Labels), esOwners(s.OwnerReferences), s.AddressType)
			}
			return ""
		})}
	}
	cases = append(cases,
		placeholder("a Service that selects no pod still gets one slice: an empty placeholder", nil),
		placeholder("a Service whose pods have all finished still gets one slice: an empty placeholder",
			[]api.Pod{esPod("web-a", 1, esPhase(api.PodSucceeded)), esPod("web-b", 2, esPhase(api.PodFailed))}),
	)

	// syncService lists only slices with managed-by this controller.
	cases = append(cases, esCase{rule: "6.11", what: "a slice managed by another controller is never updated nor deleted",
		svc: esService(), pods: two, slice: []api.EndpointSlice{theirs}, check: func(got servicenet.Changes) string {
			for _, s := range slices.Concat(got.Update, got.Delete) {
				if s.Name == theirs.Name {
					return "web-manual is in the changes, want it left alone: its managed-by is my-controller"
				}
			}
			return esCreates(1, esEndpointsAre(two, "web-a", "web-b"))(got)
		}})
	return cases
}

func esOwners(os []api.OwnerReference) string {
	var out []string
	for _, o := range os {
		out = append(out, fmt.Sprintf("{%s %s %s uid %s controller %s blockOwnerDeletion %s}", o.APIVersion, o.Kind, o.Name, o.UID, esBool(o.Controller), esBool(o.BlockOwnerDeletion)))
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// ---------------------------------------------------------------- 07

func endpointConditions(t *suite.T, impl Impl) {
	need(t, "Slices", impl.Slices)
	// podToEndpoint: serving is IsPodReady, terminating is a set
	// deletionTimestamp, ready is serving and not terminating, or true
	// whatever the pod says when the Service publishes not-ready
	// addresses ("For compatibility reasons, "ready" should never be
	// "true" if a pod is terminating, unless publishNotReadyAddresses
	// was set").
	type want struct{ ready, serving, terminating bool }
	pods := []api.Pod{
		esPod("web-a", 1),
		esPod("web-b", 2, esNotReady),
		esPod("web-c", 3, esNoReadyCondition),
		esPod("web-d", 4, esTerminating),
		esPod("web-e", 5, esTerminating, esNotReady),
	}
	for _, c := range []struct {
		publish bool
		want    []want
	}{
		{false, []want{{true, true, false}, {false, false, false}, {false, false, false}, {false, true, true}, {false, false, true}}},
		{true, []want{{true, true, false}, {true, false, false}, {true, false, false}, {true, true, true}, {true, false, true}}},
	} {
		svc := esService(func(s *api.Service) { s.Spec.PublishNotReadyAddresses = c.publish })
		got, call, ok := esCall(t, impl, svc, pods, nil)
		if !ok {
			continue
		}
		// One message a call, one line a wrong condition.
		var problems []string
		all := slices.Concat(got.Create, got.Update)
		for i, p := range pods {
			ep, _, found := esFind(all, p.Status.PodIP)
			if !found {
				problems = append(problems, fmt.Sprintf("no endpoint for %s, want one: every selected pod with an IP is an endpoint (rule 6.3)", p.Name))
				continue
			}
			w := c.want[i]
			for _, f := range []struct {
				name       string
				got        *bool
				want       bool
				rule, what string
			}{
				{"serving", ep.Conditions.Serving, w.serving, "7.1", "serving is whether the pod's Ready condition is True"},
				{"terminating", ep.Conditions.Terminating, w.terminating, "7.2", "terminating is whether the pod has a deletionTimestamp"},
				{"ready", ep.Conditions.Ready, w.ready, "7.3", "ready is serving and not terminating"},
			} {
				if c.publish && f.name == "ready" {
					f.rule, f.what = "7.4", "with publishNotReadyAddresses every endpoint is ready"
				}
				if c.publish && f.name == "serving" && !w.serving {
					f.what += "; publishNotReadyAddresses changes only ready"
				}
				if f.got == nil || *f.got != f.want {
					problems = append(problems, fmt.Sprintf("%s's endpoint has %s %s, want %t (rule %s: %s)", p.Name, f.name, esBool(f.got), f.want, f.rule, f.what))
				}
			}
		}
		if len(problems) > 0 {
			t.Errorf("%s\n\t= %s\n\t%s", call, esDescribeChanges(got), strings.Join(problems, "\n\t"))
		}
	}
}

// ---------------------------------------------------------------- 08

// esPortCase is a pod of step 08 and the ports its slice must have.
type esPortCase struct {
	pod   api.Pod
	ports []string // esPortString of each
	rule  string
	what  string
}

func namedPorts(t *suite.T, impl Impl) {
	need(t, "Slices", impl.Slices)
	tcp, udp := api.ProtocolTCP, api.ProtocolUDP
	http := func(sps ...api.ServicePort) func(*api.Service) {
		return func(s *api.Service) {
			s.Spec.Ports = append([]api.ServicePort{{Name: "http", Protocol: api.ProtocolTCP, Port: 80, TargetPort: api.FromString("http")}}, sps...)
		}
	}
	const (
		resolve  = "a targetPort name resolves, per pod, to the containerPort of the port of that name in any of its containers"
		protocol = "a named port resolves only to a container port of the Service port's protocol"
		missing  = "a pod that lacks the named port gets no port for it, and is still an endpoint"
	)
	for _, c := range []struct {
		svc  api.Service
		pods []esPortCase
	}{
		// pkg/api/v1/pod FindPort, as getEndpointPorts calls it.
		{esService(http()), []esPortCase{
			{esPod("web-a", 1), []string{"http:8080/TCP"}, "8.1", resolve},
			{esPod("web-b", 2, esContainerPorts([]api.ContainerPort{esCPort("admin", 9000, tcp)}, []api.ContainerPort{esCPort("http", 9080, tcp)})), []string{"http:9080/TCP"}, "8.1", resolve},
			{esPod("web-c", 3, esContainerPorts([]api.ContainerPort{esCPort("web", 8080, tcp)})), nil, "8.3", missing},
			{esPod("web-d", 4, esContainerPorts([]api.ContainerPort{esCPort("http", 8080, udp)})), nil, "8.2", protocol},
			{esPod("web-e", 5, esContainerPorts([]api.ContainerPort{esCPort("http", 8081, "")})), []string{"http:8081/TCP"}, "8.2", "a container port without a protocol is TCP"},
			{esPod("web-f", 6), []string{"http:8080/TCP"}, "8.1", resolve},
		}},
		{esService(func(s *api.Service) {
			s.Spec.Ports = []api.ServicePort{{Name: "dns", Protocol: api.ProtocolUDP, Port: 53, TargetPort: api.FromString("dns")}}
		}), []esPortCase{
			{esPod("web-a", 1, esContainerPorts([]api.ContainerPort{esCPort("dns", 5353, tcp)}, []api.ContainerPort{esCPort("dns", 53, udp)})), []string{"dns:53/UDP"}, "8.2", protocol},
			{esPod("web-b", 2, esContainerPorts([]api.ContainerPort{esCPort("dns", 5353, tcp)})), nil, "8.2", protocol},
		}},
		{esService(http(api.ServicePort{Name: "metrics", Protocol: api.ProtocolTCP, Port: 9090, TargetPort: api.FromInt32(9091)})), []esPortCase{
			{esPod("web-a", 1), []string{"http:8080/TCP", "metrics:9091/TCP"}, "8.1", resolve},
			{esPod("web-b", 2, esContainerPorts([]api.ContainerPort{esCPort("web", 8080, tcp)})), []string{"metrics:9091/TCP"}, "8.3", missing},
			{esPod("web-c", 3, esContainerPorts([]api.ContainerPort{esCPort("http", 7070, tcp)})), []string{"http:7070/TCP", "metrics:9091/TCP"}, "8.1", resolve},
		}},
	} {
		var pods []api.Pod
		for _, p := range c.pods {
			pods = append(pods, p.pod)
		}
		got, call, ok := esCall(t, impl, c.svc, pods, nil)
		if !ok {
			continue
		}
		fail := func(rule, what, format string, args ...any) {
			t.Errorf("%s\n\t= %s\n\t%s (rule %s: %s)", call, esDescribeChanges(got), fmt.Sprintf(format, args...), rule, what)
		}
		if len(got.Update)+len(got.Delete) > 0 {
			fail("6.3", "there were no slices to update or delete", "%d updates and %d deletes, want only new slices", len(got.Update), len(got.Delete))
			continue
		}
		// Which slice each pod is in.
		sliceOf := map[string]int{}
		want := map[string]string{} // pod -> the port set it must have
		bad := false
		for _, p := range c.pods {
			want[p.pod.Name] = "[" + strings.Join(slices.Sorted(slices.Values(p.ports)), ", ") + "]"
			var in []int
			for i, s := range got.Create {
				for _, ep := range s.Endpoints {
					if slices.Contains(ep.Addresses, p.pod.Status.PodIP) {
						in = append(in, i)
					}
				}
			}
			if len(in) != 1 {
				fail("6.3", "every selected pod with an IP is an endpoint, in one slice", "%s is in %d slices, want 1", p.pod.Name, len(in))
				bad = true
				continue
			}
			sliceOf[p.pod.Name] = in[0]
		}
		if bad {
			continue
		}
		// Each pod's slice has the pod's ports; one slice per distinct
		// port set (reconcileByAddressType groups endpoints by
		// NewPortMapKey).
		for _, p := range c.pods {
			i := sliceOf[p.pod.Name]
			gotPorts := esPortSet(got.Create[i].Ports)
			if gotPorts == want[p.pod.Name] {
				continue
			}
			// Is the slice another pod's, put together with this one? Seen
			// from outside, a wrong port and a wrong slice look alike.
			also := ""
			for _, q := range c.pods {
				if q.pod.Name != p.pod.Name && sliceOf[q.pod.Name] == i && want[q.pod.Name] == gotPorts {
					also = fmt.Sprintf("; or it was put in %s's slice, but endpoints with different ports never share one (rule 8.4)", q.pod.Name)
					break
				}
			}
			t.Errorf("%s\n\t= %s\n\t%s is in a slice with ports %s, want %s (rule %s: %s)%s",
				call, esDescribeChanges(got), p.pod.Name, gotPorts, want[p.pod.Name], p.rule, p.what, also)
			bad = true
		}
		if bad {
			continue
		}
		sets := map[string]bool{}
		for _, w := range want {
			sets[w] = true
		}
		if len(got.Create) != len(sets) {
			fail("8.4", "endpoints share a slice exactly when their ports are the same", "%d slices, want %d: one per distinct port set", len(got.Create), len(sets))
		}
	}
}

// ---------------------------------------------------------------- 09

func sliceSize(t *suite.T, impl Impl) {
	need(t, "Slices", impl.Slices)
	// maxEndpointsPerSlice: kube-controller-manager's
	// --max-endpoints-per-slice, 100 by default
	// (pkg/controller/endpointslice/config/v1alpha1/defaults.go);
	// reconcileByPortMapping fills each new slice up to it before it
	// starts the next.
	other := esContainerPorts([]api.ContainerPort{esCPort("http", 9080, api.ProtocolTCP)})
	named := esService(func(s *api.Service) { s.Spec.Ports[0].TargetPort = api.FromString("http") })
	for _, c := range []struct {
		svc  api.Service
		pods []api.Pod
		want map[string][]int // port set -> endpoints per slice
	}{
		{esService(), esPods(0, 100), map[string][]int{"[http:8080/TCP]": {100}}},
		{esService(), esPods(0, 101), map[string][]int{"[http:8080/TCP]": {100, 1}}},
		{esService(), esPods(0, 250), map[string][]int{"[http:8080/TCP]": {100, 100, 50}}},
		{named, slices.Concat(esPods(0, 150), esPods(150, 100, other)), map[string][]int{"[http:8080/TCP]": {100, 50}, "[http:9080/TCP]": {100}}},
	} {
		got, call, ok := esCall(t, impl, c.svc, c.pods, nil)
		if !ok {
			continue
		}
		fail := func(rule, what, format string, args ...any) {
			t.Errorf("%s\n\t= %s\n\t%s (rule %s: %s)", call, esDescribeChanges(got), fmt.Sprintf(format, args...), rule, what)
		}
		if len(got.Update)+len(got.Delete) > 0 {
			fail("6.3", "there were no slices to update or delete", "%d updates and %d deletes, want only new slices", len(got.Update), len(got.Delete))
			continue
		}
		const max = "a slice holds at most 100 endpoints, and every endpoint is in exactly one slice"
		sizes := map[string][]int{}
		var over []string
		for _, s := range got.Create {
			k := esPortSet(s.Ports)
			sizes[k] = append(sizes[k], len(s.Endpoints))
			if len(s.Endpoints) > 100 {
				over = append(over, fmt.Sprintf("%d", len(s.Endpoints)))
			}
		}
		if len(over) > 0 {
			fail("9.1", max, "slices of %s endpoints, want at most 100 each", strings.Join(over, ", "))
			continue
		}
		var want []string
		for _, p := range c.pods {
			want = append(want, p.Name)
		}
		slices.Sort(want)
		if names := esNamesOf(c.pods, esAddrs(got.Create)); !slices.Equal(names, want) {
			fail("9.1", max, "%d endpoints in all, want %d, each pod once", len(names), len(want))
			continue
		}
		for k, w := range c.want {
			g := slices.Clone(sizes[k])
			slices.SortFunc(g, func(a, b int) int { return b - a })
			if !slices.Equal(g, w) {
				fail("9.2", "new endpoints fill a new slice up to 100 before the next one starts",
					"slices of ports %s hold %v endpoints, want %v", k, g, w)
			}
		}
	}
}

// ---------------------------------------------------------------- 10

// esContent is what a slice must hold after the call: exactly these
// pods, or (when pods is nil) count endpoints; and ports, unless nil.
type esContent struct {
	pods  []string
	count int
	ports []api.EndpointPort
}

func esHas(pods ...string) esContent { return esContent{pods: pods, count: len(pods)} }

func esCount(n int) esContent { return esContent{count: n} }

// esFewCase is a call of step 10 with existing slices, and the changes
// it must make: the slices updated (by name) and what they hold, the
// slices deleted, and the new slices. Every other slice is unchanged.
type esFewCase struct {
	rule, what string
	svc        api.Service
	pods       []api.Pod
	slice      []api.EndpointSlice
	update     map[string]esContent
	delete     []string
	create     []esContent
	// extra checks more of the changes, when they are right so far.
	extra func(got servicenet.Changes) string
}

func fewestChanges(t *suite.T, impl Impl) {
	need(t, "Slices", impl.Slices)
	for _, c := range esFewCases() {
		got, call, ok := esCall(t, impl, c.svc, c.pods, c.slice)
		if !ok {
			continue
		}
		if rule, what, p := esCheckFew(c, got); p != "" {
			t.Errorf("%s\n\t= %s\n\t%s (rule %s: %s)", call, esDescribeChanges(got), p, rule, what)
			continue
		}
		// The changes carried out, a second call has nothing to do: the
		// controller syncs the Service again after its own writes.
		world := esApply(c.slice, got)
		again, call2, ok := esCall(t, impl, c.svc, c.pods, world)
		if ok && len(again.Create)+len(again.Update)+len(again.Delete) > 0 {
			t.Errorf("%s\n\t= %s\n\twant no changes: these slices are what the first call made of %s (rule 10.1: a slice that needs no change is in no list, so a second call after the changes returns none)",
				call2, esDescribeChanges(again), esDescribeSlices(c.slice))
		}
	}
}

// esCheckFew returns the rule broken, what it says and what is wrong,
// or "" if got is what c wants.
func esCheckFew(c esFewCase, got servicenet.Changes) (rule, what, problem string) {
	const (
		named   = "an update or a delete names an existing slice, and an update keeps its resourceVersion"
		noName  = "a new slice has no name: the apiserver picks it from generateName"
		mine    = "10.2"
		newRule = "6.6"
	)
	byName := map[string]api.EndpointSlice{}
	for _, s := range c.slice {
		byName[s.Name] = s
	}
	seen := map[string]string{}
	for _, s := range got.Update {
		old, ok := byName[s.Name]
		switch {
		case !ok:
			return mine, named, fmt.Sprintf("an update of slice %q, which does not exist", s.Name)
		case s.ResourceVersion != old.ResourceVersion:
			return mine, named, fmt.Sprintf("the update of %s has resourceVersion %q, want %q, the existing slice's", s.Name, s.ResourceVersion, old.ResourceVersion)
		case seen[s.Name] != "":
			return mine, named, fmt.Sprintf("%s is updated twice", s.Name)
		}
		seen[s.Name] = "updated"
	}
	for _, s := range got.Delete {
		if _, ok := byName[s.Name]; !ok {
			return mine, named, fmt.Sprintf("a delete of slice %q, which does not exist", s.Name)
		}
		if seen[s.Name] != "" {
			return mine, named, fmt.Sprintf("%s is %s and deleted", s.Name, seen[s.Name])
		}
		seen[s.Name] = "deleted"
	}
	for _, s := range got.Create {
		if s.Name != "" {
			return newRule, noName, fmt.Sprintf("a new slice named %q, want no name", s.Name)
		}
	}
	names := func(ss []api.EndpointSlice) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		slices.Sort(out)
		return out
	}
	if g, w := names(got.Delete), slices.Sorted(slices.Values(c.delete)); !slices.Equal(g, w) {
		return c.rule, c.what, fmt.Sprintf("deletes %v, want %v", g, w)
	}
	if g, w := names(got.Update), slices.Sorted(maps.Keys(c.update)); !slices.Equal(g, w) {
		return c.rule, c.what, fmt.Sprintf("updates %v, want %v", g, w)
	}
	for _, s := range got.Update {
		if p := esMatch(c.pods, s, c.update[s.Name]); p != "" {
			return c.rule, c.what, "the update of " + s.Name + " " + p
		}
	}
	if len(got.Create) != len(c.create) {
		return c.rule, c.what, fmt.Sprintf("%d new slices, want %d", len(got.Create), len(c.create))
	}
	// New slices match the wanted contents in some order: both sorted
	// by size, then one to one.
	created := slices.Clone(got.Create)
	slices.SortStableFunc(created, func(a, b api.EndpointSlice) int { return len(b.Endpoints) - len(a.Endpoints) })
	want := slices.Clone(c.create)
	slices.SortStableFunc(want, func(a, b esContent) int { return b.count - a.count })
	for i := range created {
		if p := esMatch(c.pods, created[i], want[i]); p != "" {
			return c.rule, c.what, "a new slice " + p
		}
	}
	if c.extra != nil {
		if p := c.extra(got); p != "" {
			return c.rule, c.what, p
		}
	}
	return "", "", ""
}

// esMatch says how s differs from w ("" if it does not).
func esMatch(pods []api.Pod, s api.EndpointSlice, w esContent) string {
	if w.pods != nil || w.count == 0 {
		got := esNamesOf(pods, esAddrs([]api.EndpointSlice{s}))
		want := slices.Sorted(slices.Values(w.pods))
		if !slices.Equal(got, want) {
			return fmt.Sprintf("holds %v, want %v", got, want)
		}
	} else if len(s.Endpoints) != w.count {
		return fmt.Sprintf("holds %d endpoints, want %d", len(s.Endpoints), w.count)
	}
	if w.ports != nil {
		if g, ws := esPortSet(s.Ports), esPortSet(w.ports); g != ws {
			return fmt.Sprintf("has ports %s, want %s", g, ws)
		}
	}
	return ""
}

// esApply carries out the changes as the apiserver would: new slices
// get a name and resourceVersion, updates a new resourceVersion.
func esApply(existing []api.EndpointSlice, c servicenet.Changes) []api.EndpointSlice {
	gone := map[string]bool{}
	for _, s := range c.Delete {
		gone[s.Name] = true
	}
	updated := map[string]api.EndpointSlice{}
	for _, s := range c.Update {
		s = api.DeepCopyValue(s)
		s.ResourceVersion += "1"
		updated[s.Name] = s
	}
	var world []api.EndpointSlice
	for _, s := range existing {
		switch u, ok := updated[s.Name]; {
		case gone[s.Name]:
		case ok:
			world = append(world, u)
		default:
			world = append(world, api.DeepCopyValue(s))
		}
	}
	for i, s := range c.Create {
		s = api.DeepCopyValue(s)
		s.Name, s.ResourceVersion = fmt.Sprintf("%snew%d", s.GenerateName, i), "100"
		world = append(world, s)
	}
	return world
}

// esFewCases are the calls of step 10.
func esFewCases() []esFewCase {
	a, b, c, d, e := esPod("web-a", 1), esPod("web-b", 2), esPod("web-c", 3), esPod("web-d", 4), esPod("web-e", 5)
	epA, epB, epC, epD := esEP("web-a", 1, true), esEP("web-b", 2, true), esEP("web-c", 3, true), esEP("web-d", 4, true)
	two := func() []api.EndpointSlice {
		return []api.EndpointSlice{
			esSlice("web-1", "11", esHTTP(8080), []api.Endpoint{epA, epB}),
			esSlice("web-2", "12", esHTTP(8080), []api.Endpoint{epC}),
		}
	}
	placeholder := func() api.EndpointSlice { return esSlice("web-empty", "13", []api.EndpointPort{}, nil) }
	three := func() []api.EndpointSlice {
		return []api.EndpointSlice{
			esSlice("web-1", "21", esHTTP(8080), esEPs(0, 100)),
			esSlice("web-2", "22", esHTTP(8080), esEPs(100, 100)),
			esSlice("web-3", "23", esHTTP(8080), esEPs(200, 50)),
		}
	}
	oldOwner := esSlice("web-old", "31", esHTTP(8080), []api.Endpoint{epA, epB})
	oldOwner.OwnerReferences[0].UID = "uid-svc-web-before"

	return []esFewCase{
		// reconcileByPortMapping: "slices with no changes will be useful
		// if there are leftover endpoints", and are not written.
		{rule: "10.1", what: "a slice whose endpoints and labels are right is left out of the changes",
			svc: esService(), pods: []api.Pod{a, b, c}, slice: two()},
		{rule: "10.1", what: "a slice whose endpoints and labels are right is left out of the changes",
			svc: esService(), pods: esPods(0, 250), slice: three()},
		// "If existing version of endpoint doesn't match desired version
		// set endpointUpdated to ensure endpoint changes are persisted."
		{rule: "10.2", what: "an endpoint whose conditions change is updated in its slice",
			svc: esService(), pods: []api.Pod{a, esPod("web-b", 2, esNotReady), c}, slice: two(),
			update: map[string]esContent{"web-1": esHas("web-a", "web-b")},
			extra: func(got servicenet.Changes) string {
				ep, _, _ := esFind(got.Update, b.Status.PodIP)
				if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
					return fmt.Sprintf("web-b's endpoint in the update has ready %s, want false", esBool(ep.Conditions.Ready))
				}
				return ""
			}},
		// "delete endpoints that are no longer desired"; "if no endpoints
		// desired in this slice, mark for deletion".
		{rule: "10.3", what: "the endpoint of a pod that is gone leaves its slice",
			svc: esService(), pods: []api.Pod{a, c}, slice: two(),
			update: map[string]esContent{"web-1": esHas("web-a")}},
		{rule: "10.3", what: "a slice left without endpoints is deleted",
			svc: esService(), pods: []api.Pod{a, b}, slice: two(),
			delete: []string{"web-2"}},
		// "2. If we still have desired endpoints to add and slices marked
		// for update, iterate through the slices and fill them up", the
		// fullest first.
		{rule: "10.4", what: "a new endpoint goes into a slice that is updated anyway",
			svc: esService(), pods: []api.Pod{b, c, d, e},
			slice: []api.EndpointSlice{
				esSlice("web-1", "11", esHTTP(8080), []api.Endpoint{epA, epB}),
				esSlice("web-2", "12", esHTTP(8080), []api.Endpoint{epC, epD}),
			},
			update: map[string]esContent{"web-1": esHas("web-b", "web-e")}},
		{rule: "10.4", what: "new endpoints fill the slices updated anyway, the fullest first, up to 100",
			svc: esService(), pods: slices.Concat(esPods(0, 1, esNotReady), esPods(1, 98), esPods(100, 49), esPods(200, 3)),
			slice: []api.EndpointSlice{
				esSlice("web-1", "11", esHTTP(8080), esEPs(100, 50)),
				esSlice("web-2", "12", esHTTP(8080), esEPs(0, 99)),
			},
			update: map[string]esContent{"web-1": esCount(51), "web-2": esCount(100)}},
		// "3. If there are still desired endpoints left at this point, we
		// try to fit the endpoints in a single existing slice. If there
		// are no slices with that capacity, we create new slices"
		// (getSliceToFill: the one left closest to full).
		{rule: "10.5", what: "fewer than 100 new endpoints go into the unchanged slice they bring closest to full",
			svc: esService(), pods: slices.Concat(esPods(0, 95), esPods(100, 50), esPods(200, 5)),
			slice: []api.EndpointSlice{
				esSlice("web-1", "11", esHTTP(8080), esEPs(100, 50)),
				esSlice("web-2", "12", esHTTP(8080), esEPs(0, 95)),
			},
			update: map[string]esContent{"web-2": esCount(100)}},
		{rule: "10.5", what: "fewer than 100 new endpoints go into the unchanged slice they bring closest to full, if they fit",
			svc: esService(), pods: slices.Concat(esPods(0, 95), esPods(100, 50), esPods(200, 6)),
			slice: []api.EndpointSlice{
				esSlice("web-1", "11", esHTTP(8080), esEPs(100, 50)),
				esSlice("web-2", "12", esHTTP(8080), esEPs(0, 95)),
			},
			update: map[string]esContent{"web-1": esCount(56)}},
		{rule: "10.5", what: "new endpoints fill new slices while 100 or more are left; the rest go into an unchanged slice with room",
			svc: esService(), pods: slices.Concat(esPods(0, 10), esPods(100, 150)),
			slice:  []api.EndpointSlice{esSlice("web-1", "11", esHTTP(8080), esEPs(0, 10))},
			update: map[string]esContent{"web-1": esCount(60)},
			create: []esContent{esCount(100)}},
		// finalize: "If there are slices to create and delete, change the
		// creates to updates of the slices that would otherwise be
		// deleted."
		{rule: "10.6", what: "a slice whose port set no pod has any more is reused for the new one, not deleted",
			svc:  esService(func(s *api.Service) { s.Spec.Ports[0].TargetPort = api.FromInt32(9090) }),
			pods: []api.Pod{a, b}, slice: []api.EndpointSlice{esSlice("web-1", "11", esHTTP(8080), []api.Endpoint{epA, epB})},
			update: map[string]esContent{"web-1": {pods: []string{"web-a", "web-b"}, ports: esHTTP(9090)}}},
		{rule: "10.6", what: "the placeholder is reused for the first endpoints, not deleted",
			svc: esService(), pods: []api.Pod{a, b}, slice: []api.EndpointSlice{placeholder()},
			update: map[string]esContent{"web-empty": {pods: []string{"web-a", "web-b"}, ports: esHTTP(8080)}}},
		{rule: "10.6", what: "a slice that loses its last endpoint is reused as the placeholder, not deleted",
			svc: esService(), pods: nil, slice: []api.EndpointSlice{esSlice("web-1", "11", esHTTP(8080), []api.Endpoint{epA})},
			update: map[string]esContent{"web-1": {pods: []string{}, ports: []api.EndpointPort{}}}},
		// "Check for existing placeholder slice outside of the core
		// control flow": an existing placeholder stays as it is.
		{rule: "10.7", what: "an existing placeholder is kept while there are no endpoints",
			svc: esService(), pods: nil, slice: []api.EndpointSlice{placeholder()}},
		{rule: "10.7", what: "an existing placeholder is kept while there are no endpoints",
			svc: esService(), pods: []api.Pod{esPod("web-a", 1, esPhase(api.PodFailed))}, slice: []api.EndpointSlice{placeholder()}},
		// setEndpointSliceLabels: "if the labels are not identical update
		// the slice with the corresponding service labels".
		{rule: "10.8", what: "a slice whose labels differ from the Service's is updated, its endpoints kept",
			svc:  esService(func(s *api.Service) { s.Labels = map[string]string{"team": "shop"} }),
			pods: []api.Pod{a, b, c}, slice: two(),
			update: map[string]esContent{"web-1": esHas("web-a", "web-b"), "web-2": esHas("web-c")},
			extra: func(got servicenet.Changes) string {
				for _, s := range got.Update {
					if s.Labels["team"] != "shop" || s.Labels[api.LabelServiceName] != "web" || s.Labels[api.LabelManagedBy] != api.EndpointSliceControllerName {
						return fmt.Sprintf("the update of %s has labels %s, want team=shop and the two of rule 6.7", s.Name, esMap(s.Labels))
					}
				}
				return ""
			}},
		// ownedBy: a slice of an earlier Service of the same name is
		// deleted, and finalize never reuses it.
		{rule: "10.9", what: "a slice owned by another Service (another uid) is deleted, never reused",
			svc: esService(), pods: []api.Pod{a, b}, slice: []api.EndpointSlice{oldOwner},
			delete: []string{"web-old"}, create: []esContent{esHas("web-a", "web-b")}},
	}
}
