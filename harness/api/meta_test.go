package api

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestTimeJSON(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{Time{}, `null`},
		{NewTime(time.Date(2024, 5, 1, 12, 30, 45, 999, time.FixedZone("KST", 9*3600))), `"2024-05-01T03:30:45Z"`},
		{MicroTime{}, `null`},
		{NewMicroTime(time.Date(2024, 5, 1, 3, 30, 45, 123456789, time.UTC)), `"2024-05-01T03:30:45.123456Z"`},
		{struct {
			T *Time `json:"t,omitempty"`
		}{}, `{}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.in)
		if err != nil || string(b) != tt.want {
			t.Errorf("json.Marshal(%v) = %s, %v, want %s", tt.in, b, err, tt.want)
		}
	}
	var tm Time
	if err := json.Unmarshal([]byte(`"2024-05-01T12:30:45+09:00"`), &tm); err != nil || !tm.Time.Equal(time.Date(2024, 5, 1, 3, 30, 45, 0, time.UTC)) || tm.Location() != time.UTC {
		t.Errorf("json.Unmarshal(time) = %v, %v, want 2024-05-01T03:30:45Z in UTC", tm, err)
	}
	if err := json.Unmarshal([]byte(`null`), &tm); err != nil || !tm.IsZero() {
		t.Errorf("json.Unmarshal(null) = %v, %v, want the zero time", tm, err)
	}
	var a, b *Time
	if !a.Equal(b) || a.Before(b) {
		t.Errorf("nil times: Equal = %v, Before = %v, want true, false", a.Equal(b), a.Before(b))
	}
}

func TestIntOrString(t *testing.T) {
	tests := []struct {
		json string
		want IntOrString
	}{
		{`8080`, FromInt32(8080)},
		{`"http"`, FromString("http")},
		{`"25%"`, FromString("25%")},
	}
	for _, tt := range tests {
		var v IntOrString
		if err := json.Unmarshal([]byte(tt.json), &v); err != nil || v != tt.want {
			t.Errorf("json.Unmarshal(%s) = %#v, %v, want %#v", tt.json, v, err, tt.want)
		}
		b, _ := json.Marshal(v)
		if string(b) != tt.json {
			t.Errorf("json.Marshal(%#v) = %s, want %s", v, b, tt.json)
		}
	}
	scaled := []struct {
		v       IntOrString
		total   int
		roundUp bool
		want    int
	}{
		{FromString("25%"), 10, true, 3},
		{FromString("25%"), 10, false, 2},
		{FromInt32(1), 10, false, 1},
		{FromString("100%"), 3, false, 3},
	}
	for _, s := range scaled {
		got, err := GetScaledValueFromIntOrPercent(&s.v, s.total, s.roundUp)
		if err != nil || got != s.want {
			t.Errorf("GetScaledValueFromIntOrPercent(%s, %d, %v) = %d, %v, want %d", s.v.String(), s.total, s.roundUp, got, err, s.want)
		}
	}
	bad := FromString("lots")
	if _, err := GetScaledValueFromIntOrPercent(&bad, 10, true); err == nil {
		t.Errorf(`GetScaledValueFromIntOrPercent("lots") error = nil, want an error`)
	}
	if got := ParseIntOrString("80"); got != FromInt32(80) {
		t.Errorf(`ParseIntOrString("80") = %#v, want int 80`, got)
	}
}

func TestDeepCopy(t *testing.T) {
	yes := true
	ts := NewTime(time.Date(2024, 5, 1, 0, 0, 0, 123, time.UTC))
	orig := &Pod{
		TypeMeta: TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: ObjectMeta{
			Name: "p", Labels: map[string]string{"app": "web"}, CreationTimestamp: ts, DeletionTimestamp: &ts,
			OwnerReferences: []OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: "u1", Controller: &yes}},
		},
		Spec: PodSpec{
			Containers: []Container{{Name: "c", Resources: ResourceRequirements{
				Requests: ResourceList{ResourceCPU: MustParse("1.5"), ResourceMemory: MustParse("1Gi")},
			}}},
			SecurityContext: json.RawMessage(`{"runAsNonRoot":true}`),
		},
	}
	cp := DeepCopy(orig)
	if !reflect.DeepEqual(cp, orig) {
		t.Fatalf("DeepCopy(pod) = %+v, want it equal to the original", cp)
	}
	if cp.CreationTimestamp.Nanosecond() != 123 {
		t.Errorf("DeepCopy lost sub-second time: %v", cp.CreationTimestamp)
	}
	cp.Labels["app"] = "changed"
	*cp.OwnerReferences[0].Controller = false
	cp.Spec.Containers[0].Name = "changed"
	cp.Spec.SecurityContext[2] = 'X'
	q := cp.Spec.Containers[0].Resources.Requests[ResourceCPU]
	q.Add(MustParse("1"))
	cp.Spec.Containers[0].Resources.Requests[ResourceCPU] = q
	if orig.Labels["app"] != "web" || !*orig.OwnerReferences[0].Controller || orig.Spec.Containers[0].Name != "c" ||
		string(orig.Spec.SecurityContext) != `{"runAsNonRoot":true}` || orig.Spec.Containers[0].Resources.Requests.Cpu().String() != "1500m" {
		t.Errorf("changing the copy changed the original: %+v", orig)
	}
	var nilPod *Pod
	if DeepCopy(nilPod) != nil {
		t.Errorf("DeepCopy(nil) != nil")
	}
	spec := DeepCopyValue(orig.Spec)
	if !reflect.DeepEqual(spec, orig.Spec) {
		t.Errorf("DeepCopyValue(spec) differs from the original")
	}
}

func TestControllerRef(t *testing.T) {
	rs := &ReplicaSet{ObjectMeta: ObjectMeta{Name: "rs", UID: "u1"}}
	ref := NewControllerRef(rs)
	if ref.APIVersion != "apps/v1" || ref.Kind != "ReplicaSet" || ref.Name != "rs" || ref.UID != "u1" || !*ref.Controller || !*ref.BlockOwnerDeletion {
		t.Errorf("NewControllerRef(rs) = %+v, want apps/v1 ReplicaSet rs u1 controller", ref)
	}
	pod := &Pod{ObjectMeta: ObjectMeta{OwnerReferences: []OwnerReference{ref}}}
	if !IsControlledBy(pod, rs) {
		t.Errorf("IsControlledBy(pod, rs) = false, want true")
	}
	if IsControlledBy(pod, &ReplicaSet{ObjectMeta: ObjectMeta{UID: "u2"}}) {
		t.Errorf("IsControlledBy(pod, other) = true, want false")
	}
}
