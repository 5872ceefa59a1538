package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
)

// Every error answer is a Status object with upstream's code, reason and
// message, because clients (kubectl, client-go, our own client) branch on
// the reason, and people read the message.

// status builds a failure Status; the helpers below fill in upstream's
// code, reason and message for each kind of error.
func status(code int32, reason api.StatusReason, msg string, details *api.StatusDetails) *api.Status {
	return &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  msg,
		Reason:   reason,
		Details:  details,
		Code:     code,
	}
}

// qualified names a resource the way upstream messages do: "pods",
// "deployments.apps".
func qualified(kind api.Kind) string {
	// TODO: return the resource name as upstream messages spell it: the resource alone for the core group, resource.group for the others.
	panic("not implemented: qualified")
}

// notFound is the 404 for a missing object: pods "web" not found.
func notFound(kind api.Kind, name string) *api.Status {
	// TODO: return a 404 NotFound Status whose message says which resource and name are missing, with the name and resource in its details.
	panic("not implemented: notFound")
}

// notFoundPath is the 404 for a path that names no resource at all.
func notFoundPath() *api.Status {
	// TODO: return the 404 NotFound Status for a path that names no resource this server knows.
	panic("not implemented: notFoundPath")
}

// alreadyExists is the 409 for a create whose name is taken.
func alreadyExists(kind api.Kind, name string) *api.Status {
	// TODO: return a 409 AlreadyExists Status whose message says which resource and name already exist, with the name and resource in its details.
	panic("not implemented: alreadyExists")
}

// conflictWhy is the reason upstream gives for a stale resourceVersion.
const conflictWhy = "the object has been modified; please apply your changes to the latest version and try again"

// conflict is the 409 for a write that cannot be done as asked: a stale
// resourceVersion, a failed precondition.
func conflict(kind api.Kind, name, why string) *api.Status {
	// TODO: return a 409 Conflict Status whose message reads Operation cannot be fulfilled on <resource> "<name>": <why>.
	panic("not implemented: conflict")
}

// preconditionFailed is upstream's 409 for a delete whose preconditions
// do not hold (k8s.io/apiserver/pkg/registry/rest/delete.go,
// BeforeDelete), or nil when they do. Upstream names the kind, not the
// resource, in this message.
func preconditionFailed(kind api.Kind, m *api.ObjectMeta, pc *api.Preconditions) *api.Status {
	// TODO: return nil when pc's uid and resourceVersion (each only if set) match m's, else upstream's 409 Conflict whose message says which one does not match; build it with conflict, naming the kind (Pod) where conflict usually names the resource.
	panic("not implemented: preconditionFailed")
}

// resourceVersionOnCreate is upstream's answer to a create that carries a
// resourceVersion: the etcd3 store refuses it with
// storage.ErrResourceVersionSetOnCreate, an error that is not a Status,
// which the handler turns into a 500 with no reason
// (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/status.go).
func resourceVersionOnCreate() *api.Status {
	return status(http.StatusInternalServerError, "", "resourceVersion should not be set on objects to be created", nil)
}

// badRequest is the 400 for a request the client got wrong.
func badRequest(msg string) *api.Status {
	// TODO: return a 400 BadRequest Status carrying msg.
	panic("not implemented: badRequest")
}

// methodNotAllowed is the 405 for a verb the path does not serve.
func methodNotAllowed() *api.Status {
	// TODO: return a 405 MethodNotAllowed Status.
	panic("not implemented: methodNotAllowed")
}

// tooLarge is the 413 for a body over maxBodyBytes.
func tooLarge() *api.Status {
	// TODO: return a 413 RequestEntityTooLarge Status that names the limit, maxBodyBytes.
	panic("not implemented: tooLarge")
}

// expired is the 410 for history the store has compacted away.
func expired(msg string) *api.Status {
	// TODO: return a 410 Expired Status carrying msg.
	panic("not implemented: expired")
}

// tooLargeResourceVersion is upstream's answer to a read at a revision
// the store has not reached (k8s.io/apiserver/pkg/storage/errors.go,
// NewTooLargeResourceVersionError): a 504 Timeout, which a client retries.
func resourceVersionTooLarge(asked, current int64) *api.Status {
	return status(http.StatusGatewayTimeout, api.StatusReasonTimeout,
		fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", asked, current),
		&api.StatusDetails{Causes: []api.StatusCause{{Type: api.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}})
}

// tooLargeResourceVersion is resourceVersionTooLarge at the store's
// current revision.
func (s *server) tooLargeResourceVersion(ctx context.Context, asked int64) *api.Status {
	cur, err := storage.CurrentRevision(ctx, s.store)
	if err != nil {
		return storeError(api.Kind{}, "", err)
	}
	return resourceVersionTooLarge(asked, cur)
}

// internalError is the 500 for a bug of the server's, never the client's.
func internalError(v any) *api.Status {
	return status(http.StatusInternalServerError, api.StatusReasonInternalError,
		fmt.Sprintf("Internal error occurred: %v", v), nil)
}

// fieldError is one invalid field, as upstream's field.Error.
type fieldError struct {
	typ    api.CauseType
	field  string
	detail string // the message after the field path
}

// invalid is the 422 for an object that failed validation: `Pod "x" is
// invalid: metadata.name: Invalid value: ...`, one cause per field.
func invalid(kind api.Kind, name string, errs []fieldError) *api.Status {
	// TODO: return the 422 Invalid Status for errs: one details.causes entry per field, and a message that names the kind (qualified by its group: Deployment.apps), the name and every bad field.
	panic("not implemented: invalid")
}

// writeStatus answers with st, its code as the HTTP status.
func writeStatus(w http.ResponseWriter, st *api.Status) {
	writeJSON(w, int(st.Code), st)
}

// writeJSON answers with v encoded as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		data, _ = json.Marshal(internalError(err))
	}
	writeRaw(w, code, data)
}

// writeRaw answers with data, which is already JSON (stored bytes, say).
func writeRaw(w http.ResponseWriter, code int, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(data)
	_, _ = w.Write([]byte("\n"))
}
