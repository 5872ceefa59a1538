package admission

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/pipeline"
)

// Every refusal is a Status object with upstream's code, reason and
// message: kubectl prints the message, and clients branch on the reason
// (k8s.io/apimachinery/pkg/api/errors/errors.go builds them).

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

// unauthorizedBody is upstream's 401, byte for byte: the authentication
// filter answers with apierrors.NewUnauthorized("Unauthorized")
// (k8s.io/apiserver/pkg/endpoints/filters/authentication.go).
const unauthorizedBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`

func writeUnauthorized(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(unauthorizedBody + "\n"))
}

// qualifiedResource is how upstream names a resource in messages:
// "pods", "deployments.apps" (schema.GroupResource.String()).
func qualifiedResource(group, resource string) string {
	if group == "" {
		return resource
	}
	return resource + "." + group
}

// forbidden is apierrors.NewForbidden: `pods "web" is forbidden: <why>`,
// `pods is forbidden: <why>` without a name, `forbidden: <why>` for no
// resource at all.
func forbidden(group, resource, name, why string) *api.Status {
	var msg string
	switch {
	case group == "" && resource == "":
		msg = "forbidden: " + why
	case name == "":
		msg = fmt.Sprintf("%s is forbidden: %s", qualifiedResource(group, resource), why)
	default:
		msg = fmt.Sprintf("%s %q is forbidden: %s", qualifiedResource(group, resource), name, why)
	}
	return status(http.StatusForbidden, api.StatusReasonForbidden, msg,
		&api.StatusDetails{Name: name, Group: group, Kind: resource})
}

// forbiddenMessage says who cannot do what, as upstream's
// responsewriters.forbiddenMessage
// (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go).
func forbiddenMessage(a pipeline.Attributes) string {
	// TODO: say who cannot do what, as upstream: User "alice" cannot list resource "pods" in API group "" in the namespace "dev" (at the cluster scope without a namespace; resource/subresource for a subresource; cannot get path "/healthz" for a non-resource request).
	panic("not implemented: forbiddenMessage")
}

// denied is the 403 of an authorization that said no; a reason the
// authorizer gave follows the message after ": " (responsewriters.Forbidden).
func denied(a pipeline.Attributes, reason string) *api.Status {
	why := forbiddenMessage(a)
	if reason != "" {
		why += ": " + reason
	}
	if !a.IsResourceRequest {
		return forbidden("", "", "", why)
	}
	return forbidden(a.APIGroup, a.Resource, a.Name, why)
}

// notFound is apierrors.NewNotFound: `namespaces "x" not found`.
func notFound(group, resource, name string) *api.Status {
	return status(http.StatusNotFound, api.StatusReasonNotFound,
		fmt.Sprintf("%s %q not found", qualifiedResource(group, resource), name),
		&api.StatusDetails{Name: name, Group: group, Kind: resource})
}

// badRequest is apierrors.NewBadRequest.
func badRequest(msg string) *api.Status {
	return status(http.StatusBadRequest, api.StatusReasonBadRequest, msg, nil)
}

// internalError is apierrors.NewInternalError.
func internalError(err error) *api.Status {
	return status(http.StatusInternalServerError, api.StatusReasonInternalError,
		fmt.Sprintf("Internal error occurred: %v", err),
		&api.StatusDetails{Causes: []api.StatusCause{{Message: err.Error()}}})
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
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(data)
	_, _ = w.Write([]byte("\n"))
}
