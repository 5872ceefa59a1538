// Package apiserver is the reference kube-apiserver of the kata: REST over
// the store, with watch, upstream errors, discovery and Table responses, so
// that every component, and a real kubectl, can talk to it.
//
// The apiserver is the only gate to the store (seed 000 §2.2): nobody else
// reads or writes it. It owns what makes objects trustworthy: names and
// uids, resourceVersions (the store's mod_revision), generations,
// validation, and the rules of the status and binding subresources.
package apiserver

import (
	"net/http"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/openapi"
	"github.com/kubekata/kubekata/harness/storage"
)

// maxBodyBytes is upstream's limit on a request body (3 MiB); larger
// bodies get 413.
const maxBodyBytes = 3 * 1024 * 1024

// server serves the Kubernetes API over one store.
type server struct {
	store storage.Store
	now   func() time.Time
	// bookmarkEvery is how often a watch that allows bookmarks gets one.
	bookmarkEvery time.Duration
}

// New returns the apiserver's HTTP handler over store.
func New(store storage.Store) http.Handler {
	return &server{store: store, now: time.Now, bookmarkEvery: time.Minute}
}

// request is what a resource path names.
type request struct {
	kind      api.Kind
	namespace string // "" for cluster-scoped kinds and all-namespace lists
	name      string // "" for the collection
	sub       string // "", "status", "binding", "scale" or "finalize"
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A bug here must not take the server down for everyone else: answer
	// 500 and keep serving. Client mistakes never get here.
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			writeStatus(w, internalError(p))
		}
	}()
	path := strings.Trim(r.URL.Path, "/")
	segs := strings.Split(path, "/")
	if path == openapi.Root || strings.HasPrefix(path, openapi.Root+"/") {
		// The OpenAPI documents kubectl reads before it validates (given,
		// from harness/openapi).
		if doc, ok := openapi.Document(path, gitVersion); ok {
			writeRaw(w, http.StatusOK, doc)
		} else {
			writeStatus(w, notFoundPath())
		}
		return
	}
	switch {
	case path == "version":
		s.serveVersion(w, r)
		return
	case path == "healthz" || path == "livez" || path == "readyz":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
		return
	case path == "api":
		s.serveLegacyVersions(w, r)
		return
	case path == "apis":
		s.serveGroupList(w, r)
		return
	case len(segs) == 2 && segs[0] == "api":
		s.serveResourceList(w, r, "", segs[1])
		return
	case len(segs) == 2 && segs[0] == "apis":
		s.serveGroup(w, r, segs[1])
		return
	case len(segs) == 3 && segs[0] == "apis":
		s.serveResourceList(w, r, segs[1], segs[2])
		return
	}
	req, st := parsePath(segs)
	if st != nil {
		writeStatus(w, st)
		return
	}
	s.serveResource(w, r, req)
}

// parsePath reads /api/v1/... and /apis/{group}/{version}/... paths:
//
//	{resource}                                  list all (or cluster-scoped)
//	{resource}/{name}[/{sub}]                   cluster-scoped object
//	namespaces/{ns}/{resource}[/{name}[/{sub}]] namespaced
func parsePath(segs []string) (request, *api.Status) {
	var group, version string
	var rest []string
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		version, rest = segs[1], segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		group, version, rest = segs[1], segs[2], segs[3:]
	default:
		return request{}, notFoundPath()
	}
	var req request
	namespaced := false
	if len(rest) >= 3 && rest[0] == "namespaces" && rest[2] != "status" && rest[2] != "finalize" {
		req.namespace = rest[1]
		rest = rest[2:]
		namespaced = true
	}
	if len(rest) > 3 {
		return request{}, notFoundPath()
	}
	kind, ok := api.LookupResource(group, version, rest[0])
	if !ok || (namespaced && !kind.Namespaced) {
		return request{}, notFoundPath()
	}
	req.kind = kind
	if len(rest) >= 2 {
		req.name = rest[1]
	}
	if len(rest) == 3 {
		req.sub = rest[2]
		if !hasSub(kind, req.sub) {
			return request{}, notFoundPath()
		}
	}
	if req.name == "" && rest[0] == "" {
		return request{}, notFoundPath()
	}
	return req, nil
}

func hasSub(kind api.Kind, sub string) bool {
	for _, s := range kind.Subresources {
		if s == sub {
			return true
		}
	}
	return false
}

// key is where an object lives in the store, as upstream lays out etcd:
// /registry/pods/default/web, /registry/nodes/node-1.
func key(kind api.Kind, namespace, name string) string {
	if kind.Namespaced {
		return "/registry/" + kind.Resource + "/" + namespace + "/" + name
	}
	return "/registry/" + kind.Resource + "/" + name
}

// prefix is where a list reads: every namespace, or one.
func prefix(kind api.Kind, namespace string) string {
	if kind.Namespaced && namespace != "" {
		return "/registry/" + kind.Resource + "/" + namespace + "/"
	}
	return "/registry/" + kind.Resource + "/"
}

func (s *server) serveResource(w http.ResponseWriter, r *http.Request, req request) {
	m := r.Method
	switch {
	case req.name == "":
		switch m {
		case http.MethodGet:
			if q := r.URL.Query().Get("watch"); q == "1" || q == "true" {
				if wantsTable(r) {
					// kubectl get -w: Tables in the events (given).
					w = &tableEvents{ResponseWriter: w, s: s, r: r, kind: req.kind}
				}
				s.watch(w, r, req)
				return
			}
			s.list(w, r, req)
			return
		case http.MethodPost:
			if req.kind.Namespaced && req.namespace == "" {
				break
			}
			if req.kind.Kind == "Binding" {
				// The older route: POST .../namespaces/{ns}/bindings
				// names the pod in the Binding's metadata.
				s.bind(w, r, req)
				return
			}
			s.create(w, r, req)
			return
		}
	case req.sub == "":
		switch m {
		case http.MethodGet:
			s.get(w, r, req)
			return
		case http.MethodPut:
			s.update(w, r, req)
			return
		case http.MethodPatch:
			s.patch(w, r, req)
			return
		case http.MethodDelete:
			s.delete(w, r, req)
			return
		}
	case req.sub == "status":
		switch m {
		case http.MethodGet:
			s.get(w, r, req)
			return
		case http.MethodPut:
			s.update(w, r, req)
			return
		case http.MethodPatch:
			s.patch(w, r, req)
			return
		}
	case req.sub == "finalize":
		// namespaces/{name}/finalize: an update of spec.finalizers
		// (pkg/registry/core/namespace/storage/storage.go, FinalizeREST).
		if m == http.MethodPut {
			s.update(w, r, req)
			return
		}
	case req.sub == "binding":
		if m == http.MethodPost {
			s.bind(w, r, req)
			return
		}
	case req.sub == "scale":
		s.scale(w, r, req)
		return
	}
	writeStatus(w, methodNotAllowed())
}
