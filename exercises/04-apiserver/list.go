package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/storage"
)

// A list is a Range over the kind's prefix, filtered by the selectors and
// cut into pages that are one snapshot.

// selectors are a list's or a watch's label and field selectors.
type selectors struct {
	labels client.Selector
	fields client.FieldSelector
}

// empty says the selectors select everything.
func (sel selectors) empty() bool { return sel.labels.Empty() && sel.fields.Empty() }

// fieldSelectable lists, per resource, the fields a field selector may
// use besides metadata.name and metadata.namespace (upstream's field label
// conversion functions).
var fieldSelectable = map[string][]string{
	"pods": {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
		"spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"},
	"nodes":      {"spec.unschedulable"},
	"namespaces": {"status.phase"},
	"secrets":    {"type"},
	"events": {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
		"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
		"reason", "reportingComponent", "source", "type"},
	"replicasets": {"status.replicas"},
	"jobs":        {"status.successful"},
}

// parseSelectors reads a list's or a watch's selectors from the query.
// client.ParseSelector and client.ParseFieldSelector do the parsing.
func parseSelectors(kind api.Kind, r *http.Request) (selectors, *api.Status) {
	// TODO: parse the labelSelector and fieldSelector query parameters; a selector that does not parse, or a field this kind cannot be selected by, is a 400.
	panic("not implemented: parseSelectors")
}

// contains says whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// matches decodes a stored value just enough to test the selectors.
func (sel selectors) matches(value []byte) bool {
	// TODO: report whether the stored object value matches both the label and the field selectors.
	panic("not implemented: matches")
}

// fieldValue walks a dotted path; a missing field is "" (so that
// spec.nodeName= selects unscheduled pods, as upstream).
func fieldValue(doc map[string]any, path string) string {
	var cur any = doc
	for _, p := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[p]
	}
	switch v := cur.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case nil:
		if strings.HasSuffix(path, "unschedulable") || strings.HasSuffix(path, "hostNetwork") {
			return "false"
		}
	}
	return ""
}

// continueToken is upstream's (k8s.io/apiserver/pkg/storage/continue.go):
// the revision the first page was read at and the key to start from,
// relative to the list's prefix, as base64-encoded JSON. Every page is read
// at that one revision, so a paged list is a consistent snapshot.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// encodeContinue makes the token of the page that starts at the key
// start, read at rev, in a list under prefix.
func encodeContinue(rev int64, start, prefix string) string {
	// TODO: encode rev and start, relative to prefix, as upstream's continue token: base64 (raw URL encoding) of the JSON of a continueToken with version meta.k8s.io/v1.
	panic("not implemented: encodeContinue")
}

// decodeContinue reads a token of a list under prefix; its StartKey
// comes back absolute, under prefix.
func decodeContinue(s, prefix string) (continueToken, error) {
	// TODO: decode a continue token made by encodeContinue; one that does not decode, has another version, no revision or no key, or whose key would climb out of prefix (path.Clean changes it), is an error.
	panic("not implemented: decodeContinue")
}

// validateListOptions is upstream's ValidateListOptions
// (k8s.io/apimachinery/pkg/apis/meta/internalversion/validation): which
// resourceVersionMatch and sendInitialEvents a list, or a watch, may
// carry. The handler answers its errors with a 422 on ListOptions
// (k8s.io/apiserver/pkg/endpoints/handlers/get.go).
func validateListOptions(q url.Values, watch bool) *api.Status {
	match, rv := q.Get("resourceVersionMatch"), q.Get("resourceVersion")
	_, initial := q["sendInitialEvents"]
	forbidden := func(field, detail string) fieldError {
		return fieldError{api.CauseTypeFieldValueForbidden, field, "Forbidden: " + detail}
	}
	var errs []fieldError
	if watch {
		if initial && match != "NotOlderThan" {
			errs = append(errs, forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
		}
		if match != "" {
			if !initial {
				errs = append(errs, forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
			}
			if match != "NotOlderThan" {
				errs = append(errs, fieldError{api.CauseTypeFieldValueNotSupported, "resourceVersionMatch", fmt.Sprintf("Unsupported value: %q: supported values: \"NotOlderThan\"", match)})
			}
		}
	} else {
		if match != "" {
			if rv == "" {
				errs = append(errs, forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))
			}
			if q.Get("continue") != "" {
				errs = append(errs, forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
			}
			if match != "Exact" && match != "NotOlderThan" {
				errs = append(errs, fieldError{api.CauseTypeFieldValueNotSupported, "resourceVersionMatch", fmt.Sprintf("Unsupported value: %q: supported values: \"Exact\", \"NotOlderThan\", \"\"", match)})
			}
			if match == "Exact" && rv == "0" {
				errs = append(errs, forbidden("resourceVersionMatch", `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
			}
		}
		if initial {
			errs = append(errs, forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return invalid(api.Kind{Group: "meta.k8s.io", Kind: "ListOptions"}, "", errs)
}

// listRevision is the revision a list's first page is read at, from its
// resourceVersion and resourceVersionMatch (0: the store's current one).
// Unset or "0": the latest. Exact: that revision, so a client can read
// the past that compaction has kept. Any other (NotOlderThan): the
// latest, which is never older; a revision the store has not reached is
// a 504 either way (k8s.io/apiserver/pkg/storage/etcd3/store.go,
// validateMinimumResourceVersion).
func (s *server) listRevision(ctx context.Context, q url.Values) (int64, *api.Status) {
	v := q.Get("resourceVersion")
	if v == "" || v == "0" {
		return 0, nil
	}
	rv, err := strconv.ParseInt(v, 10, 64)
	if err != nil || rv < 0 {
		return 0, badRequest(fmt.Sprintf("invalid resource version: %q: it must be a non-negative integer", v))
	}
	cur, err := storage.CurrentRevision(ctx, s.store)
	if err != nil {
		return 0, storeError(api.Kind{}, "", err)
	}
	if rv > cur {
		return 0, resourceVersionTooLarge(rv, cur)
	}
	if q.Get("resourceVersionMatch") == "Exact" {
		return rv, nil
	}
	return 0, nil
}

// listItems reads the selected objects, one page if limit > 0.
func (s *server) listItems(r *http.Request, req request, sel selectors) (kvs []storage.KeyValue, rev int64, cont string, st *api.Status) {
	// TODO: read the objects under the kind's prefix that match sel, at the revision s.listRevision gives (or the continue token's), one full page of at most limit matching items with a continue token when there are more, all at one revision; a revision the store has not reached is s.tooLargeResourceVersion, a compacted one a 410.
	panic("not implemented: listItems")
}

// list serves GET on a collection without watch.
func (s *server) list(w http.ResponseWriter, r *http.Request, req request) {
	// TODO: check the query with validateListOptions, then answer a list: {kind: <Kind>List, apiVersion, metadata: {resourceVersion, continue}, items}, or a Table when the client asks for one.
	panic("not implemented: list")
}
