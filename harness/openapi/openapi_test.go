package openapi

import (
	"encoding/json"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
)

// TestRootListsEveryGroupVersion: kubectl reads the root to find a group
// version's document (k8s.io/client-go/openapi/client.go, Paths).
func TestRootListsEveryGroupVersion(t *testing.T) {
	data, ok := Document("openapi/v3", "v1.32.0")
	if !ok {
		t.Fatal(`Document("openapi/v3") = false, want the root document`)
	}
	var root struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatalf("the root document %s: %v", data, err)
	}
	for _, k := range api.Kinds() {
		gv := GroupVersionPath(k)
		p, ok := root.Paths[gv]
		if !ok || p.ServerRelativeURL != "/openapi/v3/"+gv {
			t.Errorf("root paths[%q] = %+v, %v, want serverRelativeURL /openapi/v3/%s", gv, p, ok, gv)
		}
		if _, ok := Document("openapi/v3/"+gv, "v1.32.0"); !ok {
			t.Errorf("Document(%q) = false, want the group version's document", "openapi/v3/"+gv)
		}
	}
}

// TestPatchTakesFieldValidation: kubectl sends fieldValidation=Strict
// only when the kind's PATCH operation lists the parameter
// (k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go).
func TestPatchTakesFieldValidation(t *testing.T) {
	data, _ := Document("openapi/v3/apis/apps/v1", "v1.32.0")
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name, In string } `json:"parameters"`
			GVK        map[string]string           `json:"x-kubernetes-group-version-kind"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the apps/v1 document %s: %v", data, err)
	}
	for _, c := range []struct{ path, method, kind string }{
		{"/apis/apps/v1/namespaces/{namespace}/deployments/{name}", "patch", "Deployment"},
		{"/apis/apps/v1/namespaces/{namespace}/deployments", "post", "Deployment"},
		{"/apis/apps/v1/namespaces/{namespace}/replicasets/{name}/status", "patch", "ReplicaSet"},
	} {
		op, ok := doc.Paths[c.path][c.method]
		if !ok {
			t.Errorf("paths[%q][%q] is missing", c.path, c.method)
			continue
		}
		if op.GVK["kind"] != c.kind || op.GVK["group"] != "apps" || op.GVK["version"] != "v1" {
			t.Errorf("paths[%q][%q] x-kubernetes-group-version-kind = %v, want apps/v1 %s", c.path, c.method, op.GVK, c.kind)
		}
		found := false
		for _, p := range op.Parameters {
			found = found || p.Name == "fieldValidation" && p.In == "query"
		}
		if !found {
			t.Errorf("paths[%q][%q] parameters = %v, want the query parameter fieldValidation", c.path, c.method, op.Parameters)
		}
	}
	if _, ok := doc.Paths["/api/v1/namespaces/{namespace}/pods/{name}"]; ok {
		t.Error("the apps/v1 document lists pods, want only apps/v1 kinds")
	}
}

func TestUnknownPaths(t *testing.T) {
	for _, p := range []string{"openapi/v3/apis/nope/v1", "openapi/v2", "openapi/v3x", ""} {
		if _, ok := Document(p, "v1.32.0"); ok {
			t.Errorf("Document(%q) = true, want false", p)
		}
	}
}
