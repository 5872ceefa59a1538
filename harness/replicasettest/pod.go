package replicasettest

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 01: NewPod, the pod a ReplicaSet creates from its template:
// upstream's GetPodFromTemplate, getPodsPrefix and
// CreatePodsWithControllerRef (pkg/controller/controller_utils.go). The
// pod's metadata is built afresh from the template's labels, annotations
// and finalizers, named by generateName "<rs name>-", in the ReplicaSet's
// namespace, with the ReplicaSet as its one controller; its spec is a deep
// copy of the template's.

// richRS is a ReplicaSet whose template sets everything a template may,
// including metadata upstream does not carry over (a name, a namespace, a
// generateName, an owner, a uid).
func richRS() *api.ReplicaSet {
	rs := newRS("web", 3)
	rs.Namespace = "shop"
	rs.UID = "u1"
	seconds := int64(30)
	rs.Spec.Template = api.PodTemplateSpec{
		ObjectMeta: api.ObjectMeta{
			Name:            "template-name",
			Namespace:       "elsewhere",
			GenerateName:    "template-",
			UID:             "template-uid",
			Labels:          labelSet("app", "web", "tier", "front"),
			Annotations:     map[string]string{"example.com/checksum": "abc123"},
			Finalizers:      []string{"example.com/keep"},
			OwnerReferences: []api.OwnerReference{controllerRef("Deployment", "web", "deploy-uid")},
		},
		Spec: api.PodSpec{
			Containers: []api.Container{{
				Name:    "app",
				Image:   "registry.k8s.io/pause:3.10",
				Command: []string{"/pause"},
				Env:     []api.EnvVar{{Name: "MODE", Value: "fast"}},
			}},
			NodeSelector: map[string]string{"disk": "ssd"},
			Tolerations:  []api.Toleration{{Key: "dedicated", Operator: "Equal", Value: "web", Effect: "NoExecute", TolerationSeconds: &seconds}},
			Volumes:      []api.Volume{{Name: "scratch", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}},
		},
	}
	return rs
}

func newPodStep(t *suite.T, impl Impl) {
	need(t, "NewPod", impl.NewPod)
	yes := true
	for _, c := range []struct {
		name string
		rs   *api.ReplicaSet
		want api.ObjectMeta
	}{
		{
			name: "a template with labels, annotations, finalizers and metadata of its own",
			rs:   richRS(),
			// controller_utils.go GetPodFromTemplate: only labels,
			// annotations, finalizers and generateName; the
			// namespace is the ReplicaSet's (the create call's).
			want: api.ObjectMeta{
				Namespace:    "shop",
				GenerateName: "web-",
				Labels:       labelSet("app", "web", "tier", "front"),
				Annotations:  map[string]string{"example.com/checksum": "abc123"},
				Finalizers:   []string{"example.com/keep"},
				OwnerReferences: []api.OwnerReference{{
					APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "u1",
					Controller: &yes, BlockOwnerDeletion: &yes,
				}},
			},
		},
		{
			name: "a template with labels only",
			rs:   newRS("api", 1),
			want: api.ObjectMeta{
				Namespace:    testNamespace,
				GenerateName: "api-",
				Labels:       labelSet("app", "api"),
				OwnerReferences: []api.OwnerReference{{
					APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "api", UID: "uid-api",
					Controller: &yes, BlockOwnerDeletion: &yes,
				}},
			},
		},
	} {
		before := api.DeepCopy(c.rs)
		call := fmt.Sprintf("NewPod(rs %q in %q uid %s: %s)", c.rs.Name, c.rs.Namespace, c.rs.UID, c.name)
		pod := impl.NewPod(c.rs)
		if !unchanged(t, call, "rs", before, c.rs) {
			continue
		}
		if pod == nil {
			t.Errorf("%s = nil, want a pod", call)
			continue
		}
		checkPodMeta(t, call, pod.ObjectMeta, c.want)
		if !reflect.DeepEqual(pod.Spec, c.rs.Spec.Template.Spec) {
			t.Errorf("%s spec: %s; want a deep copy of the template's spec (GetPodFromTemplate, controller_utils.go)",
				call, suite.Diff(jsonOf(pod.Spec), jsonOf(c.rs.Spec.Template.Spec)))
		}

		// The pod shares no memory with rs: change everything in it,
		// and rs stays as it was.
		scribble(reflect.ValueOf(pod))
		if !reflect.DeepEqual(before, c.rs) {
			t.Errorf("%s: changing the pod it returned changed rs: %s; the pod's labels, annotations, finalizers, owner references and spec must be copies (new maps and slices), not the template's",
				call, suite.Diff(jsonOf(c.rs), jsonOf(before)))
		}
		// Nor with the next pod.
		first, second := impl.NewPod(c.rs), impl.NewPod(c.rs)
		if first != nil && second != nil {
			scribble(reflect.ValueOf(first))
			if fresh := impl.NewPod(c.rs); !reflect.DeepEqual(second, fresh) {
				t.Errorf("%s: changing one pod it returned changed another: %s; every call returns a pod of its own",
					call, suite.Diff(jsonOf(second), jsonOf(fresh)))
			}
		}
	}
}

// checkPodMeta compares the metadata of NewPod's pod field by field, then
// whole (as JSON, where a nil and an empty map are the same), so that a
// field carried over from the template that upstream drops fails too.
func checkPodMeta(t *suite.T, call string, got, want api.ObjectMeta) {
	t.Helper()
	const ref = "(GetPodFromTemplate and getPodsPrefix, controller_utils.go)"
	ok := true
	if got.Namespace != want.Namespace {
		t.Errorf("%s namespace = %q, want %q: the ReplicaSet's namespace, not the template's %s", call, got.Namespace, want.Namespace, ref)
		ok = false
	}
	if got.Name != "" || got.GenerateName != want.GenerateName {
		t.Errorf("%s name %q, generateName %q; want no name and generateName %q: the apiserver names the pod from the ReplicaSet's name and a dash %s",
			call, got.Name, got.GenerateName, want.GenerateName, ref)
		ok = false
	}
	for _, f := range []struct {
		field     string
		got, want any
	}{
		{"labels", got.Labels, want.Labels},
		{"annotations", got.Annotations, want.Annotations},
		{"finalizers", got.Finalizers, want.Finalizers},
	} {
		if g, w := jsonOf(f.got), jsonOf(f.want); g != w {
			t.Errorf("%s %s = %s, want %s: copied from the template %s", call, f.field, g, w, ref)
			ok = false
		}
	}
	if g, w := jsonOf(got.OwnerReferences), jsonOf(want.OwnerReferences); g != w {
		t.Errorf("%s ownerReferences = %s, want %s: exactly one, the ReplicaSet as controller (apiVersion apps/v1, kind ReplicaSet, controller and blockOwnerDeletion true), never the template's owners %s",
			call, g, w, ref)
		ok = false
	}
	if g, w := jsonOf(got), jsonOf(want); ok && g != w {
		t.Errorf("%s metadata: %s; want only namespace, generateName, labels, annotations, finalizers and the owner reference %s",
			call, suite.Diff(g, w), ref)
	}
}

// jsonOf is v as JSON, for comparisons where a nil and an empty map or
// slice are the same, and for messages.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}
