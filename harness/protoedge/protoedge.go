package protoedge

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	protobufserializer "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/httpguard"
)

// MediaType is the protobuf media type (runtime.ContentTypeProtobuf in
// k8s.io/apimachinery/pkg/runtime/types.go).
const MediaType = runtime.ContentTypeProtobuf

// MaxBodyBytes is upstream's limit on a request body, 3 MiB
// (MaxRequestBodyBytes in k8s.io/apiserver/pkg/server/config.go), the
// kata's apiserver's too.
const MaxBodyBytes = 3 * 1024 * 1024

// upstreamAddToScheme registers upstream's types for the groups the kata
// serves; the edge's own scheme takes from it only the kinds the kata
// serves (see Kinds).
var upstreamAddToScheme = []func(*runtime.Scheme) error{
	corev1.AddToScheme,
	appsv1.AddToScheme,
	batchv1.AddToScheme,
	coordinationv1.AddToScheme,
	discoveryv1.AddToScheme,
	rbacv1.AddToScheme,
	autoscalingv1.AddToScheme,
	authorizationv1.AddToScheme,
}

// scale is the body of the scale subresource (harness/api serves it as a
// view; upstream's autoscaling/v1 Scale).
var scale = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// selfSubjectAccessReview is the review the request pipeline (exercise
// 05) answers itself; kubectl auth can-i sends it as protobuf.
var selfSubjectAccessReview = schema.GroupVersionKind{Group: "authorization.k8s.io", Version: "v1", Kind: "SelfSubjectAccessReview"}

var (
	scheme, missing = newScheme()
	decoder         = protobufserializer.NewSerializer(scheme, scheme)
	encoder         = jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, scheme, scheme, jsonserializer.SerializerOptions{})
)

// newScheme makes the edge's scheme: upstream's type for every kind in
// harness/api's registry, Scale, and DeleteOptions in every group version
// of those and in meta.k8s.io/v1. It also returns the registered kinds
// upstream has no type for (none; a test keeps it so).
func newScheme() (*runtime.Scheme, []schema.GroupVersionKind) {
	all := runtime.NewScheme()
	for _, add := range upstreamAddToScheme {
		if err := add(all); err != nil {
			panic(fmt.Sprintf("protoedge: registering upstream's types: %v", err))
		}
	}
	s := runtime.NewScheme()
	var missing []schema.GroupVersionKind
	versions := map[schema.GroupVersion]bool{metav1.SchemeGroupVersion: true, scale.GroupVersion(): true}
	add := func(gvk schema.GroupVersionKind) {
		obj, err := all.New(gvk)
		if err != nil {
			missing = append(missing, gvk)
			return
		}
		s.AddKnownTypeWithName(gvk, obj)
		versions[gvk.GroupVersion()] = true
	}
	for _, k := range api.Kinds() {
		add(schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind})
	}
	add(scale)
	for gv := range versions {
		s.AddKnownTypes(gv, &metav1.DeleteOptions{})
	}
	add(selfSubjectAccessReview)
	return s, missing
}

// Kinds returns the kinds whose protobuf bodies the edge decodes, as
// "apiVersion, Kind" strings.
func Kinds() []string {
	var out []string
	for gvk := range scheme.AllKnownTypes() {
		out = append(out, gvk.GroupVersion().String()+", "+gvk.Kind)
	}
	return out
}

// Wrap returns next behind the edge: protobuf request bodies become JSON
// (see the package comment); everything else passes unchanged.
func Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isProtobufWrite(r) {
			next.ServeHTTP(w, r)
			return
		}
		data, st := transcode(r)
		if st != nil {
			writeStatus(w, st)
			return
		}
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(data))
		r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		r2.ContentLength = int64(len(data))
		r2.TransferEncoding = nil
		r2.Header.Set("Content-Type", "application/json")
		r2.Header.Set("Content-Length", strconv.Itoa(len(data)))
		next.ServeHTTP(w, r2)
	})
}

// isProtobufWrite says r carries a protobuf body the edge should read.
// PATCH bodies are patches, never protobuf (upstream accepts none); they
// pass on to httpguard's 415 like any other unknown type.
func isProtobufWrite(r *http.Request) bool {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodDelete:
	default:
		return false
	}
	if r.Body == nil || r.Body == http.NoBody {
		return false
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == MediaType
}

// transcode reads r's protobuf body and returns it as JSON, or the Status
// to answer instead.
func transcode(r *http.Request) ([]byte, *api.Status) {
	// As upstream's limitedReadBody (k8s.io/apiserver/pkg/endpoints/
	// handlers/rest.go): read one byte past the limit to know.
	data, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, status(http.StatusBadRequest, api.StatusReasonBadRequest, fmt.Sprintf("reading the request body: %v", err))
	}
	if len(data) > MaxBodyBytes {
		return nil, status(http.StatusRequestEntityTooLarge, api.StatusReasonRequestEntityTooLarge,
			fmt.Sprintf("Request entity too large: limit is %d", MaxBodyBytes))
	}
	// An envelope without apiVersion or kind takes the endpoint's, as
	// upstream's handlers pass their kind as the default to Decode.
	want, known := bodyKind(r.Method, r.URL.Path)
	var def *schema.GroupVersionKind
	if known {
		def = &want
	}
	obj, gvk, err := decoder.Decode(data, def, nil)
	if err != nil {
		if runtime.IsNotRegisteredError(err) {
			// The kata cannot read this kind as protobuf; it reads JSON
			// and YAML, the types httpguard lists.
			return nil, httpguard.UnsupportedMediaType(httpguard.BodyTypes)
		}
		return nil, decodeError(r.Method, want.Kind, gvk, err, data)
	}
	var buf bytes.Buffer
	if err := encoder.Encode(obj, &buf); err != nil {
		return nil, status(http.StatusInternalServerError, api.StatusReasonInternalError,
			fmt.Sprintf("protoedge: encoding %s as JSON: %v", gvk.Kind, err))
	}
	return buf.Bytes(), nil
}

// decodeError is upstream's 400 for a body that does not decode. A
// DELETE's says only the decoder's error (handlers/delete.go); the others
// say what was expected (transformDecodeError in handlers/rest.go):
// "KIND in version "V" cannot be handled as a WANT: ..." when the envelope
// named a kind, else "the object provided is unrecognized (must be of type
// WANT): ... (SUMMARY)". WANT is the endpoint's kind, "" when the kata
// does not serve the path.
func decodeError(method, want string, gvk *schema.GroupVersionKind, err error, data []byte) *api.Status {
	msg := err.Error()
	switch {
	case method == http.MethodDelete:
	case gvk != nil && gvk.Kind != "":
		if want == "" {
			want = gvk.Kind
		}
		msg = fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, want, err)
	default:
		if want == "" {
			want = "an object"
		}
		msg = fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", want, err, summarize(data, 30))
	}
	return status(http.StatusBadRequest, api.StatusReasonBadRequest, msg)
}

// summarize is upstream's summarizeData (handlers/rest.go): the first
// max bytes, as text for JSON and in hex otherwise.
func summarize(data []byte, max int) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > max {
			return string(data[:max]) + " ..."
		}
		return string(data)
	default:
		if len(data) > max {
			return hex.EncodeToString(data[:max]) + " ..."
		}
		return hex.EncodeToString(data)
	}
}

// bodyKind is the kind a write to path takes, and false for a path the
// kata does not serve: meta.k8s.io/v1 DeleteOptions for DELETE (upstream's
// default in handlers/delete.go; per-group DeleteOptions are accepted too),
// autoscaling/v1 Scale and v1 Binding for those subresources, else the
// resource's kind.
func bodyKind(method, path string) (schema.GroupVersionKind, bool) {
	if method == http.MethodDelete {
		return metav1.SchemeGroupVersion.WithKind("DeleteOptions"), true
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var group, version string
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		version, segs = segs[1], segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		group, version, segs = segs[1], segs[2], segs[3:]
	default:
		return schema.GroupVersionKind{}, false
	}
	// namespaces/NS/RESOURCE/..., unless it is a namespace's own
	// subresource (/api/v1/namespaces/NAME/status).
	if len(segs) >= 3 && segs[0] == "namespaces" {
		if ns, ok := api.LookupResource(group, version, "namespaces"); !ok || !ns.HasSubresource(segs[2]) {
			segs = segs[2:]
		}
	}
	k, ok := api.LookupResource(group, version, segs[0])
	if !ok {
		return schema.GroupVersionKind{}, false
	}
	if len(segs) >= 3 {
		switch segs[2] {
		case "scale":
			return scale, true
		case "binding":
			return corev1.SchemeGroupVersion.WithKind("Binding"), true
		}
	}
	return schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}, true
}

func status(code int, reason api.StatusReason, msg string) *api.Status {
	return &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  msg,
		Reason:   reason,
		Code:     int32(code),
	}
}

func writeStatus(w http.ResponseWriter, st *api.Status) {
	data, _ := json.Marshal(st)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_, _ = w.Write(append(data, '\n'))
}
