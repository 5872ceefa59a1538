package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/patch"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
)

// Admission runs on writes only: the plugins see the object a write
// would store (and the one it replaces) and may change it or refuse it
// (k8s.io/apiserver/pkg/admission). The order is upstream's
// (pkg/kubeapiserver/options/plugins.go): the mutating plugins first,
// then the validating ones, ResourceQuota last because it charges
// usage that the plugins before it must not make it charge for nothing.

// isWrite reports whether admission runs for a verb: writes only, never
// get, list or watch.
func isWrite(verb string) bool {
	// TODO: report whether admission runs for the verb: create, update, patch and delete, never get, list or watch.
	panic("not implemented: isWrite")
}

// attributes are what one admission sees: who asks what, the kind, the
// new object (nil on delete) and the old one (nil on create).
type attributes struct {
	pipeline.Attributes
	kind api.Kind
	obj  api.Object
	old  api.Object
	// limitRanges are the namespace's, once read.
	limitRanges *[]api.LimitRange
	// dryRun is a request that must change nothing (dryRun=All):
	// admission still decides, but charges no quota.
	dryRun bool
}

// operation is the admission operation of a verb: a patch is an update.
func (a *attributes) operation() string {
	switch a.Verb {
	case "create":
		return "create"
	case "update", "patch":
		return "update"
	}
	return a.Verb
}

// is reports whether the request is about the main object of a core
// kind (no subresource).
func (a *attributes) is(resource string) bool {
	return a.APIGroup == "" && a.Resource == resource && a.Subresource == ""
}

// plugin is one admission step; a Status refuses the request.
type plugin func(ctx context.Context, a *attributes) *api.Status

// plugins returns the chain in upstream's order: the API's defaults
// (upstream applies them while decoding the body, before admission),
// then each plugin's mutating half in AllOrderedPlugins' order, then
// each validating half in the same order. NodeRestriction is a mutating
// plugin upstream (it only refuses), so it runs before
// DefaultTolerationSeconds.
func (g *gate) plugins() []plugin {
	// TODO: return the admission plugins in upstream's order; add each one as its task asks for it (README).
	panic("not implemented: plugins")
}

// admit runs the admission plugins on a write, then forwards it.
func (g *gate) admit(w http.ResponseWriter, r *http.Request, next http.Handler, attrs pipeline.Attributes) {
	kind, ok := api.LookupResource(attrs.APIGroup, attrs.APIVersion, attrs.Resource)
	if !ok {
		// Not a kind the apiserver serves: it answers 404 itself.
		next.ServeHTTP(w, r)
		return
	}
	a := &attributes{Attributes: attrs, kind: kind, dryRun: slices.Contains(r.URL.Query()["dryRun"], "All")}
	switch attrs.Verb {
	case "create", "update":
		g.admitBody(w, r, next, a)
	case "patch":
		if a.Subresource == "scale" {
			// A patch of the scale subresource is a patch of the Scale
			// view (autoscaling/v1), which the apiserver applies and
			// turns into the object's spec.replicas; no plugin here acts
			// on a Scale, so it goes on as it came (kubectl scale sends
			// {"spec":{"replicas":N}} this way).
			next.ServeHTTP(w, r)
			return
		}
		g.admitPatch(w, r, next, a)
	case "delete":
		g.admitDelete(w, r, next, a)
	}
}

// admitBody admits a create or an update: the object is the body; an
// update's old object is the stored one.
func (g *gate) admitBody(w http.ResponseWriter, r *http.Request, next http.Handler, a *attributes) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil || len(body) > maxBodyBytes || !isJSON(r) {
		// Too large, unreadable or not JSON: the apiserver refuses it
		// with its own message (413, 400, 415) and stores nothing.
		forward(w, r, next, body)
		return
	}
	obj, err := decodeAs(a.kind, body)
	if err != nil {
		forward(w, r, next, body)
		return
	}
	a.obj = obj
	if a.Verb == "update" {
		if old, _, err := g.load(r.Context(), a.kind, a.Namespace, a.Name); err == nil {
			a.old = old
		} else if !errors.Is(err, storage.ErrNotFound) {
			writeStatus(w, internalError(err))
			return
		}
	}
	changed, st := g.runPlugins(r.Context(), a)
	if st != nil {
		writeStatus(w, st)
		return
	}
	if changed {
		if st := keepUnknownFieldRules(w, r, a.kind, body); st != nil {
			writeStatus(w, st)
			return
		}
		if body, err = json.Marshal(a.obj); err != nil {
			writeStatus(w, internalError(err))
			return
		}
	}
	forward(w, r, next, body)
}

// admitDelete admits a delete: the object is the stored one.
func (g *gate) admitDelete(w http.ResponseWriter, r *http.Request, next http.Handler, a *attributes) {
	old, _, err := g.load(r.Context(), a.kind, a.Namespace, a.Name)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		// Nothing to delete: the apiserver answers 404. Upstream's
		// plugins that need the old object refuse or skip alike.
	case err != nil:
		writeStatus(w, internalError(err))
		return
	default:
		a.old = old
	}
	if _, st := g.runPlugins(r.Context(), a); st != nil {
		writeStatus(w, st)
		return
	}
	next.ServeHTTP(w, r)
}

// runPlugins runs the chain and reports whether the object changed
// (then the gate forwards it re-encoded). Only a pod's create is ever
// changed, so only then is the object compared.
func (g *gate) runPlugins(ctx context.Context, a *attributes) (bool, *api.Status) {
	var before []byte
	mutable := a.createdPod() != nil
	if mutable {
		before, _ = json.Marshal(a.obj)
	}
	for _, p := range g.plugins() {
		if st := p(ctx, a); st != nil {
			return false, st
		}
	}
	if !mutable {
		return false, nil
	}
	after, _ := json.Marshal(a.obj)
	return !bytes.Equal(before, after), nil
}

// keepUnknownFieldRules does for a body the gate re-encodes what the
// apiserver would have done with the fields its kind lacks, since the
// re-encoded body no longer has them: fieldValidation=Strict refuses
// them with upstream's 400 (decoding comes before admission upstream),
// Warn (the default) warns of each in a Warning header, Ignore says
// nothing (k8s.io/apiserver/pkg/endpoints/handlers/rest.go).
func keepUnknownFieldRules(w http.ResponseWriter, r *http.Request, kind api.Kind, body []byte) *api.Status {
	var unknown *api.UnknownFieldsError
	if err := (api.Codec{}).DecodeInto(body, kind.New()); !errors.As(err, &unknown) {
		return nil
	}
	switch r.URL.Query().Get("fieldValidation") {
	case "Strict":
		return badRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", kind.Kind, kind.Version, kind.Kind, unknown))
	case "", "Warn":
		for _, f := range unknown.Fields {
			w.Header().Add("Warning", "299 - "+strconv.Quote(fmt.Sprintf("unknown field %q", f)))
		}
	}
	return nil
}

// maxPatchConflicts is how often a patch is retried on a conflict, as
// upstream's maxRetryWhenPatchConflicts
// (k8s.io/apiserver/pkg/endpoints/handlers/patch.go).
const maxPatchConflicts = 5

// admitPatch admits a patch: the object is the stored one with the
// patch applied. The gate then forwards a PUT of the admitted object at
// the stored resourceVersion (unless the patch named one), so that what
// the apiserver stores is exactly what admission saw; a conflict (the
// object changed meanwhile) starts over from the new stored object.
func (g *gate) admitPatch(w http.ResponseWriter, r *http.Request, next http.Handler, a *attributes) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	pt, ok := patch.TypeOf(ct)
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if !ok || err != nil || len(body) > maxBodyBytes {
		// The apiserver answers 415, 400 or 413 itself.
		forward(w, r, next, body)
		return
	}
	for attempt := 0; ; attempt++ {
		old, kv, err := g.load(r.Context(), a.kind, a.Namespace, a.Name)
		if err != nil {
			if errors.Is(err, storage.ErrNotFound) {
				// The apiserver answers 404.
				forward(w, r, next, body)
				return
			}
			writeStatus(w, internalError(err))
			return
		}
		patched, perr := patch.Apply(pt, kv.Value, body)
		if perr != nil {
			writeStatus(w, patchStatus(perr))
			return
		}
		obj, err := decodeAs(a.kind, patched)
		if err != nil {
			// Not an object of the kind any more: the apiserver says why.
			forward(w, r, next, body)
			return
		}
		pinned := obj.GetObjectMeta().ResourceVersion != ""
		if !pinned {
			obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
		}
		a.obj, a.old = obj, old
		if _, st := g.runPlugins(r.Context(), a); st != nil {
			writeStatus(w, st)
			return
		}
		put, err := json.Marshal(a.obj)
		if err != nil {
			writeStatus(w, internalError(err))
			return
		}
		rec := newBuffered()
		forward(rec, asPut(r), next, put)
		if rec.code == http.StatusConflict && !pinned && attempt < maxPatchConflicts {
			continue
		}
		rec.copyTo(w)
		return
	}
}

// load reads and decodes the stored object of a request.
func (g *gate) load(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, storage.KeyValue, error) {
	if name == "" {
		return nil, storage.KeyValue{}, storage.ErrNotFound
	}
	kv, err := g.store.Get(ctx, storeKey(kind, namespace, name))
	if err != nil {
		return nil, storage.KeyValue{}, err
	}
	obj, err := decodeAs(kind, kv.Value)
	if err != nil {
		return nil, storage.KeyValue{}, fmt.Errorf("admission: decoding %s: %w", kv.Key, err)
	}
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	return obj, kv, nil
}

// storeKey is where exercise 04 keeps an object.
func storeKey(kind api.Kind, namespace, name string) string {
	if kind.Namespaced {
		return "/registry/" + kind.Resource + "/" + namespace + "/" + name
	}
	return "/registry/" + kind.Resource + "/" + name
}

// decodeAs decodes JSON into a new object of kind.
func decodeAs(kind api.Kind, data []byte) (api.Object, error) {
	obj := kind.New()
	if err := json.Unmarshal(data, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// isJSON reports whether a body is JSON (or says nothing of its type).
func isJSON(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// forward hands r to next with body as its body.
func forward(w http.ResponseWriter, r *http.Request, next http.Handler, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	next.ServeHTTP(w, r)
}

// asPut is r as the PUT of a whole object in JSON.
func asPut(r *http.Request) *http.Request {
	put := r.Clone(r.Context())
	put.Method = http.MethodPut
	put.Header.Set("Content-Type", "application/json")
	return put
}

// patchStatus is the Status of a patch that does not apply, with the
// code harness/patch gives (400, 413 or 422).
func patchStatus(err error) *api.Status {
	var pe *patch.Error
	if !errors.As(err, &pe) {
		return internalError(err)
	}
	reason := api.StatusReasonInvalid
	switch pe.Code {
	case http.StatusBadRequest:
		reason = api.StatusReasonBadRequest
	case http.StatusRequestEntityTooLarge:
		reason = api.StatusReasonRequestEntityTooLarge
	}
	return status(int32(pe.Code), reason, pe.Message, nil)
}

// buffered holds a response, so that a patch can look at its code
// before the client sees it.
type buffered struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func newBuffered() *buffered { return &buffered{header: http.Header{}} }

func (b *buffered) Header() http.Header { return b.header }

func (b *buffered) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}

func (b *buffered) Write(p []byte) (int, error) {
	if b.code == 0 {
		b.code = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *buffered) copyTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	if b.code == 0 {
		b.code = http.StatusOK
	}
	w.WriteHeader(b.code)
	_, _ = w.Write(b.body.Bytes())
}

// admissionForbidden is upstream's admission.NewForbidden: the object's
// name (its generateName before one is generated, "Unknown" without
// either) and the plugin's reason.
func admissionForbidden(a *attributes, why string) *api.Status {
	name := "Unknown"
	for _, obj := range []api.Object{a.obj, a.old} {
		if obj == nil {
			continue
		}
		m := obj.GetObjectMeta()
		if m.Name != "" {
			name = m.Name
		} else if m.GenerateName != "" {
			name = m.GenerateName
		}
		break
	}
	if name == "Unknown" && a.Name != "" {
		name = a.Name
	}
	return forbidden(a.APIGroup, a.Resource, name, why)
}

// joinErrors prints several reasons as upstream's utilerrors.Aggregate:
// one alone, more as [a, b].
func joinErrors(errs []string) string { return aggregate(errs) }
