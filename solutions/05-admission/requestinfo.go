package admission

import (
	"net/http"
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
	info := pipeline.RequestInfo{Path: path, Verb: strings.ToLower(method)}
	parts := splitPath(path)
	// The shortest resource path is /api/v1/{resource}: anything shorter,
	// or under another root, is a non-resource path (/healthz, /apis).
	if len(parts) < 3 || (parts[0] != prefixLegacy && parts[0] != prefixGroups) {
		return info
	}
	// /apis/{group}/{version}/{resource} needs one part more. (Upstream
	// sets APIPrefix before this check, so its /apis/apps/v1 carries
	// "apis"; the contract says a non-resource request carries only its
	// path and verb.)
	if parts[0] == prefixGroups && len(parts) < 4 {
		return info
	}
	info.APIPrefix, parts = parts[0], parts[1:]
	if info.APIPrefix == prefixGroups {
		info.APIGroup, parts = parts[0], parts[1:]
	}
	info.IsResourceRequest = true
	info.APIVersion, parts = parts[0], parts[1:]

	if isSpecialVerb(parts[0]) && len(parts) >= 2 {
		// The deprecated /api/v1/watch/... and /proxy/... forms name
		// the verb in the path.
		info.Verb, parts = parts[0], parts[1:]
	} else {
		info.Verb = verbOf(method)
	}

	if parts[0] == "namespaces" && len(parts) > 1 {
		info.Namespace = parts[1]
		// namespaces/{ns}/status and /finalize are the namespace's own
		// subresources; anything else is a resource inside it.
		if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
			parts = parts[2:]
		}
	}
	info.Parts = parts
	if len(parts) >= 3 && info.Verb != "proxy" {
		info.Subresource = parts[2]
	}
	if len(parts) >= 2 {
		info.Name = parts[1]
	}
	info.Resource = parts[0]

	if info.Name == "" && info.Verb == "get" {
		info.Verb = "list"
		if isTrue(query["watch"]) {
			info.Verb = "watch"
		}
		// A watch or list of one object by metadata.name is about that
		// name, so RBAC's resourceNames can allow it.
		if name, ok := exactName(query.Get("fieldSelector")); ok {
			info.Name = name
		}
	}
	if info.Name == "" && info.Verb == "delete" {
		info.Verb = "deletecollection"
	}
	return info
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
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodGet, http.MethodHead:
		return "get"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return ""
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
	if selector == "" {
		return "", false
	}
	for _, term := range strings.Split(selector, ",") {
		term = strings.TrimSpace(term)
		if strings.Contains(term, "!=") {
			continue
		}
		field, value, ok := strings.Cut(term, "=")
		if !ok || strings.TrimSpace(field) != "metadata.name" {
			continue
		}
		value = strings.TrimPrefix(value, "=")
		value = strings.TrimSpace(value)
		if value == "" || value == "." || value == ".." || strings.ContainsAny(value, "/%") {
			return "", false
		}
		return value, true
	}
	return "", false
}
