package cluster

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/servicenet"
	services "github.com/kubekata/kubekata/solutions/14-services"
)

// Exercise 14 in the cluster, as the cluster program wires it
// (program.Wiring.Services): the service registry with the reference
// allocators around the apiserver, inside the pipeline, and the
// reference EndpointSlice controller in the controller manager, run as
// kube-controller-manager. The Service kubernetes points at the
// apiserver from the first start (its first address, port 443 to the
// apiserver's port); a Service gets an address of the service range and
// a slice of its ready pods (pods given an IP and Ready by hand, as a
// kubelet would); deleting it frees its address; a restart over the same
// data hands out no address twice.
func TestRunServicesAllocateAndSlice(t *testing.T) {
	parts := gatedParts
	parts.ServiceIPs, parts.NodePorts, parts.ServicesFrom = services.NewIPRange, services.NewPortRange, "solutions/14-services"
	parts.Controllers = func(c client.Interface) Component {
		return ControllerManager{
			NewController(servicenet.ControllerName, "solutions/14-services", func() Component {
				return services.New(c, servicenet.Options{})
			}),
		}
	}
	parts.ControllersFrom = "solutions/14-services"
	dir := t.TempDir()
	ctx := context.Background()
	start := func() (client.Interface, string, func() error, chan error) {
		out := newLines()
		stop, done := runInBackground(t, parts, Options{DataDir: dir, Stdout: out})
		out.waitLine(t, "export KUBECONFIG=", done)
		a := creds(t, dir, "admin")
		return client.New(a.URL, a.Client), a.URL, stop, done
	}
	admin, url, stop, done := start()
	svcs := client.For[*api.Service](admin)
	eps := client.For[*api.EndpointSlice](admin)
	pods := client.For[*api.Pod](admin)

	waitFor := func(what string, cond func() (bool, string)) {
		t.Helper()
		waitRunning(t, done, 30*time.Second, what, cond)
	}

	// The Service kubernetes and its slice, from the first start.
	k, err := svcs.Get(ctx, "default", KubernetesServiceName)
	if err != nil {
		t.Fatalf("Get(service default/kubernetes) = %v", err)
	}
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(url, "https://"))
	// The service network is 127.96.0.0/16 unless another cluster on
	// the machine holds it (claimServiceNetwork): 127.X.0.0/16, X down
	// to 51.
	net16, ok := strings.CutSuffix(k.Spec.ClusterIP, ".0.1")
	if x, err := strconv.Atoi(strings.TrimPrefix(net16, "127.")); !ok || err != nil || x > serviceNetFirst || x < serviceNetLast {
		t.Fatalf("service default/kubernetes: clusterIP %s, want 127.X.0.1 of a service network (X from %d down to %d)", k.Spec.ClusterIP, serviceNetFirst, serviceNetLast)
	}
	if len(k.Spec.Ports) != 1 || k.Spec.Ports[0].Port != 443 || k.Spec.Ports[0].TargetPort.String() != port {
		t.Errorf("service default/kubernetes: ports %+v, want 443 to the apiserver's %s", k.Spec.Ports, port)
	}
	ks, err := eps.Get(ctx, "default", KubernetesServiceName)
	if err != nil {
		t.Fatalf("Get(endpointslice default/kubernetes) = %v", err)
	}
	if len(ks.Endpoints) != 1 || !slices.Equal(ks.Endpoints[0].Addresses, []string{"127.0.0.1"}) || len(ks.Ports) != 1 || ks.Ports[0].Port == nil || strconv.Itoa(int(*ks.Ports[0].Port)) != port {
		t.Errorf("endpointslice default/kubernetes: %+v, want 127.0.0.1 port %s", ks, port)
	}

	// web gets an address and a slice of its two ready pods.
	web, err := svcs.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{{Name: "http", Port: 80, TargetPort: api.FromInt(8080)}}}})
	if err != nil {
		t.Fatalf("Create(service web) = %v", err)
	}
	if !strings.HasPrefix(web.Spec.ClusterIP, net16+".") || web.Spec.ClusterIP == k.Spec.ClusterIP {
		t.Fatalf("service web: clusterIP %q, want another address of %s.0.0/16", web.Spec.ClusterIP, net16)
	}
	for i, ip := range []string{"127.244.1.10", "127.244.1.11"} {
		p, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "default", Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "c", Image: "kata/http-echo"}}}})
		if err != nil {
			t.Fatalf("Create(pod web-%d) = %v", i, err)
		}
		p.Status = api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}}
		if _, err := pods.UpdateStatus(ctx, p); err != nil {
			t.Fatalf("UpdateStatus(pod web-%d) = %v", i, err)
		}
	}
	waitFor("an EndpointSlice of web with its two pods", func() (bool, string) {
		list, _, err := eps.List(ctx, "default", client.ListOptions{LabelSelector: api.LabelServiceName + "=web"})
		if err != nil {
			return false, err.Error()
		}
		var addrs []string
		for _, s := range list {
			for _, e := range s.Endpoints {
				addrs = append(addrs, e.Addresses...)
			}
		}
		slices.Sort(addrs)
		return slices.Equal(addrs, []string{"127.244.1.10", "127.244.1.11"}), fmt.Sprintf("addresses %v", addrs)
	})

	// Deleted, web's address is free: db may ask for it.
	if err := svcs.Delete(ctx, "default", "web", client.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(service web) = %v", err)
	}
	db, err := svcs.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: api.ServiceSpec{ClusterIP: web.Spec.ClusterIP, Ports: []api.ServicePort{{Port: 5432}}}})
	if err != nil {
		t.Fatalf("Create(service db) asking for web's freed %s = %v", web.Spec.ClusterIP, err)
	}

	// A restart keeps what is held.
	if err := stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	admin, _, _, _ = start()
	svcs = client.For[*api.Service](admin)
	_, err = svcs.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "again", Namespace: "default"},
		Spec: api.ServiceSpec{ClusterIP: db.Spec.ClusterIP, Ports: []api.ServicePort{{Port: 80}}}})
	want := fmt.Sprintf(`Service "again" is invalid: spec.clusterIPs: Invalid value: []string{"%s"}: failed to allocate IP %s: provided IP is already allocated`, db.Spec.ClusterIP, db.Spec.ClusterIP)
	if err == nil || err.Error() != want {
		t.Errorf("after a restart, Create(service again) asking for db's %s = %v, want %q", db.Spec.ClusterIP, err, want)
	}
	if k2, err := svcs.Get(ctx, "default", KubernetesServiceName); err != nil || k2.UID != k.UID {
		t.Errorf("after a restart, service default/kubernetes = %v, %v; want the same one (uid %s)", k2, err, k.UID)
	}
}
