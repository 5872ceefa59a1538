package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"reflect"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
)

// SystemNamespaces are the namespaces a cluster has from its first
// start. kube-apiserver's system-namespaces controller
// (pkg/controlplane/controller/systemnamespaces/system_namespaces_controller.go,
// started by the post-start hook "start-system-namespaces-controller" in
// pkg/controlplane/apiserver/server.go) creates each one that is missing
// and takes AlreadyExists as success. Its list is the option
// SystemNamespaces: kube-system, kube-public and default
// (pkg/controlplane/apiserver/options/options.go, NewOptions), to which
// kube-apiserver adds kube-node-lease (cmd/kube-apiserver/app/options;
// its options_test.go expects all four). Older releases created default
// in the bootstrap controller instead; the outcome is the same.
var SystemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// Bootstrap creates the SystemNamespaces through the apiserver's HTTP API
// at url with hc (Run's loopback client), as upstream's controllers do
// through their clients: POST
// /api/v1/namespaces, where 201 and 409 AlreadyExists are both fine (a
// restart over existing data). Upstream retries every minute and logs a
// failure; here a failure stops the start, with the server's answer.
func Bootstrap(ctx context.Context, hc *http.Client, url string) error {
	for _, ns := range SystemNamespaces {
		body, _ := json.Marshal(map[string]any{
			"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns},
		})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/api/v1/namespaces", bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("cluster: bootstrap: %w", err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return fmt.Errorf("cluster: bootstrap: creating namespace %q: %w", ns, err)
		}
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusCreated, http.StatusOK, http.StatusConflict:
			continue
		}
		var st struct{ Message string }
		text := strings.TrimSpace(string(msg))
		if json.Unmarshal(msg, &st) == nil && st.Message != "" {
			text = st.Message
		}
		return fmt.Errorf("cluster: bootstrap: POST /api/v1/namespaces %q: %s, want 201 Created or 409 AlreadyExists: %s", ns, resp.Status, text)
	}
	return nil
}

// KubernetesServiceName is the Service in default that points at the
// apiserver, as upstream's kubernetesservice controller keeps it
// (pkg/controlplane/controller/kubernetesservice/controller.go,
// CreateOrUpdateMasterServiceIfNeeded): port 443 named https to the
// apiserver's port, the first address of the service range, no selector;
// its EndpointSlice of the same name lists the apiserver's address, as
// upstream's endpoint reconciler writes it (pkg/controlplane/reconcilers).
const KubernetesServiceName = "kubernetes"

// BootstrapKubernetesService creates or mends the Service kubernetes and
// its EndpointSlice through c (the registry gives the Service the first
// address of cidr, which it asks for), pointing at the apiserver at
// hostport. A restart on another port updates both.
func BootstrapKubernetesService(ctx context.Context, c client.Interface, cidr, hostport string) error {
	host, portText, err := net.SplitHostPort(hostport)
	if err != nil {
		return fmt.Errorf("cluster: bootstrap: the apiserver's address %q: %w", hostport, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return fmt.Errorf("cluster: bootstrap: the apiserver's port %q: %w", portText, err)
	}
	first, err := nthAddress(cidr, 1)
	if err != nil {
		return fmt.Errorf("cluster: bootstrap: %w", err)
	}
	labels := map[string]string{"provider": "kubernetes", "component": "apiserver"}
	ports := []api.ServicePort{{Name: "https", Protocol: api.ProtocolTCP, Port: 443, TargetPort: api.FromInt(port)}}
	svcs := client.For[*api.Service](c)
	svc, err := svcs.Get(ctx, "default", KubernetesServiceName)
	switch {
	case client.IsNotFound(err):
		_, err = svcs.Create(ctx, &api.Service{
			TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: api.ObjectMeta{Name: KubernetesServiceName, Namespace: "default", Labels: labels},
			Spec: api.ServiceSpec{Type: api.ServiceTypeClusterIP, ClusterIP: first, Ports: ports,
				SessionAffinity: "None"},
		})
	case err == nil && !reflect.DeepEqual(svc.Spec.Ports, ports):
		next := api.DeepCopy(svc)
		next.Spec.Ports = ports
		_, err = svcs.Update(ctx, next)
	}
	if err != nil {
		return fmt.Errorf("cluster: bootstrap: Service default/%s: %w", KubernetesServiceName, err)
	}
	name, proto, p32 := "https", api.ProtocolTCP, int32(port)
	ready := true
	want := api.EndpointSlice{
		TypeMeta: api.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: api.ObjectMeta{Name: KubernetesServiceName, Namespace: "default",
			Labels: map[string]string{api.LabelServiceName: KubernetesServiceName}},
		AddressType: api.AddressTypeIPv4,
		Endpoints:   []api.Endpoint{{Addresses: []string{host}, Conditions: api.EndpointConditions{Ready: &ready}}},
		Ports:       []api.EndpointPort{{Name: &name, Protocol: &proto, Port: &p32}},
	}
	slices := client.For[*api.EndpointSlice](c)
	es, err := slices.Get(ctx, "default", KubernetesServiceName)
	switch {
	case client.IsNotFound(err):
		_, err = slices.Create(ctx, &want)
	case err == nil && (!reflect.DeepEqual(es.Endpoints, want.Endpoints) || !reflect.DeepEqual(es.Ports, want.Ports)):
		next := api.DeepCopy(es)
		next.Endpoints, next.Ports = want.Endpoints, want.Ports
		_, err = slices.Update(ctx, next)
	}
	if err != nil {
		return fmt.Errorf("cluster: bootstrap: EndpointSlice default/%s: %w", KubernetesServiceName, err)
	}
	return nil
}

// nthAddress is the n-th address of cidr after its network address:
// 1 is the Service kubernetes's, 10 the cluster DNS server's (kubeadm's
// kube-dns is 10.96.0.10 of 10.96.0.0/12).
func nthAddress(cidr string, n int) (string, error) {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil {
		return "", fmt.Errorf("cluster: the service range %q: %w", cidr, err)
	}
	a := prefix.Masked().Addr()
	for range n {
		a = a.Next()
	}
	if !prefix.Contains(a) {
		return "", fmt.Errorf("cluster: the service range %q has no address %d", cidr, n)
	}
	return a.String(), nil
}
