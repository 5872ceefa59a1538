// Package clienttest checks that a client.Interface behaves as the
// components expect: the same checks run against the Fake and against the
// HTTP client over the reference apiserver, so that a component tested on
// the fake behaves the same in a cluster.
package clienttest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
)

func pod(name string, labels map[string]string, node string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec:       api.PodSpec{NodeName: node, Containers: []api.Container{{Name: "app", Image: "busybox:1.36"}}},
	}
}

// Run runs the checks; newClient must return a client over an empty
// cluster each time it is called.
func Run(t *testing.T, newClient func(t *testing.T) client.Interface) {
	t.Run("create-get", func(t *testing.T) {
		ctx := context.Background()
		pods := client.For[*api.Pod](newClient(t))
		created, err := pods.Create(ctx, pod("web", map[string]string{"app": "web"}, ""))
		if err != nil {
			t.Fatalf("Create(web) = %v, want no error", err)
		}
		if created.UID == "" || created.ResourceVersion == "" || created.CreationTimestamp.IsZero() {
			t.Fatalf("Create(web) = uid %q, rv %q, created %v, want all three set", created.UID, created.ResourceVersion, created.CreationTimestamp)
		}
		got, err := pods.Get(ctx, "default", "web")
		if err != nil || got.UID != created.UID || got.ResourceVersion != created.ResourceVersion || got.Kind != "Pod" {
			t.Fatalf("Get(default/web) = %+v, %v, want the created pod", got.ObjectMeta, err)
		}
		if _, err := pods.Create(ctx, pod("web", nil, "")); !client.IsAlreadyExists(err) {
			t.Fatalf("Create(web) again = %v, want AlreadyExists", err)
		}
		withRV := pod("rv", nil, "")
		withRV.ResourceVersion = "1"
		if _, err := pods.Create(ctx, withRV); err == nil || err.Error() != "resourceVersion should not be set on objects to be created" {
			// k8s.io/apiserver/pkg/storage/etcd3/store.go Create.
			t.Fatalf("Create(rv with resourceVersion 1) = %v, want `resourceVersion should not be set on objects to be created`", err)
		}
		if _, err := pods.Get(ctx, "default", "nope"); !client.IsNotFound(err) || err.Error() != `pods "nope" not found` {
			t.Fatalf("Get(default/nope) = %v, want NotFound `pods \"nope\" not found`", err)
		}
	})

	t.Run("update-conflict-status", func(t *testing.T) {
		ctx := context.Background()
		pods := client.For[*api.Pod](newClient(t))
		created, err := pods.Create(ctx, pod("web", nil, ""))
		if err != nil {
			t.Fatal(err)
		}
		up := api.DeepCopy(created)
		up.Labels = map[string]string{"v": "2"}
		updated, err := pods.Update(ctx, up)
		if err != nil || updated.ResourceVersion == created.ResourceVersion || updated.Labels["v"] != "2" {
			t.Fatalf("Update(web) = rv %s labels %v, %v; want a new rv and v=2", updated.ResourceVersion, updated.Labels, err)
		}
		if _, err := pods.Update(ctx, created); !client.IsConflict(err) {
			t.Fatalf("Update(web) with a stale resourceVersion = %v, want Conflict", err)
		}
		st := api.DeepCopy(updated)
		st.Status.Phase = api.PodRunning
		st.Spec.Containers[0].Image = "ignored:1"
		after, err := pods.UpdateStatus(ctx, st)
		if err != nil || after.Status.Phase != api.PodRunning || after.Spec.Containers[0].Image != "busybox:1.36" {
			t.Fatalf("UpdateStatus(web) = phase %q image %q, %v; want Running and the image unchanged", after.Status.Phase, after.Spec.Containers[0].Image, err)
		}
	})

	t.Run("list-selectors-paging", func(t *testing.T) {
		ctx := context.Background()
		pods := client.For[*api.Pod](newClient(t))
		for _, p := range []*api.Pod{
			pod("a", map[string]string{"app": "web"}, "node-1"),
			pod("b", map[string]string{"app": "web"}, ""),
			pod("c", map[string]string{"app": "db"}, "node-1"),
		} {
			if _, err := pods.Create(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		check := func(opts client.ListOptions, want string) {
			t.Helper()
			items, l, err := pods.List(ctx, "default", opts)
			if err != nil {
				t.Fatalf("List(%+v) = %v", opts, err)
			}
			got := ""
			for _, p := range items {
				got += p.Name
			}
			if got != want || l.ResourceVersion == "" {
				t.Fatalf("List(%+v) = %q (rv %q), want %q and a resourceVersion", opts, got, l.ResourceVersion, want)
			}
		}
		check(client.ListOptions{}, "abc")
		check(client.ListOptions{LabelSelector: "app=web"}, "ab")
		check(client.ListOptions{FieldSelector: "spec.nodeName=node-1"}, "ac")
		check(client.ListOptions{FieldSelector: "spec.nodeName="}, "b")
		items, l, err := pods.List(ctx, "default", client.ListOptions{Limit: 2})
		if err != nil || len(items) != 2 || l.Continue == "" {
			t.Fatalf("List(limit 2) = %d items, continue %q, %v; want 2 and a continue token", len(items), l.Continue, err)
		}
		items, l, err = pods.List(ctx, "default", client.ListOptions{Limit: 2, Continue: l.Continue})
		if err != nil || len(items) != 1 || items[0].Name != "c" || l.Continue != "" {
			t.Fatalf("List(limit 2, continue) = %d items, continue %q, %v; want [c] and no token", len(items), l.Continue, err)
		}
	})

	t.Run("watch", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := client.For[*api.Pod](newClient(t))
		if _, err := c.Create(ctx, pod("old", nil, "")); err != nil {
			t.Fatal(err)
		}
		_, l, err := c.List(ctx, "default", client.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := c.Watch(ctx, "default", client.ListOptions{ResourceVersion: l.ResourceVersion})
		if err != nil {
			t.Fatalf("Watch(rv %s) = %v", l.ResourceVersion, err)
		}
		defer w.Stop()
		next := func(typ api.WatchEventType, name string) *api.Pod {
			t.Helper()
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					t.Fatalf("watch closed, want %s %s", typ, name)
				}
				p, _ := ev.Object.(*api.Pod)
				if ev.Type != typ || p == nil || p.Name != name {
					t.Fatalf("watch event %s %v, want %s %s", ev.Type, ev.Object, typ, name)
				}
				return p
			case <-ctx.Done():
				t.Fatalf("no watch event, want %s %s", typ, name)
			}
			return nil
		}
		created, err := c.Create(ctx, pod("web", nil, ""))
		if err != nil {
			t.Fatal(err)
		}
		if p := next(api.WatchAdded, "web"); p.ResourceVersion != created.ResourceVersion {
			t.Fatalf("ADDED web rv %s, want %s", p.ResourceVersion, created.ResourceVersion)
		}
		if err := c.Delete(ctx, "default", "web", client.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		next(api.WatchDeleted, "web")
	})

	// An update that changes nothing writes nothing: the same
	// resourceVersion back and no event for the watchers (GuaranteedUpdate
	// in k8s.io/apiserver's storage/etcd3/store.go compares the bytes). A
	// controller that writes its status at every sync must not wake
	// itself, nor every other watcher, with each write.
	t.Run("update-nothing-changed", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := client.For[*api.Pod](newClient(t))
		created, err := c.Create(ctx, pod("web", map[string]string{"app": "web"}, ""))
		if err != nil {
			t.Fatal(err)
		}
		w, err := c.Watch(ctx, "default", client.ListOptions{ResourceVersion: created.ResourceVersion})
		if err != nil {
			t.Fatalf("Watch(rv %s) = %v", created.ResourceVersion, err)
		}
		defer w.Stop()
		same, err := c.Update(ctx, api.DeepCopy(created))
		if err != nil || same.ResourceVersion != created.ResourceVersion {
			t.Fatalf("Update(web unchanged) = rv %v, %v; want rv %s again", rvOf(same), err, created.ResourceVersion)
		}
		same, err = c.UpdateStatus(ctx, api.DeepCopy(created))
		if err != nil || same.ResourceVersion != created.ResourceVersion {
			t.Fatalf("UpdateStatus(web unchanged) = rv %v, %v; want rv %s again", rvOf(same), err, created.ResourceVersion)
		}
		changed := api.DeepCopy(created)
		changed.Status.Phase = api.PodRunning
		after, err := c.UpdateStatus(ctx, changed)
		if err != nil || after.ResourceVersion == created.ResourceVersion {
			t.Fatalf("UpdateStatus(web Running) = rv %v, %v; want a new rv", rvOf(after), err)
		}
		// The first event is the change: the two writes before it made none.
		select {
		case ev := <-w.ResultChan():
			p, _ := ev.Object.(*api.Pod)
			if ev.Type != api.WatchModified || p == nil || p.ResourceVersion != after.ResourceVersion {
				t.Fatalf("first watch event after two unchanged updates and one change = %s %v, want MODIFIED web rv %s (an unchanged update makes no event)", ev.Type, ev.Object, after.ResourceVersion)
			}
		case <-ctx.Done():
			t.Fatalf("no watch event, want MODIFIED web rv %s", after.ResourceVersion)
		}
	})

	t.Run("bind-delete", func(t *testing.T) {
		ctx := context.Background()
		cl := newClient(t)
		pods := client.For[*api.Pod](cl)
		created, err := pods.Create(ctx, pod("web", nil, ""))
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.Bind(ctx, "default", "web", "node-1"); err != nil {
			t.Fatalf("Bind(web, node-1) = %v", err)
		}
		got, _ := pods.Get(ctx, "default", "web")
		if got.Spec.NodeName != "node-1" {
			t.Fatalf("after Bind: nodeName %q, want node-1", got.Spec.NodeName)
		}
		if err := cl.Bind(ctx, "default", "web", "node-2"); !client.IsConflict(err) {
			t.Fatalf("Bind(web, node-2) again = %v, want Conflict", err)
		}
		wrong := api.UID("wrong")
		if err := pods.Delete(ctx, "default", "web", client.DeleteOptions{Preconditions: &api.Preconditions{UID: &wrong}}); !client.IsConflict(err) {
			t.Fatalf("Delete with a wrong uid precondition = %v, want Conflict", err)
		}
		// A bound pod is deleted gracefully.
		if err := pods.Delete(ctx, "default", "web", client.DeleteOptions{Preconditions: &api.Preconditions{UID: &created.UID}}); err != nil {
			t.Fatalf("Delete(web) = %v", err)
		}
		got, err = pods.Get(ctx, "default", "web")
		if err != nil || got.DeletionTimestamp == nil {
			t.Fatalf("after Delete of a bound pod: %v, deletionTimestamp %v; want it marked, not gone", err, got)
		}
		zero := int64(0)
		if err := pods.Delete(ctx, "default", "web", client.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			t.Fatalf("Delete(web, grace 0) = %v", err)
		}
		if _, err := pods.Get(ctx, "default", "web"); !client.IsNotFound(err) {
			t.Fatalf("Get after Delete(grace 0) = %v, want NotFound", err)
		}
		// Finalizers hold an object until they are removed.
		cms := client.For[*api.ConfigMap](cl)
		cm, err := cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "held", Namespace: "default", Finalizers: []string{"example.com/hold"}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := cms.Delete(ctx, "default", "held", client.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		cm, err = cms.Get(ctx, "default", "held")
		if err != nil || cm.DeletionTimestamp == nil {
			t.Fatalf("after Delete with a finalizer: %v, %v; want it kept with a deletionTimestamp", cm, err)
		}
		cm.Finalizers = nil
		if _, err := cms.Update(ctx, cm); err != nil {
			t.Fatal(err)
		}
		if _, err := cms.Get(ctx, "default", "held"); !client.IsNotFound(err) {
			t.Fatalf("Get after the last finalizer went = %v, want NotFound", err)
		}
	})

	// A namespace is deleted in two steps, as upstream's namespace
	// registry does (pkg/registry/core/namespace/strategy.go and
	// storage/storage.go): the namespace controller empties it between
	// them.
	t.Run("namespace-delete-finalize", func(t *testing.T) {
		ctx := context.Background()
		cl := newClient(t)
		nss := client.For[*api.Namespace](cl)
		created, err := nss.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "dev"}})
		if err != nil {
			t.Fatalf("Create(namespace dev) = %v", err)
		}
		if created.Status.Phase != api.NamespaceActive || !slices.Equal(created.Spec.Finalizers, []api.FinalizerName{api.FinalizerKubernetes}) {
			t.Fatalf("Create(namespace dev) = phase %q, spec.finalizers %q; want Active and [kubernetes]", created.Status.Phase, created.Spec.Finalizers)
		}
		// An update of the namespace cannot drop the finalizer.
		created.Spec.Finalizers = nil
		created.Labels = map[string]string{"team": "a"}
		updated, err := nss.Update(ctx, created)
		if err != nil || !slices.Equal(updated.Spec.Finalizers, []api.FinalizerName{api.FinalizerKubernetes}) || updated.Labels["team"] != "a" {
			t.Fatalf("Update(namespace dev, no spec.finalizers, label team=a) = %v, %v; want the label and spec.finalizers still [kubernetes]", updated, err)
		}
		for i := 1; i <= 2; i++ {
			if err := nss.Delete(ctx, "", "dev", client.DeleteOptions{}); err != nil {
				t.Fatalf("Delete(namespace dev) #%d = %v", i, err)
			}
			got, err := nss.Get(ctx, "", "dev")
			if err != nil || got.DeletionTimestamp == nil || got.Status.Phase != api.NamespaceTerminating {
				t.Fatalf("Get(namespace dev) after Delete #%d = %v, %v; want it kept, Terminating, with a deletionTimestamp", i, got, err)
			}
		}
		got, _ := nss.Get(ctx, "", "dev")
		got.Spec.Finalizers = []api.FinalizerName{"example.com/x"}
		fin, err := cl.Finalize(ctx, got)
		if err != nil || !slices.Equal(fin.Spec.Finalizers, []api.FinalizerName{"example.com/x"}) || fin.Status.Phase != api.NamespaceTerminating {
			t.Fatalf("Finalize(dev, [example.com/x]) = %v, %v; want spec.finalizers [example.com/x], still Terminating", fin, err)
		}
		fin.Spec.Finalizers = nil
		if _, err := cl.Finalize(ctx, fin); err != nil {
			t.Fatalf("Finalize(dev, []) = %v", err)
		}
		if _, err := nss.Get(ctx, "", "dev"); !client.IsNotFound(err) {
			t.Fatalf("Get(namespace dev) after Finalize(dev, []) = %v, want NotFound: nothing holds it", err)
		}
		// A namespace not being deleted stays when finalized.
		if _, err := nss.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "prod"}}); err != nil {
			t.Fatal(err)
		}
		prod, _ := nss.Get(ctx, "", "prod")
		prod.Spec.Finalizers = nil
		if _, err := cl.Finalize(ctx, prod); err != nil {
			t.Fatalf("Finalize(prod, []) = %v", err)
		}
		if got, err := nss.Get(ctx, "", "prod"); err != nil || len(got.Spec.Finalizers) != 0 || got.DeletionTimestamp != nil {
			t.Fatalf("Get(namespace prod) after Finalize(prod, []) = %v, %v; want it kept with no spec.finalizers", got, err)
		}
	})
}

// rvOf is p's resourceVersion, or "none" for nil.
func rvOf(p *api.Pod) string {
	if p == nil {
		return "none"
	}
	return p.ResourceVersion
}
