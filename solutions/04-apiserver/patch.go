package apiserver

import (
	"errors"
	"mime"
	"net/http"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/httpguard"
	"github.com/kubekata/kubekata/harness/patch"
)

// PATCH is what kubectl apply (a second time), label, annotate and patch
// send. The patch algorithms are not this exercise's lesson: harness/patch
// applies merge, strategic merge and JSON patches to the stored object's
// JSON, and the result is written like a PUT, through your write, merge
// and validate. Server-side apply (application/apply-patch+yaml) is not
// served.

// patch serves PATCH on an object or its status subresource.
func (s *server) patch(w http.ResponseWriter, r *http.Request, req request) {
	pt, body, st := readPatch(r)
	if st != nil {
		writeStatus(w, st)
		return
	}
	s.write(w, r, req, func(old api.Object) (api.Object, *api.Status) {
		// storable leaves the resourceVersion out: a patch applies to
		// the version it reads, unless it names one itself.
		out, st := applyPatch(pt, storable(old), body)
		if st != nil {
			return nil, st
		}
		return decode(req.kind, out, strictFields(r))
	})
}

// readPatch reads a PATCH body and its patch type; any other media type
// is upstream's 415 (k8s.io/apiserver/pkg/endpoints/handlers/patch.go).
func readPatch(r *http.Request) (patch.Type, []byte, *api.Status) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	pt, ok := patch.TypeOf(ct)
	if !ok {
		return "", nil, httpguard.UnsupportedMediaType(httpguard.PatchTypes)
	}
	data, st := readBody(r)
	if st != nil {
		return "", nil, st
	}
	return pt, data, nil
}

// applyPatch applies a patch to a JSON document; a patch that cannot
// apply gets the status upstream answers with: 400 when it does not
// decode, 413 for too many operations, 422 when an operation fails.
func applyPatch(pt patch.Type, doc, body []byte) ([]byte, *api.Status) {
	out, err := patch.Apply(pt, doc, body)
	var pe *patch.Error
	switch {
	case err == nil:
		return out, nil
	case errors.As(err, &pe):
		reason := api.StatusReasonInvalid
		switch pe.Code {
		case http.StatusBadRequest:
			reason = api.StatusReasonBadRequest
		case http.StatusRequestEntityTooLarge:
			reason = api.StatusReasonRequestEntityTooLarge
		case http.StatusUnsupportedMediaType:
			reason = api.StatusReasonUnsupportedMediaType
		}
		return nil, status(int32(pe.Code), reason, pe.Message, nil)
	}
	return nil, status(http.StatusInternalServerError, api.StatusReasonInternalError, "Internal error occurred: "+err.Error(), nil)
}
