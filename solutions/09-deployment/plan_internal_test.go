package deployment

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/rollout"
)

// planT0 is the time the cases count from.
var planT0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

func planI32(n int32) *int32 { return &n }

// testDeployment is Deployment name with n replicas running image,
// defaulted as the loop gives it to Plan.
func planDeployment(name string, n int32, image string) api.Deployment {
	return rollout.WithDefaults(api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name), Generation: 1, CreationTimestamp: api.NewTime(planT0)},
		Spec: api.DeploymentSpec{
			Replicas: &n,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: image}}},
			},
		},
	})
}

// testRS is the ReplicaSet d would own for image: replicas asked for and
// as many running and available, revision rev (0: none), desired-replicas
// and max-replicas as given (0: none), created at planT0+age.
func planRS(d api.Deployment, image string, rev int, replicas, desired, maxReplicas int32, age time.Duration) api.ReplicaSet {
	tmpl := api.DeepCopyValue(d.Spec.Template)
	tmpl.Spec.Containers[0].Image = image
	hash := rollout.TemplateHash(tmpl, nil)
	tmpl.Labels = cloneAndAddLabel(tmpl.Labels, api.DefaultDeploymentUniqueLabelKey, hash)
	ann := map[string]string{}
	if rev > 0 {
		ann[api.RevisionAnnotation] = strconv.Itoa(rev)
	}
	if desired > 0 {
		ann[api.DesiredReplicasAnnotation] = strconv.Itoa(int(desired))
	}
	if maxReplicas > 0 {
		ann[api.MaxReplicasAnnotation] = strconv.Itoa(int(maxReplicas))
	}
	name := d.Name + "-" + hash
	return api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: d.Namespace, UID: api.UID("uid-" + name), Generation: 1, ResourceVersion: "1",
			CreationTimestamp: api.NewTime(planT0.Add(age)),
			Labels:            cloneAndAddLabel(d.Spec.Template.Labels, api.DefaultDeploymentUniqueLabelKey, hash),
			Annotations:       ann,
			OwnerReferences:   []api.OwnerReference{controllerRef(&d)},
		},
		Spec: api.ReplicaSetSpec{
			Replicas: planI32(replicas),
			Selector: cloneSelectorAndAddLabel(d.Spec.Selector, api.DefaultDeploymentUniqueLabelKey, hash),
			Template: tmpl,
		},
		Status: api.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas, ObservedGeneration: 1},
	}
}

// plan calls Plan and fails the test if it changed its input.
func callPlan(t *testing.T, in rollout.Input) rollout.Plan {
	t.Helper()
	before, _ := json.Marshal(in)
	p := Plan(in)
	if after, _ := json.Marshal(in); string(after) != string(before) {
		t.Fatalf("Plan changed its input:\nbefore %s\nafter  %s", before, after)
	}
	return p
}

func describePlanned(p rollout.Plan) string {
	var parts []string
	if p.Create != nil {
		parts = append(parts, fmt.Sprintf("create %s (%d)", p.Create.Name, *p.Create.Spec.Replicas))
	}
	for _, rs := range p.Update {
		parts = append(parts, fmt.Sprintf("update %s (%d)", rs.Name, *rs.Spec.Replicas))
	}
	if len(p.Delete) > 0 {
		parts = append(parts, "delete "+strings.Join(p.Delete, ","))
	}
	if p.Revision != "" {
		parts = append(parts, "revision "+p.Revision)
	}
	if p.Status != nil {
		parts = append(parts, "status")
	}
	for _, e := range p.Events {
		parts = append(parts, fmt.Sprintf("event %q", e.Message))
	}
	if p.RequeueAfter > 0 {
		parts = append(parts, "requeue "+p.RequeueAfter.String())
	}
	return strings.Join(parts, "; ")
}

func TestBoundsInternal(t *testing.T) {
	for _, c := range []struct {
		replicas           int32
		surge, unavailable string
		want               rollout.Bounds
	}{
		{10, "25%", "25%", rollout.Bounds{MaxSurge: 3, MaxUnavailable: 2}},
		{3, "25%", "25%", rollout.Bounds{MaxSurge: 1, MaxUnavailable: 0}},
		{1, "0%", "0%", rollout.Bounds{MaxSurge: 0, MaxUnavailable: 1}}, // fencepost
		{2, "0", "5", rollout.Bounds{MaxSurge: 0, MaxUnavailable: 2}},   // at most spec.replicas
		{0, "1", "1", rollout.Bounds{MaxSurge: 1, MaxUnavailable: 0}},   // none when none wanted
		{4, "two", "1", rollout.Bounds{}},                               // upstream: the error zeroes both
	} {
		d := planDeployment("web", c.replicas, "nginx:1")
		s, u := api.ParseIntOrString(c.surge), api.ParseIntOrString(c.unavailable)
		d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: &s, MaxUnavailable: &u}
		if got := Bounds(d); got != c.want {
			t.Errorf("Bounds(replicas %d, surge %s, unavailable %s) = %+v, want %+v", c.replicas, c.surge, c.unavailable, got, c.want)
		}
	}
	d := planDeployment("web", 4, "nginx:1")
	d.Spec.Strategy = api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}
	if got := Bounds(d); got != (rollout.Bounds{}) {
		t.Errorf("Bounds(Recreate) = %+v, want {0 0}", got)
	}
	// Not defaulted: no panic.
	_ = Bounds(api.Deployment{Spec: api.DeploymentSpec{Strategy: api.DeploymentStrategy{Type: api.RollingUpdateDeploymentStrategyType}}})
}

func TestPlanFreshDeploymentCreatesNewReplicaSet(t *testing.T) {
	d := planDeployment("web", 3, "nginx:1")
	d.Annotations = map[string]string{"team": "a", rollout.LastAppliedConfigAnnotation: "{}"}
	p := callPlan(t, rollout.Input{Deployment: d, Now: planT0})

	hash := rollout.TemplateHash(d.Spec.Template, nil)
	rs := p.Create
	if rs == nil || rs.Name != "web-"+hash {
		t.Fatalf("Plan(fresh web) = %s, want create web-%s", describePlanned(p), hash)
	}
	if *rs.Spec.Replicas != 3 {
		t.Errorf("created replicas %d, want 3 (25%% surge of 3 rounds up to 1: room for all 3)", *rs.Spec.Replicas)
	}
	wantAnn := map[string]string{"team": "a", api.RevisionAnnotation: "1", api.DesiredReplicasAnnotation: "3", api.MaxReplicasAnnotation: "4"}
	if !reflect.DeepEqual(rs.Annotations, wantAnn) {
		t.Errorf("created annotations %v, want %v", rs.Annotations, wantAnn)
	}
	for name, got := range map[string]map[string]string{"labels": rs.Labels, "selector": rs.Spec.Selector.MatchLabels, "template labels": rs.Spec.Template.Labels} {
		if got[api.DefaultDeploymentUniqueLabelKey] != hash || got["app"] != "web" {
			t.Errorf("created %s %v, want app=web and the hash %s", name, got, hash)
		}
	}
	if len(rs.OwnerReferences) != 1 || rs.OwnerReferences[0].UID != d.UID || !*rs.OwnerReferences[0].Controller || !*rs.OwnerReferences[0].BlockOwnerDeletion {
		t.Errorf("created owner references %+v, want a blocking controller reference to web", rs.OwnerReferences)
	}
	if d.Spec.Template.Labels[api.DefaultDeploymentUniqueLabelKey] != "" {
		t.Errorf("Plan added the hash to the Deployment's template")
	}
	if p.Revision != "1" {
		t.Errorf("revision %q, want \"1\"", p.Revision)
	}
	wantEvents := []rollout.Event{{Type: "Normal", Reason: "ScalingReplicaSet", Message: "Scaled up replica set web-" + hash + " from 0 to 3"}}
	if !reflect.DeepEqual(p.Events, wantEvents) {
		t.Errorf("events %+v, want %+v", p.Events, wantEvents)
	}
	now := api.NewTime(planT0)
	// The created ReplicaSet counts: 3 asked for, none available.
	want := api.DeploymentStatus{
		ObservedGeneration: 1, UnavailableReplicas: 3,
		Conditions: []api.DeploymentCondition{
			{Type: api.DeploymentProgressing, Status: api.ConditionTrue, Reason: api.NewReplicaSetReason, Message: `Created new replica set "web-` + hash + `"`, LastUpdateTime: now, LastTransitionTime: now},
			{Type: api.DeploymentAvailable, Status: api.ConditionFalse, Reason: api.MinimumReplicasUnavailable, Message: "Deployment does not have minimum availability.", LastUpdateTime: now, LastTransitionTime: now},
		},
	}
	if p.Status == nil || !reflect.DeepEqual(*p.Status, want) {
		t.Errorf("status %+v, want %+v", p.Status, want)
	}
	if len(p.Update) != 0 || len(p.Delete) != 0 || p.RequeueAfter != 0 {
		t.Errorf("Plan(fresh web) = %s, want only the create, revision, status and event", describePlanned(p))
	}
}

// planCluster is a tiny apiserver and ReplicaSet controller for one
// Deployment: it applies plans and brings ReplicaSets' pods up at once.
type planCluster struct {
	t   *testing.T
	d   api.Deployment
	rss map[string]api.ReplicaSet
	rv  int
	now time.Time
}

func (c *planCluster) input() rollout.Input {
	in := rollout.Input{Deployment: api.DeepCopyValue(c.d), Now: c.now}
	for _, rs := range c.rss {
		in.ReplicaSets = append(in.ReplicaSets, api.DeepCopyValue(rs))
	}
	return in
}

func (c *planCluster) apply(p rollout.Plan) {
	c.t.Helper()
	c.rv++
	if rs := p.Create; rs != nil {
		if _, ok := c.rss[rs.Name]; ok {
			c.t.Fatalf("create %s: already exists", rs.Name)
		}
		created := api.DeepCopyValue(*rs)
		created.UID = api.UID("uid-" + rs.Name)
		created.CreationTimestamp = api.NewTime(c.now)
		created.ResourceVersion = strconv.Itoa(c.rv)
		created.Generation = 1
		c.rss[rs.Name] = created
	}
	for _, rs := range p.Update {
		old, ok := c.rss[rs.Name]
		if !ok || old.ResourceVersion != rs.ResourceVersion {
			c.t.Fatalf("update %s with resourceVersion %q: conflict (stored %q)", rs.Name, rs.ResourceVersion, old.ResourceVersion)
		}
		u := api.DeepCopyValue(rs)
		u.ResourceVersion = strconv.Itoa(c.rv)
		u.Generation++
		c.rss[rs.Name] = u
	}
	for _, name := range p.Delete {
		delete(c.rss, name)
	}
	if p.Revision != "" {
		if c.d.Annotations == nil {
			c.d.Annotations = map[string]string{}
		}
		c.d.Annotations[api.RevisionAnnotation] = p.Revision
	}
	if p.Status != nil {
		c.d.Status = api.DeepCopyValue(*p.Status)
	}
}

// settle is the ReplicaSet controller: every ReplicaSet runs what it asks
// for, all available.
func (c *planCluster) settle() {
	for name, rs := range c.rss {
		n := *rs.Spec.Replicas
		rs.Status = api.ReplicaSetStatus{Replicas: n, ReadyReplicas: n, AvailableReplicas: n, ObservedGeneration: rs.Generation}
		c.rss[name] = rs
	}
}

func TestPlanRollingUpdateWalksToCompletion(t *testing.T) {
	d := planDeployment("web", 10, "nginx:1")
	old := planRS(d, "nginx:1", 1, 10, 10, 13, 0)
	c := &planCluster{t: t, d: d, rss: map[string]api.ReplicaSet{old.Name: old}, now: planT0.Add(time.Minute)}
	c.d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	c.d.Generation = 2
	newName := "web-" + rollout.TemplateHash(c.d.Spec.Template, nil)

	var steps []string
	for i := 0; ; i++ {
		if i == 20 {
			t.Fatalf("no end after 20 passes: %s", strings.Join(steps, " | "))
		}
		p := callPlan(t, c.input())
		p.RequeueAfter = 0
		if p.IsZero() {
			break
		}
		steps = append(steps, describePlanned(p))
		c.apply(p)
		c.settle()
		c.now = c.now.Add(time.Second)
		// maxSurge 3 and maxUnavailable 2 of 10 hold at every step.
		var total, available int32
		for _, rs := range c.rss {
			total += *rs.Spec.Replicas
			available += rs.Status.AvailableReplicas
		}
		if total > 13 || available < 8 {
			t.Fatalf("after pass %d (%s): %d pods, %d available, want at most 13 and at least 8", i, describePlanned(p), total, available)
		}
	}
	var sizes []string
	for _, s := range steps {
		for _, part := range strings.Split(s, "; ") {
			if strings.HasPrefix(part, "create") || strings.HasPrefix(part, "update") {
				sizes = append(sizes, part)
			}
		}
	}
	// The pass that creates the new ReplicaSet also scales the old one:
	// the created ReplicaSet's 3 pods count as unavailable, so the old
	// one may lose 13 − 8 − 3 = 2 (reconcileOldReplicaSets).
	want := []string{
		"create " + newName + " (3)",
		"update " + old.Name + " (8)",
		"update " + newName + " (5)",
		"update " + old.Name + " (3)",
		"update " + newName + " (10)",
		"update " + old.Name + " (0)",
	}
	if strings.Join(sizes, ", ") != strings.Join(want, ", ") {
		t.Errorf("rolling 10 pods 25%%/25%%: writes %v, want %v (passes: %s)", sizes, want, strings.Join(steps, " | "))
	}
	st := c.d.Status
	cond := getCondition(st, api.DeploymentProgressing)
	if st.UpdatedReplicas != 10 || st.AvailableReplicas != 10 || st.Replicas != 10 || st.ObservedGeneration != 2 ||
		cond == nil || cond.Reason != api.NewRSAvailableReason || cond.Message != `ReplicaSet "`+newName+`" has successfully progressed.` {
		t.Errorf("final status %+v, want 10 updated and available, observed 2, Progressing NewReplicaSetAvailable", st)
	}
	if c.d.Annotations[api.RevisionAnnotation] != "2" {
		t.Errorf("final revision %q, want \"2\"", c.d.Annotations[api.RevisionAnnotation])
	}
}

// TestPlanProportionalScaling is upstream's TestScale (sync_test.go),
// through Plan: a scaling event in the middle of a rollout.
func TestPlanProportionalScaling(t *testing.T) {
	for _, c := range []struct {
		name                  string
		from, to, fromS, toS  int32
		newSize, oldA, oldB   int32
		wantNew, wantA, wantB int32
	}{
		// "proportional scaling: 7 -> 10": surge 0, three ReplicaSets.
		{"7->10", 7, 10, 0, 0, 2, 3, 2, 3, 4, 3},
		// "proportional scaling: 13 -> 8".
		{"13->8", 13, 8, 0, 0, 2, 8, 3, 1, 5, 2},
		// "leftover distribution: 3 -> 2": the older loses the leftover.
		{"3->2", 3, 2, 0, 0, 1, 1, 1, 1, 1, 0},
		// "deployment with surge pods": 10+2 -> 20+2.
		{"surge", 10, 20, 2, 2, 6, 6, 0, 11, 11, 0},
		// "change both surge and size": 10+3 -> 50+6.
		{"surge and size", 10, 50, 3, 6, 5, 8, 0, 22, 34, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := planDeployment("foo", c.to, "v3")
			s, u := api.FromInt32(c.toS), api.FromInt32(0)
			d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: &s, MaxUnavailable: &u}
			d.Status = api.DeploymentStatus{ObservedGeneration: 1, Replicas: c.from}
			in := rollout.Input{Deployment: d, Now: planT0}
			mk := func(image string, rev int, size int32, age time.Duration) {
				if size == 0 {
					return
				}
				rs := planRS(d, image, rev, size, c.from, c.from+c.fromS, age)
				in.ReplicaSets = append(in.ReplicaSets, rs)
			}
			mk("v3", 3, c.newSize, 2*time.Hour)
			mk("v2", 2, c.oldA, time.Hour)
			mk("v1", 1, c.oldB, 0)
			p := callPlan(t, in)
			if p.Create != nil {
				t.Fatalf("Plan(scaling event) = %s, want no create", describePlanned(p))
			}
			for _, w := range []struct {
				image string
				size  int32
				want  int32
			}{{"v3", c.newSize, c.wantNew}, {"v2", c.oldA, c.wantA}, {"v1", c.oldB, c.wantB}} {
				if w.size == 0 {
					continue
				}
				name := planRS(d, w.image, 0, 0, 0, 0, 0).Name
				got := w.size
				for _, rs := range p.Update {
					if rs.Name == name {
						got = *rs.Spec.Replicas
						if rs.Annotations[api.DesiredReplicasAnnotation] != strconv.Itoa(int(c.to)) ||
							rs.Annotations[api.MaxReplicasAnnotation] != strconv.Itoa(int(c.to+c.toS)) {
							t.Errorf("%s annotations %v, want desired %d, max %d", name, rs.Annotations, c.to, c.to+c.toS)
						}
					}
				}
				if got != w.want {
					t.Errorf("Plan(%d -> %d) = %s: %s (%s) has %d, want %d", c.from, c.to, describePlanned(p), name, w.image, got, w.want)
				}
			}
		})
	}
}

func TestPlanRecreateOrdering(t *testing.T) {
	d := planDeployment("web", 3, "v2")
	d.Spec.Strategy = api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}
	old := planRS(d, "v1", 1, 3, 3, 3, 0)
	pod := func(phase api.PodPhase) api.Pod {
		yes := true
		return api.Pod{
			ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default", OwnerReferences: []api.OwnerReference{{Kind: "ReplicaSet", Name: old.Name, UID: old.UID, Controller: &yes}}},
			Status:     api.PodStatus{Phase: phase},
		}
	}
	newName := "web-" + rollout.TemplateHash(d.Spec.Template, nil)

	// 1. The old ReplicaSet goes to 0 first; nothing is created.
	p := callPlan(t, rollout.Input{Deployment: d, ReplicaSets: []api.ReplicaSet{old}, Pods: []api.Pod{pod(api.PodRunning)}, Now: planT0})
	if p.Create != nil || len(p.Update) != 1 || *p.Update[0].Spec.Replicas != 0 ||
		len(p.Events) != 1 || p.Events[0].Message != "Scaled down replica set "+old.Name+" from 3 to 0" {
		t.Fatalf("Recreate pass 1 = %s, want only %s scaled down to 0", describePlanned(p), old.Name)
	}
	scaled := p.Update[0]
	scaled.Status = api.ReplicaSetStatus{ObservedGeneration: 2}
	// 2. Old pods still counted, then one still running: wait.
	counted := api.DeepCopyValue(scaled)
	counted.Status.Replicas = 1
	for _, in := range []rollout.Input{
		{Deployment: d, ReplicaSets: []api.ReplicaSet{counted}, Now: planT0},
		{Deployment: d, ReplicaSets: []api.ReplicaSet{scaled}, Pods: []api.Pod{pod(api.PodRunning)}, Now: planT0},
	} {
		if p := callPlan(t, in); p.Create != nil || len(p.Update) != 0 {
			t.Fatalf("Recreate while old pods run = %s, want no create and no scale", describePlanned(p))
		}
	}
	// 3. Old pods done: the new ReplicaSet at full size at once.
	p = callPlan(t, rollout.Input{Deployment: d, ReplicaSets: []api.ReplicaSet{scaled}, Pods: []api.Pod{pod(api.PodSucceeded)}, Now: planT0})
	if p.Create == nil || p.Create.Name != newName || *p.Create.Spec.Replicas != 3 || len(p.Update) != 0 {
		t.Fatalf("Recreate once old pods ended = %s, want create %s with 3", describePlanned(p), newName)
	}
}

func TestPlanHistoryCleanup(t *testing.T) {
	d := planDeployment("web", 2, "v5")
	d.Spec.RevisionHistoryLimit = planI32(2)
	d.Annotations = map[string]string{api.RevisionAnnotation: "5"}
	cur := planRS(d, "v5", 5, 2, 2, 3, 5*time.Hour)
	in := rollout.Input{Deployment: d, ReplicaSets: []api.ReplicaSet{cur}, Now: planT0.Add(6 * time.Hour)}
	for rev := 1; rev <= 4; rev++ {
		// Created in reverse order: revisions, not ages, decide.
		rs := planRS(d, "v"+strconv.Itoa(rev), rev, 0, 2, 3, time.Duration(4-rev)*time.Hour)
		rs.Status = api.ReplicaSetStatus{ObservedGeneration: 1}
		if rev == 2 {
			rs.Status.Replicas = 1 // a pod still terminating
		}
		in.ReplicaSets = append(in.ReplicaSets, rs)
	}
	// Not complete as the status says: nothing deleted.
	if p := callPlan(t, in); len(p.Delete) != 0 {
		t.Fatalf("Plan(history, status not complete) = %s, want no delete", describePlanned(p))
	}
	in.Deployment.Status = api.DeploymentStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}
	p := callPlan(t, in)
	want := []string{in.ReplicaSets[1].Name}
	if !reflect.DeepEqual(p.Delete, want) {
		t.Errorf("Plan(history limit 2 of 4 old, revision 2 still has a pod) = %s, want delete %v only", describePlanned(p), want)
	}
}

func TestPlanRollbackKeepsRevisionHistory(t *testing.T) {
	d := planDeployment("web", 2, "v1")
	d.Annotations = map[string]string{api.RevisionAnnotation: "3"}
	back := planRS(d, "v1", 1, 0, 2, 3, 0)
	back.Annotations[api.RevisionHistoryAnnotation] = strings.Repeat("9,", 999) + "9" // 1999 characters
	other := planRS(d, "v2", 3, 2, 2, 3, time.Hour)
	p := callPlan(t, rollout.Input{Deployment: d, ReplicaSets: []api.ReplicaSet{back, other}, Now: planT0})
	u := p.Update
	if len(u) == 0 || u[0].Name != back.Name {
		t.Fatalf("Plan(rollback to revision 1) = %s, want %s updated first", describePlanned(p), back.Name)
	}
	if got := u[0].Annotations[api.RevisionAnnotation]; got != "4" {
		t.Errorf("rolled back revision %q, want \"4\"", got)
	}
	h := u[0].Annotations[api.RevisionHistoryAnnotation]
	if len(h) > rollout.MaxRevisionHistoryChars || !strings.HasSuffix(h, ",1") || !strings.HasPrefix(h, "9,") {
		t.Errorf("rolled back history (%d chars) ends %q, want at most %d chars ending \",1\"", len(h), h[max(0, len(h)-6):], rollout.MaxRevisionHistoryChars)
	}
	if p.Revision != "" {
		t.Errorf("revision %q in the pass that synced the ReplicaSet, want none (next pass)", p.Revision)
	}
}

func TestPlanScaleAndAnnotationSyncAreOneUpdate(t *testing.T) {
	// A new ReplicaSet whose annotations lag and that must grow: one
	// write holding both, with the resourceVersion read.
	d := planDeployment("web", 4, "v2")
	d.Annotations = map[string]string{"team": "b"}
	old := planRS(d, "v1", 1, 3, 4, 5, 0)
	cur := planRS(d, "v2", 2, 1, 4, 5, time.Hour)
	p := callPlan(t, rollout.Input{Deployment: d, ReplicaSets: []api.ReplicaSet{old, cur}, Now: planT0})
	var n int
	for _, rs := range p.Update {
		if rs.Name == cur.Name {
			n++
			if rs.ResourceVersion != "1" || rs.Annotations["team"] != "b" {
				t.Errorf("update of %s: resourceVersion %q, annotations %v; want \"1\" and team=b", rs.Name, rs.ResourceVersion, rs.Annotations)
			}
		}
	}
	if n != 1 {
		t.Errorf("Plan = %s, want %s in Update once", describePlanned(p), cur.Name)
	}
}

func TestPlanProgressDeadline(t *testing.T) {
	d := planDeployment("web", 2, "v2")
	d.Annotations = map[string]string{api.RevisionAnnotation: "2"}
	cur := planRS(d, "v2", 2, 2, 2, 3, 0)
	cur.Status.AvailableReplicas, cur.Status.ReadyReplicas = 0, 0
	since := api.NewTime(planT0)
	d.Status = api.DeploymentStatus{
		ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2, UnavailableReplicas: 2,
		Conditions: []api.DeploymentCondition{
			{Type: api.DeploymentProgressing, Status: api.ConditionTrue, Reason: api.ReplicaSetUpdatedReason, Message: `ReplicaSet "` + cur.Name + `" is progressing.`, LastUpdateTime: since, LastTransitionTime: since},
			{Type: api.DeploymentAvailable, Status: api.ConditionFalse, Reason: api.MinimumReplicasUnavailable, Message: "Deployment does not have minimum availability.", LastUpdateTime: since, LastTransitionTime: since},
		},
	}
	// No progress, before the deadline: nothing written, look again a
	// second after it.
	p := callPlan(t, rollout.Input{Deployment: d, ReplicaSets: []api.ReplicaSet{cur}, Now: planT0.Add(4 * time.Minute)})
	if p.Status != nil || p.RequeueAfter != 6*time.Minute+time.Second {
		t.Errorf("Plan(stuck 4m of 10m) = %s, want only requeue 6m1s", describePlanned(p))
	}
	// Past it: ProgressDeadlineExceeded.
	p = callPlan(t, rollout.Input{Deployment: d, ReplicaSets: []api.ReplicaSet{cur}, Now: planT0.Add(10*time.Minute + time.Second)})
	c := getCondition(planStatus(p.Status), api.DeploymentProgressing)
	if c == nil || c.Status != api.ConditionFalse || c.Reason != api.TimedOutReason || !c.LastTransitionTime.Time.Equal(planT0.Add(10*time.Minute+time.Second)) {
		t.Errorf("Plan(stuck past 10m) = %s, Progressing %+v; want False ProgressDeadlineExceeded now", describePlanned(p), c)
	}
}

func planStatus(s *api.DeploymentStatus) api.DeploymentStatus {
	if s == nil {
		return api.DeploymentStatus{}
	}
	return *s
}

func TestEqualIgnoreHashIsSemantic(t *testing.T) {
	a := api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{api.DefaultDeploymentUniqueLabelKey: "x"}}}
	b := api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{}}}
	if !equalIgnoreHash(&a, &b) {
		t.Errorf("equalIgnoreHash(hash label only, empty containers) = false, want true (nil and empty are equal)")
	}
	b.Spec.Containers = []api.Container{{Name: "x"}}
	if equalIgnoreHash(&a, &b) {
		t.Errorf("equalIgnoreHash(different containers) = true, want false")
	}
}

func TestPlanNilSafe(t *testing.T) {
	// Not defaulted and nearly empty: no panic.
	rs := api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "x"}}
	for _, d := range []api.Deployment{
		{},
		{Spec: api.DeploymentSpec{Strategy: api.DeploymentStrategy{Type: api.RollingUpdateDeploymentStrategyType}}},
		{Spec: api.DeploymentSpec{Strategy: api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}}},
	} {
		_ = Plan(rollout.Input{Deployment: d, ReplicaSets: []api.ReplicaSet{rs}, Now: planT0})
		_ = Plan(rollout.Input{Deployment: d, Now: planT0})
	}
}
