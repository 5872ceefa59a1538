package rollouttest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/suite"
)

// The objects the steps build by hand. Every builder returns a fresh
// object, so that a step may change what it got; loop.go uses them too.

// testNamespace is the namespace of every object unless a case says
// otherwise.
const testNamespace = "default"

// t0 is the time every pure step counts from: whole seconds, UTC, so that
// a time written in a case survives the API's second precision.
var t0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

// at is t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// since prints a time relative to t0 for failure messages: "t0+10s".
func since(t time.Time) string {
	if t.IsZero() {
		return "zero"
	}
	d := t.Sub(t0)
	if d < 0 {
		return "t0" + d.String()
	}
	return "t0+" + d.String()
}

// int32p is a pointer to n.
func int32p(n int32) *int32 { return &n }

// intOrStr is a pointer to "25%" or 3 as the string says.
func intOrStr(s string) *api.IntOrString {
	v := api.ParseIntOrString(s)
	return &v
}

// newDeployment returns Deployment name in namespace default, defaulted
// (rollout.WithDefaults): uid "uid-<name>", generation 1, created at t0,
// spec.replicas n, selector matchLabels app=<name>, a template with
// labels app=<name> and one container "app" running image. Its status is
// empty.
func newDeployment(name string, n int32, image string) api.Deployment {
	d := api.Deployment{
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: testNamespace, UID: api.UID("uid-" + name), Generation: 1,
			CreationTimestamp: api.NewTime(t0),
		},
		Spec: api.DeploymentSpec{
			Replicas: &n,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: templateFor(name, image),
		},
	}
	return rollout.WithDefaults(d)
}

// withStrategy sets d's strategy: "Recreate", or maxSurge and
// maxUnavailable such as "25%" or "1" for a RollingUpdate.
func withStrategy(d api.Deployment, typ api.DeploymentStrategyType, surge, unavailable string) api.Deployment {
	d.Spec.Strategy = api.DeploymentStrategy{Type: typ}
	if typ == api.RollingUpdateDeploymentStrategyType {
		d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intOrStr(surge), MaxUnavailable: intOrStr(unavailable)}
	}
	return d
}

// templateFor is the pod template of app name running image.
func templateFor(name, image string) api.PodTemplateSpec {
	return api.PodTemplateSpec{
		ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: image}}},
	}
}

// controllerRef is a controller owner reference to d with
// blockOwnerDeletion, as upstream's NewControllerRef makes it.
func controllerRef(d api.Deployment) api.OwnerReference {
	yes := true
	return api.OwnerReference{
		APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID,
		Controller: &yes, BlockOwnerDeletion: &yes,
	}
}

// rsSpec describes one ReplicaSet of a Deployment for ownedRS.
type rsSpec struct {
	image     string        // its template's image
	revision  int           // its revision annotation; 0: none
	replicas  int32         // spec.replicas
	actual    int32         // status.replicas; -1: the same as replicas
	available int32         // status.readyReplicas and availableReplicas
	created   time.Duration // creationTimestamp: t0 plus this
}

// ownedRS returns the ReplicaSet d would have made for the template of d
// with image s.image: named d.Name-<hash>, the pod-template-hash label
// on it, its selector and its template, a controller reference to d,
// uid "uid-<name>", generation 1 observed, the revision annotation (when
// s.revision is above 0) and the desired-replicas and max-replicas
// annotations of d as it is (spec.replicas, and spec.replicas + surge
// for a RollingUpdate Deployment with a numeric maxSurge; the cases that
// need a percentage set the annotation themselves).
func ownedRS(d api.Deployment, s rsSpec) api.ReplicaSet {
	tmpl := templateFor(d.Name, s.image)
	// The template as the Deployment has it: its labels, not app=<name>
	// only, when the case changed them.
	if d.Spec.Template.Spec.Containers != nil && d.Spec.Template.Spec.Containers[0].Image == s.image {
		tmpl = *deepCopyTemplate(d.Spec.Template)
	}
	hash := rollout.TemplateHash(tmpl, d.Status.CollisionCount)
	tmpl.Labels = withLabel(tmpl.Labels, api.DefaultDeploymentUniqueLabelKey, hash)
	sel := &api.LabelSelector{MatchLabels: withLabel(d.Spec.Selector.MatchLabels, api.DefaultDeploymentUniqueLabelKey, hash)}
	name := d.Name + "-" + hash
	actual := s.actual
	if actual < 0 {
		actual = s.replicas
	}
	ann := map[string]string{api.DesiredReplicasAnnotation: strconv.Itoa(int(*d.Spec.Replicas))}
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil && ru.MaxSurge != nil && ru.MaxSurge.Type == api.Int {
		ann[api.MaxReplicasAnnotation] = strconv.Itoa(int(*d.Spec.Replicas + ru.MaxSurge.IntVal))
	} else if d.Spec.Strategy.Type == api.RecreateDeploymentStrategyType {
		ann[api.MaxReplicasAnnotation] = strconv.Itoa(int(*d.Spec.Replicas))
	}
	if s.revision > 0 {
		ann[api.RevisionAnnotation] = strconv.Itoa(s.revision)
	}
	return api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: d.Namespace, UID: api.UID("uid-" + name), Generation: 1,
			ResourceVersion:   "1",
			CreationTimestamp: api.NewTime(at(s.created)),
			Labels:            withLabel(d.Spec.Template.Labels, api.DefaultDeploymentUniqueLabelKey, hash),
			Annotations:       ann,
			OwnerReferences:   []api.OwnerReference{controllerRef(d)},
		},
		Spec: api.ReplicaSetSpec{
			Replicas:        int32p(s.replicas),
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        sel,
			Template:        tmpl,
		},
		Status: api.ReplicaSetStatus{
			Replicas: actual, FullyLabeledReplicas: actual,
			ReadyReplicas: s.available, AvailableReplicas: s.available,
			ObservedGeneration: 1,
		},
	}
}

// deepCopyTemplate copies a template through JSON.
func deepCopyTemplate(t api.PodTemplateSpec) *api.PodTemplateSpec {
	data, err := json.Marshal(t)
	if err != nil {
		panic(fmt.Sprintf("rollouttest: copying a template: %v", err))
	}
	var out api.PodTemplateSpec
	if err := json.Unmarshal(data, &out); err != nil {
		panic(fmt.Sprintf("rollouttest: copying a template: %v", err))
	}
	return &out
}

// withLabel is a copy of labels with key=value added.
func withLabel(labels map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	for k, v := range labels {
		out[k] = v
	}
	out[key] = value
	return out
}

// podOf returns pod name controlled by rs, with rs's template labels, in
// phase phase.
func podOf(rs api.ReplicaSet, name string, phase api.PodPhase) api.Pod {
	yes := true
	return api.Pod{
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: rs.Namespace, UID: api.UID("uid-" + name),
			Labels: withLabel(rs.Spec.Template.Labels, api.DefaultDeploymentUniqueLabelKey, rs.Spec.Template.Labels[api.DefaultDeploymentUniqueLabelKey]),
			OwnerReferences: []api.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
				Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		},
		Spec:   rs.Spec.Template.Spec,
		Status: api.PodStatus{Phase: phase},
	}
}

// describePlan prints a plan for failure messages, one write a part:
//
//	create web-5d4f8 (replicas 3, revision "2"); update [web-7c9b6 replicas 3→2]; delete [web-1]; revision "2"; status {...}; events [Normal ScalingReplicaSet "..."]; requeue 10m1s
func describePlan(p rollout.Plan) string {
	if p.IsZero() {
		return "nothing"
	}
	var parts []string
	if rs := p.Create; rs != nil {
		parts = append(parts, fmt.Sprintf("create %s (replicas %s, revision %q)", rs.Name, replicasOf(rs.Spec.Replicas), rs.Annotations[api.RevisionAnnotation]))
	}
	if len(p.Update) > 0 {
		var us []string
		for _, rs := range p.Update {
			us = append(us, fmt.Sprintf("%s replicas %s", rs.Name, replicasOf(rs.Spec.Replicas)))
		}
		parts = append(parts, "update ["+strings.Join(us, ", ")+"]")
	}
	if len(p.Delete) > 0 {
		parts = append(parts, "delete ["+strings.Join(p.Delete, " ")+"]")
	}
	if p.Revision != "" {
		parts = append(parts, fmt.Sprintf("revision %q", p.Revision))
	}
	if p.Status != nil {
		parts = append(parts, "status "+describeStatus(*p.Status))
	}
	if len(p.Events) > 0 {
		var es []string
		for _, e := range p.Events {
			es = append(es, fmt.Sprintf("%s %s %q", e.Type, e.Reason, e.Message))
		}
		parts = append(parts, "events ["+strings.Join(es, ", ")+"]")
	}
	if p.RequeueAfter > 0 {
		parts = append(parts, "requeue "+p.RequeueAfter.String())
	}
	return strings.Join(parts, "; ")
}

func replicasOf(n *int32) string {
	if n == nil {
		return "nil"
	}
	return strconv.Itoa(int(*n))
}

// describeStatus prints a Deployment status for failure messages.
func describeStatus(s api.DeploymentStatus) string {
	var conds []string
	for _, c := range s.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s %s %q (updated %s, transition %s)", c.Type, c.Status, c.Reason, c.Message,
			since(c.LastUpdateTime.Time), since(c.LastTransitionTime.Time)))
	}
	cc := "nil"
	if s.CollisionCount != nil {
		cc = strconv.Itoa(int(*s.CollisionCount))
	}
	return fmt.Sprintf("{observedGeneration %d, replicas %d, updated %d, ready %d, available %d, unavailable %d, collisionCount %s, conditions [%s]}",
		s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas, s.UnavailableReplicas, cc, strings.Join(conds, "; "))
}

// describeInput prints what a case gives Plan, for failure messages:
// the Deployment's replicas, strategy and status, and each ReplicaSet's
// name, revision, spec and available replicas and age.
func describeInput(in rollout.Input) string {
	d := in.Deployment
	strategy := string(d.Spec.Strategy.Type)
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		strategy += fmt.Sprintf(" surge %s unavailable %s", ru.MaxSurge.String(), ru.MaxUnavailable.String())
	}
	var rss []string
	for _, rs := range in.ReplicaSets {
		rss = append(rss, fmt.Sprintf("%s rev %q replicas %s (status %d, available %d) created %s",
			rs.Name, rs.Annotations[api.RevisionAnnotation], replicasOf(rs.Spec.Replicas), rs.Status.Replicas, rs.Status.AvailableReplicas, since(rs.CreationTimestamp.Time)))
	}
	return fmt.Sprintf("deployment %s replicas %s %s paused %v, replicaSets [%s], %d pods, now %s",
		d.Name, replicasOf(d.Spec.Replicas), strategy, d.Spec.Paused, strings.Join(rss, "; "), len(in.Pods), since(in.Now))
}

// callPlan calls impl.Plan on a copy of in and fails the step when the
// call changed what it was given (every pure step checks it).
func callPlan(t *suite.T, impl Impl, in rollout.Input) rollout.Plan {
	t.Helper()
	need(t, "Plan", impl.Plan)
	before := snapshot(in)
	p := impl.Plan(in)
	if after := snapshot(in); after != before {
		t.Fatalf("Plan(%s) changed its input: %s", describeInput(in), suite.Diff(after, before))
	}
	return p
}

// snapshot is in as JSON, to compare before and after a call.
func snapshot(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("rollouttest: %v", err))
	}
	return string(data)
}

// updated returns the ReplicaSet named name in p.Update, or nil.
func updated(p rollout.Plan, name string) *api.ReplicaSet {
	i := slices.IndexFunc(p.Update, func(rs api.ReplicaSet) bool { return rs.Name == name })
	if i < 0 {
		return nil
	}
	return &p.Update[i]
}
