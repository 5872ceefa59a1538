package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/pipeline"
	namespace "github.com/kubekata/kubekata/solutions/12-namespace"
)

// The controller manager as the cluster program wires it with exercise
// 12 (program.Wiring.Namespace): the reference namespace and
// ServiceAccount controllers (one New), through NewController, run as
// kube-controller-manager in a cluster with the pipeline. A new namespace
// gets its default ServiceAccount, and gets it back once it is deleted
// (pkg/controller/serviceaccount/serviceaccounts_controller.go,
// syncNamespace and serviceAccountDeleted). Namespace dev, deleted with a
// ConfigMap and two pods in it, one held by a finalizer, is Terminating
// (the apiserver's half: pkg/registry/core/namespace/storage/storage.go,
// Delete); the controller deletes its content and writes the conditions
// that say what remains (pkg/controller/namespace/deletion/
// namespaced_resources_deleter.go, deleteAllContent, and
// status_condition_utils.go); admission refuses anything new in it
// (NamespaceLifecycle); once the finalizer goes, the controller
// finalizes dev (finalizeNamespace) and the apiserver removes it. The
// other namespaces keep what they hold. Every call of the controllers is
// allowed by the bootstrap policy that the kata's
// system:kube-controller-manager carries (system:controller:namespace-
// controller, service-account-controller, and the list and watch of
// every informer).
func TestRunNamespaceEmptiesAndFinalizes(t *testing.T) {
	parts := gatedParts
	parts.Controllers = func(c client.Interface) Component {
		return ControllerManager{
			NewController(NamespaceControllerName, "solutions/12-namespace", func() Component {
				return namespace.New(c, namespaces.Options{})
			}),
		}
	}
	parts.ControllersFrom = "solutions/12-namespace"
	dir := t.TempDir()
	out := newLines()
	stop, done := runInBackground(t, parts, Options{DataDir: dir, Stdout: out})
	out.waitLine(t, "export KUBECONFIG=", done)
	a := creds(t, dir, "admin")
	admin := client.New(a.URL, a.Client)
	nss := client.For[*api.Namespace](admin)
	sas := client.For[*api.ServiceAccount](admin)
	cms := client.For[*api.ConfigMap](admin)
	pods := client.For[*api.Pod](admin)
	ctx := context.Background()

	// waitFor checks cond every 20ms for 30s, failing with what it last
	// said; the cluster stopping fails at once.
	waitFor := func(what string, cond func() (bool, string)) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			ok, last := cond()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not after 30s; last: %s", what, last)
			}
			select {
			case err := <-done:
				t.Fatalf("%s: the cluster stopped: %v", what, err)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	// hasSA says whether ServiceAccount ns/default is there.
	hasSA := func(ns string) func() (bool, string) {
		return func() (bool, string) {
			sa, err := sas.Get(ctx, ns, namespaces.DefaultServiceAccount)
			if err != nil {
				return false, fmt.Sprintf("Get(serviceaccount %s/default) = %v", ns, err)
			}
			return sa.DeletionTimestamp == nil, fmt.Sprintf("serviceaccount %s/default is being deleted", ns)
		}
	}
	// condition is namespace dev's condition typ as "Status Reason:
	// Message", or what stands in the way.
	condition := func(typ string) string {
		ns, err := nss.Get(ctx, "", "dev")
		if err != nil {
			return err.Error()
		}
		for _, c := range ns.Status.Conditions {
			if c.Type == typ {
				return fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
			}
		}
		return fmt.Sprintf("phase %s, no condition %s", ns.Status.Phase, typ)
	}

	// Every namespace gets its default ServiceAccount: the system ones
	// and the new ones.
	for _, name := range []string{"dev", "prod"} {
		if _, err := nss.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil {
			t.Fatalf("admin: Create(namespace %s) = %v", name, err)
		}
	}
	for _, ns := range []string{"default", "kube-system", "dev", "prod"} {
		waitFor("serviceaccount "+ns+"/default", hasSA(ns))
	}
	// Deleted, it comes back: a new one, another uid.
	old, err := sas.Get(ctx, "prod", namespaces.DefaultServiceAccount)
	if err != nil {
		t.Fatalf("admin: Get(serviceaccount prod/default) = %v", err)
	}
	if err := sas.Delete(ctx, "prod", namespaces.DefaultServiceAccount, client.DeleteOptions{}); err != nil {
		t.Fatalf("admin: Delete(serviceaccount prod/default) = %v", err)
	}
	waitFor("serviceaccount prod/default, deleted, made again", func() (bool, string) {
		sa, err := sas.Get(ctx, "prod", namespaces.DefaultServiceAccount)
		if err != nil {
			return false, fmt.Sprintf("Get(serviceaccount prod/default) = %v", err)
		}
		return sa.UID != old.UID, fmt.Sprintf("serviceaccount prod/default has the deleted one's uid %s", sa.UID)
	})

	// Content in dev and in prod. The pods name no node, so their
	// deletion is at once (no kubelet has anything to stop); held
	// carries a finalizer of the test's. Their grace of 0 (admission
	// would default 30s) keeps the controller's next look after held's
	// finalizer at 15s/2+1 (FinalizerEstimate), not 30s/2+1.
	const hold = "example.com/hold"
	zero := int64(0)
	for _, ns := range []string{"dev", "prod"} {
		if _, err := cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: ns}, Data: map[string]string{"k": "v"}}); err != nil {
			t.Fatalf("admin: Create(configmap %s/settings) = %v", ns, err)
		}
		for _, p := range []*api.Pod{
			{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: ns}},
			{ObjectMeta: api.ObjectMeta{Name: "held", Namespace: ns, Finalizers: []string{hold}}},
		} {
			p.Spec = api.PodSpec{SchedulerName: "nobody", TerminationGracePeriodSeconds: &zero, Containers: []api.Container{{Name: "app", Image: "kata/sleep"}}}
			if _, err := pods.Create(ctx, p); err != nil {
				t.Fatalf("admin: Create(pod %s/%s) = %v", ns, p.Name, err)
			}
		}
	}

	// dev deleted: Terminating, emptied but for held, which its finalizer
	// keeps, and the conditions say so.
	if err := nss.Delete(ctx, "", "dev", client.DeleteOptions{}); err != nil {
		t.Fatalf("admin: Delete(namespace dev) = %v", err)
	}
	wantRemaining := fmt.Sprintf("True %s: "+namespaces.MessageContentRemaining, namespaces.ReasonSomeResourcesRemain, "pods. has 1 resource instances")
	wantFinalizers := fmt.Sprintf("True %s: "+namespaces.MessageFinalizersRemain, namespaces.ReasonSomeFinalizersRemain, hold+" in 1 resource instances")
	waitFor("namespace dev Terminating with held left", func() (bool, string) {
		r, f := condition(namespaces.ConditionContentRemaining), condition(namespaces.ConditionFinalizersRemain)
		return r == wantRemaining && f == wantFinalizers, fmt.Sprintf("%s is %q, want %q; %s is %q, want %q",
			namespaces.ConditionContentRemaining, r, wantRemaining, namespaces.ConditionFinalizersRemain, f, wantFinalizers)
	})
	ns, err := nss.Get(ctx, "", "dev")
	if err != nil {
		t.Fatalf("admin: Get(namespace dev) = %v", err)
	}
	if ns.Status.Phase != api.NamespaceTerminating || ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, api.FinalizerKubernetes) {
		t.Errorf("namespace dev, held by a pod's finalizer: phase %s, deletionTimestamp %v, spec.finalizers %v; want Terminating, set, with %q",
			ns.Status.Phase, ns.DeletionTimestamp, ns.Spec.Finalizers, api.FinalizerKubernetes)
	}
	for _, c := range []struct{ typ, want string }{
		{namespaces.ConditionDiscoveryFailure, "False " + namespaces.OKReasons[namespaces.ConditionDiscoveryFailure] + ": " + namespaces.OKMessages[namespaces.ConditionDiscoveryFailure]},
		{namespaces.ConditionContentFailure, "False " + namespaces.OKReasons[namespaces.ConditionContentFailure] + ": " + namespaces.OKMessages[namespaces.ConditionContentFailure]},
	} {
		if got := condition(c.typ); got != c.want {
			t.Errorf("namespace dev's condition %s is %q, want %q", c.typ, got, c.want)
		}
	}
	if _, err := cms.Get(ctx, "dev", "settings"); !client.IsNotFound(err) {
		t.Errorf("configmap dev/settings in namespace dev being emptied: Get = %v, want NotFound", err)
	}
	if _, err := pods.Get(ctx, "dev", "web"); !client.IsNotFound(err) {
		t.Errorf("pod dev/web in namespace dev being emptied: Get = %v, want NotFound", err)
	}
	if p, err := pods.Get(ctx, "dev", "held"); err != nil || p.DeletionTimestamp == nil {
		t.Errorf("pod dev/held, with the finalizer %s: Get = %v, %v; want it there, being deleted", hold, p, err)
	}
	// Nothing new goes into dev (exercise 05's NamespaceLifecycle): not
	// even the default ServiceAccount, which the controller does not
	// try to make again in a namespace that is not Active.
	_, err = cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "late", Namespace: "dev"}})
	if client.CodeOf(err) != 403 || !strings.Contains(err.Error(), "because it is being terminated") {
		t.Errorf("admin: Create(configmap dev/late) in namespace dev being deleted = %v, want 403 Forbidden: unable to create new content in namespace dev because it is being terminated", err)
	}
	if _, err := sas.Get(ctx, "dev", namespaces.DefaultServiceAccount); !client.IsNotFound(err) {
		t.Errorf("serviceaccount dev/default in namespace dev being emptied: Get = %v, want NotFound", err)
	}

	// The finalizer goes: held goes, then dev.
	p, err := pods.Get(ctx, "dev", "held")
	if err != nil {
		t.Fatalf("admin: Get(pod dev/held) = %v", err)
	}
	p.Finalizers = nil
	if _, err := pods.Update(ctx, p); err != nil {
		t.Fatalf("admin: Update(pod dev/held) without its finalizer = %v", err)
	}
	waitFor("namespace dev gone", func() (bool, string) {
		ns, err := nss.Get(ctx, "", "dev")
		if client.IsNotFound(err) {
			return true, ""
		}
		if err != nil {
			return false, err.Error()
		}
		return false, fmt.Sprintf("namespace dev is %s, spec.finalizers %v, conditions %v", ns.Status.Phase, ns.Spec.Finalizers, ns.Status.Conditions)
	})

	// prod keeps all it had.
	if _, err := cms.Get(ctx, "prod", "settings"); err != nil {
		t.Errorf("configmap prod/settings after dev went: Get = %v, want it there", err)
	}
	for _, name := range []string{"web", "held"} {
		if p, err := pods.Get(ctx, "prod", name); err != nil || p.DeletionTimestamp != nil {
			t.Errorf("pod prod/%s after dev went: Get = %v, %v; want it there, not being deleted", name, p, err)
		}
	}
	if ok, why := hasSA("prod")(); !ok {
		t.Errorf("after dev went: %s; want serviceaccount prod/default there", why)
	}
	if ns, err := nss.Get(ctx, "", "prod"); err != nil || ns.Status.Phase != api.NamespaceActive {
		t.Errorf("namespace prod after dev went: Get = %v, %v; want it Active", ns, err)
	}
	// prod/held's finalizer would hold the test's cleanup of nothing: the
	// cluster's data goes with its directory.

	if err := stop(); err != nil {
		t.Fatalf("stopping the cluster: %v", err)
	}
	// The controllers read and wrote as kube-controller-manager, never
	// refused (but for their creates in dev while it was terminating,
	// which admission refuses by design: an Event, say).
	seen := map[string]bool{"update namespaces/finalize": false, "update namespaces/status": false, "create serviceaccounts": false,
		"delete pods": false, "delete configmaps": false, "delete serviceaccounts": false, "watch namespaces": false, "watch serviceaccounts": false}
	for _, e := range readAudit(t, dir) {
		if e.User.Username != pipeline.KubeControllerManagerUser || e.ObjectRef == nil || e.ResponseStatus == nil {
			continue
		}
		what := e.Verb + " " + e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			what += "/" + e.ObjectRef.Subresource
		}
		if e.ResponseStatus.Code == 403 && !(e.Verb == "create" && e.ObjectRef.Namespace == "dev") {
			t.Errorf("the audit log has %q in %q by %s refused: 403", what, e.ObjectRef.Namespace, pipeline.KubeControllerManagerUser)
		}
		if _, ok := seen[what]; ok && e.ResponseStatus.Code < 300 {
			seen[what] = true
		}
	}
	for what, ok := range seen {
		if !ok {
			t.Errorf("the audit log has no allowed %q by %s", what, pipeline.KubeControllerManagerUser)
		}
	}
}
