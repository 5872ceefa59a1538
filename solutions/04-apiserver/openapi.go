package apiserver

import (
	"net/http"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
)

// kubectl validates what it sends (--validate=strict, the default). It
// reads /openapi/v3 to learn whether the server validates itself: if a
// PATCH operation of the kind takes the fieldValidation query parameter,
// kubectl sends fieldValidation=Strict and leaves validation to the
// server; otherwise it wants full schemas to validate on its side, and
// fails when there are none. So this server publishes, per group version,
// a minimal OpenAPI v3 document that lists every resource path with that
// parameter, and honours fieldValidation=Strict when decoding.

func gvPath(k api.Kind) string {
	if k.Group == "" {
		return "api/" + k.Version
	}
	return "apis/" + k.Group + "/" + k.Version
}

func (s *server) serveOpenAPIRoot(w http.ResponseWriter, r *http.Request) {
	paths := map[string]any{}
	for _, k := range api.Kinds() {
		p := gvPath(k)
		paths[p] = map[string]string{"serverRelativeURL": "/openapi/v3/" + p}
	}
	writeJSON(w, http.StatusOK, map[string]any{"paths": paths})
}

func (s *server) serveOpenAPIGroupVersion(w http.ResponseWriter, r *http.Request, gv string) {
	params := []map[string]any{
		{"name": "fieldValidation", "in": "query", "schema": map[string]string{"type": "string"},
			"description": "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn or Strict."},
	}
	paths := map[string]any{}
	for _, k := range api.Kinds() {
		if gvPath(k) != gv {
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
			if sub == "status" {
				paths[base+"/{name}/status"] = map[string]any{"put": op("replaceStatus"), "patch": op("patchStatus")}
			}
		}
	}
	if len(paths) == 0 {
		writeStatus(w, notFoundPath())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"openapi": "3.0.0",
		"info":    map[string]string{"title": "Kubernetes", "version": gitVersion},
		"paths":   paths,
	})
}

// openAPIPath routes /openapi/v3 and /openapi/v3/{gv}.
func (s *server) openAPIPath(w http.ResponseWriter, r *http.Request, path string) bool {
	switch {
	case path == "openapi/v3":
		s.serveOpenAPIRoot(w, r)
		return true
	case strings.HasPrefix(path, "openapi/v3/"):
		s.serveOpenAPIGroupVersion(w, r, strings.TrimPrefix(path, "openapi/v3/"))
		return true
	}
	return false
}
