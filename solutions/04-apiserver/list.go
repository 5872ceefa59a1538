package apiserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/storage"
)

// selectors are a list's or a watch's label and field selectors.
type selectors struct {
	labels client.Selector
	fields client.FieldSelector
}

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

func parseSelectors(kind api.Kind, r *http.Request) (selectors, *api.Status) {
	q := r.URL.Query()
	var sel selectors
	var err error
	if sel.labels, err = client.ParseSelector(q.Get("labelSelector")); err != nil {
		return sel, badRequest("unable to parse requirement: " + strings.TrimPrefix(err.Error(), "client: "))
	}
	if sel.fields, err = client.ParseFieldSelector(q.Get("fieldSelector")); err != nil {
		return sel, badRequest("invalid field selector: " + strings.TrimPrefix(err.Error(), "client: "))
	}
	for _, req := range sel.fields {
		if req.Key == "metadata.name" || req.Key == "metadata.namespace" || contains(fieldSelectable[kind.Resource], req.Key) {
			continue
		}
		return sel, badRequest(fmt.Sprintf("field label not supported: %s", req.Key))
	}
	return sel, nil
}

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
	if sel.empty() {
		return true
	}
	var doc map[string]any
	if err := json.Unmarshal(value, &doc); err != nil {
		return false
	}
	md, _ := doc["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	if !sel.labels.Matches(func(k string) (string, bool) {
		v, ok := labels[k].(string)
		return v, ok
	}) {
		return false
	}
	return sel.fields.Matches(func(path string) (string, bool) {
		return fieldValue(doc, path), true
	})
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

func encodeContinue(rev int64, start, prefix string) string {
	data, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: rev, StartKey: strings.TrimPrefix(start, prefix)})
	return base64.RawURLEncoding.EncodeToString(data)
}

// decodeContinue returns the token with its start key made absolute
// under prefix. A key that would climb out of the prefix ("../other/x")
// is refused, so that a token can never read outside its list.
func decodeContinue(s, prefix string) (continueToken, error) {
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return continueToken{}, fmt.Errorf("continue key is not valid: %v", err)
	}
	var t continueToken
	if err := json.Unmarshal(data, &t); err != nil {
		return continueToken{}, fmt.Errorf("continue key is not valid: %v", err)
	}
	switch {
	case t.APIVersion != "meta.k8s.io/v1":
		return continueToken{}, fmt.Errorf("continue key is not valid: server does not recognize this encoded version %q", t.APIVersion)
	case t.ResourceVersion <= 0:
		return continueToken{}, errors.New("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	case t.StartKey == "":
		return continueToken{}, errors.New("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")
	}
	key := t.StartKey
	if !strings.HasPrefix(key, "/") {
		key = "/" + key
	}
	if path.Clean(key) != key {
		return continueToken{}, fmt.Errorf("continue key is not valid: %s", t.StartKey)
	}
	t.StartKey = prefix + key[1:]
	return t, nil
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
	q := r.URL.Query()
	var limit int64
	if l := q.Get("limit"); l != "" {
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil || n < 0 {
			return nil, 0, "", badRequest(fmt.Sprintf("limit: invalid value %q", l))
		}
		limit = n
	}
	pre := prefix(req.kind, req.namespace)
	start := ""
	rev, st = s.listRevision(r.Context(), q)
	if st != nil {
		return nil, 0, "", st
	}
	exact := rev > 0
	if c := q.Get("continue"); c != "" {
		t, err := decodeContinue(c, pre)
		if err != nil {
			return nil, 0, "", badRequest(err.Error())
		}
		rev, start = t.ResourceVersion, t.StartKey
	}
	for {
		resp, err := s.store.Range(r.Context(), storage.RangeRequest{Prefix: pre, Start: start, Revision: rev, Limit: limit})
		if err != nil {
			switch {
			case errors.Is(err, storage.ErrCompacted) && exact:
				return nil, 0, "", expired("The resourceVersion for the provided list is too old.")
			case errors.Is(err, storage.ErrCompacted):
				return nil, 0, "", expired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.")
			case errors.Is(err, storage.ErrFutureRevision):
				return nil, 0, "", s.tooLargeResourceVersion(r.Context(), rev)
			}
			return nil, 0, "", storeError(req.kind, "", err)
		}
		rev = resp.Revision
		for i, kv := range resp.KVs {
			if !sel.matches(kv.Value) {
				continue
			}
			kvs = append(kvs, kv)
			if limit > 0 && int64(len(kvs)) == limit {
				if i < len(resp.KVs)-1 || resp.More {
					cont = encodeContinue(rev, kv.Key+"\x00", pre)
				}
				return kvs, rev, cont, nil
			}
		}
		if !resp.More || len(resp.KVs) == 0 {
			return kvs, rev, "", nil
		}
		start = resp.KVs[len(resp.KVs)-1].Key + "\x00"
	}
}

func (s *server) list(w http.ResponseWriter, r *http.Request, req request) {
	if st := validateListOptions(r.URL.Query(), false); st != nil {
		writeStatus(w, st)
		return
	}
	sel, st := parseSelectors(req.kind, r)
	if st != nil {
		writeStatus(w, st)
		return
	}
	kvs, rev, cont, st := s.listItems(r, req, sel)
	if st != nil {
		writeStatus(w, st)
		return
	}
	if wantsTable(r) {
		objs := make([]api.Object, 0, len(kvs))
		for _, kv := range kvs {
			obj, err := load(req.kind, kv)
			if err != nil {
				writeStatus(w, internalError(err))
				return
			}
			objs = append(objs, obj)
		}
		writeJSON(w, http.StatusOK, s.table(r, req.kind, objs, rev, cont))
		return
	}
	// The list is assembled from the stored bytes: no decode, no encode.
	var b bytes.Buffer
	b.Grow(256 + len(kvs)*1024)
	fmt.Fprintf(&b, `{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":"%d"`, req.kind.Kind+"List", req.kind.APIVersion(), rev)
	if cont != "" {
		fmt.Fprintf(&b, `,"continue":%q`, cont)
	}
	b.WriteString(`},"items":[`)
	for i, kv := range kvs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(withRV(kv))
	}
	b.WriteString("]}")
	writeRaw(w, http.StatusOK, b.Bytes())
}
