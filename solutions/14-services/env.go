package services

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
)

// masterService is the Service every pod hears of, whatever its
// namespace: the apiserver's (the kubelet's masterServices).
const masterService = "kubernetes"

// Env gives the service environment variables of pod's containers, as
// the kubelet computes them before it starts a container: for a Service
// web with ClusterIP 10.96.0.12 and port 80,
//
//	WEB_SERVICE_HOST=10.96.0.12   WEB_SERVICE_PORT=80
//	WEB_PORT=tcp://10.96.0.12:80  WEB_PORT_80_TCP=tcp://10.96.0.12:80 ...
func Env(pod api.Pod, services []api.Service) []api.EnvVar {
	links := pod.Spec.EnableServiceLinks == nil || *pod.Spec.EnableServiceLinks
	chosen := map[string]api.Service{}
	for _, svc := range services {
		// No address, no variables: headless and ExternalName Services
		// (and one not allocated yet) have nothing to connect to.
		if svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == api.ClusterIPNone {
			continue
		}
		switch {
		case svc.Namespace == api.NamespaceDefault && svc.Name == masterService:
			// The apiserver's Service, even with enableServiceLinks
			// false; a Service of the pod's own namespace by that name
			// wins.
			if _, taken := chosen[svc.Name]; !taken {
				chosen[svc.Name] = svc
			}
		case svc.Namespace == pod.Namespace && links:
			chosen[svc.Name] = svc
		}
	}
	// One value per name, the last one written winning, as the kubelet's
	// map does; then sorted, so that every start sees the same order.
	vars := map[string]string{}
	for _, svc := range chosen {
		for _, v := range serviceVars(svc) {
			vars[v.Name] = v.Value
		}
	}
	out := make([]api.EnvVar, 0, len(vars))
	for name, value := range vars {
		out = append(out, api.EnvVar{Name: name, Value: value})
	}
	slices.SortFunc(out, func(a, b api.EnvVar) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// serviceVars are one Service's variables: the simple ones, then the
// Docker-links ones Kubernetes kept for compatibility.
func serviceVars(svc api.Service) []api.EnvVar {
	prefix := envName(svc.Name)
	ip := svc.Spec.ClusterIP
	var out []api.EnvVar
	add := func(name, value string) { out = append(out, api.EnvVar{Name: name, Value: value}) }
	add(prefix+"_SERVICE_HOST", ip)
	if len(svc.Spec.Ports) == 0 {
		return out
	}
	add(prefix+"_SERVICE_PORT", strconv.Itoa(int(svc.Spec.Ports[0].Port)))
	for _, p := range svc.Spec.Ports {
		if p.Name != "" {
			add(prefix+"_SERVICE_PORT_"+envName(p.Name), strconv.Itoa(int(p.Port)))
		}
	}
	for i, p := range svc.Spec.Ports {
		proto := string(protocolOf(p.Protocol))
		url := fmt.Sprintf("%s://%s", strings.ToLower(proto), net.JoinHostPort(ip, strconv.Itoa(int(p.Port))))
		if i == 0 {
			// Docker links name the first port twice.
			add(prefix+"_PORT", url)
		}
		pp := fmt.Sprintf("%s_PORT_%d_%s", prefix, p.Port, strings.ToUpper(proto))
		add(pp, url)
		add(pp+"_PROTO", strings.ToLower(proto))
		add(pp+"_PORT", strconv.Itoa(int(p.Port)))
		add(pp+"_ADDR", ip)
	}
	return out
}

// envName makes a name fit for a variable: my-svc is MY_SVC.
func envName(s string) string {
	return strings.ToUpper(strings.ReplaceAll(s, "-", "_"))
}
