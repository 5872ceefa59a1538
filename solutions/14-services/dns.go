package services

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// dnsTTL is CoreDNS's kubernetes plugin's default ttl: short, because a
// headless Service's answer changes whenever a pod comes or goes.
const dnsTTL = 5

// Lookup answers q, a question for a name in the cluster's zone, as the
// Kubernetes DNS specification (and CoreDNS's kubernetes plugin) does:
//
//	web.default.svc.cluster.local.              A    the ClusterIP, or each ready endpoint of a headless Service
//	web-0.web.default.svc.cluster.local.        A    one endpoint of a headless Service, by hostname
//	_http._tcp.web.default.svc.cluster.local.   SRV  a named port: "0 100 80 web.default.svc.cluster.local."
func Lookup(q servicenet.Question, services []api.Service, slices []api.EndpointSlice) servicenet.Answer {
	// Names compare case-insensitively (RFC 4343); the records carry the
	// lowercase form.
	name := strings.ToLower(q.Name)
	if !strings.HasSuffix(name, ".") {
		name += "."
	}
	zone := servicenet.ClusterDomain + "."
	rest, ok := strings.CutSuffix(name, "."+zone)
	if !ok {
		if name == zone {
			return servicenet.Answer{Rcode: servicenet.NoError}
		}
		return servicenet.Answer{Rcode: servicenet.NXDomain}
	}
	labels := strings.Split(rest, ".")
	// Walk the labels from the right: ... <service> <namespace> svc.
	n := len(labels)
	if labels[n-1] != "svc" {
		return servicenet.Answer{Rcode: servicenet.NXDomain}
	}
	if n < 3 {
		// svc.cluster.local. and <ns>.svc.cluster.local. are names on the
		// way to the Services: they exist, with no records of their own.
		return servicenet.Answer{Rcode: servicenet.NoError}
	}
	ns, svcName := labels[n-2], labels[n-3]
	svc, found := findService(services, ns, svcName)
	if !found {
		return servicenet.Answer{Rcode: servicenet.NXDomain}
	}
	eps := dnsEndpointsOf(slices, ns, svcName)
	svcFQDN := svcName + "." + ns + ".svc." + zone
	switch n {
	case 3:
		return serviceRecords(q.Type, svc, eps, name, svcFQDN)
	case 4:
		// <hostname>.<service>...: one endpoint of a headless Service.
		if !isHeadless(svc) {
			return servicenet.Answer{Rcode: servicenet.NXDomain}
		}
		var rs []servicenet.Record
		for _, e := range eps {
			if e.hostname == labels[0] && e.ready {
				rs = append(rs, record(name, servicenet.TypeA, e.ip))
			}
		}
		if len(rs) == 0 {
			return servicenet.Answer{Rcode: servicenet.NXDomain}
		}
		if q.Type != servicenet.TypeA {
			return servicenet.Answer{Rcode: servicenet.NoError}
		}
		return servicenet.Answer{Rcode: servicenet.NoError, Records: rs}
	case 5:
		// _<port>._<proto>.<service>...: a named port.
		port, okPort := strings.CutPrefix(labels[0], "_")
		proto, okProto := strings.CutPrefix(labels[1], "_")
		if !okPort || !okProto {
			return servicenet.Answer{Rcode: servicenet.NXDomain}
		}
		return srvRecords(q.Type, svc, eps, name, svcFQDN, port, proto)
	}
	return servicenet.Answer{Rcode: servicenet.NXDomain}
}

// serviceRecords answers for <service>.<ns>.svc.<zone>.
func serviceRecords(qtype string, svc api.Service, eps []dnsEndpoint, name, svcFQDN string) servicenet.Answer {
	var rs []servicenet.Record
	switch {
	case svc.Spec.Type == api.ServiceTypeExternalName:
		// An ExternalName Service is an alias: a CNAME whatever the type
		// asked for, as an alias answers every type.
		target := strings.ToLower(svc.Spec.ExternalName)
		if !strings.HasSuffix(target, ".") {
			target += "."
		}
		rs = append(rs, record(name, servicenet.TypeCNAME, target))
		return servicenet.Answer{Rcode: servicenet.NoError, Records: rs}
	case isHeadless(svc):
		// Headless: every ready endpoint's address, once.
		seen := map[string]bool{}
		for _, e := range eps {
			if e.ready && !seen[e.ip] {
				seen[e.ip] = true
				rs = append(rs, record(name, servicenet.TypeA, e.ip))
			}
		}
	case net.ParseIP(svc.Spec.ClusterIP).To4() != nil:
		rs = append(rs, record(name, servicenet.TypeA, svc.Spec.ClusterIP))
	}
	// The name exists whatever was asked: a type it has no records of
	// is an empty NOERROR, never NXDOMAIN, which would tell a resolver
	// asking A and AAAA at once that the A answer's name is not there.
	if qtype != servicenet.TypeA {
		rs = nil
	}
	return servicenet.Answer{Rcode: servicenet.NoError, Records: rs}
}

// srvRecords answers for _<port>._<proto>.<service>.<ns>.svc.<zone>.
func srvRecords(qtype string, svc api.Service, eps []dnsEndpoint, name, svcFQDN, port, proto string) servicenet.Answer {
	var sp *api.ServicePort
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		// Only named ports have SRV records.
		if p.Name != "" && p.Name == port && strings.ToLower(string(protocolOf(p.Protocol))) == proto {
			sp = p
		}
	}
	if sp == nil {
		return servicenet.Answer{Rcode: servicenet.NXDomain}
	}
	if qtype != servicenet.TypeSRV {
		return servicenet.Answer{Rcode: servicenet.NoError}
	}
	type target struct {
		port int32
		host string
	}
	var ts []target
	if !isHeadless(svc) {
		ts = append(ts, target{sp.Port, svcFQDN})
	} else {
		// Headless: one record per ready endpoint, on the port the
		// endpoint serves under that name (nobody translates a
		// headless Service's port), naming the endpoint's own A record.
		seen := map[string]bool{}
		for _, e := range eps {
			p, ok := e.ports[port+"/"+proto]
			host := e.hostname + "." + svcFQDN
			if !e.ready || !ok || seen[host] {
				continue
			}
			seen[host] = true
			ts = append(ts, target{p, host})
		}
	}
	var rs []servicenet.Record
	for _, t := range ts {
		// Priority 0 and an equal share of 100 as weight, as CoreDNS
		// does: every target is as good as another.
		rs = append(rs, record(name, servicenet.TypeSRV, fmt.Sprintf("0 %d %d %s", 100/len(ts), t.port, t.host)))
	}
	return servicenet.Answer{Rcode: servicenet.NoError, Records: rs}
}

func record(name, typ, data string) servicenet.Record {
	return servicenet.Record{Name: name, Type: typ, TTL: dnsTTL, Data: data}
}

func isHeadless(svc api.Service) bool { return svc.Spec.ClusterIP == api.ClusterIPNone }

func findService(services []api.Service, ns, name string) (api.Service, bool) {
	for _, s := range services {
		if strings.ToLower(s.Namespace) == ns && strings.ToLower(s.Name) == name {
			return s, true
		}
	}
	return api.Service{}, false
}

// dnsEndpoint is one address of a Service's slices.
type dnsEndpoint struct {
	ip string
	// hostname is the endpoint's hostname, or its address with dashes
	// (10-244-0-5), CoreDNS's name for an endpoint without one.
	hostname string
	ready    bool
	// ports are the slice's ports by "name/protocol" (lowercase).
	ports map[string]int32
}

// dnsEndpointsOf lists the IPv4 endpoints of the slices of Service ns/name,
// in a stable order.
func dnsEndpointsOf(all []api.EndpointSlice, ns, name string) []dnsEndpoint {
	var out []dnsEndpoint
	for _, s := range all {
		if strings.ToLower(s.Namespace) != ns || strings.ToLower(s.Labels[api.LabelServiceName]) != name || s.AddressType != api.AddressTypeIPv4 {
			continue
		}
		ports := map[string]int32{}
		for _, p := range s.Ports {
			if p.Name == nil || p.Port == nil {
				continue
			}
			proto := string(api.ProtocolTCP)
			if p.Protocol != nil {
				proto = string(*p.Protocol)
			}
			ports[*p.Name+"/"+strings.ToLower(proto)] = *p.Port
		}
		for _, e := range s.Endpoints {
			// ready nil means unknown, read as ready (as kube-proxy does).
			ready := e.Conditions.Ready == nil || *e.Conditions.Ready
			for _, ip := range e.Addresses {
				host := strings.ReplaceAll(ip, ".", "-")
				if e.Hostname != nil && *e.Hostname != "" {
					host = strings.ToLower(*e.Hostname)
				}
				out = append(out, dnsEndpoint{ip: ip, hostname: host, ready: ready, ports: ports})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b dnsEndpoint) int { return strings.Compare(a.ip, b.ip) })
	return out
}
