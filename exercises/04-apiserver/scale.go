package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"

	"github.com/kubekata/kubekata/harness/api"
)

// The scale subresource of deployments and replicasets: what kubectl
// scale and an autoscaler read and write instead of the whole object, as
// upstream's ScaleREST (pkg/registry/apps/deployment/storage/storage.go,
// and replicaset/storage/storage.go). It is a view: an autoscaling/v1
// Scale made from the object, and a write of spec.replicas back to it. It
// is given: it rides on your write, merge and validate, like PATCH.

// scaleKind names the Scale in messages, as upstream's autoscaling.Kind.
var scaleKind = api.Kind{Group: "autoscaling", Version: "v1", Kind: "Scale", Resource: "scale"}

// scaleObject is an autoscaling/v1 Scale.
type scaleObject struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta `json:"metadata"`
	Spec         struct {
		Replicas int32 `json:"replicas"`
	} `json:"spec"`
	Status struct {
		Replicas int32  `json:"replicas"`
		Selector string `json:"selector,omitempty"`
	} `json:"status"`
}

// scaleOf is the Scale of a Deployment or ReplicaSet, as upstream's
// scaleFromDeployment: name, namespace, uid, resourceVersion and
// creationTimestamp; spec.replicas (1 when unset, upstream's default);
// status.replicas (the reference also prints the selector).
func scaleOf(obj api.Object) *scaleObject {
	m := obj.GetObjectMeta()
	sc := &scaleObject{TypeMeta: api.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"}}
	sc.Metadata = api.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp}
	sc.Spec.Replicas = 1
	if p, ok := fieldOf(obj, "Spec").FieldByName("Replicas").Interface().(*int32); ok && p != nil {
		sc.Spec.Replicas = *p
	}
	if n, ok := fieldOf(obj, "Status").FieldByName("Replicas").Interface().(int32); ok {
		sc.Status.Replicas = n
	}
	// status.selector, the selector printed as a string, is left out
	// here: printing selectors is exercise 02's work, and kubectl scale
	// does not read it (an autoscaler does).
	return sc
}

// scale serves GET, PUT and PATCH on {deployments,replicasets}/{name}/scale.
func (s *server) scale(w http.ResponseWriter, r *http.Request, req request) {
	switch r.Method {
	case http.MethodGet:
		kv, err := s.store.Get(r.Context(), key(req.kind, req.namespace, req.name))
		if err != nil {
			writeStatus(w, storeError(req.kind, req.name, err))
			return
		}
		obj, err := load(req.kind, kv)
		if err != nil {
			writeStatus(w, internalError(err))
			return
		}
		writeJSON(w, http.StatusOK, scaleOf(obj))
	case http.MethodPut:
		data, st := readBody(r)
		if st != nil {
			writeStatus(w, st)
			return
		}
		var sc scaleObject
		if err := json.Unmarshal(data, &sc); err != nil {
			writeStatus(w, badRequest(fmt.Sprintf("Scale in version \"v1\" cannot be handled as a Scale: %v", err)))
			return
		}
		if sc.Kind != "" && sc.Kind != "Scale" || sc.APIVersion != "" && sc.APIVersion != "autoscaling/v1" {
			writeStatus(w, badRequest(fmt.Sprintf("the object provided is %s, %s but the request is for autoscaling/v1, Scale", orNone(sc.APIVersion), orNone(sc.Kind))))
			return
		}
		s.writeScale(w, r, req, func(*scaleObject) (*scaleObject, *api.Status) { return &sc, nil })
	case http.MethodPatch:
		pt, body, st := readPatch(r)
		if st != nil {
			writeStatus(w, st)
			return
		}
		s.writeScale(w, r, req, func(old *scaleObject) (*scaleObject, *api.Status) {
			// The patch applies to the Scale, at the version it reads.
			old.Metadata.ResourceVersion = ""
			doc, err := json.Marshal(old)
			if err != nil {
				return nil, internalError(err)
			}
			out, st := applyPatch(pt, doc, body)
			if st != nil {
				return nil, st
			}
			var sc scaleObject
			if err := json.Unmarshal(out, &sc); err != nil {
				return nil, badRequest(fmt.Sprintf("Scale in version \"v1\" cannot be handled as a Scale: %v", err))
			}
			return &sc, nil
		})
	default:
		writeStatus(w, methodNotAllowed())
	}
}

// writeScale is upstream's scaleUpdatedObjectInfo: old object, old Scale,
// new Scale (change), validated, its replicas and resourceVersion moved
// into the object, which your write stores like a PUT of the object. The
// answer is the Scale of what was stored.
func (s *server) writeScale(w http.ResponseWriter, r *http.Request, req request, change func(old *scaleObject) (*scaleObject, *api.Status)) {
	main := req
	main.sub = ""
	rec := &recordedResponse{header: http.Header{}, code: http.StatusOK}
	s.write(rec, r, main, func(old api.Object) (api.Object, *api.Status) {
		sc, st := change(scaleOf(old))
		if st != nil {
			return nil, st
		}
		if sc.Metadata.Name != "" && sc.Metadata.Name != req.name {
			return nil, badRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", sc.Metadata.Name, req.name))
		}
		// autoscaling/validation ValidateScale.
		if n := sc.Spec.Replicas; n < 0 {
			return nil, invalid(scaleKind, req.name, []fieldError{{api.CauseTypeFieldValueInvalid, "spec.replicas",
				fmt.Sprintf("Invalid value: %d: must be greater than or equal to 0", n)}})
		}
		m := old.GetObjectMeta()
		if sc.Metadata.UID != "" && sc.Metadata.UID != m.UID {
			return nil, conflict(api.Kind{Group: req.kind.Group, Resource: req.kind.Resource + "/scale"}, req.name,
				fmt.Sprintf("Precondition failed: UID in precondition: %s, UID in object meta: %s", sc.Metadata.UID, m.UID))
		}
		// A copy, so that write sees the change from old (generation).
		obj := req.kind.New()
		reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(old).Elem())
		n := sc.Spec.Replicas
		fieldOf(obj, "Spec").FieldByName("Replicas").Set(reflect.ValueOf(&n))
		obj.GetObjectMeta().ResourceVersion = sc.Metadata.ResourceVersion
		return obj, nil
	})
	if rec.code != http.StatusOK {
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.code)
		_, _ = w.Write(rec.body.Bytes())
		return
	}
	obj := req.kind.New()
	if err := json.Unmarshal(rec.body.Bytes(), obj); err != nil {
		writeStatus(w, internalError(fmt.Errorf("decoding the stored %s: %w", req.kind.Kind, err)))
		return
	}
	writeJSON(w, http.StatusOK, scaleOf(obj))
}

// recordedResponse keeps what a handler answers, to be turned into
// another answer.
type recordedResponse struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (rr *recordedResponse) Header() http.Header         { return rr.header }
func (rr *recordedResponse) WriteHeader(code int)        { rr.code = code }
func (rr *recordedResponse) Write(p []byte) (int, error) { return rr.body.Write(p) }
