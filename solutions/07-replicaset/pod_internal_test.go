package replicaset

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
)

func ptr[T any](v T) *T { return &v }

// testRS is a ReplicaSet "web" in "prod" whose template carries every
// field NewPod copies.
func testRS() *api.ReplicaSet {
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "prod", UID: "rs-uid", Generation: 3,
			Labels: map[string]string{"rs-only": "x"}},
		Spec: api.ReplicaSetSpec{
			Replicas: ptr(int32(3)),
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{
					Labels:      map[string]string{"app": "web", "tier": "front"},
					Annotations: map[string]string{"note": "a"},
					Finalizers:  []string{"example.com/keep"},
				},
				Spec: api.PodSpec{
					Containers:   []api.Container{{Name: "c", Image: "nginx", Args: []string{"-g"}}},
					NodeSelector: map[string]string{"disk": "ssd"},
				},
			},
		},
	}
}

func TestNewPodShape(t *testing.T) {
	rs := testRS()
	before := api.DeepCopy(rs)
	pod := NewPod(rs)
	if !reflect.DeepEqual(rs, before) {
		t.Fatalf("NewPod changed its input:\ngot  %+v\nwant %+v", rs, before)
	}
	if pod.Namespace != "prod" || pod.Name != "" || pod.GenerateName != "web-" {
		t.Errorf("NewPod(web) namespace, name, generateName = %q, %q, %q, want %q, %q, %q",
			pod.Namespace, pod.Name, pod.GenerateName, "prod", "", "web-")
	}
	tmpl := rs.Spec.Template
	if !reflect.DeepEqual(pod.Labels, tmpl.Labels) || !reflect.DeepEqual(pod.Annotations, tmpl.Annotations) ||
		!reflect.DeepEqual(pod.Finalizers, tmpl.Finalizers) || !reflect.DeepEqual(pod.Spec, tmpl.Spec) {
		t.Errorf("NewPod(web) = labels %v annotations %v finalizers %v spec %+v, want the template's %v %v %v %+v",
			pod.Labels, pod.Annotations, pod.Finalizers, pod.Spec, tmpl.Labels, tmpl.Annotations, tmpl.Finalizers, tmpl.Spec)
	}
	want := []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-uid",
		Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
	if !reflect.DeepEqual(pod.OwnerReferences, want) {
		t.Errorf("NewPod(web).OwnerReferences = %+v, want %+v", pod.OwnerReferences, want)
	}
	if _, ok := pod.Labels["rs-only"]; ok {
		t.Errorf("NewPod(web).Labels = %v, want the template's, not the ReplicaSet's", pod.Labels)
	}
}

// TestNewPodSharesNothing changes every map, slice and pointer of the pod
// and checks the ReplicaSet did not change with it.
func TestNewPodSharesNothing(t *testing.T) {
	rs := testRS()
	before := api.DeepCopy(rs)
	pod := NewPod(rs)
	pod.Labels["app"] = "changed"
	pod.Annotations["note"] = "changed"
	pod.Finalizers[0] = "changed"
	pod.Spec.Containers[0].Image = "changed"
	pod.Spec.Containers[0].Args[0] = "changed"
	pod.Spec.NodeSelector["disk"] = "changed"
	*pod.OwnerReferences[0].Controller = false
	if !reflect.DeepEqual(rs, before) {
		t.Errorf("changing NewPod's pod changed the ReplicaSet:\ngot  %+v\nwant %+v", rs, before)
	}
	if NewPod(rs).Labels["app"] != "web" {
		t.Errorf("a second NewPod(web).Labels[app] = %q, want %q", NewPod(rs).Labels["app"], "web")
	}
}

func TestNewPodEmptyTemplate(t *testing.T) {
	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "bare", Namespace: "default", UID: "u"}}
	pod := NewPod(rs)
	if len(pod.Labels) != 0 || len(pod.Annotations) != 0 || len(pod.Finalizers) != 0 {
		t.Errorf("NewPod(bare) = labels %v annotations %v finalizers %v, want none", pod.Labels, pod.Annotations, pod.Finalizers)
	}
	if len(pod.OwnerReferences) != 1 || pod.OwnerReferences[0].UID != "u" {
		t.Errorf("NewPod(bare).OwnerReferences = %+v, want one controller ref to uid u", pod.OwnerReferences)
	}
}

// TestPodsPrefix: upstream's getPodsPrefix drops the dash only when it
// would make the prefix longer than a name may be.
func TestPodsPrefix(t *testing.T) {
	long := strings.Repeat("a", maxNameLength)
	for _, c := range []struct{ name, want string }{
		{"web", "web-"},
		{strings.Repeat("a", maxNameLength-1), strings.Repeat("a", maxNameLength-1) + "-"},
		{long, long},
	} {
		if got := podsPrefix(c.name); got != c.want {
			t.Errorf("podsPrefix(%d chars) = %d chars %q..., want %d chars", len(c.name), len(got), got[len(got)-2:], len(c.want))
		}
	}
}

func TestIsPodActive(t *testing.T) {
	now := api.Unix(100, 0)
	for _, c := range []struct {
		pod  api.Pod
		want bool
	}{
		{api.Pod{}, true},
		{api.Pod{Status: api.PodStatus{Phase: api.PodRunning}}, true},
		{api.Pod{Status: api.PodStatus{Phase: api.PodPending}}, true},
		{api.Pod{Status: api.PodStatus{Phase: api.PodUnknown}}, true},
		{api.Pod{Status: api.PodStatus{Phase: api.PodSucceeded}}, false},
		{api.Pod{Status: api.PodStatus{Phase: api.PodFailed}}, false},
		{api.Pod{ObjectMeta: api.ObjectMeta{DeletionTimestamp: &now}, Status: api.PodStatus{Phase: api.PodRunning}}, false},
	} {
		if got := isPodActive(&c.pod); got != c.want {
			t.Errorf("isPodActive(phase %q, deleting %v) = %v, want %v", c.pod.Status.Phase, c.pod.DeletionTimestamp != nil, got, c.want)
		}
	}
}

func TestKeys(t *testing.T) {
	if got := podKey(&api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "prod", Name: "web-1"}}); got != "prod/web-1" {
		t.Errorf("podKey(prod, web-1) = %q, want %q", got, "prod/web-1")
	}
	if got := objectKey("", "cluster-wide"); got != "cluster-wide" {
		t.Errorf("objectKey(\"\", cluster-wide) = %q, want %q", got, "cluster-wide")
	}
}
