package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"

	"sigs.k8s.io/yaml"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/httpguard"
	"github.com/kubekata/kubekata/harness/storage"
)

// The REST verbs on one object: create, get, update (PUT), delete, the
// pods/binding subresource, and a namespace's two-step delete. The helpers
// that read bodies and move objects in and out of the store (readBody,
// load, storable, withRV) are given.

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
	// TODO: decode data into a new object of kind: a body that is not JSON, or whose apiVersion and kind do not match the path, is a 400 BadRequest.
	panic("not implemented: decode")
}

// strictFields says the client asked for fieldValidation=Strict.
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

// orNone is s, or "(none)" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// setTypeMeta writes kind's apiVersion and kind into obj.
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

// storeError is the Status for an error the store returned about the
// object name of kind.
func storeError(kind api.Kind, name string, err error) *api.Status {
	// TODO: turn an error from the store into its Status: not found, already exists, conflict, compacted, a cancelled request; anything else is an internal error.
	panic("not implemented: storeError")
}

// fieldOf reaches a kind's Spec or Status field; the Value is invalid
// when the kind has no such field (ConfigMap has no spec).
func fieldOf(obj api.Object, name string) reflect.Value {
	return reflect.ValueOf(obj).Elem().FieldByName(name)
}

// jsonEqual compares two values by their JSON.
func jsonEqual(a, b reflect.Value) bool {
	x, _ := json.Marshal(a.Interface())
	y, _ := json.Marshal(b.Interface())
	return bytes.Equal(x, y)
}

// ---------------------------------------------------------------- get

// get serves GET on an object (and on its status subresource).
func (s *server) get(w http.ResponseWriter, r *http.Request, req request) {
	// TODO: read the object named by req from the store and answer 200 with it, its resourceVersion set from the key's mod_revision.
	panic("not implemented: get")
}

// ---------------------------------------------------------------- create

// uid makes a random (version 4) UUID.
func uid() api.UID {
	// TODO: return a new random UUID (version 4) for metadata.uid.
	panic("not implemented: uid")
}

// randomSuffix is upstream's generateName suffix: 5 characters from an
// alphabet without vowels (no accidental words) and without look-alikes.
func randomSuffix() string {
	// TODO: return five random characters from upstream's alphabet bcdfghjklmnpqrstvwxz2456789, to follow generateName.
	panic("not implemented: randomSuffix")
}

// create serves POST on a collection. The server, not the client, owns
// uid, creationTimestamp, resourceVersion and generation; call
// prepareStatusOnCreate so that a client cannot invent a status.
func (s *server) create(w http.ResponseWriter, r *http.Request, req request) {
	// TODO: decode the body, fill in what only the server decides (generation 1 if hasGeneration), validate, refuse a resourceVersion the client set (resourceVersionOnCreate), store it (with warnUnknownFields on the response) under a new key and answer 201 with the stored object. From task 16, pass a namespace through prepareNamespace before validating it.
	panic("not implemented: create")
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

// update serves PUT on an object or its status subresource.
func (s *server) update(w http.ResponseWriter, r *http.Request, req request) {
	// TODO: decode the body, warnUnknownFields, and write it over the stored object with s.write.
	panic("not implemented: update")
}

// write is the read-modify-write of PUT and PATCH: read the stored object,
// compute the new one from it, apply the subresource's rules, validate,
// and compare-and-swap on the mod_revision that was read. A client that
// sent a resourceVersion gets a Conflict if it is stale; one that did not
// gets its change applied to the latest version (upstream's unconditional
// update), retrying when another writer got there first.
func (s *server) write(w http.ResponseWriter, r *http.Request, req request, change func(old api.Object) (api.Object, *api.Status)) {
	// TODO: read the stored object, compute the new one with change, reject a stale resourceVersion, merge, validate (and validatePodUpdate for a pod's own PUT), and compare-and-swap it in on the mod_revision you read. From task 13, the write that leaves an object being deleted without finalizers deletes it instead; from task 16, not while namespaceHeld says a namespace's spec.finalizers still hold it, and even when the write changes nothing else.
	panic("not implemented: write")
}

// merge applies the rules of the main resource and of the status
// subresource: a write to the object cannot change its status, a write to
// status can change nothing else, and the server-owned metadata stays.
func (s *server) merge(req request, old, obj api.Object) api.Object {
	// TODO: keep what the server owns from old (uid, creationTimestamp, deletion fields, generation, status) in obj, count a spec change in generation for kinds that have one (hasGeneration), and hand status writes to mergeStatus. From task 16, pass a namespace written through the main resource or finalize to prepareNamespace.
	panic("not implemented: merge")
}

// mergeStatus is a write to the status subresource: the new status and
// the new metadata, but the stored spec and the metadata the server owns.
// Upstream's status strategies also keep a pod's ownerReferences and
// deletionTimestamp (pkg/registry/core/pod/strategy.go,
// podStatusStrategy.PrepareForUpdate) and the labels of a Deployment or
// ReplicaSet (pkg/registry/apps/*/strategy.go).
func mergeStatus(kind api.Kind, old, obj api.Object) api.Object {
	// TODO: return obj with old's spec and the metadata the server owns from old (namespace, uid, creationTimestamp, deletion fields, generation), and as upstream old's ownerReferences for a pod and old's labels for a Deployment or ReplicaSet.
	panic("not implemented: mergeStatus")
}

// ---------------------------------------------------------------- delete

// delete serves DELETE on an object, with DeleteOptions in the body and
// gracePeriodSeconds or propagationPolicy in the query.
func (s *server) delete(w http.ResponseWriter, r *http.Request, req request) {
	// TODO: delete the object named by req, honouring the DeleteOptions' preconditions (preconditionFailed), its finalizers and a pod's grace period; bumpGeneration when you first set deletionTimestamp. From task 16, a namespace's first DELETE only marks it (deletionTimestamp, status.phase Terminating) and answers 200 with it; a later one answers with it unchanged while namespaceHeld, and deletes it as any object once not.
	panic("not implemented: delete")
}

// ---------------------------------------------------------------- namespaces

// A namespace is deleted in two steps (task 16). Its DELETE marks it
// Terminating; the namespace controller (exercise 12) deletes everything
// in it, then writes namespaces/{name}/finalize without its finalizer
// "kubernetes"; that write, leaving spec.finalizers empty, removes the
// namespace.

// prepareNamespace applies the namespace's own rules to a namespace about
// to be written: on create (old is nil), through the main resource (sub
// ""), or through the finalize subresource (sub "finalize"). Your merge
// already keeps the stored status for both kinds of write.
func prepareNamespace(sub string, old, ns *api.Namespace) {
	// TODO: on create, add api.FinalizerKubernetes to ns.Spec.Finalizers unless it is there; on a write of the namespace itself, keep old's spec.finalizers, so that only finalize changes them.
	panic("not implemented: prepareNamespace")
}

// namespaceHeld says whether obj is a namespace that finalizers in its
// spec still hold: such a namespace stays even with no metadata.finalizers.
func namespaceHeld(obj api.Object) bool {
	// TODO: report whether obj is a namespace whose spec.finalizers is not empty.
	panic("not implemented: namespaceHeld")
}

// addFinalizer adds f to m's finalizers unless it is there; it reports
// whether it added it.
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
	// TODO: return how many seconds a delete of obj waits: 0 for anything but a pod on a node that has not finished, else requested (1 if it is negative), else the pod's terminationGracePeriodSeconds, else 30.
	panic("not implemented: gracePeriod")
}

// ---------------------------------------------------------------- binding

// binding is the body of a Binding.
type binding struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta `json:"metadata"`
	Target       struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
		Name       string `json:"name,omitempty"`
	} `json:"target"`
}

// bind serves POST on pods/{name}/binding: the scheduler's decision.
func (s *server) bind(w http.ResponseWriter, r *http.Request, req request) {
	// TODO: bind the pod named by req to the Binding's target node: set spec.nodeName and the PodScheduled condition with a compare-and-swap, 409 if it is already bound, and answer 201 with a Success Status.
	panic("not implemented: bind")
}

// setCondition sets one of pod's conditions, keeping its transition time
// when its status does not change.
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
