package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
)

// Every error answer is a Status object with upstream's code, reason and
// message, because clients (kubectl, client-go, our own client) branch on
// the reason, and people read the message.

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
	if kind.Group == "" {
		return kind.Resource
	}
	return kind.Resource + "." + kind.Group
}

func notFound(kind api.Kind, name string) *api.Status {
	return status(http.StatusNotFound, api.StatusReasonNotFound,
		fmt.Sprintf("%s %q not found", qualified(kind), name),
		&api.StatusDetails{Name: name, Group: kind.Group, Kind: kind.Resource})
}

func notFoundPath() *api.Status {
	return status(http.StatusNotFound, api.StatusReasonNotFound,
		"the server could not find the requested resource", &api.StatusDetails{})
}

func alreadyExists(kind api.Kind, name string) *api.Status {
	return status(http.StatusConflict, api.StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", qualified(kind), name),
		&api.StatusDetails{Name: name, Group: kind.Group, Kind: kind.Resource})
}

const conflictWhy = "the object has been modified; please apply your changes to the latest version and try again"

func conflict(kind api.Kind, name, why string) *api.Status {
	return status(http.StatusConflict, api.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", qualified(kind), name, why),
		&api.StatusDetails{Name: name, Group: kind.Group, Kind: kind.Resource})
}

// preconditionFailed is upstream's 409 for a delete whose preconditions
// do not hold (k8s.io/apiserver/pkg/registry/rest/delete.go,
// BeforeDelete), or nil when they do. Upstream names the kind, not the
// resource, in this message.
func preconditionFailed(kind api.Kind, m *api.ObjectMeta, pc *api.Preconditions) *api.Status {
	var why string
	switch {
	case pc.UID != nil && *pc.UID != m.UID:
		why = fmt.Sprintf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *pc.UID, m.UID)
	case pc.ResourceVersion != nil && *pc.ResourceVersion != m.ResourceVersion:
		why = fmt.Sprintf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *pc.ResourceVersion, m.ResourceVersion)
	default:
		return nil
	}
	k := kind
	k.Resource = kind.Kind
	return conflict(k, m.Name, why)
}

// resourceVersionOnCreate is upstream's answer to a create that carries a
// resourceVersion: the etcd3 store refuses it with
// storage.ErrResourceVersionSetOnCreate, an error that is not a Status,
// which the handler turns into a 500 with no reason
// (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/status.go).
func resourceVersionOnCreate() *api.Status {
	return status(http.StatusInternalServerError, "", "resourceVersion should not be set on objects to be created", nil)
}

func badRequest(msg string) *api.Status {
	return status(http.StatusBadRequest, api.StatusReasonBadRequest, msg, nil)
}

func methodNotAllowed() *api.Status {
	return status(http.StatusMethodNotAllowed, api.StatusReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource", nil)
}

func tooLarge() *api.Status {
	return status(http.StatusRequestEntityTooLarge, api.StatusReasonRequestEntityTooLarge,
		fmt.Sprintf("Request entity too large: limit is %d", maxBodyBytes), nil)
}

func expired(msg string) *api.Status {
	return status(http.StatusGone, api.StatusReasonExpired, msg, nil)
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
	causes := make([]api.StatusCause, len(errs))
	msgs := make([]string, len(errs))
	for i, e := range errs {
		causes[i] = api.StatusCause{Type: e.typ, Message: e.detail, Field: e.field}
		msgs[i] = e.field + ": " + e.detail
	}
	all := msgs[0]
	if len(msgs) > 1 {
		all = "[" + strings.Join(msgs, ", ") + "]"
	}
	// The kind is qualified by its group, as upstream's
	// schema.GroupKind.String(): Pod, Deployment.apps.
	qk := kind.Kind
	if kind.Group != "" {
		qk += "." + kind.Group
	}
	return status(http.StatusUnprocessableEntity, api.StatusReasonInvalid,
		fmt.Sprintf("%s %q is invalid: %s", qk, name, all),
		&api.StatusDetails{Name: name, Group: kind.Group, Kind: kind.Kind, Causes: causes})
}

func writeStatus(w http.ResponseWriter, st *api.Status) {
	writeJSON(w, int(st.Code), st)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		data, _ = json.Marshal(internalError(err))
	}
	writeRaw(w, code, data)
}

func writeRaw(w http.ResponseWriter, code int, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(data)
	_, _ = w.Write([]byte("\n"))
}
