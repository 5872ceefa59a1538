package replicasettest

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
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

// newRS returns ReplicaSet name in namespace default: uid "uid-<name>",
// generation 1, spec.replicas n, selector matchLabels app=<name>, and a
// template with labels app=<name> and one container. Its TypeMeta is
// empty, as an object from an informer's cache may be.
func newRS(name string, n int32) *api.ReplicaSet {
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: testNamespace, UID: api.UID("uid-" + name), Generation: 1},
		Spec: api.ReplicaSetSpec{
			Replicas: &n,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
}

// deletingRS marks rs as being deleted (deletionTimestamp set).
func deletingRS(rs *api.ReplicaSet) *api.ReplicaSet {
	ts := api.NewTime(t0)
	rs.DeletionTimestamp = &ts
	return rs
}

// newPod returns pod name in namespace default, uid "uid-<name>", phase
// Running, with the labels given as key, value pairs and no owner.
func newPod(name string, labels ...string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: testNamespace, UID: api.UID("uid-" + name), Labels: labelSet(labels...)},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
		Status:     api.PodStatus{Phase: api.PodRunning},
	}
}

// labelSet is a label map from key, value pairs; no pairs: nil.
func labelSet(pairs ...string) map[string]string {
	if len(pairs)%2 != 0 {
		panic("replicasettest: labelSet wants key, value pairs")
	}
	if len(pairs) == 0 {
		return nil
	}
	m := make(map[string]string, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return m
}

// controlledBy makes rs pod's controller (an owner reference as
// NewControllerRef makes it) and returns pod.
func controlledBy(pod *api.Pod, rs *api.ReplicaSet) *api.Pod {
	pod.OwnerReferences = append(pod.OwnerReferences, controllerRef("ReplicaSet", rs.Name, rs.UID))
	return pod
}

// controllerRef is an apps/v1 owner reference with controller and
// blockOwnerDeletion true.
func controllerRef(kind, name string, uid api.UID) api.OwnerReference {
	yes := true
	return api.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: &yes, BlockOwnerDeletion: &yes}
}

// terminating sets pod's deletionTimestamp and returns pod.
func terminating(pod *api.Pod) *api.Pod {
	ts := api.NewTime(t0)
	pod.DeletionTimestamp = &ts
	return pod
}

// readySince gives pod the condition Ready=True whose lastTransitionTime
// is t (zero: unset) and returns pod.
func readySince(pod *api.Pod, t time.Time) *api.Pod {
	return withReady(pod, api.ConditionTrue, t)
}

// withReady gives pod the condition Ready with status s since t.
func withReady(pod *api.Pod, s api.ConditionStatus, t time.Time) *api.Pod {
	var ltt api.Time
	if !t.IsZero() {
		ltt = api.NewTime(t)
	}
	pod.Status.Conditions = append(pod.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: s, LastTransitionTime: ltt})
	return pod
}

// inNamespace moves obj's metadata to namespace ns.
func inNamespace[T api.Object](obj T, ns string) T {
	obj.GetObjectMeta().Namespace = ns
	return obj
}

// describePod prints a pod for failure messages: its name and what the
// case is about, "b(orphan, app=web, terminating)".
func describePod(p *api.Pod) string {
	var parts []string
	if p.Namespace != testNamespace {
		parts = append(parts, "namespace "+p.Namespace)
	}
	if ref := api.GetControllerOf(p); ref != nil {
		parts = append(parts, fmt.Sprintf("controller %s %s uid %s", ref.Kind, ref.Name, ref.UID))
	} else {
		parts = append(parts, "orphan")
	}
	for _, r := range p.OwnerReferences {
		if r.Controller == nil || !*r.Controller {
			parts = append(parts, fmt.Sprintf("non-controller owner %s %s uid %s", r.Kind, r.Name, r.UID))
		}
	}
	parts = append(parts, describeLabels(p.Labels))
	if p.DeletionTimestamp != nil {
		parts = append(parts, "terminating")
	}
	if p.Status.Phase != api.PodRunning {
		parts = append(parts, "phase "+string(p.Status.Phase))
	}
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady {
			parts = append(parts, fmt.Sprintf("Ready=%s since %s", c.Status, since(c.LastTransitionTime.Time)))
		}
	}
	return p.Name + "(" + strings.Join(parts, ", ") + ")"
}

// describePods prints pods as [a(...) b(...)].
func describePods(pods []*api.Pod) string {
	s := make([]string, len(pods))
	for i, p := range pods {
		s[i] = describePod(p)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// describeLabels prints labels sorted: "app=web,tier=front", or "no
// labels".
func describeLabels(l map[string]string) string {
	if len(l) == 0 {
		return "no labels"
	}
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + l[k]
	}
	return strings.Join(keys, ",")
}

// describeSelector prints a selector: "nil", "{}" or its terms.
func describeSelector(s *api.LabelSelector) string {
	if s == nil {
		return "nil"
	}
	var terms []string
	if len(s.MatchLabels) > 0 {
		terms = append(terms, describeLabels(s.MatchLabels))
	}
	for _, r := range s.MatchExpressions {
		terms = append(terms, fmt.Sprintf("%s %s (%s)", r.Key, r.Operator, strings.Join(r.Values, ",")))
	}
	return "{" + strings.Join(terms, "; ") + "}"
}

// unchanged fails the step when an input changed during call: before is
// a deep copy taken before it.
func unchanged[T any](t interface {
	Helper()
	Errorf(string, ...any)
}, call, what string, before, after T) bool {
	t.Helper()
	if !reflect.DeepEqual(before, after) {
		t.Errorf("%s changed %s: before %+v, after %+v; the function must not change its inputs (copy first)", call, what, before, after)
		return false
	}
	return true
}

// copyPods deep-copies pods (nil stays nil).
func copyPods(pods []*api.Pod) []*api.Pod {
	if pods == nil {
		return nil
	}
	out := make([]*api.Pod, len(pods))
	for i, p := range pods {
		out[i] = api.DeepCopy(p)
	}
	return out
}

// scribble changes every value reachable from v through maps, slices and
// pointers (strings get a suffix, numbers grow, bools flip, maps get one
// more key), so that a step can show that changing a result never changes
// an input it must not share memory with.
func scribble(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			scribble(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				scribble(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			scribble(v.Index(i))
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			scribble(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		iter := v.MapRange()
		type kv struct{ k, v reflect.Value }
		var entries []kv
		for iter.Next() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(iter.Value())
			scribble(e)
			entries = append(entries, kv{iter.Key(), e})
		}
		for _, e := range entries {
			v.SetMapIndex(e.k, e.v)
		}
		if v.Type().Key().Kind() == reflect.String {
			k := reflect.New(v.Type().Key()).Elem()
			k.SetString("scribbled")
			v.SetMapIndex(k, reflect.New(v.Type().Elem()).Elem())
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(v.String() + "-scribbled")
		}
	case reflect.Bool:
		if v.CanSet() {
			v.SetBool(!v.Bool())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.CanSet() {
			v.SetInt(v.Int() + 1)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.CanSet() {
			v.SetUint(v.Uint() + 1)
		}
	}
}
