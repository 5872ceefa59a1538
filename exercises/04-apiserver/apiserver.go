// Package apiserver is your kube-apiserver: REST over the store, with
// watch, upstream errors, discovery and Table responses, so that every
// component, and a real kubectl, can talk to it.
//
// The apiserver is the only gate to the store: kubectl, the scheduler,
// the controllers and the kubelet all go through it, and nothing else
// touches etcd. Read README.md beside this file for the tasks.
//
// This file is given: New, and the router that turns a URL into a request
// and hands it to the handler for its verb. What the handlers do is yours
// to write, in the files named after it (rest.go, list.go, watch.go, ...):
// every function that panics with "not implemented" is one of yours, and
// README.md says which task needs it.
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

// New returns the apiserver's HTTP handler over store. Its one line is
// yours to write first: until it returns, kata up and every step say that
// this exercise has not been started.
func New(store storage.Store) http.Handler {
	// TODO: return a *server over store, with now set to time.Now and bookmarkEvery to time.Minute: it is the http.Handler the router below hangs on.
	panic("not implemented: New")
}

// request is what a resource path names.
type request struct {
	kind      api.Kind
	namespace string // "" for cluster-scoped kinds and all-namespace lists
	name      string // "" for the collection
	sub       string // "", "status", "binding", "scale" or "finalize"
}

// ServeHTTP routes one request: the discovery documents to discovery.go,
// everything under /api/v1 and /apis/{group}/{version} through parsePath
// to serveResource. There is no recover here on purpose: while you work,
// a panic reaches the test harness, which reports where it happened.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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

// hasSub says whether kind serves the subresource sub.
func hasSub(kind api.Kind, sub string) bool {
	for _, s := range kind.Subresources {
		if s == sub {
			return true
		}
	}
	return false
}

// key is where one object lives in the store, laid out the way upstream
// lays out etcd, so that a list is a Range over a prefix.
func key(kind api.Kind, namespace, name string) string {
	// TODO: return the store key of one object: /registry/<resource>/<namespace>/<name>, without the namespace part for cluster-scoped kinds.
	panic("not implemented: key")
}

// prefix is where a list or a watch reads: every namespace, or one.
func prefix(kind api.Kind, namespace string) string {
	// TODO: return the key prefix a list or a watch reads: one namespace of the kind when namespace is set, else every object of the kind.
	panic("not implemented: prefix")
}

// serveResource calls the handler for the request's verb and shape
// (collection, object, subresource); anything else is 405. PATCH (in
// patch.go) and the scale subresource (in scale.go) are given: they ride
// on your get, write, merge and validate.
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
		// namespaces/{name}/finalize: a write of spec.finalizers (task
		// 16), through your update like the status subresource.
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
