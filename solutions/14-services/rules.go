package services

import (
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
)

// Rules renders kube-proxy's rules for services and their slices, as
// iptables-save prints them: what one full sync of upstream's iptables
// proxier (syncProxyRules in pkg/proxy/iptables/proxier.go) hands to
// iptables-restore, for ClusterIP traffic on IPv4, the filter table then
// the nat table.
func Rules(services []api.Service, slices []api.EndpointSlice) string {
	return render(services, slices, nil, nil)
}

// PartialRules renders a partial sync, as syncProxyRules does when it
// need not sync in full: every line of a full sync but the KUBE-SVC- and
// KUBE-SEP- chains of the Services not in changed, which the node's
// tables already hold as this sync would write them; and the deletion
// of each Service chain in existing that nothing uses any more.
func PartialRules(services []api.Service, slices []api.EndpointSlice, changed, existing []string) string {
	set := make(map[string]bool, len(changed))
	for _, c := range changed {
		set[c] = true
	}
	return render(services, slices, set, existing)
}

// render writes a full sync when changed is nil, and a partial sync of
// the Services in changed ("ns/name") over the nat chains existing
// otherwise.
func render(services []api.Service, slices []api.EndpointSlice, changed map[string]bool, existing []string) string {
	var filterRules, natChains, natRules []string
	// The chains this sync keeps, written or not: a chain of existing
	// that is not one of them is stale.
	active := map[string]bool{}
	// The slices of each Service ("ns/name"), found once: looking them up
	// per service port would make a full sync quadratic in the cluster.
	bySvc := map[string][]int{}
	for i, s := range slices {
		if s.AddressType == api.AddressTypeIPv4 {
			k := s.Namespace + "/" + s.Labels[api.LabelServiceName]
			bySvc[k] = append(bySvc[k], i)
		}
	}
	for _, sp := range servicePorts(services) {
		eps := usable(endpointsOf(sp, slices, bySvc[sp.ns+"/"+sp.svc]))
		match := fmt.Sprintf("-m %s -p %s -d %s --dport %d", sp.proto, sp.proto, sp.clusterIP, sp.portNum)
		if len(eps) == 0 {
			// No endpoint at all: nothing in nat, and the filter table
			// rejects the connection instead of letting it hang
			// (proxier.go: "has no endpoints", REJECT).
			filterRules = append(filterRules, fmt.Sprintf(
				`-A KUBE-SERVICES -m comment --comment "%s has no endpoints" %s -j REJECT`, sp.name, match))
			continue
		}
		svcChain := "KUBE-SVC-" + hash(sp.name+sp.proto)
		// KUBE-SERVICES is a top-level chain: every sync rewrites it whole.
		natRules = append(natRules, fmt.Sprintf(
			`-A KUBE-SERVICES -m comment --comment "%s cluster IP" %s -j %s`, sp.name, match, svcChain))
		sepChains := make([]string, len(eps))
		for i, ep := range eps {
			sepChains[i] = "KUBE-SEP-" + hash(sp.name+sp.proto+ep.String())
		}
		if changed != nil {
			active[svcChain] = true
			for _, c := range sepChains {
				active[c] = true
			}
			if !changed[sp.ns+"/"+sp.svc] {
				// Unchanged since the last sync: the tables hold these
				// chains as they would be written (proxier.go writes
				// them to a buffer it throws away).
				continue
			}
		}
		natChains = append(natChains, svcChain)
		// writeServiceToEndpointRules: the affinity rules first, so that a
		// client seen recently goes back to its endpoint before any
		// balancing happens.
		if sp.affinity {
			for i, ep := range eps {
				natRules = append(natRules, fmt.Sprintf(
					`-A %s -m comment --comment "%s -> %s" -m recent --name %s --rcheck --seconds %d --reap -j %s`,
					svcChain, sp.name, ep, sepChains[i], sp.timeout, sepChains[i]))
			}
		}
		// Endpoint i of n is taken with probability 1/(n-i) of what the
		// rules before it left, so each gets 1/n; the last takes the rest.
		for i, ep := range eps {
			stat := ""
			if i < len(eps)-1 {
				stat = fmt.Sprintf(" -m statistic --mode random --probability %0.10f", 1.0/float64(len(eps)-i))
			}
			natRules = append(natRules, fmt.Sprintf(
				`-A %s -m comment --comment "%s -> %s"%s -j %s`, svcChain, sp.name, ep, stat, sepChains[i]))
		}
		for i, ep := range eps {
			natChains = append(natChains, sepChains[i])
			// A pod that reaches itself through the Service would get its
			// own reply from its own address: masquerade such hairpin
			// traffic (proxier.go, "Handle traffic that loops back").
			natRules = append(natRules, fmt.Sprintf(
				"-A %s -m comment --comment %s -s %s -j KUBE-MARK-MASQ", sepChains[i], sp.name, ep.ip))
			recent := ""
			if sp.affinity {
				recent = fmt.Sprintf(" -m recent --name %s --set", sepChains[i])
			}
			natRules = append(natRules, fmt.Sprintf(
				"-A %s -m comment --comment %s%s -m %s -p %s -j DNAT --to-destination %s",
				sepChains[i], sp.name, recent, sp.proto, sp.proto, ep))
		}
	}

	// Chains of Services and endpoints that are gone: declaring a chain
	// flushes it, so that nothing jumps from it any more, and -X deletes
	// it once the rules that jumped to it are flushed too (proxier.go,
	// "Delete chains no longer in use"). Other chains are not ours.
	var deleted []string
	for _, c := range existing {
		if (strings.HasPrefix(c, "KUBE-SVC-") || strings.HasPrefix(c, "KUBE-SEP-")) && !active[c] {
			natChains = append(natChains, c)
			deleted = append(deleted, "-X "+c)
		}
	}

	// One allocation for the whole text: a full sync of a large cluster
	// is hundreds of thousands of lines.
	size := 2048
	for _, rs := range [][]string{filterRules, natChains, natRules, deleted} {
		for _, r := range rs {
			size += len(r) + len(" - [0:0]\n") + 1
		}
	}
	var b strings.Builder
	b.Grow(size)
	line := func(s string) { b.WriteString(s); b.WriteByte('\n') }
	chain := func(c string) { line(":" + c + " - [0:0]") }
	// The filter table: the top-level chains a full sync declares, in
	// proxier.go's order, then KUBE-FIREWALL, which it writes because
	// localhostNodePorts is on (the default) on IPv4.
	line("*filter")
	for _, c := range []string{"KUBE-SERVICES", "KUBE-EXTERNAL-SERVICES", "KUBE-FORWARD", "KUBE-NODEPORTS", "KUBE-PROXY-FIREWALL", "KUBE-FIREWALL"} {
		chain(c)
	}
	line(`-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`)
	for _, r := range filterRules {
		line(r)
	}
	line("-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP")
	line(`-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT`)
	line(`-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`)
	line("COMMIT")
	// The nat table: the top-level chains, the masquerade machinery, the
	// service rules, and last the jump to KUBE-NODEPORTS, which must stay
	// the last rule of KUBE-SERVICES.
	line("*nat")
	for _, c := range append([]string{"KUBE-SERVICES", "KUBE-NODEPORTS", "KUBE-POSTROUTING", "KUBE-MARK-MASQ"}, natChains...) {
		chain(c)
	}
	line("-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN")
	line("-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000")
	line(`-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE`)
	line("-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000")
	for _, r := range natRules {
		line(r)
	}
	for _, r := range deleted {
		line(r)
	}
	line(`-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS`)
	line("COMMIT")
	return b.String()
}

// hash is portProtoHash in proxier.go: iptables chain names are at most
// 28 characters, so a name is the first 16 characters of the base32 of a
// sha256.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base32.StdEncoding.EncodeToString(sum[:])[:16]
}

// servicePort is one port of one Service, kube-proxy's unit of work
// (upstream's ServicePortName and BaseServicePortInfo).
type servicePort struct {
	ns, svc, port string // namespace, Service name, port name
	name          string // "ns/svc:port", or "ns/svc" for an unnamed port
	protocol      api.Protocol
	proto         string // the protocol in lower case, as iptables spells it
	clusterIP     netip.Addr
	portNum       int32
	affinity      bool
	timeout       int32
}

// servicePorts lists the ports of the Services that get rules, sorted by
// name: upstream ranges over a map, and its tests sort.
func servicePorts(services []api.Service) []servicePort {
	var out []servicePort
	for _, s := range services {
		// ShouldSkipService (pkg/proxy/util): no cluster IP, headless, or
		// ExternalName; and only the proxier's family (IPv4 here).
		if s.Spec.ClusterIP == "" || s.Spec.ClusterIP == api.ClusterIPNone || s.Spec.Type == api.ServiceTypeExternalName {
			continue
		}
		ip, err := netip.ParseAddr(s.Spec.ClusterIP)
		if err != nil || !ip.Is4() {
			continue
		}
		for _, p := range s.Spec.Ports {
			sp := servicePort{ns: s.Namespace, svc: s.Name, port: p.Name, protocol: p.Protocol, clusterIP: ip, portNum: p.Port}
			if sp.protocol == "" {
				sp.protocol = api.ProtocolTCP // the apiserver's default
			}
			sp.proto = strings.ToLower(string(sp.protocol))
			// ServicePortName.String() in pkg/proxy/types.go.
			sp.name = s.Namespace + "/" + s.Name
			if p.Name != "" {
				sp.name += ":" + p.Name
			}
			if s.Spec.SessionAffinity == api.ServiceAffinityClientIP {
				sp.affinity = true
				// The apiserver defaults the timeout to 10800s (3 hours);
				// kube-proxy relies on it being set.
				sp.timeout = 10800
				if c := s.Spec.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil {
					sp.timeout = *c.ClientIP.TimeoutSeconds
				}
			}
			out = append(out, sp)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// endpoint is one address and port behind a service port.
type endpoint struct {
	ip                          string
	port                        int32
	ready, serving, terminating bool
	// ipPort is "ip:port", made once: the sort compares it often.
	ipPort string
}

// String is "ip:port", the endpoint's name in comments and DNAT.
func (e endpoint) String() string { return e.ipPort }

// endpointsOf gathers the endpoints of sp from slices[i] for each i in
// mine, sp's Service's slices, as pkg/proxy/endpointslicecache.go does:
// the IPv4 slices of sp's namespace labelled with its Service's name,
// their port of the same name and protocol, one endpoint per "ip:port",
// sorted by that string.
func endpointsOf(sp servicePort, slices []api.EndpointSlice, mine []int) []endpoint {
	byName := map[string]endpoint{}
	for _, i := range mine {
		s := &slices[i]
		if s.Namespace != sp.ns || s.Labels[api.LabelServiceName] != sp.svc || s.AddressType != api.AddressTypeIPv4 {
			continue
		}
		for _, p := range s.Ports {
			if p.Name == nil || *p.Name != sp.port || p.Port == nil || *p.Port == 0 {
				continue
			}
			protocol := api.ProtocolTCP
			if p.Protocol != nil {
				protocol = *p.Protocol
			}
			if protocol != sp.protocol {
				continue
			}
			for _, e := range s.Endpoints {
				if len(e.Addresses) == 0 {
					continue
				}
				c := e.Conditions
				ep := endpoint{
					ip:   e.Addresses[0],
					port: *p.Port,
					// Unknown readiness counts as ready and serving.
					ready:       c.Ready == nil || *c.Ready,
					serving:     c.Serving == nil || *c.Serving,
					terminating: c.Terminating != nil && *c.Terminating,
				}
				ep.ipPort = ep.ip + ":" + strconv.Itoa(int(ep.port))
				// The same address in two slices (a pod moving between
				// them): keep the one that is not terminating.
				if _, seen := byName[ep.String()]; !seen || !ep.terminating {
					byName[ep.String()] = ep
				}
			}
		}
	}
	eps := make([]endpoint, 0, len(byName))
	for _, e := range byName {
		eps = append(eps, e)
	}
	// byEndpoint: string order, so 10.0.0.10:80 sorts before 10.0.0.9:80.
	sort.Slice(eps, func(i, j int) bool { return eps[i].String() < eps[j].String() })
	return eps
}

// usable picks the endpoints that take traffic, as CategorizeEndpoints in
// pkg/proxy/topology.go does for Cluster traffic policy: the ready ones;
// when none is ready, the ones still serving while they terminate, so
// that a rolling update's last pods keep answering.
func usable(eps []endpoint) []endpoint {
	var ready, terminating []endpoint
	for _, e := range eps {
		switch {
		case e.ready:
			ready = append(ready, e)
		case e.serving && e.terminating:
			terminating = append(terminating, e)
		}
	}
	if len(ready) > 0 {
		return ready
	}
	return terminating
}
