package trace

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// t0 is the fixtures' fixed clock: every time is an offset from it, so
// that no test reads the real clock.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func yes() *bool { b := true; return &b }

func deployment(rv string, st api.DeploymentStatus) *api.Deployment {
	return &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "d1", ResourceVersion: rv, CreationTimestamp: api.NewTime(t0)}, Status: st}
}

func replicaSet(rv string, st api.ReplicaSetStatus) *api.ReplicaSet {
	return &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web-abc", Namespace: "default", UID: "r1", ResourceVersion: rv, CreationTimestamp: api.NewTime(t0),
		OwnerReferences: []api.OwnerReference{{Kind: "Deployment", Name: "web", UID: "d1", Controller: yes()}}}, Status: st}
}

func pod(name, rv string, f func(*api.Pod)) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name), ResourceVersion: rv, CreationTimestamp: api.NewTime(t0),
		OwnerReferences: []api.OwnerReference{{Kind: "ReplicaSet", Name: "web-abc", UID: "r1", Controller: yes()}}}}
	p.Status.Phase = api.PodPending
	if f != nil {
		f(p)
	}
	return p
}

func cond(typ api.PodConditionType, st api.ConditionStatus) api.PodCondition {
	return api.PodCondition{Type: typ, Status: st, LastTransitionTime: api.NewTime(t0)}
}

func running(ready bool) []api.ContainerStatus {
	return []api.ContainerStatus{{Name: "echo", Ready: ready, State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(t0)}}}}
}

func audit(ms int, user, verb, resource, name, sub string, code int) AuditEvent {
	return AuditEvent{Verb: verb, User: user, Resource: resource, Namespace: "default", Name: name, Subresource: sub, Code: code, Received: at(ms - 1), Done: at(ms)}
}

func event(ms int, kind, name, uid, component, host, reason, msg string) *api.Event {
	return &api.Event{InvolvedObject: api.ObjectReference{Kind: kind, Namespace: "default", Name: name, UID: api.UID(uid)},
		Reason: reason, Message: msg, Source: api.EventSource{Component: component, Host: host}, EventTime: api.NewMicroTime(at(ms)), Count: 1}
}

const (
	kcm   = "system:kube-controller-manager"
	sched = "system:kube-scheduler"
	node1 = "system:node:node-1"
)

// relay is the pod creation relay of one Deployment with one pod, as
// a cluster leaves it: the audit log, the Events and the versions.
func relay() Input {
	x := "web-abc-x1"
	return Input{
		Resource: "deployments", Namespace: "default", Name: "web",
		Audit: []AuditEvent{
			audit(1, "kubernetes-admin", "create", "deployments", "", "", 201),
			audit(3, kcm, "create", "replicasets", "", "", 201),
			audit(5, kcm, "create", "pods", "", "", 201),
			audit(6, kcm, "get", "pods", x, "", 200), // a read: not in the timeline
			audit(8, sched, "create", "pods", x, "binding", 201),
			audit(20, node1, "update", "pods", x, "status", 200),
			// A ReplicaSet status write that changed nothing: no
			// version came of it, and the floor keeps the version of
			// readyReplicas 1 from taking its time.
			audit(30, kcm, "update", "replicasets", "web-abc", "status", 200),
			audit(120, node1, "update", "pods", x, "status", 200),
			audit(125, kcm, "update", "replicasets", "web-abc", "status", 200),
			audit(126, "learner", "create", "configmaps", "", "", 201), // another object
		},
		Events: []*api.Event{
			event(2, "Deployment", "web", "d1", "deployment-controller", "", "ScalingReplicaSet", "Scaled up replica set web-abc from 0 to 1"),
			event(6, "ReplicaSet", "web-abc", "r1", "replicaset-controller", "", "SuccessfulCreate", "Created pod: "+x),
			event(9, "Pod", x, "uid-"+x, "default-scheduler", "", "Scheduled", "Successfully assigned default/"+x+" to node-1"),
			event(12, "Pod", x, "uid-"+x, "kubelet", "node-1", "Pulled", `Container image "kata/http-echo:1.0" already present on machine`),
			event(15, "Pod", x, "uid-"+x, "kubelet", "node-1", "Started", "Started container echo"),
			event(16, "Pod", "other", "uid-other", "kubelet", "node-1", "Started", "Started container echo"), // another pod
			event(17, "Pod", x, "uid-old", "kubelet", "node-1", "Killing", "Stopping container echo"),        // an older pod of the name
		},
		Versions: []Version{
			{Type: api.WatchAdded, Object: deployment("10", api.DeploymentStatus{})},
			{Type: api.WatchAdded, Object: replicaSet("11", api.ReplicaSetStatus{})},
			{Type: api.WatchAdded, Object: pod(x, "12", nil)},
			{Type: api.WatchModified, Object: pod(x, "13", func(p *api.Pod) {
				p.Spec.NodeName = "node-1"
				p.Status.Conditions = []api.PodCondition{cond(api.PodScheduled, api.ConditionTrue)}
			})},
			{Type: api.WatchModified, Object: pod(x, "14", func(p *api.Pod) {
				p.Spec.NodeName = "node-1"
				p.Status.Phase = api.PodRunning
				p.Status.Conditions = []api.PodCondition{cond(api.PodScheduled, api.ConditionTrue), cond(api.PodReady, api.ConditionFalse)}
				p.Status.ContainerStatuses = running(false)
			})},
			{Type: api.WatchModified, Object: pod(x, "15", func(p *api.Pod) {
				p.Spec.NodeName = "node-1"
				p.Status.Phase = api.PodRunning
				p.Status.Conditions = []api.PodCondition{cond(api.PodScheduled, api.ConditionTrue), cond(api.PodReady, api.ConditionTrue)}
				p.Status.ContainerStatuses = running(true)
			})},
			{Type: api.WatchModified, Object: replicaSet("16", api.ReplicaSetStatus{ReadyReplicas: 1})},
		},
	}
}

// line is an entry as the tests compare it.
func line(e Entry) string {
	s := fmt.Sprintf("%s %s %s %s %s", FormatOffset(e.Offset), e.Component, e.Kind, e.Object, e.Text)
	if e.Milestone != "" {
		s += " [" + e.Milestone + "]"
	}
	return s
}

func lines(entries []Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, line(e))
	}
	return out
}

func diffLines(t *testing.T, call string, got, want []string) {
	t.Helper()
	n := max(len(got), len(want))
	for i := 0; i < n; i++ {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("%s: entry %d\n got: %s\nwant: %s", call, i, g, w)
		}
	}
	if t.Failed() {
		t.Logf("%s: all entries:\n%s", call, strings.Join(got, "\n"))
	}
}

func TestBuildRelay(t *testing.T) {
	got := lines(Build(relay()))
	want := []string{
		"+0.000s admin request deployment/web create deployments/default/web 201",
		"+0.001s kube-controller-manager event deployment/web ScalingReplicaSet: Scaled up replica set web-abc from 0 to 1",
		"+0.002s kube-controller-manager request replicaset/web-abc create replicasets/default/web-abc 201",
		"+0.004s kube-controller-manager request pod/web-abc-x1 create pods/default/web-abc-x1 201 [accepted]",
		"+0.004s kube-controller-manager status pod/web-abc-x1 phase Pending",
		"+0.005s kube-controller-manager event replicaset/web-abc SuccessfulCreate: Created pod: web-abc-x1",
		"+0.007s kube-scheduler request pod/web-abc-x1 create pods/default/web-abc-x1/binding 201 [bound]",
		"+0.007s kube-scheduler status pod/web-abc-x1 nodeName node-1 [bound]",
		"+0.007s kube-scheduler status pod/web-abc-x1 PodScheduled True",
		"+0.008s kube-scheduler event pod/web-abc-x1 Scheduled: Successfully assigned default/web-abc-x1 to node-1",
		"+0.011s node-1 event pod/web-abc-x1 Pulled: Container image \"kata/http-echo:1.0\" already present on machine",
		"+0.014s node-1 event pod/web-abc-x1 Started: Started container echo [started]",
		"+0.019s node-1 request pod/web-abc-x1 update pods/default/web-abc-x1/status 200",
		"+0.019s node-1 status pod/web-abc-x1 phase Pending -> Running",
		"+0.019s node-1 status pod/web-abc-x1 Ready False",
		"+0.019s node-1 status pod/web-abc-x1 container echo running [started]",
		"+0.029s kube-controller-manager request replicaset/web-abc update replicasets/default/web-abc/status 200",
		"+0.119s node-1 request pod/web-abc-x1 update pods/default/web-abc-x1/status 200",
		"+0.119s node-1 status pod/web-abc-x1 Ready True [ready]",
		"+0.119s node-1 status pod/web-abc-x1 container echo ready",
		"+0.124s kube-controller-manager request replicaset/web-abc update replicasets/default/web-abc/status 200",
		"+0.124s kube-controller-manager status replicaset/web-abc readyReplicas 0 -> 1",
	}
	diffLines(t, "Build(relay())", got, want)
	for _, e := range Build(relay()) {
		if e.Estimated {
			t.Errorf("Build(relay()): %q is Estimated, want every time from the audit log or an Event", line(e))
		}
	}
}

// Without the request pipeline there is no audit log: the creations and
// changes are still there, dated by the objects' own timestamps or by
// when a live watch saw them, and attributed to who does that upstream.
func TestBuildWithoutAudit(t *testing.T) {
	in := relay()
	in.Audit = nil
	// The Ready version arrived on a live watch at +200ms.
	in.Versions[5].Seen = at(200)
	got := lines(Build(in))
	want := []string{
		"+0.000s unknown status deployment/web created",
		"+0.000s kube-controller-manager status replicaset/web-abc created",
		"+0.000s kube-controller-manager status pod/web-abc-x1 created [accepted]",
		"+0.000s kube-controller-manager status pod/web-abc-x1 phase Pending",
		"+0.000s kube-scheduler status pod/web-abc-x1 nodeName node-1 [bound]",
		"+0.000s kube-scheduler status pod/web-abc-x1 PodScheduled True",
		"+0.000s node-1 status pod/web-abc-x1 phase Pending -> Running",
		"+0.000s node-1 status pod/web-abc-x1 Ready False",
		"+0.000s node-1 status pod/web-abc-x1 container echo running [started]",
		"+0.000s kube-controller-manager status replicaset/web-abc readyReplicas 0 -> 1",
		"+0.002s kube-controller-manager event deployment/web ScalingReplicaSet: Scaled up replica set web-abc from 0 to 1",
		"+0.006s kube-controller-manager event replicaset/web-abc SuccessfulCreate: Created pod: web-abc-x1",
		"+0.009s kube-scheduler event pod/web-abc-x1 Scheduled: Successfully assigned default/web-abc-x1 to node-1",
		"+0.012s node-1 event pod/web-abc-x1 Pulled: Container image \"kata/http-echo:1.0\" already present on machine",
		"+0.015s node-1 event pod/web-abc-x1 Started: Started container echo [started]",
		"+0.200s node-1 status pod/web-abc-x1 Ready True [ready]",
		"+0.200s node-1 status pod/web-abc-x1 container echo ready",
	}
	diffLines(t, "Build(relay() without audit, Ready seen at +200ms)", got, want)
	for _, e := range Build(in) {
		if e.Estimated != (e.Kind == Status) {
			t.Errorf("Build(relay() without audit): %q has Estimated %v, want %v (only an Event carries its own time)", line(e), e.Estimated, e.Kind == Status)
		}
	}
}

// A pod's own timeline has its requests, Events and changes, and none of
// its owners'.
func TestBuildPod(t *testing.T) {
	in := relay()
	in.Resource, in.Name = "pods", "web-abc-x1"
	for _, e := range Build(in) {
		if e.Object != "pod/web-abc-x1" {
			t.Errorf("Build(pod web-abc-x1) has %q, want only the pod's entries", line(e))
		}
	}
	if got := len(Build(in)); got != 15 {
		t.Errorf("len(Build(pod web-abc-x1)) = %d, want 15", got)
	}
}

// The creates are matched from the newest back, and only while the
// create's time agrees with the object's creationTimestamp.
func TestBuildCreateLink(t *testing.T) {
	in := relay()
	in.Resource, in.Name = "pods", "web-abc-x1"
	in.Audit = []AuditEvent{audit(5000, kcm, "create", "pods", "", "", 201)}
	es := Build(in)
	if len(es) == 0 || es[0].Kind != Status || es[0].Text != "created" || !es[0].Time.Equal(t0) {
		t.Fatalf("Build(a pod created at %v, the only create at +5s)[0] = %+v, want a status entry \"created\" at the creationTimestamp", t0, es)
	}
	in.Audit = []AuditEvent{audit(400, kcm, "create", "pods", "", "", 201), audit(999, kcm, "create", "pods", "", "", 409)}
	var created []string
	for _, e := range Build(in) {
		if e.Creation {
			created = append(created, fmt.Sprintf("%s %s %s %s", e.Time.Sub(t0), e.Component, e.Kind, e.Text))
		}
	}
	if got, want := strings.Join(created, "; "), "400ms kube-controller-manager request create pods/default/web-abc-x1 201"; got != want {
		t.Errorf("Build(a create at +400ms, a failed one at +999ms): creation entries %q, want %q", got, want)
	}
}

// Versions are dated by writes of their own class, at or after the one
// before; a deletion is a delete, the last state DELETED.
func TestBuildDeletion(t *testing.T) {
	x := "web-abc-x1"
	gone := func(rv string) *api.Pod {
		return pod(x, rv, func(p *api.Pod) {
			p.Spec.NodeName = "node-1"
			// As the apiserver sets it: when the grace period ends.
			d := api.NewTime(t0.Add(30 * time.Second))
			g := int64(30)
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &d, &g
		})
	}
	in := Input{Resource: "pods", Namespace: "default", Name: x,
		Audit: []AuditEvent{
			audit(100, "learner", "delete", "pods", x, "", 200),
			audit(300, node1, "delete", "pods", x, "", 200),
		},
		Versions: []Version{
			{Type: api.WatchModified, Object: pod(x, "20", func(p *api.Pod) { p.Spec.NodeName = "node-1" }), Initial: true},
			{Type: api.WatchModified, Object: gone("21")},
			{Type: api.WatchDeleted, Object: gone("22")},
		}}
	got := lines(Build(in))
	want := []string{
		"+0.000s learner request pod/web-abc-x1 delete pods/default/web-abc-x1 200",
		"+0.000s learner status pod/web-abc-x1 deletion requested (grace 30s)",
		"+0.200s node-1 request pod/web-abc-x1 delete pods/default/web-abc-x1 200",
		"+0.200s node-1 status pod/web-abc-x1 deleted",
	}
	diffLines(t, "Build(a pod deleted gracefully)", got, want)
}

// Creates made at once may be linked to each other's (the audit log
// names neither), which must not push a later version past its write.
func TestBuildConcurrentCreates(t *testing.T) {
	in := Input{Resource: "pods", Namespace: "default", Name: "p1",
		Audit: []AuditEvent{
			{Verb: "create", User: kcm, Resource: "pods", Namespace: "default", Code: 201, Received: at(1), Done: at(5)},
			// p2's create, received last, linked to p2 as the newest.
			{Verb: "create", User: kcm, Resource: "pods", Namespace: "default", Code: 201, Received: at(9), Done: at(10)},
			audit(8, node1, "update", "pods", "p1", "status", 200),
			audit(20, node1, "update", "pods", "p1", "status", 200),
		},
		Versions: []Version{
			{Type: api.WatchAdded, Object: pod("p1", "12", nil)},
			{Type: api.WatchAdded, Object: pod("p2", "13", nil)},
			{Type: api.WatchModified, Object: pod("p1", "14", func(p *api.Pod) { p.Status.Phase = api.PodRunning })},
			{Type: api.WatchModified, Object: pod("p1", "15", func(p *api.Pod) {
				p.Status.Phase = api.PodRunning
				p.Status.Conditions = []api.PodCondition{cond(api.PodReady, api.ConditionTrue)}
			})},
		}}
	var got []string
	for _, e := range Build(in) {
		if e.Kind == Status && e.Object == "pod/p1" && e.Text != "phase Pending" {
			got = append(got, fmt.Sprintf("%v %s %s", e.Time.Sub(t0), e.Component, e.Text))
		}
	}
	want := []string{"8ms node-1 phase Pending -> Running", "20ms node-1 Ready True"}
	diffLines(t, "Build(p1's writes at +8ms and +20ms, after a create received at +9ms was linked to p2)", got, want)
}

func TestComponent(t *testing.T) {
	for _, c := range []struct{ user, want string }{
		{"system:kube-scheduler", "kube-scheduler"},
		{"system:kube-controller-manager", "kube-controller-manager"},
		{"system:node:node-2", "node-2"},
		{"kubernetes-admin", "admin"},
		{"learner", "learner"},
		{"system:serviceaccount:default:ci", "serviceaccount:default:ci"},
		{"", "unknown"},
	} {
		if got := Component(c.user); got != c.want {
			t.Errorf("Component(%q) = %q, want %q", c.user, got, c.want)
		}
	}
	for _, c := range []struct {
		ev   api.Event
		want string
	}{
		{api.Event{Source: api.EventSource{Component: "kubelet", Host: "node-3"}}, "node-3"},
		{api.Event{ReportingController: "kubelet", ReportingInstance: "node-4"}, "node-4"},
		{api.Event{Source: api.EventSource{Component: "default-scheduler"}}, "kube-scheduler"},
		{api.Event{Source: api.EventSource{Component: "replicaset-controller"}}, "kube-controller-manager"},
		{api.Event{ReportingController: "deployment-controller"}, "kube-controller-manager"},
		{api.Event{Source: api.EventSource{Component: "kube-proxy"}}, "kube-proxy"},
		{api.Event{}, "unknown"},
	} {
		if got := EventComponent(&c.ev); got != c.want {
			t.Errorf("EventComponent(source %+v, reporting %q/%q) = %q, want %q", c.ev.Source, c.ev.ReportingController, c.ev.ReportingInstance, got, c.want)
		}
	}
}

// An Event seen again with a higher count is one entry, with its count.
func TestBuildEventSeries(t *testing.T) {
	in := relay()
	in.Resource, in.Name = "pods", "web-abc-x1"
	in.Audit, in.Versions = nil, nil
	first := event(30, "Pod", "web-abc-x1", "", "kubelet", "node-1", "BackOff", "Back-off restarting failed container echo")
	first.Name = "web-abc-x1.1"
	again := *first
	again.Count = 3
	in.Events = []*api.Event{first, event(40, "Pod", "web-abc-x1", "", "kubelet", "node-1", "Pulled", "again"), &again}
	got := lines(Build(in))
	want := []string{
		"+0.000s node-1 event pod/web-abc-x1 BackOff: Back-off restarting failed container echo (x3)",
		"+0.010s node-1 event pod/web-abc-x1 Pulled: again",
	}
	diffLines(t, "Build(an Event seen with count 1, then 3)", got, want)
}

func TestBuildEmpty(t *testing.T) {
	if got := Build(Input{Resource: "pods", Namespace: "default", Name: "none"}); len(got) != 0 {
		t.Errorf("Build(nothing) = %v, want no entries", got)
	}
}
