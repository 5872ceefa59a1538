package cluster

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/replicas"
	reconcile "github.com/kubekata/kubekata/solutions/01-reconcile"
	replicaset "github.com/kubekata/kubekata/solutions/07-replicaset"
	garbagecollector "github.com/kubekata/kubekata/solutions/08-garbagecollector"
)

// The controller manager as the cluster program wires it with exercises
// 07 and 08 (program.Wiring.ReplicaSet and GC): the reference
// ReplicaSet controller and garbage collector, each through
// NewController, run as kube-controller-manager in a cluster with the
// pipeline, and a ReplicaSet deleted with each propagation policy ends
// as upstream's (pkg/controller/garbagecollector/garbagecollector.go):
// in the background its pods go; in the foreground it stays, with its
// deletionTimestamp and the foregroundDeletion finalizer, while a pod is
// held, then goes once the pod is; with Orphan it goes and its pods
// stay without its owner reference. Another ReplicaSet's pods stay
// throughout, and the collector's calls are allowed by the bootstrap
// policy (system:controller:generic-garbage-collector, which the kata's
// system:kube-controller-manager carries).
func TestRunGarbageCollectorCascades(t *testing.T) {
	parts := gatedParts
	parts.Controllers = func(c client.Interface) Component {
		return ControllerManager{
			NewController(replicas.ControllerName, "solutions/07-replicaset", func() Component {
				return replicaset.New(c, replicas.Options{Plan: reconcile.Plan})
			}),
			NewController(gc.ControllerName, "solutions/08-garbagecollector", func() Component {
				return garbagecollector.New(c, gc.Options{})
			}),
		}
	}
	parts.ControllersFrom = "solutions/07-replicaset"
	dir := t.TempDir()
	out := newLines()
	stop, done := runInBackground(t, parts, Options{DataDir: dir, Stdout: out})
	out.waitLine(t, "export KUBECONFIG=", done)
	a := creds(t, dir, "admin")
	admin := client.New(a.URL, a.Client)
	ctx := context.Background()

	// waitFor polls cond every 20ms for 30s, failing with what it last
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
	// pods are the names of the pods labelled app=name, sorted, and of
	// their owner references.
	pods := func(name string) (names, owners []string) {
		t.Helper()
		l, err := admin.List(ctx, podKind, "default", client.ListOptions{LabelSelector: "app=" + name})
		if err != nil {
			t.Fatalf("admin: List(pods app=%s) = %v", name, err)
		}
		for _, o := range l.Items {
			m := o.GetObjectMeta()
			names = append(names, m.Name)
			for _, r := range m.OwnerReferences {
				owners = append(owners, r.Kind+"/"+r.Name)
			}
		}
		slices.Sort(names)
		return names, owners
	}
	two := int32(2)
	create := func(name string) {
		t.Helper()
		spec := api.PodSpec{SchedulerName: "nobody", Containers: []api.Container{{Name: "web", Image: "kata/http-echo:v1"}}}
		rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
			Spec: api.ReplicaSetSpec{Replicas: &two, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}}, Spec: spec}}}
		if _, err := admin.Create(ctx, rs); err != nil {
			t.Fatalf("admin: Create(replicaset %s) = %v", name, err)
		}
		waitFor("replicaset "+name+" owns 2 pods", func() (bool, string) {
			names, owners := pods(name)
			return len(names) == 2 && len(owners) == 2, fmt.Sprintf("pods %v, owners %v", names, owners)
		})
	}
	del := func(name string, policy api.DeletionPropagation) {
		t.Helper()
		if err := admin.Delete(ctx, rsKind, "default", name, client.DeleteOptions{PropagationPolicy: &policy}); err != nil {
			t.Fatalf("admin: Delete(replicaset %s, propagationPolicy %s) = %v", name, policy, err)
		}
	}
	gone := func(name string) func() (bool, string) {
		return func() (bool, string) {
			o, err := admin.Get(ctx, rsKind, "default", name)
			if client.IsNotFound(err) {
				return true, ""
			}
			return false, fmt.Sprintf("Get(replicaset %s) = %v, %v", name, o, err)
		}
	}

	create("other")
	others, _ := pods("other")

	// Background: the ReplicaSet goes at once, then its pods.
	create("bg")
	del("bg", api.DeletePropagationBackground)
	waitFor("pods of replicaset bg deleted in the background are gone", func() (bool, string) {
		names, _ := pods("bg")
		return len(names) == 0, fmt.Sprintf("pods %v", names)
	})

	// Foreground: one pod held by a finalizer holds the ReplicaSet.
	create("fg")
	names, _ := pods("fg")
	held, err := admin.Get(ctx, podKind, "default", names[0])
	if err != nil {
		t.Fatalf("admin: Get(pod %s) = %v", names[0], err)
	}
	held = api.DeepCopy(held)
	held.GetObjectMeta().Finalizers = []string{"kata.example.com/hold"}
	if _, err := admin.Update(ctx, held); err != nil {
		t.Fatalf("admin: Update(pod %s, a finalizer) = %v", names[0], err)
	}
	del("fg", api.DeletePropagationForeground)
	waitFor("replicaset fg deleted in the foreground keeps only its held pod "+names[0], func() (bool, string) {
		now, _ := pods("fg")
		p, err := admin.Get(ctx, podKind, "default", names[0])
		if err != nil {
			return false, fmt.Sprintf("pods %v; Get(pod %s) = %v", now, names[0], err)
		}
		return slices.Equal(now, names[:1]) && p.GetObjectMeta().DeletionTimestamp != nil,
			fmt.Sprintf("pods %v; pod %s deletionTimestamp %v", now, names[0], p.GetObjectMeta().DeletionTimestamp)
	})
	o, err := admin.Get(ctx, rsKind, "default", "fg")
	if err != nil {
		t.Fatalf("admin: Get(replicaset fg) while its pod %s is held = %v, want it there until the pod is gone", names[0], err)
	}
	if m := o.GetObjectMeta(); m.DeletionTimestamp == nil || !slices.Contains(m.Finalizers, api.FinalizerDeleteDependents) {
		t.Errorf("replicaset fg while its pod is held: deletionTimestamp %v, finalizers %v; want a deletionTimestamp and %q",
			m.DeletionTimestamp, m.Finalizers, api.FinalizerDeleteDependents)
	}
	for try := 1; ; try++ {
		p, err := admin.Get(ctx, podKind, "default", names[0])
		if err != nil {
			t.Fatalf("admin: Get(pod %s) = %v", names[0], err)
		}
		p = api.DeepCopy(p)
		p.GetObjectMeta().Finalizers = nil
		if _, err = admin.Update(ctx, p); err == nil {
			break
		}
		if !client.IsConflict(err) || try == 10 {
			t.Fatalf("admin: Update(pod %s, no finalizer), try %d = %v", names[0], try, err)
		}
	}
	waitFor("replicaset fg is gone once its held pod is", gone("fg"))
	if now, _ := pods("fg"); len(now) != 0 {
		t.Errorf("pods of replicaset fg after it went: %v, want none", now)
	}

	// Orphan: the ReplicaSet goes, its pods stay without its reference.
	create("orphan")
	names, _ = pods("orphan")
	del("orphan", api.DeletePropagationOrphan)
	waitFor("replicaset orphan deleted with Orphan is gone", gone("orphan"))
	now, owners := pods("orphan")
	if !slices.Equal(now, names) || len(owners) != 0 {
		t.Errorf("pods of replicaset orphan after it went: %v with owners %v, want %v with none", now, owners, names)
	}

	if now, owners := pods("other"); !slices.Equal(now, others) || len(owners) != 2 {
		t.Errorf("pods of replicaset other after the others' deletions: %v with owners %v, want %v, each owned by it", now, owners, others)
	}
	if err := stop(); err != nil {
		t.Fatalf("stopping the cluster: %v", err)
	}
	// The collector deleted and updated as kube-controller-manager, never
	// refused.
	want := map[string]bool{"delete pods": false, "update pods": false, "update replicasets": false}
	for _, e := range readAudit(t, dir) {
		if e.User.Username != pipeline.KubeControllerManagerUser || e.ObjectRef == nil || e.ResponseStatus == nil || e.ObjectRef.Subresource != "" {
			continue
		}
		what := e.Verb + " " + e.ObjectRef.Resource
		if e.ResponseStatus.Code == 403 {
			t.Errorf("the audit log has %q by %s refused: 403", what, pipeline.KubeControllerManagerUser)
		}
		if _, ok := want[what]; ok && e.ResponseStatus.Code < 300 {
			want[what] = true
		}
	}
	for what, seen := range want {
		if !seen {
			t.Errorf("the audit log has no allowed %q by %s", what, pipeline.KubeControllerManagerUser)
		}
	}
}
