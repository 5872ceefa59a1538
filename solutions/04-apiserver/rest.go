package apiserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/httpguard"
	"github.com/kubekata/kubekata/harness/storage"
)

// ---------------------------------------------------------------- bodies

// readBody reads at most maxBodyBytes; a larger body is a 413. Only the
// media types this server decodes are read: JSON and YAML (turned into
// JSON) for objects, and the patch types for PATCH. Any other body is
// upstream's 415 (k8s.io/apiserver/pkg/endpoints/handlers/negotiation),
// protobuf and CBOR included. client-go's typed clients send protobuf by
// default, and kubectl create does too; in a kata cluster
// harness/protoedge turns those bodies into JSON before they reach this
// handler, so it never sees one (client-go does not resend a protobuf body
// as JSON after a 415; only its CBOR encoding falls back, in
// k8s.io/client-go/rest/client.go). A body without a Content-Type is read as JSON, as
// upstream does (client-go's scale client sends one), unless a web
// browser sent it (see harness/httpguard).
func readBody(r *http.Request) ([]byte, *api.Status) {
	accepted := httpguard.BodyTypes
	if r.Method == http.MethodPatch {
		accepted = httpguard.PatchTypes
	}
	ct, st := httpguard.CheckBody(r, accepted)
	if st != nil {
		return nil, st
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		return nil, badRequest(fmt.Sprintf("reading the request body: %v", err))
	}
	if len(data) > maxBodyBytes {
		return nil, tooLarge()
	}
	if ct == "application/yaml" {
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, badRequest(fmt.Sprintf("couldn't get version/kind; yaml parse error: %v", err))
		}
		data = j
	}
	return data, nil
}

// decode turns a body into an object of the path's kind. Undecodable
// bodies and kinds that do not match the path are the client's mistake:
// 400 with the decoder's message, never 500.
func decode(kind api.Kind, data []byte, strict bool) (api.Object, *api.Status) {
	var tm api.TypeMeta
	if err := json.Unmarshal(data, &tm); err != nil {
		return nil, badRequest(fmt.Sprintf("couldn't get version/kind; json parse error: %v", err))
	}
	if tm.Kind != "" && tm.Kind != kind.Kind || tm.APIVersion != "" && tm.APIVersion != kind.APIVersion() {
		return nil, badRequest(fmt.Sprintf("the object provided is %s, %s but the request is for %s, %s (apiVersion and kind must match the path)",
			orNone(tm.APIVersion), orNone(tm.Kind), kind.APIVersion(), kind.Kind))
	}
	obj := kind.New()
	if strict {
		// fieldValidation=Strict (kubectl's default): a field the kind
		// does not have is the client's typo, not something to drop.
		var unknown *api.UnknownFieldsError
		if err := (api.Codec{}).DecodeInto(data, obj); errors.As(err, &unknown) {
			return nil, badRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", kind.Kind, kind.Version, kind.Kind, unknown))
		}
		obj = kind.New()
	}
	if err := json.Unmarshal(data, obj); err != nil {
		return nil, badRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", kind.Kind, kind.Version, kind.Kind, err))
	}
	setTypeMeta(kind, obj)
	return obj, nil
}

func strictFields(r *http.Request) bool {
	return r.URL.Query().Get("fieldValidation") == "Strict"
}

// warnUnknownFields is fieldValidation=Warn, upstream's default: a field
// the kind does not have is dropped, and the client is told so in a
// Warning header, 299 - "unknown field \"spec.foo\""
// (k8s.io/apiserver/pkg/endpoints/handlers/rest.go and
// pkg/endpoints/filters/warning.go). Ignore says nothing; Strict is a 400
// in decode.
func warnUnknownFields(w http.ResponseWriter, r *http.Request, kind api.Kind, data []byte) {
	if v := r.URL.Query().Get("fieldValidation"); v != "" && v != "Warn" {
		return
	}
	var unknown *api.UnknownFieldsError
	if err := (api.Codec{}).DecodeInto(data, kind.New()); errors.As(err, &unknown) {
		for _, f := range unknown.Fields {
			w.Header().Add("Warning", "299 - "+strconv.Quote(fmt.Sprintf("unknown field %q", f)))
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func setTypeMeta(kind api.Kind, obj api.Object) {
	tm := obj.GetTypeMeta()
	tm.Kind = kind.Kind
	tm.APIVersion = kind.APIVersion()
}

// load decodes a stored value; its resourceVersion is the key's
// mod_revision, which the stored bytes cannot know.
func load(kind api.Kind, kv storage.KeyValue) (api.Object, error) {
	obj := kind.New()
	if err := json.Unmarshal(kv.Value, obj); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	setTypeMeta(kind, obj)
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	return obj, nil
}

// storable encodes an object for the store, without a resourceVersion.
func storable(obj api.Object) []byte {
	m := obj.GetObjectMeta()
	rv := m.ResourceVersion
	m.ResourceVersion = ""
	data, err := json.Marshal(obj)
	m.ResourceVersion = rv
	if err != nil {
		panic(fmt.Sprintf("apiserver: encoding %T: %v", obj, err))
	}
	return data
}

// withRV splices "resourceVersion" into stored bytes without decoding
// them: a GET or LIST then costs a copy, not a decode and an encode.
func withRV(kv storage.KeyValue) []byte {
	const meta = `"metadata":{`
	i := bytes.Index(kv.Value, []byte(meta))
	if i < 0 || i+len(meta) >= len(kv.Value) {
		return kv.Value
	}
	i += len(meta)
	rv := `"resourceVersion":"` + strconv.FormatInt(kv.ModRevision, 10) + `"`
	out := make([]byte, 0, len(kv.Value)+len(rv)+1)
	out = append(out, kv.Value[:i]...)
	out = append(out, rv...)
	if kv.Value[i] != '}' {
		out = append(out, ',')
	}
	return append(out, kv.Value[i:]...)
}

func storeError(kind api.Kind, name string, err error) *api.Status {
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return notFound(kind, name)
	case errors.Is(err, storage.ErrExists):
		return alreadyExists(kind, name)
	case errors.Is(err, storage.ErrConflict):
		return conflict(kind, name, conflictWhy)
	case errors.Is(err, storage.ErrCompacted):
		return expired(err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return status(http.StatusGatewayTimeout, api.StatusReasonTimeout, err.Error(), nil)
	}
	return internalError(err)
}

// fieldOf reaches a kind's Spec or Status field; the Value is invalid
// when the kind has no such field (ConfigMap has no spec).
func fieldOf(obj api.Object, name string) reflect.Value {
	return reflect.ValueOf(obj).Elem().FieldByName(name)
}

func jsonEqual(a, b reflect.Value) bool {
	x, _ := json.Marshal(a.Interface())
	y, _ := json.Marshal(b.Interface())
	return bytes.Equal(x, y)
}

// ---------------------------------------------------------------- get

func (s *server) get(w http.ResponseWriter, r *http.Request, req request) {
	kv, err := s.store.Get(r.Context(), key(req.kind, req.namespace, req.name))
	if err != nil {
		writeStatus(w, storeError(req.kind, req.name, err))
		return
	}
	if wantsTable(r) {
		obj, err := load(req.kind, kv)
		if err != nil {
			writeStatus(w, internalError(err))
			return
		}
		writeJSON(w, http.StatusOK, s.table(r, req.kind, []api.Object{obj}, kv.ModRevision, ""))
		return
	}
	writeRaw(w, http.StatusOK, withRV(kv))
}

// ---------------------------------------------------------------- create

// uid makes a random (version 4) UUID.
func uid() api.UID {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return api.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:]))
}

// randomSuffix is upstream's generateName suffix: 5 characters from an
// alphabet without vowels (no accidental words) and without look-alikes.
func randomSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var b [5]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

func (s *server) create(w http.ResponseWriter, r *http.Request, req request) {
	data, st := readBody(r)
	if st != nil {
		writeStatus(w, st)
		return
	}
	obj, st := decode(req.kind, data, strictFields(r))
	if st != nil {
		writeStatus(w, st)
		return
	}
	warnUnknownFields(w, r, req.kind, data)
	m := obj.GetObjectMeta()
	if req.kind.Namespaced {
		if m.Namespace == "" {
			m.Namespace = req.namespace
		} else if m.Namespace != req.namespace {
			writeStatus(w, badRequest("the namespace of the provided object does not match the namespace sent on the request"))
			return
		}
	} else {
		m.Namespace = ""
	}
	generated := m.Name == "" && m.GenerateName != ""
	if generated {
		m.Name = m.GenerateName + randomSuffix()
	}
	// A create that names a version is refused once the object is
	// valid, as upstream's store does; one that does not parse is ignored.
	rv, _ := strconv.ParseInt(m.ResourceVersion, 10, 64)
	// The server owns these: whatever the client sent is replaced.
	m.UID = uid()
	m.CreationTimestamp = api.NewTime(s.now().Truncate(time.Second))
	m.ResourceVersion = ""
	m.SelfLink = ""
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	m.Generation = 0
	if hasGeneration(req.kind, obj) {
		m.Generation = 1
	}
	prepareStatusOnCreate(req.kind, obj)
	if ns, ok := obj.(*api.Namespace); ok {
		prepareNamespace("", nil, ns)
	}
	if errs := validate(req.kind, obj); len(errs) > 0 {
		writeStatus(w, invalid(req.kind, m.Name, errs))
		return
	}
	if rv != 0 {
		writeStatus(w, resourceVersionOnCreate())
		return
	}
	kv, err := storage.Create(r.Context(), s.store, key(req.kind, m.Namespace, m.Name), storable(obj))
	// A generated name that is taken is generated again, 8 tries in all
	// (maxNameGenerationCreateAttempts, k8s.io/apiserver/pkg/registry/
	// generic/registry/store.go): enough for a million names per prefix.
	for try := 1; generated && errors.Is(err, storage.ErrExists) && try < 8; try++ {
		m.Name = m.GenerateName + randomSuffix()
		kv, err = storage.Create(r.Context(), s.store, key(req.kind, m.Namespace, m.Name), storable(obj))
	}
	if err != nil {
		writeStatus(w, storeError(req.kind, m.Name, err))
		return
	}
	m.ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	writeJSON(w, http.StatusCreated, obj)
}

// hasGeneration says whether objects of kind count their spec changes in
// metadata.generation: kinds with a spec, except nodes and namespaces,
// whose upstream strategies never set it (pkg/registry/core/node and
// namespace strategy.go).
func hasGeneration(kind api.Kind, obj api.Object) bool {
	return fieldOf(obj, "Spec").IsValid() && kind.Resource != "nodes" && kind.Resource != "namespaces"
}

// bumpGeneration counts the start of a delete as a change of desired
// state: a controller must see it (k8s.io/apiserver/pkg/registry/rest/
// delete.go, BeforeDelete, and registry/generic/registry/store.go for
// objects held by finalizers).
func bumpGeneration(m *api.ObjectMeta) {
	if m.Generation > 0 {
		m.Generation++
	}
}

// prepareStatusOnCreate: for kinds whose status is written by a
// controller through the status subresource, a client cannot create an
// object with a made-up status. Nodes, events and the rest keep theirs.
func prepareStatusOnCreate(kind api.Kind, obj api.Object) {
	if !hasSub(kind, "status") || kind.Resource == "nodes" {
		return
	}
	st := fieldOf(obj, "Status")
	if !st.IsValid() {
		return
	}
	st.Set(reflect.Zero(st.Type()))
	switch o := obj.(type) {
	case *api.Pod:
		o.Status.Phase = api.PodPending
	case *api.Namespace:
		o.Status.Phase = "Active"
	}
}

// ---------------------------------------------------------------- update

// An unconditional write (no resourceVersion) that loses the
// compare-and-swap to another writer reads the object again and retries
// until it wins or the request ends, as upstream's GuaranteedUpdate
// (k8s.io/apiserver/pkg/storage/etcd3/store.go) loops without a bound:
// under contention a blind write or a patch is slow, never a 409.

func (s *server) update(w http.ResponseWriter, r *http.Request, req request) {
	data, st := readBody(r)
	if st != nil {
		writeStatus(w, st)
		return
	}
	obj, st := decode(req.kind, data, strictFields(r))
	if st != nil {
		writeStatus(w, st)
		return
	}
	warnUnknownFields(w, r, req.kind, data)
	s.write(w, r, req, func(api.Object) (api.Object, *api.Status) { return obj, nil })
}

// write is the read-modify-write of PUT and PATCH: read the stored object,
// compute the new one from it, apply the subresource's rules, validate,
// and compare-and-swap on the mod_revision that was read. A client that
// sent a resourceVersion gets a Conflict if it is stale; one that did not
// gets its change applied to the latest version (upstream's unconditional
// update), retrying when another writer got there first.
func (s *server) write(w http.ResponseWriter, r *http.Request, req request, change func(old api.Object) (api.Object, *api.Status)) {
	ctx := r.Context()
	k := key(req.kind, req.namespace, req.name)
	for {
		kv, err := s.store.Get(ctx, k)
		if err != nil {
			writeStatus(w, storeError(req.kind, req.name, err))
			return
		}
		old, err := load(req.kind, kv)
		if err != nil {
			writeStatus(w, internalError(err))
			return
		}
		obj, st := change(old)
		if st != nil {
			writeStatus(w, st)
			return
		}
		m := obj.GetObjectMeta()
		if m.Name != req.name {
			writeStatus(w, badRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.Name, req.name)))
			return
		}
		if req.kind.Namespaced && m.Namespace != "" && m.Namespace != req.namespace {
			writeStatus(w, badRequest("the namespace of the provided object does not match the namespace sent on the request"))
			return
		}
		conditional := m.ResourceVersion != ""
		if conditional && m.ResourceVersion != old.GetObjectMeta().ResourceVersion {
			writeStatus(w, conflict(req.kind, req.name, conflictWhy))
			return
		}
		obj = s.merge(req, old, obj)
		errs := validate(req.kind, obj)
		if pod, ok := obj.(*api.Pod); ok && req.sub == "" {
			errs = append(errs, validatePodUpdate(old.(*api.Pod), pod)...)
		}
		if len(errs) > 0 {
			writeStatus(w, invalid(req.kind, req.name, errs))
			return
		}
		m = obj.GetObjectMeta()
		if m.DeletionTimestamp != nil && len(m.Finalizers) == 0 && !namespaceHeld(obj) && (m.DeletionGracePeriodSeconds == nil || *m.DeletionGracePeriodSeconds == 0) {
			// The last finalizer is gone from an object being deleted:
			// finish the delete, even when the write changes nothing
			// else (a namespace finalized with no finalizers left, as
			// upstream's Update asks ShouldDeleteDuringUpdate before it
			// compares). A namespace also waits for the finalizers in
			// its spec (ShouldDeleteNamespaceDuringUpdate,
			// pkg/registry/core/namespace/storage/storage.go).
			_, _, err := storage.CompareAndDelete(ctx, s.store, k, kv.ModRevision)
			if err == nil {
				writeJSON(w, http.StatusOK, obj)
				return
			}
			if errors.Is(err, storage.ErrConflict) && !conditional && ctx.Err() == nil {
				continue
			}
			writeStatus(w, storeError(req.kind, req.name, err))
			return
		}
		value := storable(obj)
		if bytes.Equal(value, kv.Value) {
			// Nothing changed: no write, no new resourceVersion, no
			// event for the watchers.
			writeRaw(w, http.StatusOK, withRV(kv))
			return
		}
		nkv, err := storage.CompareAndSwap(ctx, s.store, k, value, kv.ModRevision)
		if err != nil {
			if errors.Is(err, storage.ErrConflict) && !conditional && ctx.Err() == nil {
				continue
			}
			writeStatus(w, storeError(req.kind, req.name, err))
			return
		}
		m.ResourceVersion = strconv.FormatInt(nkv.ModRevision, 10)
		writeJSON(w, http.StatusOK, obj)
		return
	}
}

// merge applies the rules of the main resource and of the status
// subresource: a write to the object cannot change its status, a write to
// status can change nothing else, and the server-owned metadata stays.
func (s *server) merge(req request, old, obj api.Object) api.Object {
	om, nm := old.GetObjectMeta(), obj.GetObjectMeta()
	if req.sub == "status" {
		return mergeStatus(req.kind, old, obj)
	}
	nm.Namespace = om.Namespace
	nm.UID = om.UID
	nm.CreationTimestamp = om.CreationTimestamp
	nm.DeletionTimestamp = om.DeletionTimestamp
	nm.DeletionGracePeriodSeconds = om.DeletionGracePeriodSeconds
	nm.SelfLink = ""
	nm.Generation = om.Generation
	if hasSub(req.kind, "status") {
		if st := fieldOf(obj, "Status"); st.IsValid() {
			st.Set(fieldOf(old, "Status"))
		}
	}
	if ns, ok := obj.(*api.Namespace); ok {
		prepareNamespace(req.sub, old.(*api.Namespace), ns)
	}
	if sp := fieldOf(obj, "Spec"); hasGeneration(req.kind, obj) && !jsonEqual(sp, fieldOf(old, "Spec")) {
		// generation counts changes of the desired state, so that a
		// controller can say which one it has seen (observedGeneration).
		nm.Generation = om.Generation + 1
	}
	return obj
}

// mergeStatus is a write to the status subresource: the new status and
// the new metadata, but the stored spec and the metadata the server owns.
// Upstream's status strategies also keep a pod's ownerReferences and
// deletionTimestamp (pkg/registry/core/pod/strategy.go,
// podStatusStrategy.PrepareForUpdate) and the labels of a Deployment or
// ReplicaSet (pkg/registry/apps/*/strategy.go).
func mergeStatus(kind api.Kind, old, obj api.Object) api.Object {
	om, nm := old.GetObjectMeta(), obj.GetObjectMeta()
	if sp := fieldOf(obj, "Spec"); sp.IsValid() {
		sp.Set(fieldOf(old, "Spec"))
	}
	nm.Namespace = om.Namespace
	nm.UID = om.UID
	nm.CreationTimestamp = om.CreationTimestamp
	nm.DeletionTimestamp = om.DeletionTimestamp
	nm.DeletionGracePeriodSeconds = om.DeletionGracePeriodSeconds
	nm.Generation = om.Generation
	nm.SelfLink = ""
	switch kind.Resource {
	case "pods":
		nm.OwnerReferences = om.OwnerReferences
	case "deployments", "replicasets":
		nm.Labels = om.Labels
	}
	return obj
}

// ---------------------------------------------------------------- delete

func (s *server) delete(w http.ResponseWriter, r *http.Request, req request) {
	var opts api.DeleteOptions
	data, st := readBody(r)
	if st != nil {
		writeStatus(w, st)
		return
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &opts); err != nil {
			writeStatus(w, badRequest(fmt.Sprintf("couldn't decode DeleteOptions: %v", err)))
			return
		}
	}
	q := r.URL.Query()
	if g := q.Get("gracePeriodSeconds"); g != "" {
		n, err := strconv.ParseInt(g, 10, 64)
		if err != nil {
			writeStatus(w, badRequest(fmt.Sprintf("gracePeriodSeconds: invalid value %q", g)))
			return
		}
		opts.GracePeriodSeconds = &n
	}
	if p := q.Get("propagationPolicy"); p != "" {
		pp := api.DeletionPropagation(p)
		opts.PropagationPolicy = &pp
	}
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case api.DeletePropagationOrphan, api.DeletePropagationBackground, api.DeletePropagationForeground:
		default:
			writeStatus(w, invalid(api.Kind{Kind: "DeleteOptions"}, "", []fieldError{{api.CauseTypeFieldValueNotSupported, "propagationPolicy",
				fmt.Sprintf("Unsupported value: %q: supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"", string(*p))}}))
			return
		}
	}

	ctx := r.Context()
	k := key(req.kind, req.namespace, req.name)
	for {
		kv, err := s.store.Get(ctx, k)
		if err != nil {
			writeStatus(w, storeError(req.kind, req.name, err))
			return
		}
		obj, err := load(req.kind, kv)
		if err != nil {
			writeStatus(w, internalError(err))
			return
		}
		m := obj.GetObjectMeta()
		if pc := opts.Preconditions; pc != nil {
			if st := preconditionFailed(req.kind, m, pc); st != nil {
				writeStatus(w, st)
				return
			}
		}
		ns, isNamespace := obj.(*api.Namespace)
		if isNamespace && m.DeletionTimestamp != nil && len(ns.Spec.Finalizers) > 0 {
			// A namespace being deleted that its spec's finalizers still
			// hold: a later DELETE changes nothing and answers with it
			// (REST.Delete, pkg/registry/core/namespace/storage/
			// storage.go). The namespace controller removes it.
			writeRaw(w, http.StatusOK, withRV(kv))
			return
		}
		changed := false
		// Foreground and Orphan are finalizers the garbage collector acts
		// on; Background (the default) deletes now and lets it clean up.
		if p := opts.PropagationPolicy; p != nil {
			switch *p {
			case api.DeletePropagationForeground:
				changed = addFinalizer(m, api.FinalizerDeleteDependents) || changed
			case api.DeletePropagationOrphan:
				changed = addFinalizer(m, api.FinalizerOrphanDependents) || changed
			}
		}
		grace := s.gracePeriod(obj, opts.GracePeriodSeconds)
		now := api.NewTime(s.now().Truncate(time.Second))
		switch {
		case isNamespace && m.DeletionTimestamp == nil:
			// The first DELETE of a namespace only marks it, whatever
			// holds it: deletionTimestamp, and phase Terminating, which
			// tells the namespace controller to empty it and admission
			// to refuse new objects in it (REST.Delete,
			// pkg/registry/core/namespace/storage/storage.go).
			m.DeletionTimestamp = &now
			ns.Status.Phase = api.NamespaceTerminating
			changed = true
		case len(m.Finalizers) > 0:
			// Finalizers hold the object: mark it and let their owners
			// finish their work and remove them.
			if m.DeletionTimestamp == nil {
				bumpGeneration(m)
				m.DeletionTimestamp = &now
				if grace > 0 {
					t := api.NewTime(now.Add(time.Duration(grace) * time.Second))
					m.DeletionTimestamp = &t
				}
				g := grace
				if g < 0 {
					g = 0
				}
				m.DeletionGracePeriodSeconds = &g
				changed = true
			}
		case grace > 0 && (m.DeletionGracePeriodSeconds == nil || grace < *m.DeletionGracePeriodSeconds):
			// Graceful deletion: the kubelet sees deletionTimestamp,
			// stops the containers within the grace period, then deletes
			// the pod with a grace period of 0.
			if m.DeletionTimestamp == nil {
				bumpGeneration(m)
			}
			t := api.NewTime(now.Add(time.Duration(grace) * time.Second))
			m.DeletionTimestamp = &t
			g := grace
			m.DeletionGracePeriodSeconds = &g
			changed = true
		case grace > 0:
			// Already terminating with a shorter grace period.
		default:
			_, _, err := storage.CompareAndDelete(ctx, s.store, k, kv.ModRevision)
			if err != nil {
				if errors.Is(err, storage.ErrConflict) && ctx.Err() == nil {
					continue
				}
				writeStatus(w, storeError(req.kind, req.name, err))
				return
			}
			writeJSON(w, http.StatusOK, obj)
			return
		}
		if !changed {
			writeRaw(w, http.StatusOK, withRV(kv))
			return
		}
		nkv, err := storage.CompareAndSwap(ctx, s.store, k, storable(obj), kv.ModRevision)
		if err != nil {
			if errors.Is(err, storage.ErrConflict) && ctx.Err() == nil {
				continue
			}
			writeStatus(w, storeError(req.kind, req.name, err))
			return
		}
		m.ResourceVersion = strconv.FormatInt(nkv.ModRevision, 10)
		writeJSON(w, http.StatusOK, obj)
		return
	}
}

// ---------------------------------------------------------------- namespaces

// A namespace is deleted in two steps. Its DELETE marks it Terminating;
// the namespace controller (exercise 12) deletes everything in it, then
// writes namespaces/{name}/finalize without its finalizer "kubernetes";
// that write, leaving spec.finalizers empty, removes the namespace.

// prepareNamespace applies upstream's namespace strategies
// (pkg/registry/core/namespace/strategy.go) to a namespace about to be
// written. On create (old is nil; PrepareForCreate) the namespace
// controller's finalizer is added to spec.finalizers, so that no delete
// can skip the controller; create already set the phase Active
// (prepareStatusOnCreate). A write to the namespace itself keeps the
// stored spec.finalizers (namespaceStrategy.PrepareForUpdate): only the
// finalize subresource changes them (namespaceFinalizeStrategy), and
// like every write but status, it keeps the stored status (merge).
func prepareNamespace(sub string, old, ns *api.Namespace) {
	switch {
	case old == nil:
		if !slices.Contains(ns.Spec.Finalizers, api.FinalizerKubernetes) {
			ns.Spec.Finalizers = append(ns.Spec.Finalizers, api.FinalizerKubernetes)
		}
	case sub == "":
		ns.Spec.Finalizers = old.Spec.Finalizers
	}
}

// namespaceHeld says whether obj is a namespace that finalizers in its
// spec still hold: it stays even with no metadata.finalizers
// (ShouldDeleteNamespaceDuringUpdate, pkg/registry/core/namespace/
// storage/storage.go).
func namespaceHeld(obj api.Object) bool {
	ns, ok := obj.(*api.Namespace)
	return ok && len(ns.Spec.Finalizers) > 0
}

func addFinalizer(m *api.ObjectMeta, f string) bool {
	for _, x := range m.Finalizers {
		if x == f {
			return false
		}
	}
	m.Finalizers = append(m.Finalizers, f)
	return true
}

// gracePeriod is how long a delete waits: only pods have one. A pod that
// was never scheduled, or has finished, has nothing to stop and goes at
// once; otherwise the request's value, else the pod's
// terminationGracePeriodSeconds, else 30 seconds.
func (s *server) gracePeriod(obj api.Object, requested *int64) int64 {
	pod, ok := obj.(*api.Pod)
	if !ok {
		return 0
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
		return 0
	}
	if requested != nil {
		// A negative grace period means "as soon as possible", and
		// upstream treats it as 1s (k8s.io/apiserver/pkg/registry/rest/
		// delete.go, BeforeDelete).
		if *requested < 0 {
			return 1
		}
		return *requested
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil {
		return *g
	}
	return 30
}

// ---------------------------------------------------------------- binding

type binding struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta `json:"metadata"`
	Target       struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
		Name       string `json:"name,omitempty"`
	} `json:"target"`
}

func (s *server) bind(w http.ResponseWriter, r *http.Request, req request) {
	data, st := readBody(r)
	if st != nil {
		writeStatus(w, st)
		return
	}
	var b binding
	if err := json.Unmarshal(data, &b); err != nil {
		writeStatus(w, badRequest(fmt.Sprintf("Binding in version \"v1\" cannot be handled as a Binding: %v", err)))
		return
	}
	if req.kind.Kind == "Binding" {
		podKind, _ := api.LookupResource("", "v1", "pods")
		req = request{kind: podKind, namespace: req.namespace, name: b.Metadata.Name}
	}
	if b.Metadata.Name == "" {
		b.Metadata.Name = req.name
	}
	if b.Metadata.Name != req.name {
		writeStatus(w, badRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", b.Metadata.Name, req.name)))
		return
	}
	bk := api.Kind{Version: "v1", Kind: "Binding", Resource: "bindings", Namespaced: true}
	if b.Target.Name == "" {
		writeStatus(w, invalid(bk, req.name, []fieldError{{api.CauseTypeFieldValueRequired, "target.name", "Required value"}}))
		return
	}
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		writeStatus(w, invalid(bk, req.name, []fieldError{{api.CauseTypeFieldValueNotSupported, "target.kind",
			fmt.Sprintf("Unsupported value: %q: supported values: \"Node\"", b.Target.Kind)}}))
		return
	}
	ctx := r.Context()
	k := key(req.kind, req.namespace, req.name)
	bindConflict := func(why string) *api.Status {
		return status(http.StatusConflict, api.StatusReasonConflict,
			fmt.Sprintf("Operation cannot be fulfilled on pods/binding %q: %s", req.name, why),
			&api.StatusDetails{Name: req.name, Kind: "pods/binding"})
	}
	for {
		kv, err := s.store.Get(ctx, k)
		if err != nil {
			writeStatus(w, storeError(req.kind, req.name, err))
			return
		}
		obj, err := load(req.kind, kv)
		if err != nil {
			writeStatus(w, internalError(err))
			return
		}
		pod := obj.(*api.Pod)
		if pod.DeletionTimestamp != nil {
			writeStatus(w, bindConflict(fmt.Sprintf("pod %s is being deleted, cannot be assigned to a host", req.name)))
			return
		}
		if pod.Spec.NodeName != "" {
			// A pod is bound once: a second scheduler (or a retry) must
			// not move it.
			writeStatus(w, bindConflict(fmt.Sprintf("pod %s is already assigned to node %q", req.name, pod.Spec.NodeName)))
			return
		}
		pod.Spec.NodeName = b.Target.Name
		setCondition(pod, api.PodCondition{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(s.now().Truncate(time.Second))})
		_, err = storage.CompareAndSwap(ctx, s.store, k, storable(pod), kv.ModRevision)
		if err != nil {
			if errors.Is(err, storage.ErrConflict) && ctx.Err() == nil {
				continue
			}
			writeStatus(w, storeError(req.kind, req.name, err))
			return
		}
		writeJSON(w, http.StatusCreated, &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusSuccess, Code: http.StatusCreated})
		return
	}
}

func setCondition(pod *api.Pod, c api.PodCondition) {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == c.Type {
			if pod.Status.Conditions[i].Status == c.Status {
				c.LastTransitionTime = pod.Status.Conditions[i].LastTransitionTime
			}
			pod.Status.Conditions[i] = c
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, c)
}
