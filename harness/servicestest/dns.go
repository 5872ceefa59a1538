package servicestest

// Steps 20-22: the cluster DNS server's answers, and step 23: the
// service environment variables of a container. The records are those
// of the Kubernetes DNS specification (cmd/kube-dns/SPEC.md, schema
// 1.0.0; kubernetes/dns docs/specification.md), answered as CoreDNS's
// kubernetes plugin answers them (plugin/kubernetes/kubernetes.go
// Records and findServices; plugin/kubernetes/xfr.go for the endpoint
// names); the variables are the kubelet's (pkg/kubelet/envvars/envvars.go
// FromServices, pkg/kubelet/kubelet_pods.go getServiceEnvVarMap).
//
// The specification leaves an SRV record's priority and weight, and the
// name of an endpoint without a hostname, to the implementation: the
// suite checks that they parse and that the name resolves, not their
// values. Failure messages cite the README's rules as "rule <step>.<n>".

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/servicenet"
	"github.com/kubekata/kubekata/harness/suite"
)

// ---------------------------------------------------------------- fixtures

// dnsZone is the suffix of every in-cluster name.
const dnsZone = "." + servicenet.ClusterDomain + "."

// dnsWorld is a small cluster: a ClusterIP Service web (ports http
// 80/TCP and dns 53/UDP) in default and one by the same name in shop; a
// headless Service db in default whose endpoints are split over two
// slices, one of them not ready and one with a hostname; a headless
// Service empty without ready endpoints; an ExternalName Service ext; and
// a slice labelled for another Service.
func dnsWorld() ([]api.Service, []api.EndpointSlice) {
	headless := func(s api.Service) api.Service { s.Spec.ClusterIP = api.ClusterIPNone; return s }
	ext := kpService("default", "ext", "")
	ext.Spec.Type = api.ServiceTypeExternalName
	ext.Spec.ExternalName = "db.example.com"
	svcs := []api.Service{
		kpService("default", "web", "10.96.0.12", kpTcpPort("http", 80), kpSvcPort("dns", api.ProtocolUDP, 53, api.FromInt32(5353))),
		kpService("shop", "web", "10.96.7.7", kpTcpPort("http", 80)),
		headless(kpService("default", "db", "", kpTcpPort("sql", 5432))),
		headless(kpService("default", "empty", "", kpTcpPort("sql", 5432))),
		ext,
	}
	pg := kpEPorts("sql", 5432)
	named := kpReadyEp("10.244.1.3")
	host := "db-0"
	named.Hostname = &host
	sl := []api.EndpointSlice{
		kpSlice("default", "db", "db-a", pg, kpReadyEp("10.244.1.5"), kpEp("10.244.1.9", false, false, true)),
		kpSlice("default", "db", "db-b", pg, named, kpEp("10.244.2.4", false, false, false)),
		kpSlice("default", "empty", "empty-a", pg, kpEp("10.244.3.3", false, true, true)),
		kpSlice("default", "web", "web-a", kpEPorts("http", 80), kpReadyEps("10.244.1.20", "10.244.1.21")...),
		kpSlice("shop", "db", "db-x", pg, kpReadyEp("10.244.9.9")),
	}
	return svcs, sl
}

// dnsAsk calls Lookup and describes the call for messages.
func dnsAsk(impl Impl, name, typ string, svcs []api.Service, sl []api.EndpointSlice) (servicenet.Answer, string) {
	a := impl.Lookup(servicenet.Question{Name: name, Type: typ}, svcs, sl)
	return a, fmt.Sprintf("Lookup(%s %s) = %s", name, typ, dnsShow(a))
}

// dnsShow prints an answer as dig's answer section would, in brief.
func dnsShow(a servicenet.Answer) string {
	if len(a.Records) == 0 {
		return a.Rcode + " with no records"
	}
	var rs []string
	for _, r := range a.Records {
		rs = append(rs, fmt.Sprintf("%s %d %s %s", r.Name, r.TTL, r.Type, r.Data))
	}
	return a.Rcode + " [" + strings.Join(rs, "; ") + "]"
}

// dnsData lists the data of the answer's records, checking that each is
// of type typ, owned by owner and has a TTL; sorted.
func dnsData(t *suite.T, call string, a servicenet.Answer, owner, typ string) []string {
	t.Helper()
	var out []string
	for _, r := range a.Records {
		if r.Name != owner || r.Type != typ || r.TTL == 0 {
			t.Errorf("%s: record %s %d %s, want name %s, type %s and a TTL above 0 (rule 20.1: the owner is the name asked, lowercase, with its final dot)", call, r.Name, r.TTL, r.Type, owner, typ)
		}
		out = append(out, r.Data)
	}
	slices.Sort(out)
	return out
}

// dnsWant checks the rcode and the data of an answer.
func dnsWant(t *suite.T, impl Impl, name, typ string, svcs []api.Service, sl []api.EndpointSlice, rcode, owner string, data []string, rule string) {
	t.Helper()
	a, call := dnsAsk(impl, name, typ, svcs, sl)
	if a.Rcode != rcode {
		t.Errorf("%s, want %s (%s)", call, rcode, rule)
		return
	}
	got := dnsData(t, call, a, owner, typ)
	want := slices.Sorted(slices.Values(data))
	if !slices.Equal(got, want) {
		t.Errorf("%s, want %s records %q (%s)", call, typ, want, rule)
	}
}

// ---------------------------------------------------------------- 20

func dnsNames(t *suite.T, impl Impl) {
	need(t, "Lookup", impl.Lookup)
	svcs, sl := dnsWorld()
	web := "web.default.svc" + dnsZone
	dnsWant(t, impl, web, servicenet.TypeA, svcs, sl, servicenet.NoError, web, []string{"10.96.0.12"},
		"rule 20.1: a Service with a ClusterIP has one A record, its ClusterIP, never its endpoints")
	dnsWant(t, impl, "web.shop.svc"+dnsZone, servicenet.TypeA, svcs, sl, servicenet.NoError, "web.shop.svc"+dnsZone, []string{"10.96.7.7"},
		"rule 20.1: the namespace is part of the name")
	dnsWant(t, impl, "Web.Default.SVC.Cluster.Local.", servicenet.TypeA, svcs, sl, servicenet.NoError, web, []string{"10.96.0.12"},
		"rule 20.2: names compare without regard to case, and the records carry the lowercase name")
	for _, name := range []string{"nope.default.svc" + dnsZone, "web.other.svc" + dnsZone, "db.shop.svc" + dnsZone, "web.default.pods" + dnsZone} {
		a, call := dnsAsk(impl, name, servicenet.TypeA, svcs, sl)
		if a.Rcode != servicenet.NXDomain || len(a.Records) > 0 {
			t.Errorf("%s, want NXDOMAIN with no records (rule 20.3: no Service by that name in that namespace, so no such name)", call)
		}
	}
	for _, typ := range []string{servicenet.TypeAAAA, servicenet.TypeTXT, servicenet.TypeSRV} {
		a, call := dnsAsk(impl, web, typ, svcs, sl)
		if a.Rcode != servicenet.NoError || len(a.Records) > 0 {
			t.Errorf("%s, want NOERROR with no records (rule 20.4: the name exists; a resolver that asks A and AAAA at once must not hear that it does not)", call)
		}
	}
	ext := "ext.default.svc" + dnsZone
	dnsWant(t, impl, ext, servicenet.TypeCNAME, svcs, sl, servicenet.NoError, ext, []string{"db.example.com."},
		"rule 20.5: an ExternalName Service is an alias, a CNAME to its externalName, fully qualified")
}

// ---------------------------------------------------------------- 21

func dnsHeadless(t *suite.T, impl Impl) {
	need(t, "Lookup", impl.Lookup)
	svcs, sl := dnsWorld()
	db := "db.default.svc" + dnsZone
	dnsWant(t, impl, db, servicenet.TypeA, svcs, sl, servicenet.NoError, db, []string{"10.244.1.3", "10.244.1.5"},
		"rule 21.1: a headless Service has an A record per ready endpoint, from all its slices in its namespace, and none for an endpoint that is not ready")
	empty := "empty.default.svc" + dnsZone
	a, call := dnsAsk(impl, empty, servicenet.TypeA, svcs, sl)
	if a.Rcode != servicenet.NoError || len(a.Records) > 0 {
		t.Errorf("%s, want NOERROR with no records (rule 21.2: the Service exists even when no endpoint is ready)", call)
	}
	pet := "db-0." + db
	dnsWant(t, impl, pet, servicenet.TypeA, svcs, sl, servicenet.NoError, pet, []string{"10.244.1.3"},
		"rule 21.3: a ready endpoint with a hostname has its own name, <hostname>.<service>.<namespace>.svc.<zone>")
	dnsWant(t, impl, "DB-0.db.default.svc.cluster.local.", servicenet.TypeA, svcs, sl, servicenet.NoError, pet, []string{"10.244.1.3"},
		"rule 20.2: names compare without regard to case")
	a, call = dnsAsk(impl, "db-9."+db, servicenet.TypeA, svcs, sl)
	if len(a.Records) > 0 || a.Rcode != servicenet.NXDomain {
		t.Errorf("%s, want NXDOMAIN with no records (rule 21.3: no endpoint has that hostname)", call)
	}
	// A duplicate address across slices is one record.
	dup := append(slices.Clone(sl), kpSlice("default", "db", "db-c", kpEPorts("sql", 5432), kpReadyEp("10.244.1.5")))
	dnsWant(t, impl, db, servicenet.TypeA, svcs, dup, servicenet.NoError, db, []string{"10.244.1.3", "10.244.1.5"},
		"rule 21.1: each ready address once, even when two slices list it")
}

// ---------------------------------------------------------------- 22

// dnsSRV is one parsed SRV record.
type dnsSRV struct {
	priority, weight, port int
	target                 string
}

func dnsParseSRV(data string) (dnsSRV, error) {
	f := strings.Fields(data)
	if len(f) != 4 {
		return dnsSRV{}, fmt.Errorf("%d fields, want 4: priority weight port target", len(f))
	}
	var n [3]int
	for i := range 3 {
		v, err := strconv.Atoi(f[i])
		if err != nil || v < 0 || v > 65535 {
			return dnsSRV{}, fmt.Errorf("field %d is %q, want a number 0-65535", i+1, f[i])
		}
		n[i] = v
	}
	if !strings.HasSuffix(f[3], ".") {
		return dnsSRV{}, fmt.Errorf("target %q is not fully qualified (no final dot)", f[3])
	}
	return dnsSRV{n[0], n[1], n[2], f[3]}, nil
}

// dnsSRVs asks for name's SRV records and parses them.
func dnsSRVs(t *suite.T, impl Impl, name string, svcs []api.Service, sl []api.EndpointSlice) ([]dnsSRV, string) {
	t.Helper()
	a, call := dnsAsk(impl, name, servicenet.TypeSRV, svcs, sl)
	if a.Rcode != servicenet.NoError {
		t.Errorf("%s, want NOERROR (rule 22.1: a named port has SRV records)", call)
		return nil, call
	}
	var out []dnsSRV
	for _, d := range dnsData(t, call, a, strings.ToLower(name), servicenet.TypeSRV) {
		s, err := dnsParseSRV(d)
		if err != nil {
			t.Errorf("%s: SRV data %q: %v (rule 22.1: priority, weight, port, target, as a zone file writes them)", call, d, err)
			continue
		}
		out = append(out, s)
	}
	return out, call
}

func dnsSRVRecords(t *suite.T, impl Impl) {
	need(t, "Lookup", impl.Lookup)
	svcs, sl := dnsWorld()
	web := "web.default.svc" + dnsZone
	check := func(name string, port int) {
		t.Helper()
		got, call := dnsSRVs(t, impl, name, svcs, sl)
		if len(got) != 1 || got[0].port != port || got[0].target != web {
			t.Errorf("%s, want one SRV record, port %d, target %s (rule 22.1: a ClusterIP Service's named port, with the Service's port number, pointing at the Service's name)", call, port, web)
		}
	}
	check("_http._tcp."+web, 80)
	check("_dns._udp."+web, 53)
	check("_HTTP._TCP.Web.Default.svc.cluster.local.", 80)
	for _, name := range []string{"_http._udp." + web, "_dns._tcp." + web, "_sql._tcp." + web} {
		a, call := dnsAsk(impl, name, servicenet.TypeSRV, svcs, sl)
		if len(a.Records) > 0 {
			t.Errorf("%s, want no records (rule 22.2: the port's name and its protocol must both match)", call)
		}
	}

	// Headless: one record per ready endpoint, each naming an A record
	// of that endpoint alone.
	db := "db.default.svc" + dnsZone
	got, call := dnsSRVs(t, impl, "_sql._tcp."+db, svcs, sl)
	var ips []string
	for _, s := range got {
		if s.port != 5432 || !strings.HasSuffix(s.target, "."+db) || strings.Count(s.target, ".") != strings.Count(db, ".")+1 {
			t.Errorf("%s: record %+v, want port 5432 and a target <name>.%s (rule 22.3: a headless Service's SRV record names one endpoint)", call, s, db)
			continue
		}
		a, acall := dnsAsk(impl, s.target, servicenet.TypeA, svcs, sl)
		data := dnsData(t, acall, a, s.target, servicenet.TypeA)
		if len(data) != 1 {
			t.Errorf("%s, then %s, want one A record: the endpoint the SRV target names (rule 22.3)", call, acall)
			continue
		}
		ips = append(ips, data[0])
	}
	slices.Sort(ips)
	if want := []string{"10.244.1.3", "10.244.1.5"}; !slices.Equal(ips, want) {
		t.Errorf("%s: the SRV targets resolve to %q, want each ready endpoint once, %q (rule 22.3: an endpoint without a hostname gets a name of its own, such as its address with dashes)", call, ips, want)
	}
}

// ---------------------------------------------------------------- 23

// envPod is a pod of namespace ns; links is spec.enableServiceLinks.
func envPod(ns string, links *bool) api.Pod {
	return api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: ns, Name: "client"},
		Spec:       api.PodSpec{EnableServiceLinks: links},
	}
}

// envWorld: the apiserver's Service, a two-port Service, a UDP one with
// a dash in its name, a headless one, an ExternalName one, one not
// allocated yet, and one in another namespace.
func envWorld() []api.Service {
	headless := kpService("shop", "db", api.ClusterIPNone, kpTcpPort("sql", 5432))
	ext := kpService("shop", "ext", "")
	ext.Spec.Type = api.ServiceTypeExternalName
	ext.Spec.ExternalName = "db.example.com"
	return []api.Service{
		kpService("default", "kubernetes", "10.96.0.1", kpTcpPort("https", 443)),
		kpService("shop", "web", "10.96.0.12", kpSvcPort("", api.ProtocolTCP, 80, api.FromInt32(8080))),
		kpService("shop", "cart", "10.96.0.20", kpTcpPort("http", 8080), kpTcpPort("metrics", 9090)),
		kpService("shop", "my-dns", "10.96.0.53", kpSvcPort("dns-udp", api.ProtocolUDP, 53, api.FromInt32(53))),
		headless,
		kpService("shop", "pending", ""),
		ext,
		kpService("other", "web", "10.96.9.9", kpTcpPort("http", 80)),
	}
}

// envLinks are a Service's variables as the kubelet writes them.
func envLinks(prefix, ip string, ports ...string) map[string]string {
	m := map[string]string{prefix + "_SERVICE_HOST": ip}
	for i, p := range ports {
		// p is "name/PROTO/port".
		f := strings.Split(p, "/")
		name, proto, port := f[0], f[1], f[2]
		url := strings.ToLower(proto) + "://" + ip + ":" + port
		if i == 0 {
			m[prefix+"_SERVICE_PORT"] = port
			m[prefix+"_PORT"] = url
		}
		if name != "" {
			m[prefix+"_SERVICE_PORT_"+name] = port
		}
		pp := prefix + "_PORT_" + port + "_" + proto
		m[pp] = url
		m[pp+"_PROTO"] = strings.ToLower(proto)
		m[pp+"_PORT"] = port
		m[pp+"_ADDR"] = ip
	}
	return m
}

func envMerge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// envCheck compares Env's variables with want, name by name.
func envCheck(t *suite.T, impl Impl, pod api.Pod, svcs []api.Service, want map[string]string, rule string) {
	t.Helper()
	links := "nil"
	if pod.Spec.EnableServiceLinks != nil {
		links = strconv.FormatBool(*pod.Spec.EnableServiceLinks)
	}
	call := fmt.Sprintf("Env(pod in %s with enableServiceLinks %s, %d Services)", pod.Namespace, links, len(svcs))
	got := impl.Env(pod, svcs)
	var names []string
	seen := map[string]bool{}
	for _, v := range got {
		if seen[v.Name] {
			t.Errorf("%s lists %s twice, want each name once (rule 23.5)", call, v.Name)
		}
		seen[v.Name] = true
		names = append(names, v.Name)
		if v.ValueFrom != nil {
			t.Errorf("%s: %s has a valueFrom, want a plain value (rule 23.1)", call, v.Name)
		}
		w, ok := want[v.Name]
		switch {
		case !ok:
			t.Errorf("%s has %s=%s, want no such variable (%s)", call, v.Name, v.Value, rule)
		case v.Value != w:
			t.Errorf("%s has %s=%s, want %s=%s (%s)", call, v.Name, v.Value, v.Name, w, envRule(v.Name))
		}
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	}) {
		if !seen[name] {
			t.Errorf("%s lacks %s=%s (%s; %s)", call, name, want[name], rule, envRule(name))
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("%s lists %v, want them sorted by name (rule 23.5: every start of a container sees the same order)", call, names)
	}
}

// envRule is the rule that names a variable.
func envRule(name string) string {
	if strings.Contains(name, "_SERVICE_") {
		return "rule 23.1: <NAME>_SERVICE_HOST is the ClusterIP, <NAME>_SERVICE_PORT the first port, <NAME>_SERVICE_PORT_<PORTNAME> each named port; NAME is upper case with - as _"
	}
	return "rule 23.2: Docker's link variables: <NAME>_PORT=tcp://IP:PORT for the first port, and <NAME>_PORT_<PORT>_<PROTO> with _PROTO, _PORT and _ADDR for every port"
}

func serviceEnv(t *suite.T, impl Impl) {
	need(t, "Env", impl.Env)
	svcs := envWorld()
	master := envLinks("KUBERNETES", "10.96.0.1", "HTTPS/TCP/443")
	shopOnly := envMerge(
		envLinks("WEB", "10.96.0.12", "/TCP/80"),
		envLinks("CART", "10.96.0.20", "HTTP/TCP/8080", "METRICS/TCP/9090"),
		envLinks("MY_DNS", "10.96.0.53", "DNS_UDP/UDP/53"))
	shop := envMerge(master, shopOnly)
	on, off := true, false
	envCheck(t, impl, envPod("shop", nil), svcs, shop,
		"rules 23.1-23.3: each Service of the pod's namespace with a ClusterIP, and the apiserver's Service kubernetes of default")
	envCheck(t, impl, envPod("shop", &on), svcs, shop, "rule 23.3: enableServiceLinks true is the default")
	envCheck(t, impl, envPod("shop", &off), svcs, master,
		"rule 23.4: enableServiceLinks false leaves out the namespace's Services, never the apiserver's")
	envCheck(t, impl, envPod("default", &off), svcs, master,
		"rule 23.4: enableServiceLinks false leaves out the namespace's Services, never the apiserver's")
	envCheck(t, impl, envPod("empty", nil), svcs, master,
		"rule 23.3: a namespace without Services still hears of the apiserver's")
	// A Service kubernetes of the pod's own namespace wins over the
	// apiserver's.
	mine := append(slices.Clone(svcs), kpService("shop", "kubernetes", "10.96.0.77", kpTcpPort("http", 80)))
	envCheck(t, impl, envPod("shop", nil), mine,
		envMerge(shopOnly, envLinks("KUBERNETES", "10.96.0.77", "HTTP/TCP/80")),
		"rule 23.4: a Service named kubernetes in the pod's own namespace takes the place of the apiserver's")
}
