package apiservertest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/apiservertest"
	"github.com/kubekata/kubekata/harness/storage"
	apiserver "github.com/kubekata/kubekata/solutions/04-apiserver"
)

// The suite runs against the reference in solutions/04-apiserver (its
// test file). Here it runs against broken apiservers, each in a child
// process, to show that each rule the README states is checked: every
// mutant is the reference with one rule broken, by a store that misleads
// it or by a wrapper that changes what goes in or comes out, and must
// fail exactly the steps listed.

const mutantEnv = "APISERVERTEST_MUTANT"

// TestAPIServer is the suite against one mutant, in a child process of
// TestSuiteCatchesBugs.
func TestAPIServer(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("runs as a child of TestSuiteCatchesBugs; solutions/04-apiserver runs the suite against the reference")
	}
	m, ok := mutants[name]
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	apiservertest.Run(t, func(s storage.Store) http.Handler {
		if m.store != nil {
			s = m.store(s)
		}
		h := apiserver.New(s)
		if m.handler != nil {
			h = m.handler(s, h)
		}
		return h
	})
}

type mutant struct {
	store   func(storage.Store) storage.Store
	handler func(storage.Store, http.Handler) http.Handler
	fails   []string // the steps it must fail, and no others
}

var mutants = map[string]mutant{
	// translate judges the selector on the new value only: no DELETED
	// when an object leaves the selector, MODIFIED instead of ADDED when
	// it enters.
	"watch-new-value-only": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return selectorOnEvents(h, func(typ string, newMatches bool) bool { return newMatches })
	}, fails: []string{"09-watch"}},
	// ... and sends every DELETED, matching or not.
	"watch-deletes-unmatched": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return selectorOnEvents(h, func(typ string, newMatches bool) bool { return newMatches || typ == "DELETED" })
	}, fails: []string{"09-watch"}},
	// The store's previous values are not used: a delete has nothing to
	// match, an update looks like a create.
	"watch-without-prev-kv": {store: func(s storage.Store) storage.Store { return noPrevKV{s} },
		fails: []string{"09-watch"}},
	// A namespace's key prefix without its trailing slash: default also
	// reads default2.
	"prefix-without-slash": {store: func(s storage.Store) storage.Store { return noTrailingSlash{s} },
		fails: []string{"07-list-selectors", "09-watch"}},
	// A delete that ignores preconditions.resourceVersion.
	"delete-ignores-rv-precondition": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return rewriteBody(h, http.MethodDelete, func(doc map[string]any) {
			if pc, ok := doc["preconditions"].(map[string]any); ok {
				delete(pc, "resourceVersion")
			}
		})
	}, fails: []string{"13-delete"}},
	// RBAC names checked as DNS subdomains, like every other name: the
	// bootstrap roles (system:node, ...) cannot be created.
	"rbac-names-as-subdomains": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/rbac.authorization.k8s.io/") {
				body, _ := io.ReadAll(r.Body)
				var doc struct {
					Metadata struct{ Name string } `json:"metadata"`
				}
				_ = json.Unmarshal(body, &doc)
				if strings.Contains(doc.Metadata.Name, ":") {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusUnprocessableEntity)
					_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Invalid","code":422,"message":"ClusterRole.rbac.authorization.k8s.io %q is invalid: metadata.name: Invalid value: %q: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"}`, doc.Metadata.Name, doc.Metadata.Name)
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
			h.ServeHTTP(w, r)
		})
	}, fails: []string{"05-validation"}},
	// A create that drops the client's resourceVersion instead of
	// refusing it.
	"create-accepts-rv": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return rewriteBody(h, http.MethodPost, func(doc map[string]any) {
			if md, ok := doc["metadata"].(map[string]any); ok {
				delete(md, "resourceVersion")
			}
		})
	}, fails: []string{"02-server-fields"}},
	// A page is one Range of limit keys, filtered afterwards: pages with
	// a selector come back short, without a continue token.
	"page-not-filled": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			sel := q.Get("labelSelector")
			if q.Get("watch") != "" || q.Get("limit") == "" || sel == "" {
				h.ServeHTTP(w, r)
				return
			}
			q.Del("labelSelector")
			r.URL.RawQuery = q.Encode()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			var list map[string]any
			if json.Unmarshal(rec.Body.Bytes(), &list) == nil {
				items, _ := list["items"].([]any)
				kept := []any{}
				for _, it := range items {
					if obj, _ := it.(map[string]any); matchesEquality(obj, sel) {
						kept = append(kept, it)
					}
				}
				list["items"] = kept
			}
			data, _ := json.Marshal(list)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rec.Code)
			_, _ = w.Write(data)
		})
	}, fails: []string{"08-list-paging"}},
	// A continue key is appended to the prefix without path.Clean.
	"continue-not-cleaned": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return rewriteQuery(h, func(q url.Values) {
			if c := q.Get("continue"); c != "" {
				q.Set("continue", mapToken(c, func(start string) string { return strings.ReplaceAll(start, "..", "._") }))
			}
		})
	}, fails: []string{"08-list-paging"}},
	// ErrFutureRevision from a paged Range is not mapped: a 500.
	"future-continue-500": {store: func(s storage.Store) storage.Store { return futureIsInternal{s} },
		fails: []string{"08-list-paging"}},
	// A list reads the latest state whatever resourceVersion says.
	"list-ignores-resource-version": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return rewriteQuery(h, func(q url.Values) {
			if q.Get("watch") == "" {
				q.Del("resourceVersion")
				q.Del("resourceVersionMatch")
			}
		})
	}, fails: []string{"08-list-paging"}},
	// ListOptions are not validated: a match without a version, and
	// sendInitialEvents without NotOlderThan, are served.
	"list-options-not-validated": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return rewriteQuery(h, func(q url.Values) {
			if q.Get("resourceVersion") == "" {
				q.Del("resourceVersionMatch")
			}
			if q.Get("sendInitialEvents") != "" {
				q.Set("resourceVersionMatch", "NotOlderThan")
			}
		})
	}, fails: []string{"08-list-paging", "10-watch-expired"}},
	// Bookmarks only every minute, whatever the watch's timeout.
	"bookmarks-ignore-timeout": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return rewriteQuery(h, func(q url.Values) { q.Del("timeoutSeconds") })
	}, fails: []string{"10-watch-expired"}},
	// A watch beyond the store's revision: rv+1 overflows, or the store's
	// error is passed on as a 500.
	"watch-future-500": {handler: func(s storage.Store, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			rv, err := strconv.ParseInt(q.Get("resourceVersion"), 10, 64)
			cur, _ := storage.CurrentRevision(r.Context(), s)
			if q.Get("watch") != "" && err == nil && rv > cur {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"storage: invalid range","reason":"InternalError","code":500}}`+"\n")
				return
			}
			h.ServeHTTP(w, r)
		})
	}, fails: []string{"10-watch-expired"}},
	// A watch on all namespaces serves one.
	"all-namespaces-watch-is-default": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/v1/pods" && r.URL.Query().Get("watch") != "" {
				r.URL.Path = "/api/v1/namespaces/default/pods"
			}
			h.ServeHTTP(w, r)
		})
	}, fails: []string{"09-watch"}},
	// Continue tokens carry the whole key, not upstream's key relative
	// to the list's prefix.
	"continue-absolute-key": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		const pre = "/registry/pods/default/"
		in := rewriteQuery(h, func(q url.Values) {
			if c := q.Get("continue"); c != "" {
				q.Set("continue", mapToken(c, func(start string) string { return strings.TrimPrefix(start, pre) }))
			}
		})
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || r.URL.Query().Get("watch") != "" {
				in.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			in.ServeHTTP(rec, r)
			var list map[string]any
			if json.Unmarshal(rec.Body.Bytes(), &list) == nil {
				if md, ok := list["metadata"].(map[string]any); ok && md["continue"] != nil {
					md["continue"] = mapToken(fmt.Sprint(md["continue"]), func(start string) string { return pre + start })
					data, _ := json.Marshal(list)
					rec.Body = bytes.NewBuffer(data)
				}
			}
			copyRecorded(w, rec)
		})
	}, fails: []string{"08-list-paging"}},
	// Pod updates may change anything in the spec.
	"pod-updates-unchecked": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return acceptRefused(st, h, http.MethodPut, "pod updates may not change fields other than")
	}, fails: []string{"05-validation"}},
	// A Deployment's selector need not select its template.
	"selector-unchecked": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return acceptRefused(st, h, http.MethodPost, "`selector` does not match template `labels`")
	}, fails: []string{"05-validation"}},
	// Negative replicas and quantities are stored.
	"negatives-unchecked": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return acceptRefused(st, h, http.MethodPost, "must be greater than or equal to 0")
	}, fails: []string{"05-validation"}},
	// A status write keeps the stored metadata, as if only status
	// could change.
	"status-keeps-metadata": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/status") {
				if kv, err := st.Get(r.Context(), storeKey(r.URL.Path, "")); err == nil {
					var stored map[string]any
					_ = json.Unmarshal(kv.Value, &stored)
					rewriteBody(h, http.MethodPut, func(doc map[string]any) {
						md, _ := doc["metadata"].(map[string]any)
						smd, _ := stored["metadata"].(map[string]any)
						if md != nil && smd != nil {
							md["labels"], md["annotations"] = smd["labels"], smd["annotations"]
						}
					}).ServeHTTP(w, r)
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}, fails: []string{"11-status-subresource"}},
	// A status write takes all of the metadata: a pod's ownerReferences,
	// a Deployment's labels.
	"status-takes-all-metadata": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPut || !strings.HasSuffix(r.URL.Path, "/status") {
				h.ServeHTTP(w, r)
				return
			}
			data, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(data))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code == http.StatusOK {
				var body map[string]any
				_ = json.Unmarshal(data, &body)
				md, _ := body["metadata"].(map[string]any)
				patchStored(r.Context(), st, storeKey(r.URL.Path, ""), func(doc map[string]any) bool {
					smd := doc["metadata"].(map[string]any)
					smd["labels"], smd["ownerReferences"] = md["labels"], md["ownerReferences"]
					return true
				})
			}
			copyRecorded(w, rec)
		})
	}, fails: []string{"11-status-subresource"}},
	// Every kind with a spec counts generations, nodes and namespaces
	// too.
	"generation-everywhere": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if (r.URL.Path == "/api/v1/nodes" || r.URL.Path == "/api/v1/namespaces") && rec.Code == http.StatusCreated {
				var doc map[string]any
				if json.Unmarshal(rec.Body.Bytes(), &doc) == nil {
					doc["metadata"].(map[string]any)["generation"] = 1
					data, _ := json.Marshal(doc)
					rec.Body = bytes.NewBuffer(data)
				}
			}
			copyRecorded(w, rec)
		})
	}, fails: []string{"04-update-conflict"}},
	// Marking an object for deletion leaves its generation alone.
	"deletion-keeps-generation": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var before int64 = -1
			if r.Method == http.MethodDelete {
				if kv, err := st.Get(r.Context(), storeKey(r.URL.Path, "")); err == nil {
					var doc struct {
						Metadata struct {
							Generation        int64   `json:"generation"`
							DeletionTimestamp *string `json:"deletionTimestamp"`
						} `json:"metadata"`
					}
					_ = json.Unmarshal(kv.Value, &doc)
					if doc.Metadata.DeletionTimestamp == nil {
						before = doc.Metadata.Generation
					}
				}
			}
			h.ServeHTTP(w, r)
			if before >= 0 {
				patchStored(r.Context(), st, storeKey(r.URL.Path, ""), func(doc map[string]any) bool {
					md := doc["metadata"].(map[string]any)
					if md["deletionTimestamp"] == nil || md["generation"] == float64(before) {
						return false
					}
					md["generation"] = before
					return true
				})
			}
		})
	}, fails: []string{"13-delete"}},
	// A negative grace period deletes at once.
	"negative-grace-immediate": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return rewriteQuery(h, func(q url.Values) {
			if g, err := strconv.Atoi(q.Get("gracePeriodSeconds")); err == nil && g < 0 {
				q.Set("gracePeriodSeconds", "0")
			}
		})
	}, fails: []string{"13-delete"}},
	// Unknown fields are dropped without a word.
	"no-field-warnings": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(dropWarnings{w}, r)
		})
	}, fails: []string{"06-bad-requests"}},
	// The 410's message carries the store's error, not the compacted
	// revision.
	"expired-message": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return rewriteEvents(h, func(typ string, obj map[string]any) (string, bool) {
			if typ == "ERROR" && obj["code"] == float64(http.StatusGone) {
				obj["message"] = regexp.MustCompile(`\(\d+\)$`).ReplaceAllString(fmt.Sprint(obj["message"]), "(storage: required revision has been compacted)")
			}
			return typ, true
		})
	}, fails: []string{"10-watch-expired"}},
	// A write without a resourceVersion that does not retry when it
	// loses the compare-and-swap: played by pinning every blind PUT to
	// the version read just before, so that a concurrent writer turns it
	// into a 409.
	"blind-write-no-retry": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut && !strings.HasSuffix(r.URL.Path, "/status") && r.Body != nil {
				data, _ := io.ReadAll(r.Body)
				var doc map[string]any
				if json.Unmarshal(data, &doc) == nil {
					md, _ := doc["metadata"].(map[string]any)
					if md != nil && md["resourceVersion"] == nil {
						rec := httptest.NewRecorder()
						h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, r.URL.Path, nil))
						var cur struct {
							Metadata struct {
								ResourceVersion string `json:"resourceVersion"`
							} `json:"metadata"`
						}
						if json.Unmarshal(rec.Body.Bytes(), &cur) == nil && cur.Metadata.ResourceVersion != "" {
							md["resourceVersion"] = cur.Metadata.ResourceVersion
							data, _ = json.Marshal(doc)
						}
					}
				}
				r.Body = io.NopCloser(bytes.NewReader(data))
				r.ContentLength = int64(len(data))
			}
			h.ServeHTTP(w, r)
		})
	}, fails: []string{"04-update-conflict"}},
	// The namespace strategies (step 16), each with one rule broken.
	// A namespace's DELETE removes it at once, like any object's.
	"namespace-delete-at-once": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return onNamespace(h, http.MethodDelete, "", func(w http.ResponseWriter, r *http.Request, h http.Handler) {
			kv, err := st.Get(r.Context(), storeKey(r.URL.Path, ""))
			if err != nil {
				h.ServeHTTP(w, r)
				return
			}
			_, _, _ = storage.CompareAndDelete(r.Context(), st, kv.Key, kv.ModRevision)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(kv.Value)
		})
	}, fails: []string{"16-namespace-lifecycle"}},
	// A later DELETE removes a Terminating namespace that spec.finalizers
	// still hold.
	"namespace-second-delete-removes": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return onNamespace(h, http.MethodDelete, "", func(w http.ResponseWriter, r *http.Request, h http.Handler) {
			if kv, err := st.Get(r.Context(), storeKey(r.URL.Path, "")); err == nil && bytes.Contains(kv.Value, []byte(`"deletionTimestamp"`)) {
				_, _, _ = storage.CompareAndDelete(r.Context(), st, kv.Key, kv.ModRevision)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(kv.Value)
				return
			}
			h.ServeHTTP(w, r)
		})
	}, fails: []string{"16-namespace-lifecycle"}},
	// The first DELETE sets the deletionTimestamp but leaves the phase
	// Active.
	"namespace-not-terminating": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return onNamespace(h, http.MethodDelete, "", func(w http.ResponseWriter, r *http.Request, h http.Handler) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			patchStored(r.Context(), st, storeKey(r.URL.Path, ""), func(doc map[string]any) bool {
				status, _ := doc["status"].(map[string]any)
				if status == nil || status["phase"] != "Terminating" {
					return false
				}
				status["phase"] = "Active"
				return true
			})
			body := bytes.Replace(rec.Body.Bytes(), []byte(`"phase":"Terminating"`), []byte(`"phase":"Active"`), 1)
			rec.Body = bytes.NewBuffer(body)
			copyRecorded(w, rec)
		})
	}, fails: []string{"16-namespace-lifecycle"}},
	// PUT namespaces/{name}/finalize answers with the namespace and
	// changes nothing.
	"namespace-finalize-ignored": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return onNamespace(h, http.MethodPut, "finalize", func(w http.ResponseWriter, r *http.Request, h http.Handler) {
			get := httptest.NewRequest(http.MethodGet, strings.TrimSuffix(r.URL.Path, "/finalize"), nil)
			h.ServeHTTP(w, get.WithContext(r.Context()))
		})
	}, fails: []string{"16-namespace-lifecycle"}},
	// finalize takes the status too.
	"namespace-finalize-takes-status": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return onNamespace(h, http.MethodPut, "finalize", func(w http.ResponseWriter, r *http.Request, h http.Handler) {
			data, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(data))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			var body map[string]any
			if rec.Code == http.StatusOK && json.Unmarshal(data, &body) == nil {
				patchStored(r.Context(), st, storeKey(strings.TrimSuffix(r.URL.Path, "/finalize"), ""), func(doc map[string]any) bool {
					doc["status"] = body["status"]
					return true
				})
			}
			copyRecorded(w, rec)
		})
	}, fails: []string{"16-namespace-lifecycle"}},
	// A PUT of the namespace itself writes spec.finalizers, as finalize
	// does.
	"namespace-update-writes-finalizers": {handler: func(_ storage.Store, h http.Handler) http.Handler {
		return onNamespace(h, http.MethodPut, "", func(w http.ResponseWriter, r *http.Request, h http.Handler) {
			r.URL.Path += "/finalize"
			h.ServeHTTP(w, r)
		})
	}, fails: []string{"16-namespace-lifecycle"}},
	// A write that leaves no metadata.finalizers on a Terminating
	// namespace removes it, whatever its spec.finalizers say.
	"namespace-write-ignores-spec-finalizers": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return onNamespace(h, http.MethodPut, "", func(w http.ResponseWriter, r *http.Request, h http.Handler) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			var doc struct {
				Metadata struct {
					DeletionTimestamp *string  `json:"deletionTimestamp"`
					Finalizers        []string `json:"finalizers"`
				} `json:"metadata"`
			}
			if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &doc) == nil && doc.Metadata.DeletionTimestamp != nil && len(doc.Metadata.Finalizers) == 0 {
				if kv, err := st.Get(r.Context(), storeKey(r.URL.Path, "")); err == nil {
					_, _, _ = storage.CompareAndDelete(r.Context(), st, kv.Key, kv.ModRevision)
				}
			}
			copyRecorded(w, rec)
		})
	}, fails: []string{"16-namespace-lifecycle"}},
	// The finalize that empties spec.finalizers of a Terminating
	// namespace removes it, whatever metadata.finalizers say.
	"namespace-finalize-ignores-metadata-finalizers": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return onNamespace(h, http.MethodPut, "finalize", func(w http.ResponseWriter, r *http.Request, h http.Handler) {
			h.ServeHTTP(w, r)
			removeNamespaceIf(r, st, func(deleting bool, spec, meta int) bool { return deleting && spec == 0 })
		})
	}, fails: []string{"16-namespace-lifecycle"}},
	// The finalize that empties spec.finalizers removes an Active
	// namespace too.
	"namespace-finalize-removes-active": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return onNamespace(h, http.MethodPut, "finalize", func(w http.ResponseWriter, r *http.Request, h http.Handler) {
			h.ServeHTTP(w, r)
			removeNamespaceIf(r, st, func(deleting bool, spec, meta int) bool { return spec == 0 && meta == 0 })
		})
	}, fails: []string{"16-namespace-lifecycle"}},
	// The first DELETE of a namespace that nothing holds removes it at
	// once.
	"namespace-unheld-delete-at-once": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return onNamespace(h, http.MethodDelete, "", func(w http.ResponseWriter, r *http.Request, h http.Handler) {
			unheld := false
			removeNamespaceIf(r, st, func(deleting bool, spec, meta int) bool {
				unheld = !deleting && spec == 0 && meta == 0
				return false
			})
			h.ServeHTTP(w, r)
			removeNamespaceIf(r, st, func(bool, int, int) bool { return unheld })
		})
	}, fails: []string{"16-namespace-lifecycle"}},
	// A later DELETE never removes a Terminating namespace, even once
	// nothing holds it.
	"namespace-delete-never-removes": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return onNamespace(h, http.MethodDelete, "", func(w http.ResponseWriter, r *http.Request, h http.Handler) {
			if kv, err := st.Get(r.Context(), storeKey(r.URL.Path, "")); err == nil && bytes.Contains(kv.Value, []byte(`"deletionTimestamp"`)) {
				get := httptest.NewRequest(http.MethodGet, r.URL.Path, nil)
				h.ServeHTTP(w, get.WithContext(r.Context()))
				return
			}
			h.ServeHTTP(w, r)
		})
	}, fails: []string{"16-namespace-lifecycle"}},
	// A finalize that changes nothing is not written, and so does not
	// remove a Terminating namespace that nothing holds.
	"namespace-unchanged-finalize-keeps": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return onNamespace(h, http.MethodPut, "finalize", func(w http.ResponseWriter, r *http.Request, h http.Handler) {
			data, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(data))
			var body struct {
				Spec struct {
					Finalizers []string `json:"finalizers"`
				} `json:"spec"`
			}
			empty := false
			_ = json.Unmarshal(data, &body)
			removeNamespaceIf(r, st, func(deleting bool, spec, meta int) bool {
				empty = deleting && spec == 0 && meta == 0 && len(body.Spec.Finalizers) == 0
				return false
			})
			if empty {
				get := httptest.NewRequest(http.MethodGet, strings.TrimSuffix(r.URL.Path, "/finalize"), nil)
				h.ServeHTTP(w, get.WithContext(r.Context()))
				return
			}
			h.ServeHTTP(w, r)
		})
	}, fails: []string{"16-namespace-lifecycle"}},
	// Create leaves spec.finalizers as the client sent them.
	"namespace-create-without-kubernetes": {handler: func(st storage.Store, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.URL.Path != "/api/v1/namespaces" {
				h.ServeHTTP(w, r)
				return
			}
			data, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(data))
			var sent struct {
				Metadata struct{ Name string } `json:"metadata"`
				Spec     map[string]any        `json:"spec"`
			}
			_ = json.Unmarshal(data, &sent)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code == http.StatusCreated {
				undo := func(doc map[string]any) bool {
					if sent.Spec == nil {
						delete(doc, "spec")
					} else {
						doc["spec"] = sent.Spec
					}
					return true
				}
				patchStored(r.Context(), st, storeKey(r.URL.Path, sent.Metadata.Name), undo)
				var doc map[string]any
				if json.Unmarshal(rec.Body.Bytes(), &doc) == nil && undo(doc) {
					data, _ := json.Marshal(doc)
					rec.Body = bytes.NewBuffer(data)
				}
			}
			copyRecorded(w, rec)
		})
	}, fails: []string{"16-namespace-lifecycle"}},
}

// removeNamespaceIf deletes the namespace r names from the store when
// remove says so of it: whether it has a deletionTimestamp, and how many
// spec.finalizers and metadata.finalizers it has.
func removeNamespaceIf(r *http.Request, st storage.Store, remove func(deleting bool, spec, meta int) bool) {
	path := strings.TrimSuffix(r.URL.Path, "/finalize")
	kv, err := st.Get(r.Context(), storeKey(path, ""))
	if err != nil {
		return
	}
	var doc struct {
		Metadata struct {
			DeletionTimestamp *string  `json:"deletionTimestamp"`
			Finalizers        []string `json:"finalizers"`
		} `json:"metadata"`
		Spec struct {
			Finalizers []string `json:"finalizers"`
		} `json:"spec"`
	}
	if json.Unmarshal(kv.Value, &doc) != nil {
		return
	}
	if remove(doc.Metadata.DeletionTimestamp != nil, len(doc.Spec.Finalizers), len(doc.Metadata.Finalizers)) {
		_, _, _ = storage.CompareAndDelete(r.Context(), st, kv.Key, kv.ModRevision)
	}
}

// onNamespace sends the requests of method to one namespace (sub "") or
// to its subresource sub through f, and the others straight to h.
func onNamespace(h http.Handler, method, sub string, f func(http.ResponseWriter, *http.Request, http.Handler)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		want := 4
		if sub != "" {
			want = 5
		}
		if r.Method == method && len(segs) == want && segs[0] == "api" && segs[2] == "namespaces" && (sub == "" || segs[4] == sub) {
			f(w, r, h)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func TestSuiteCatchesBugs(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("a child process")
	}
	names := make([]string, 0, len(mutants))
	for n := range mutants {
		names = append(names, n)
	}
	sort.Strings(names)
	stepLine := regexp.MustCompile(`--- (FAIL|PASS): TestAPIServer/(\d\d-[a-z-]+)`)
	for _, name := range names {
		want := mutants[name].fails
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestAPIServer$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), mutantEnv+"="+name)
			out, _ := cmd.CombinedOutput()
			var failed []string
			passed := 0
			for _, m := range stepLine.FindAllStringSubmatch(string(out), -1) {
				if m[1] == "FAIL" {
					failed = append(failed, m[2])
				} else {
					passed++
				}
			}
			sort.Strings(failed)
			if strings.Join(failed, " ") != strings.Join(want, " ") || passed+len(failed) != 16 {
				t.Errorf("the suite against an apiserver with bug %q: failed steps %v (%d passed), want exactly %v failed and the other steps passed; output:\n%s", name, failed, passed, want, out)
			}
		})
	}
}

// ------------------------------------------------------------ stores

type noPrevKV struct{ storage.Store }

func (s noPrevKV) Watch(ctx context.Context, prefix string, from int64) (storage.Watcher, error) {
	w, err := s.Store.Watch(ctx, prefix, from)
	if err != nil {
		return nil, err
	}
	return mapWatcher(ctx, w, func(ev storage.Event) storage.Event { ev.PrevKV = nil; return ev }), nil
}

type noTrailingSlash struct{ storage.Store }

func (s noTrailingSlash) Range(ctx context.Context, req storage.RangeRequest) (storage.RangeResponse, error) {
	req.Prefix = strings.TrimSuffix(req.Prefix, "/")
	return s.Store.Range(ctx, req)
}

func (s noTrailingSlash) Watch(ctx context.Context, prefix string, from int64) (storage.Watcher, error) {
	return s.Store.Watch(ctx, strings.TrimSuffix(prefix, "/"), from)
}

type futureIsInternal struct{ storage.Store }

func (s futureIsInternal) Range(ctx context.Context, req storage.RangeRequest) (storage.RangeResponse, error) {
	resp, err := s.Store.Range(ctx, req)
	if errors.Is(err, storage.ErrFutureRevision) {
		err = errors.New("mvcc: required revision is a future revision")
	}
	return resp, err
}

// mapWatcher passes a watcher's events through f.
func mapWatcher(ctx context.Context, w storage.Watcher, f func(storage.Event) storage.Event) storage.Watcher {
	out := &mappedWatcher{Watcher: w, events: make(chan storage.Event)}
	go func() {
		defer close(out.events)
		for ev := range w.Events() {
			select {
			case out.events <- f(ev):
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

type mappedWatcher struct {
	storage.Watcher
	events chan storage.Event
}

func (w *mappedWatcher) Events() <-chan storage.Event { return w.events }

// ------------------------------------------------------------ wrappers

func rewriteQuery(h http.Handler, f func(url.Values)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f(q)
		r.URL.RawQuery = q.Encode()
		h.ServeHTTP(w, r)
	})
}

func rewriteBody(h http.Handler, method string, f func(map[string]any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == method && r.Body != nil {
			data, _ := io.ReadAll(r.Body)
			var doc map[string]any
			if json.Unmarshal(data, &doc) == nil {
				f(doc)
				data, _ = json.Marshal(doc)
			}
			r.Body = io.NopCloser(bytes.NewReader(data))
			r.ContentLength = int64(len(data))
		}
		h.ServeHTTP(w, r)
	})
}

// storeKey is the reference's key for a resource path, with name when
// the path names none (a POST).
func storeKey(path, name string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var rest []string
	if segs[0] == "api" {
		rest = segs[2:]
	} else {
		rest = segs[3:]
	}
	ns := ""
	if len(rest) >= 3 && rest[0] == "namespaces" {
		ns, rest = rest[1], rest[2:]
	}
	if len(rest) >= 2 {
		name = rest[1]
	}
	if ns == "" {
		return "/registry/" + rest[0] + "/" + name
	}
	return "/registry/" + rest[0] + "/" + ns + "/" + name
}

// patchStored changes a stored object in place, behind the server's back.
func patchStored(ctx context.Context, st storage.Store, key string, f func(map[string]any) bool) {
	kv, err := st.Get(ctx, key)
	if err != nil {
		return
	}
	var doc map[string]any
	if json.Unmarshal(kv.Value, &doc) != nil {
		return
	}
	if !f(doc) {
		return
	}
	data, _ := json.Marshal(doc)
	_, _ = storage.CompareAndSwap(ctx, st, key, data, kv.ModRevision)
}

// acceptRefused stores what the reference refuses with a 422 whose
// message contains msg: a server without that one rule.
func acceptRefused(st storage.Store, h http.Handler, method, msg string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method {
			h.ServeHTTP(w, r)
			return
		}
		data, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(data))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), msg) {
			copyRecorded(w, rec)
			return
		}
		var doc map[string]any
		_ = json.Unmarshal(data, &doc)
		md, _ := doc["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		delete(md, "resourceVersion")
		out, _ := json.Marshal(doc)
		key := storeKey(r.URL.Path, name)
		code := http.StatusCreated
		if method == http.MethodPut {
			code = http.StatusOK
			kv, err := st.Get(r.Context(), key)
			if err == nil {
				_, err = storage.CompareAndSwap(r.Context(), st, key, out, kv.ModRevision)
			}
			if err != nil {
				copyRecorded(w, rec)
				return
			}
		} else if _, err := storage.Create(r.Context(), st, key, out); err != nil {
			copyRecorded(w, rec)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write(out)
	})
}

func copyRecorded(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// dropWarnings is a ResponseWriter that sends no Warning headers.
type dropWarnings struct{ http.ResponseWriter }

func (d dropWarnings) WriteHeader(code int) {
	d.Header().Del("Warning")
	d.ResponseWriter.WriteHeader(code)
}

func (d dropWarnings) Write(b []byte) (int, error) {
	d.Header().Del("Warning")
	return d.ResponseWriter.Write(b)
}

func (d dropWarnings) Unwrap() http.ResponseWriter { return d.ResponseWriter }

func (d dropWarnings) Flush() { http.NewResponseController(d.ResponseWriter).Flush() }

// mapToken rewrites the start key of an upstream continue token.
func mapToken(tok string, f func(string) string) string {
	data, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return tok
	}
	var t map[string]any
	if json.Unmarshal(data, &t) != nil {
		return tok
	}
	t["start"] = f(fmt.Sprint(t["start"]))
	data, _ = json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(data)
}

// rewriteEvents runs a watch through the handler and passes each event
// through f, which may change its type and object or drop it.
func rewriteEvents(h http.Handler, f func(typ string, obj map[string]any) (string, bool)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "" {
			h.ServeHTTP(w, r)
			return
		}
		pr, pw := io.Pipe()
		rec := &streamRecorder{header: http.Header{}, body: pw, ready: make(chan int, 1)}
		go func() {
			h.ServeHTTP(rec, r)
			rec.WriteHeader(http.StatusOK)
			pw.Close()
		}()
		code := <-rec.ready
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(code)
		http.NewResponseController(w).Flush()
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			var ev struct {
				Type   string         `json:"type"`
				Object map[string]any `json:"object"`
			}
			line := sc.Bytes()
			if code == http.StatusOK && json.Unmarshal(line, &ev) == nil {
				typ, keep := f(ev.Type, ev.Object)
				if !keep {
					continue
				}
				line, _ = json.Marshal(map[string]any{"type": typ, "object": ev.Object})
			}
			if _, err := w.Write(append(line, '\n')); err != nil {
				break
			}
			http.NewResponseController(w).Flush()
		}
		pr.CloseWithError(io.ErrClosedPipe)
	})
}

// selectorOnEvents serves a watch without its labelSelector and applies
// the selector to each event's object alone, keeping an event when keep
// says so: a watcher that ignores the previous value.
func selectorOnEvents(h http.Handler, keep func(typ string, newMatches bool) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		sel := q.Get("labelSelector")
		if q.Get("watch") == "" || sel == "" {
			h.ServeHTTP(w, r)
			return
		}
		q.Del("labelSelector")
		r.URL.RawQuery = q.Encode()
		rewriteEvents(h, func(typ string, obj map[string]any) (string, bool) {
			if typ != "ADDED" && typ != "MODIFIED" && typ != "DELETED" {
				return typ, true
			}
			return typ, keep(typ, matchesEquality(obj, sel))
		}).ServeHTTP(w, r)
	})
}

// matchesEquality tests an object's labels against a selector of
// key=value requirements, the only kind the suite's watches use.
func matchesEquality(obj map[string]any, sel string) bool {
	md, _ := obj["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	for _, req := range strings.Split(sel, ",") {
		k, v, _ := strings.Cut(req, "=")
		if labels[k] != v {
			return false
		}
	}
	return true
}

// streamRecorder is a ResponseWriter that streams its body into a pipe.
type streamRecorder struct {
	header http.Header
	body   *io.PipeWriter
	ready  chan int
	wrote  bool
}

func (s *streamRecorder) Header() http.Header { return s.header }

func (s *streamRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.wrote = true
		s.ready <- code
	}
}

func (s *streamRecorder) Write(b []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	return s.body.Write(b)
}

func (s *streamRecorder) Flush() {}
