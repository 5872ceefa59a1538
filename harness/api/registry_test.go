package api

import (
	"reflect"
	"strings"
	"testing"
)

func TestRegistryConsistency(t *testing.T) {
	seenKind := map[string]bool{}
	seenResource := map[string]bool{}
	seenShort := map[string]string{}
	for _, k := range Kinds() {
		id := k.APIVersion() + " " + k.Kind
		if k.Version == "" || k.Kind == "" || k.Resource == "" || k.New == nil {
			t.Errorf("%s: version %q, kind %q, resource %q, New set %v: want all set", id, k.Version, k.Kind, k.Resource, k.New != nil)
			continue
		}
		if k.Resource != strings.ToLower(k.Resource) || !strings.HasSuffix(k.Resource, "s") {
			t.Errorf("%s: resource %q, want a lower-case plural", id, k.Resource)
		}
		if seenKind[id] {
			t.Errorf("%s registered twice", id)
		}
		seenKind[id] = true
		res := k.Group + "/" + k.Version + "/" + k.Resource
		if seenResource[res] {
			t.Errorf("resource %s registered twice", res)
		}
		seenResource[res] = true
		for _, s := range k.ShortNames {
			if other, dup := seenShort[s]; dup {
				t.Errorf("short name %q used by %s and %s", s, other, k.Kind)
			}
			seenShort[s] = k.Kind
		}

		got, ok := LookupKind(k.APIVersion(), k.Kind)
		if !ok || got.Resource != k.Resource {
			t.Errorf("LookupKind(%q, %q) = %q, %v, want %q", k.APIVersion(), k.Kind, got.Resource, ok, k.Resource)
		}
		got, ok = LookupResource(k.Group, k.Version, k.Resource)
		if !ok || got.Kind != k.Kind {
			t.Errorf("LookupResource(%q, %q, %q) = %q, %v, want %q", k.Group, k.Version, k.Resource, got.Kind, ok, k.Kind)
		}

		obj := k.New()
		if tm := *obj.GetTypeMeta(); tm.APIVersion != k.APIVersion() || tm.Kind != k.Kind {
			t.Errorf("%s: New().TypeMeta = %+v, want apiVersion %q kind %q", id, tm, k.APIVersion(), k.Kind)
		}
		if k.New() == obj {
			t.Errorf("%s: New() returned the same object twice", id)
		}
		got, ok = KindOf(obj)
		if !ok || got.Kind != k.Kind {
			t.Errorf("KindOf(%T) = %q, %v, want %q", obj, got.Kind, ok, k.Kind)
		}
		if name := reflect.TypeOf(obj).Elem().Name(); name != k.Kind {
			t.Errorf("%s: New() returns *%s, want *%s", id, name, k.Kind)
		}
		// A kind with a status field serves the status subresource.
		_, hasStatus := reflect.TypeOf(obj).Elem().FieldByName("Status")
		if hasStatus != k.HasSubresource("status") {
			t.Errorf("%s: has a Status field %v, but status subresource %v", id, hasStatus, k.HasSubresource("status"))
		}
		for _, name := range append([]string{k.Resource, k.Singular, k.Kind}, k.ShortNames...) {
			if got, ok := ResolveResource(name); !ok || got.Kind != k.Kind {
				t.Errorf("ResolveResource(%q) = %q, %v, want %q", name, got.Kind, ok, k.Kind)
			}
		}
	}
	if len(seenKind) < 18 {
		t.Errorf("Kinds() has %d kinds, want at least 18", len(seenKind))
	}
}

func TestRegistryUpstreamFacts(t *testing.T) {
	tests := []struct {
		group, version, resource string
		kind                     string
		namespaced               bool
		short                    []string
		subresources             []string
	}{
		{"", "v1", "pods", "Pod", true, []string{"po"}, []string{"status", "binding"}},
		{"", "v1", "nodes", "Node", false, []string{"no"}, []string{"status"}},
		{"", "v1", "namespaces", "Namespace", false, []string{"ns"}, []string{"status", "finalize"}},
		{"", "v1", "services", "Service", true, []string{"svc"}, []string{"status"}},
		{"", "v1", "serviceaccounts", "ServiceAccount", true, []string{"sa"}, nil},
		{"", "v1", "configmaps", "ConfigMap", true, []string{"cm"}, nil},
		{"", "v1", "secrets", "Secret", true, nil, nil},
		{"", "v1", "events", "Event", true, []string{"ev"}, nil},
		{"", "v1", "bindings", "Binding", true, nil, nil},
		{"apps", "v1", "deployments", "Deployment", true, []string{"deploy"}, []string{"status", "scale"}},
		{"apps", "v1", "replicasets", "ReplicaSet", true, []string{"rs"}, []string{"status", "scale"}},
		{"batch", "v1", "jobs", "Job", true, nil, []string{"status"}},
		{"coordination.k8s.io", "v1", "leases", "Lease", true, nil, nil},
		{"discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true, nil, nil},
		{"rbac.authorization.k8s.io", "v1", "roles", "Role", true, nil, nil},
		{"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true, nil, nil},
		{"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false, nil, nil},
		{"rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false, nil, nil},
	}
	for _, tt := range tests {
		k, ok := LookupResource(tt.group, tt.version, tt.resource)
		if !ok {
			t.Errorf("LookupResource(%q, %q, %q) not found", tt.group, tt.version, tt.resource)
			continue
		}
		if k.Kind != tt.kind || k.Namespaced != tt.namespaced || !reflect.DeepEqual(k.ShortNames, tt.short) || !reflect.DeepEqual(k.Subresources, tt.subresources) {
			t.Errorf("LookupResource(%q, %q, %q) = kind %s namespaced %v short %q subresources %q, want %s %v %q %q",
				tt.group, tt.version, tt.resource, k.Kind, k.Namespaced, k.ShortNames, k.Subresources, tt.kind, tt.namespaced, tt.short, tt.subresources)
		}
	}
	if _, ok := LookupKind("v1", "Deployment"); ok {
		t.Errorf(`LookupKind("v1", "Deployment") found a kind, want none (it is apps/v1)`)
	}
	if k, ok := ResolveResource("deployments.apps"); !ok || k.Kind != "Deployment" {
		t.Errorf(`ResolveResource("deployments.apps") = %q, %v, want Deployment`, k.Kind, ok)
	}
	if _, ok := ResolveResource("widgets"); ok {
		t.Errorf(`ResolveResource("widgets") found a kind, want none`)
	}
	if _, ok := KindOf(nil); ok {
		t.Errorf("KindOf(nil) found a kind, want none")
	}
	ks := Kinds()
	ks[0].Resource = "changed"
	if k, _ := LookupKind("v1", "Pod"); k.Resource != "pods" {
		t.Errorf("changing Kinds()[0] changed the registry: pods resource = %q", k.Resource)
	}
}
