package admission

import (
	"net/url"
	"strings"

	"github.com/kubekata/kubekata/harness/pipeline"
)

// Reading what a request asks for from its method and path alone, as
// upstream's RequestInfoFactory does
// (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go). Everything
// after it (authorization, admission, audit) reads these attributes, never
// the path again.

// apiPrefixes are the roots of resource paths; /api has no group.
const (
	prefixLegacy = "api"
	prefixGroups = "apis"
)

// NewRequestInfo reads what a request asks for from its method and path.
func NewRequestInfo(method, path string, query url.Values) pipeline.RequestInfo {
	// TODO: read the API prefix, group, version, namespace, resource, name, subresource and parts from the path, and the verb from the method (list or watch for a GET without a name, deletecollection for a DELETE without one, the name of a fieldSelector=metadata.name=x); any other path is a non-resource request with the lower-case method as verb.
	panic("not implemented: NewRequestInfo")
}

// splitPath splits a path into its segments, without empty ones at the
// ends: "/api/v1/pods/" is [api v1 pods].
func splitPath(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

func isSpecialVerb(s string) bool { return s == "watch" || s == "proxy" }

// verbOf maps an HTTP method to the verb of a request on one object;
// NewRequestInfo turns get and delete into list, watch and
// deletecollection when no name follows.
func verbOf(method string) string {
	// TODO: return the verb of a request on one object for the HTTP method: POST create, GET and HEAD get, PUT update, PATCH patch, DELETE delete, anything else "".
	panic("not implemented: verbOf")
}

// isTrue reads a boolean query parameter as upstream's conversion does:
// absent, "", "0" and "false" (any case) are false, anything else true.
func isTrue(vals []string) bool {
	if len(vals) == 0 {
		return false
	}
	switch strings.ToLower(vals[0]) {
	case "", "0", "false":
		return false
	}
	return true
}

// exactName returns the name a field selector pins metadata.name to
// (metadata.name=x or metadata.name==x among its terms), if it is a
// valid path segment.
func exactName(selector string) (string, bool) {
	// TODO: return the name a field selector pins metadata.name to (metadata.name=x or metadata.name==x among its comma-separated terms), if it is a valid path segment.
	panic("not implemented: exactName")
}
