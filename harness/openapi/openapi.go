package openapi

import (
	"encoding/json"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
)

// Root is the path of the root document.
const Root = "openapi/v3"

// GroupVersionPath is a kind's group version as the documents name it:
// "api/v1", "apis/apps/v1".
func GroupVersionPath(k api.Kind) string {
	if k.Group == "" {
		return "api/" + k.Version
	}
	return "apis/" + k.Group + "/" + k.Version
}

// Document returns the document served at path (without leading or
// trailing slashes): the root at "openapi/v3", a group version's at
// "openapi/v3/api/v1" or "openapi/v3/apis/{group}/{version}". It reports
// false for any other path. serverVersion fills info.version.
func Document(path, serverVersion string) ([]byte, bool) {
	if path == Root {
		paths := map[string]any{}
		for _, k := range api.Kinds() {
			p := GroupVersionPath(k)
			paths[p] = map[string]string{"serverRelativeURL": "/" + Root + "/" + p}
		}
		return encode(map[string]any{"paths": paths}), true
	}
	gv, ok := strings.CutPrefix(path, Root+"/")
	if !ok {
		return nil, false
	}
	params := []map[string]any{{
		"name": "fieldValidation", "in": "query", "schema": map[string]string{"type": "string"},
		"description": "fieldValidation instructs the server how to treat fields of the object that it does not know (Ignore, Warn or Strict).",
	}}
	paths := map[string]any{}
	for _, k := range api.Kinds() {
		if GroupVersionPath(k) != gv {
			continue
		}
		gvk := map[string]string{"group": k.Group, "version": k.Version, "kind": k.Kind}
		op := func(id string) map[string]any {
			return map[string]any{
				"operationId":                     id + k.Kind,
				"parameters":                      params,
				"responses":                       map[string]any{"200": map[string]any{"description": "OK"}},
				"x-kubernetes-group-version-kind": gvk,
			}
		}
		base := "/" + gv
		if k.Namespaced {
			base += "/namespaces/{namespace}"
		}
		base += "/" + k.Resource
		paths[base] = map[string]any{"post": op("create")}
		paths[base+"/{name}"] = map[string]any{"put": op("replace"), "patch": op("patch")}
		for _, sub := range k.Subresources {
			switch sub {
			case "status", "scale":
				title := strings.ToUpper(sub[:1]) + sub[1:]
				paths[base+"/{name}/"+sub] = map[string]any{"put": op("replace" + title), "patch": op("patch" + title)}
			}
		}
	}
	if len(paths) == 0 {
		return nil, false
	}
	return encode(map[string]any{
		"openapi": "3.0.0",
		"info":    map[string]string{"title": "Kubernetes", "version": serverVersion},
		"paths":   paths,
	}), true
}

func encode(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic("openapi: encoding a document: " + err.Error())
	}
	return data
}
