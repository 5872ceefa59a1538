package servicealloc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/patch"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// maxBody bounds a Service's request body, as the apiserver bounds every
// body (3 MiB, upstream's MaxRequestBodyBytes).
const maxBody = 3 << 20

// Registry is the apiserver's handler with Service allocation around it
// (the package documentation says what it does). Make one with Wrap.
type Registry struct {
	next       http.Handler
	ips, ports servicenet.Allocator
	// mu orders every write of a Service: what a write reads of the
	// Service it changes stays true until the apiserver has answered.
	mu sync.Mutex
}

// Wrap puts next, the apiserver, behind a Registry that allocates
// ClusterIPs from ips and NodePorts from ports. It first takes the values
// of the Services next already stores (listed through next); a value
// one of them holds that the allocator refuses (out of the range after a
// change of range, or held twice) is reported in repairs, the Service
// left as it is, as upstream's repair controller reports it with an
// Event. It fails when the list fails.
func Wrap(next http.Handler, ips, ports servicenet.Allocator) (r *Registry, repairs []string, err error) {
	if next == nil || ips == nil || ports == nil {
		return nil, nil, fmt.Errorf("servicealloc: Wrap needs the apiserver and both allocators")
	}
	r = &Registry{next: next, ips: ips, ports: ports}
	rec := newRecorder()
	req, _ := http.NewRequest(http.MethodGet, "/api/v1/services", nil)
	req.Header.Set("Accept", "application/json")
	next.ServeHTTP(rec, req)
	if rec.code != http.StatusOK {
		return nil, nil, fmt.Errorf("servicealloc: listing the stored Services: GET /api/v1/services = %d: %s", rec.code, strings.TrimSpace(rec.body.String()))
	}
	var list struct {
		Items []api.Service `json:"items"`
	}
	if err := json.Unmarshal(rec.body.Bytes(), &list); err != nil {
		return nil, nil, fmt.Errorf("servicealloc: listing the stored Services: %w", err)
	}
	for _, s := range list.Items {
		ip, nodePorts := held(&s)
		if ip != "" {
			if err := ips.Allocate(ip); err != nil {
				repairs = append(repairs, fmt.Sprintf("Service %s/%s: ClusterIP %s: %v", s.Namespace, s.Name, ip, err))
			}
		}
		for _, p := range nodePorts {
			if err := ports.Allocate(strconv.Itoa(int(p))); err != nil {
				repairs = append(repairs, fmt.Sprintf("Service %s/%s: nodePort %d: %v", s.Namespace, s.Name, p, err))
			}
		}
	}
	return r, repairs, nil
}

// ServeHTTP allocates around the writes of Services and passes every
// other request on as it is.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	ns, name, ok := servicePath(req.URL.Path)
	if !ok {
		r.next.ServeHTTP(w, req)
		return
	}
	switch {
	case name == "" && req.Method == http.MethodPost:
		r.create(w, req)
	case name != "" && (req.Method == http.MethodPut || req.Method == http.MethodPatch):
		r.update(w, req, ns, name)
	case name != "" && req.Method == http.MethodDelete:
		r.delete(w, req)
	default:
		r.next.ServeHTTP(w, req)
	}
}

// servicePath parses /api/v1/namespaces/{ns}/services[/{name}]; a
// subresource (status) is not the registry's.
func servicePath(p string) (ns, name string, ok bool) {
	rest, found := strings.CutPrefix(p, "/api/v1/namespaces/")
	if !found {
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) == 2 && parts[1] == "services" && parts[0] != "":
		return parts[0], "", true
	case len(parts) == 3 && parts[1] == "services" && parts[0] != "" && parts[2] != "":
		return parts[0], parts[2], true
	}
	return "", "", false
}

// applied says whether a write the apiserver answered with success
// changed the store: a dry run (dryRun=All) may not have, if the
// apiserver knows dryRun, and then the registry keeps nothing of it. It
// asks the store: the Service the response shows is there at that
// resourceVersion (a create or an update), or is not there (a delete).
func (r *Registry) applied(req *http.Request, ns string, c *capture) bool {
	if len(req.URL.Query()["dryRun"]) == 0 {
		return true
	}
	got, ok := decodeGone(c.body.Bytes())
	if !ok {
		return false
	}
	if ns == "" {
		ns = got.Namespace
	}
	b, code := r.get(ns, got.Name)
	if req.Method == http.MethodDelete {
		return code == http.StatusNotFound
	}
	now, ok := decodeGone(b)
	return code == http.StatusOK && ok && now.UID == got.UID && now.ResourceVersion == got.ResourceVersion
}

// readBody reads a request's body; nil when it is too long (the apiserver
// answers that).
func readBody(req *http.Request) []byte {
	b, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
	if err != nil || len(b) > maxBody {
		return nil
	}
	return b
}

// decode reads a Service both ways: typed, to decide, and as a map, to
// change only the fields the registry owns (every other field goes on as
// it came, unknown ones included, for the apiserver to judge).
func decode(b []byte) (*api.Service, map[string]any, bool) {
	var svc api.Service
	if err := json.Unmarshal(b, &svc); err != nil {
		return nil, nil, false
	}
	var raw map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&raw); err != nil || raw == nil {
		return nil, nil, false
	}
	return &svc, raw, true
}

// passOn sends req to next with body b (its own, or the registry's).
func (r *Registry) passOn(w http.ResponseWriter, req *http.Request, b []byte) *capture {
	req.Body = io.NopCloser(bytes.NewReader(b))
	req.ContentLength = int64(len(b))
	req.Header.Set("Content-Length", strconv.Itoa(len(b)))
	c := &capture{ResponseWriter: w, code: http.StatusOK}
	r.next.ServeHTTP(c, req)
	return c
}

func (r *Registry) create(w http.ResponseWriter, req *http.Request) {
	b := readBody(req)
	svc, raw, ok := decode(b)
	if b == nil || !ok {
		r.passOn(w, req, b) // the apiserver says what is wrong with it
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &txn{r: r}
	if st := t.create(svc, raw); st != nil {
		t.revert()
		writeStatus(w, st)
		return
	}
	out, err := json.Marshal(raw)
	if err != nil {
		t.revert()
		writeStatus(w, internal(fmt.Errorf("encoding the Service: %w", err)))
		return
	}
	c := r.passOn(w, req, out)
	if !c.ok() || !r.applied(req, svc.Namespace, c) {
		t.revert()
	}
}

func (r *Registry) update(w http.ResponseWriter, req *http.Request, ns, name string) {
	b := readBody(req)
	if b == nil {
		r.passOn(w, req, b)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	oldRaw, code := r.get(ns, name)
	if code != http.StatusOK {
		r.passOn(w, req, b) // not found, or worse: the apiserver says so
		return
	}
	old, _, ok := decode(oldRaw)
	if !ok {
		r.passOn(w, req, b)
		return
	}
	next := b
	if req.Method == http.MethodPatch {
		// A PATCH's result is known only once applied: apply it here
		// to the Service as it is, as the apiserver will.
		mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
		pt, known := patch.TypeOf(mt)
		if !known {
			r.passOn(w, req, b)
			return
		}
		patched, err := patch.Apply(pt, oldRaw, b)
		if err != nil {
			r.passOn(w, req, b)
			return
		}
		next = patched
	}
	svc, raw, ok := decode(next)
	if !ok {
		r.passOn(w, req, b)
		return
	}
	t := &txn{r: r}
	if st := t.update(old, svc, raw); st != nil {
		t.revert()
		writeStatus(w, st)
		return
	}
	body := b
	if req.Method == http.MethodPut || t.changed {
		out, err := json.Marshal(raw)
		if err != nil {
			t.revert()
			writeStatus(w, internal(fmt.Errorf("encoding the Service: %w", err)))
			return
		}
		body = out
		if req.Method == http.MethodPatch {
			// The registry's fields change what the PATCH makes: send
			// the whole result, at the resourceVersion it was applied
			// to (the lock keeps that the latest).
			req.Method = http.MethodPut
			req.Header.Set("Content-Type", "application/json")
		}
	}
	c := r.passOn(w, req, body)
	if !c.ok() || !r.applied(req, ns, c) {
		t.revert()
		return
	}
	t.commit()
	// The update that removed the last finalizer of a Service being
	// deleted removed the Service.
	if gone, ok := decodeGone(c.body.Bytes()); ok && gone.DeletionTimestamp != nil && len(gone.Finalizers) == 0 {
		r.release(gone)
	}
}

func (r *Registry) delete(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &capture{ResponseWriter: w, code: http.StatusOK}
	r.next.ServeHTTP(c, req)
	if !c.ok() || !r.applied(req, "", c) {
		return
	}
	// Gone unless finalizers keep it (then the update that removes the
	// last one frees its values).
	if gone, ok := decodeGone(c.body.Bytes()); ok && len(gone.Finalizers) == 0 {
		r.release(gone)
	}
}

// decodeGone reads a response that is a Service (not a Status).
func decodeGone(b []byte) (*api.Service, bool) {
	var s api.Service
	if err := json.Unmarshal(b, &s); err != nil || s.Kind != "Service" {
		return nil, false
	}
	return &s, true
}

// get reads a Service as the apiserver stores it.
func (r *Registry) get(ns, name string) ([]byte, int) {
	rec := newRecorder()
	req, _ := http.NewRequest(http.MethodGet, "/api/v1/namespaces/"+ns+"/services/"+name, nil)
	req.Header.Set("Accept", "application/json")
	r.next.ServeHTTP(rec, req)
	return rec.body.Bytes(), rec.code
}

// release frees the values svc holds.
func (r *Registry) release(svc *api.Service) {
	ip, nodePorts := held(svc)
	if ip != "" {
		_ = r.ips.Release(ip) // releasing a free value is no error
	}
	for _, p := range nodePorts {
		_ = r.ports.Release(strconv.Itoa(int(p)))
	}
}

// held is what a stored Service holds: its ClusterIP (none for headless
// and ExternalName) and its nodePorts.
func held(svc *api.Service) (ip string, nodePorts []int32) {
	if needsClusterIP(svc) {
		ip = firstIP(svc)
		if ip == api.ClusterIPNone {
			ip = ""
		}
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 && !containsPort(nodePorts, p.NodePort) {
			nodePorts = append(nodePorts, p.NodePort)
		}
	}
	return ip, nodePorts
}

// recorder is the response of a call the registry makes itself.
type recorder struct {
	code   int
	header http.Header
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{code: http.StatusOK, header: http.Header{}} }

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(code int)        { r.code = code }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }

// capture passes a response on and keeps its code and (up to maxBody of)
// its body.
type capture struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
	body        bytes.Buffer
}

func (c *capture) WriteHeader(code int) {
	if !c.wroteHeader {
		c.code, c.wroteHeader = code, true
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(b []byte) (int, error) {
	c.wroteHeader = true
	if c.body.Len() < maxBody {
		c.body.Write(b[:min(len(b), maxBody-c.body.Len())])
	}
	return c.ResponseWriter.Write(b)
}

func (c *capture) ok() bool { return c.code >= 200 && c.code < 300 }
