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
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/rollout"
	reconcile "github.com/kubekata/kubekata/solutions/01-reconcile"
	replicaset "github.com/kubekata/kubekata/solutions/07-replicaset"
	garbagecollector "github.com/kubekata/kubekata/solutions/08-garbagecollector"
	deployment "github.com/kubekata/kubekata/solutions/09-deployment"
)

// The controller manager as the cluster program wires it with exercises
// 07 to 09 (program.Wiring.ReplicaSet, GC and Deployment): the reference
// ReplicaSet controller, garbage collector and Deployment controller,
// each through NewController, run as kube-controller-manager in a
// cluster with the pipeline. A Deployment of 4 gets its ReplicaSet
// web-HASH, HASH its template's (rollout.TemplateHash; upstream's
// getNewReplicaSet in pkg/controller/deployment/sync.go), at revision 1,
// whose controller makes its 4 pods. There is no kubelet: the test plays
// its part and marks each pod Ready (a status update, as the kubelet's
// status manager writes it), so that pods become available. A new image
// rolls out to a second ReplicaSet at revision 2 with the first scaled to
// 0 (rolling.go), the Deployment's status says so (progress.go,
// NewReplicaSetAvailable) with ScalingReplicaSet Events from
// deployment-controller, and deleting the Deployment in the background
// takes its ReplicaSets and their pods (the garbage collector). Every
// call of the controllers is allowed by the bootstrap policy
// (system:controller:deployment-controller, which the kata's
// system:kube-controller-manager carries).
func TestRunDeploymentRollsOut(t *testing.T) {
	parts := gatedParts
	parts.Controllers = func(c client.Interface) Component {
		return ControllerManager{
			NewController(replicas.ControllerName, "solutions/07-replicaset", func() Component {
				return replicaset.New(c, replicas.Options{Plan: reconcile.Plan})
			}),
			NewController(gc.ControllerName, "solutions/08-garbagecollector", func() Component {
				return garbagecollector.New(c, gc.Options{})
			}),
			NewController(rollout.ControllerName, "solutions/09-deployment", func() Component {
				return deployment.New(c, rollout.Options{})
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
	deployments := client.For[*api.Deployment](admin)
	replicaSets := client.For[*api.ReplicaSet](admin)
	pods := client.For[*api.Pod](admin)
	ctx := context.Background()

	// ready plays the kubelet: every pod of the Deployment without a
	// Ready condition True gets one. A conflict (the ReplicaSet
	// controller or the collector wrote the pod meanwhile) is left to
	// the next call.
	ready := func() {
		t.Helper()
		l, _, err := pods.List(ctx, "default", client.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			t.Fatalf("admin: List(pods app=web) = %v", err)
		}
		for _, p := range l {
			if p.DeletionTimestamp != nil || slices.ContainsFunc(p.Status.Conditions, func(c api.PodCondition) bool {
				return c.Type == api.PodReady && c.Status == api.ConditionTrue
			}) {
				continue
			}
			p = api.DeepCopy(p)
			p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue,
				LastTransitionTime: api.NewTime(time.Now().UTC().Truncate(time.Second))})
			if _, err := pods.UpdateStatus(ctx, p); err != nil && !client.IsConflict(err) && !client.IsNotFound(err) {
				t.Fatalf("admin: UpdateStatus(pod %s, Ready) = %v", p.Name, err)
			}
		}
	}
	// waitFor calls ready, then checks cond, every 20ms for 30s, failing
	// with what cond last said; the cluster stopping fails at once.
	waitFor := func(what string, cond func() (bool, string)) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			ready()
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
	// rollout describes the Deployment's ReplicaSets ("web-x 4/4 rev 1",
	// sorted by name, with "(not web's)" for one it does not control)
	// and its revision and status.
	type state struct {
		rs       map[string]*api.ReplicaSet
		desc     string
		revision string
		status   api.DeploymentStatus
		gen      int64
	}
	observe := func() state {
		t.Helper()
		d, err := deployments.Get(ctx, "default", "web")
		if err != nil {
			t.Fatalf("admin: Get(deployment web) = %v", err)
		}
		l, _, err := replicaSets.List(ctx, "default", client.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			t.Fatalf("admin: List(replicasets app=web) = %v", err)
		}
		s := state{rs: map[string]*api.ReplicaSet{}, revision: d.Annotations[api.RevisionAnnotation], status: d.Status, gen: d.Generation}
		var descs []string
		for _, rs := range l {
			s.rs[rs.Name] = rs
			desc := fmt.Sprintf("%s %d/%d rev %s", rs.Name, rs.Status.AvailableReplicas, *rs.Spec.Replicas, rs.Annotations[api.RevisionAnnotation])
			if ref := api.GetControllerOf(rs); ref == nil || ref.Kind != "Deployment" || ref.UID != d.UID {
				desc += " (not web's)"
			}
			descs = append(descs, desc)
		}
		slices.Sort(descs)
		progressing := ""
		for _, c := range d.Status.Conditions {
			if c.Type == api.DeploymentProgressing {
				progressing = string(c.Status) + " " + c.Reason
			}
		}
		s.desc = fmt.Sprintf("replicasets [%s], deployment revision %q, generation %d, status replicas %d updated %d available %d observedGeneration %d, Progressing %s",
			strings.Join(descs, ", "), s.revision, d.Generation, d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas, d.Status.ObservedGeneration, progressing)
		return s
	}
	// rolledOut: the Deployment's only ReplicaSet with replicas is name,
	// at revision rev with its 4 pods available, every other one at 0,
	// and the Deployment's status says the rollout is complete.
	rolledOut := func(name, rev string) func() (bool, string) {
		return func() (bool, string) {
			s := observe()
			for n, rs := range s.rs {
				want := int32(0)
				if n == name {
					want = 4
					if rs.Status.AvailableReplicas != 4 || rs.Annotations[api.RevisionAnnotation] != rev {
						return false, s.desc
					}
				}
				if *rs.Spec.Replicas != want {
					return false, s.desc
				}
			}
			complete := slices.ContainsFunc(s.status.Conditions, func(c api.DeploymentCondition) bool {
				return c.Type == api.DeploymentProgressing && c.Status == api.ConditionTrue && c.Reason == api.NewRSAvailableReason
			})
			return s.rs[name] != nil && s.revision == rev && s.status.ObservedGeneration == s.gen && s.status.Replicas == 4 &&
				s.status.UpdatedReplicas == 4 && s.status.AvailableReplicas == 4 && complete, s.desc
		}
	}

	four := int32(4)
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.DeploymentSpec{Replicas: &four, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "kata/http-echo:v1"}}}}}}
	if _, err := deployments.Create(ctx, d); err != nil {
		t.Fatalf("admin: Create(deployment web) = %v", err)
	}
	first := "web-" + rollout.TemplateHash(d.Spec.Template, nil)
	waitFor("deployment web rolled out to "+first, rolledOut(first, "1"))
	owned := func(rs string) func() (bool, string) {
		return func() (bool, string) {
			l, _, err := pods.List(ctx, "default", client.ListOptions{LabelSelector: "app=web"})
			if err != nil {
				return false, err.Error()
			}
			var got []string
			for _, p := range l {
				if ref := api.GetControllerOf(p); ref != nil {
					got = append(got, ref.Name)
				}
			}
			return len(got) == 4 && slices.Equal(slices.Compact(got), []string{rs}), fmt.Sprintf("the pods' controllers: %v", got)
		}
	}
	waitFor("deployment web's 4 pods controlled by "+first, owned(first))

	// A new image: a new template, so a new ReplicaSet at revision 2,
	// and the first scaled to 0.
	for try := 1; ; try++ {
		cur, err := deployments.Get(ctx, "default", "web")
		if err != nil {
			t.Fatalf("admin: Get(deployment web) = %v", err)
		}
		cur = api.DeepCopy(cur)
		cur.Spec.Template.Spec.Containers[0].Image = "kata/http-echo:v2"
		if d, err = deployments.Update(ctx, cur); err == nil {
			break
		}
		if !client.IsConflict(err) || try == 10 {
			t.Fatalf("admin: Update(deployment web, image kata/http-echo:v2), try %d = %v", try, err)
		}
	}
	second := "web-" + rollout.TemplateHash(d.Spec.Template, nil)
	if second == first {
		t.Fatalf("rollout.TemplateHash gives the templates of kata/http-echo:v1 and v2 the same hash %q", first)
	}
	waitFor("deployment web rolled out to "+second, rolledOut(second, "2"))
	waitFor("deployment web's 4 pods controlled by "+second, owned(second))
	if s := observe(); s.rs[first] == nil {
		t.Errorf("after the rollout to %s: %s; want %s kept at 0 (revisionHistoryLimit 10)", second, s.desc, first)
	}

	// The controller said what it scaled, as deployment-controller.
	evs, _, err := client.For[*api.Event](admin).List(ctx, "default", client.ListOptions{})
	if err != nil {
		t.Fatalf("admin: List(events) = %v", err)
	}
	var scaled []string
	for _, e := range evs {
		if e.InvolvedObject.Kind == "Deployment" && e.InvolvedObject.Name == "web" && e.Reason == rollout.ScalingReplicaSet && e.Source.Component == rollout.ControllerName {
			scaled = append(scaled, e.Message)
		}
	}
	for _, want := range []string{"Scaled up replica set " + first + " from 0 to 4", "Scaled up replica set " + second + " from ", "Scaled down replica set " + first + " from "} {
		if !slices.ContainsFunc(scaled, func(m string) bool { return strings.HasPrefix(m, want) }) {
			t.Errorf("the ScalingReplicaSet Events of deployment web from %s: %q; want one that starts %q", rollout.ControllerName, scaled, want)
		}
	}

	// Deleted in the background, the Deployment takes its ReplicaSets
	// and their pods with it.
	bg := api.DeletePropagationBackground
	if err := deployments.Delete(ctx, "default", "web", client.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		t.Fatalf("admin: Delete(deployment web, propagationPolicy Background) = %v", err)
	}
	waitFor("the ReplicaSets and pods of deployment web, deleted in the background, are gone", func() (bool, string) {
		rss, _, err := replicaSets.List(ctx, "default", client.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err.Error()
		}
		ps, _, err := pods.List(ctx, "default", client.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err.Error()
		}
		return len(rss) == 0 && len(ps) == 0, fmt.Sprintf("%d replicasets, %d pods", len(rss), len(ps))
	})

	if err := stop(); err != nil {
		t.Fatalf("stopping the cluster: %v", err)
	}
	// The Deployment controller created, scaled and deleted as
	// kube-controller-manager, never refused.
	want := map[string]bool{"create replicasets": false, "update replicasets": false, "update deployments/status": false, "create events": false}
	for _, e := range readAudit(t, dir) {
		if e.User.Username != pipeline.KubeControllerManagerUser || e.ObjectRef == nil || e.ResponseStatus == nil {
			continue
		}
		what := e.Verb + " " + e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			what += "/" + e.ObjectRef.Subresource
		}
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
