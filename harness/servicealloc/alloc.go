package servicealloc

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/kubekata/kubekata/harness/api"
)

// txn is what one request allocated (given back if the request fails)
// and what it frees once it succeeds (upstream's metaTransaction).
type txn struct {
	r                  *Registry
	ips, ports         []string // taken by this request
	freeIPs, freePorts []string // to free once it succeeds
	// changed: the registry set a field of the request's Service.
	changed bool
}

func (t *txn) revert() {
	for _, ip := range t.ips {
		_ = t.r.ips.Release(ip)
	}
	for _, p := range t.ports {
		_ = t.r.ports.Release(p)
	}
	t.ips, t.ports = nil, nil
}

func (t *txn) commit() {
	for _, ip := range t.freeIPs {
		_ = t.r.ips.Release(ip)
	}
	for _, p := range t.freePorts {
		_ = t.r.ports.Release(p)
	}
}

func serviceType(s *api.Service) api.ServiceType {
	if s.Spec.Type == "" {
		return api.ServiceTypeClusterIP // the default
	}
	return s.Spec.Type
}

func needsClusterIP(s *api.Service) bool { return serviceType(s) != api.ServiceTypeExternalName }

func needsNodePorts(s *api.Service) bool {
	t := serviceType(s)
	return t == api.ServiceTypeNodePort || t == api.ServiceTypeLoadBalancer
}

// shouldAllocateNodePorts: a LoadBalancer may say it wants none
// (allocateLoadBalancerNodePorts false); it keeps those it asks for.
func shouldAllocateNodePorts(s *api.Service) bool {
	if serviceType(s) == api.ServiceTypeLoadBalancer && s.Spec.AllocateLoadBalancerNodePorts != nil {
		return *s.Spec.AllocateLoadBalancerNodePorts
	}
	return serviceType(s) == api.ServiceTypeNodePort || serviceType(s) == api.ServiceTypeLoadBalancer
}

// firstIP is the Service's primary ClusterIP as sent: clusterIPs[0], or
// clusterIP when clusterIPs is empty (the apiserver's defaulting fills
// one from the other).
func firstIP(s *api.Service) string {
	if len(s.Spec.ClusterIPs) > 0 {
		return s.Spec.ClusterIPs[0]
	}
	return s.Spec.ClusterIP
}

// create allocates for a new Service (allocateCreate).
func (t *txn) create(svc *api.Service, raw map[string]any) *api.Status {
	if st := t.allocClusterIP(svc, raw); st != nil {
		return st
	}
	if needsNodePorts(svc) {
		return t.allocNodePorts(svc, nil, raw)
	}
	return nil
}

// allocClusterIP takes the address svc asks for, or the next free one.
func (t *txn) allocClusterIP(svc *api.Service, raw map[string]any) *api.Status {
	if !needsClusterIP(svc) {
		return nil
	}
	want := firstIP(svc)
	if want == api.ClusterIPNone {
		t.setIP(svc, raw, want) // headless: no address
		return nil
	}
	if want != "" {
		if err := t.r.ips.Allocate(want); err != nil {
			asked := svc.Spec.ClusterIPs
			if len(asked) == 0 {
				asked = []string{want}
			}
			return invalid(svc.Name, "spec.clusterIPs", fmt.Sprintf("%#v", asked), fmt.Sprintf("failed to allocate IP %s: %v", want, err))
		}
	} else {
		ip, err := t.r.ips.AllocateNext()
		if err != nil {
			return internal(fmt.Errorf("failed to allocate a serviceIP: %v", err))
		}
		want = ip
	}
	t.ips = append(t.ips, want)
	t.setIP(svc, raw, want)
	return nil
}

// setIP writes the Service's address fields as upstream's registry
// leaves them on a single-stack IPv4 cluster.
func (t *txn) setIP(svc *api.Service, raw map[string]any, ip string) {
	spec := specOf(raw)
	t.set(spec, "clusterIP", ip)
	t.set(spec, "clusterIPs", []any{ip})
	if len(svc.Spec.IPFamilies) == 0 {
		t.set(spec, "ipFamilies", []any{"IPv4"})
	}
	if svc.Spec.IPFamilyPolicy == nil {
		t.set(spec, "ipFamilyPolicy", "SingleStack")
	}
}

// set sets m[k] = v, noting a change.
func (t *txn) set(m map[string]any, k string, v any) {
	if old, ok := m[k]; ok && jsonEqual(old, v) {
		return
	}
	m[k] = v
	t.changed = true
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// specOf is raw's spec, made when missing.
func specOf(raw map[string]any) map[string]any {
	spec, ok := raw["spec"].(map[string]any)
	if !ok {
		spec = map[string]any{}
		raw["spec"] = spec
	}
	return spec
}

// portsOf is raw's spec.ports, entry i for svc.Spec.Ports[i].
func portsOf(raw map[string]any) []map[string]any {
	list, _ := specOf(raw)["ports"].([]any)
	out := make([]map[string]any, len(list))
	for i, p := range list {
		out[i], _ = p.(map[string]any)
	}
	return out
}

// allocNodePorts gives each port of svc a nodePort: the one it asks for,
// the one an earlier port with the same number got, or the next free one
// (initNodePorts and updateNodePorts); the nodePorts old held are not
// taken again.
func (t *txn) allocNodePorts(svc, old *api.Service, raw map[string]any) *api.Status {
	var had []int32
	if old != nil {
		_, had = held(old)
	}
	rawPorts := portsOf(raw)
	byPort := map[int32]int32{} // service port → nodePort given in this request
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if p.NodePort == 0 && !shouldAllocateNodePorts(svc) {
			continue // none wanted; a nodePort asked for is still kept
		}
		np := p.NodePort
		switch {
		case np == 0 && byPort[p.Port] != 0:
			np = byPort[p.Port] // TCP and UDP on one port share it
		case np == 0:
			v, err := t.r.ports.AllocateNext()
			if err != nil {
				return internal(fmt.Errorf("failed to allocate a nodePort: %v", err))
			}
			t.ports = append(t.ports, v)
			n, _ := strconv.Atoi(v)
			np = int32(n)
		case containsPort(had, np) || byPort[p.Port] == np:
			// already this Service's (TCP and UDP on one port share it)
		default:
			if err := t.r.ports.Allocate(strconv.Itoa(int(np))); err != nil {
				return invalid(svc.Name, fmt.Sprintf("spec.ports[%d].nodePort", i), strconv.Itoa(int(np)), err.Error())
			}
			t.ports = append(t.ports, strconv.Itoa(int(np)))
		}
		byPort[p.Port] = np
		p.NodePort = np
		if i < len(rawPorts) && rawPorts[i] != nil {
			t.set(rawPorts[i], "nodePort", np)
		}
	}
	// The nodePorts old held that no port uses now are freed once the
	// update succeeds.
	_, now := held(svc)
	for _, np := range had {
		if !containsPort(now, np) {
			t.freePorts = append(t.freePorts, strconv.Itoa(int(np)))
		}
	}
	return nil
}

func containsPort(ps []int32, p int32) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// update allocates and frees for svc replacing old (allocateUpdate, with
// patchAllocatedValues and the ClusterIP's immutability).
func (t *txn) update(old, svc *api.Service, raw map[string]any) *api.Status {
	oldIP := firstIP(old)
	switch {
	case needsClusterIP(old) && needsClusterIP(svc):
		if firstIP(svc) == "" && oldIP != "" {
			// Left out: kept (kubectl replace with a manifest that
			// never had one).
			t.setIP(svc, raw, oldIP)
			svc.Spec.ClusterIP, svc.Spec.ClusterIPs = oldIP, []string{oldIP}
		}
		if now := firstIP(svc); oldIP != "" && now != oldIP {
			asked := svc.Spec.ClusterIPs
			if len(asked) == 0 {
				asked = []string{now}
			}
			return invalid(svc.Name, "spec.clusterIPs[0]", fmt.Sprintf("%#v", asked), "may not change once set")
		}
	case !needsClusterIP(old) && needsClusterIP(svc):
		// ExternalName to a type with an address: a new one.
		if st := t.allocClusterIP(svc, raw); st != nil {
			return st
		}
	case needsClusterIP(old) && !needsClusterIP(svc):
		if oldIP != "" && oldIP != api.ClusterIPNone {
			t.freeIPs = append(t.freeIPs, oldIP)
		}
	}
	if needsNodePorts(old) && needsNodePorts(svc) {
		// A port left without a nodePort keeps the one it had, by
		// name, unless another port took it.
		_, now := held(svc)
		byName := map[string]int32{}
		for _, p := range old.Spec.Ports {
			byName[p.Name] = p.NodePort
		}
		rawPorts := portsOf(raw)
		for i := range svc.Spec.Ports {
			p := &svc.Spec.Ports[i]
			if v := byName[p.Name]; p.NodePort == 0 && v != 0 && !containsPort(now, v) {
				p.NodePort = v
				now = append(now, v)
				if i < len(rawPorts) && rawPorts[i] != nil {
					t.set(rawPorts[i], "nodePort", v)
				}
			}
		}
	}
	switch {
	case needsNodePorts(svc):
		return t.allocNodePorts(svc, old, raw)
	case needsNodePorts(old):
		// To ClusterIP or ExternalName: the nodePorts go (upstream
		// clears them with the type, dropTypeDependentFields).
		_, had := held(old)
		for _, np := range had {
			t.freePorts = append(t.freePorts, strconv.Itoa(int(np)))
		}
		for i, p := range portsOf(raw) {
			if p != nil && i < len(svc.Spec.Ports) && containsPort(had, svc.Spec.Ports[i].NodePort) {
				delete(p, "nodePort")
				t.changed = true
			}
		}
	}
	return nil
}

// invalid is upstream's 422 for one field of Service name.
func invalid(name, field, value, detail string) *api.Status {
	msg := fmt.Sprintf("Invalid value: %s: %s", value, detail)
	return &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  fmt.Sprintf("Service %q is invalid: %s: %s", name, field, msg),
		Reason:   api.StatusReasonInvalid,
		Details: &api.StatusDetails{Name: name, Kind: "Service",
			Causes: []api.StatusCause{{Type: api.CauseTypeFieldValueInvalid, Message: msg, Field: field}}},
		Code: http.StatusUnprocessableEntity,
	}
}

// internal is upstream's 500 (errors.NewInternalError).
func internal(err error) *api.Status {
	return &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  "Internal error occurred: " + err.Error(),
		Reason:   api.StatusReasonInternalError,
		Details:  &api.StatusDetails{Causes: []api.StatusCause{{Message: err.Error()}}},
		Code:     http.StatusInternalServerError,
	}
}

func writeStatus(w http.ResponseWriter, st *api.Status) {
	b, _ := json.Marshal(st)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_, _ = w.Write(b)
}
