package client

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/kubekata/kubekata/harness/api"
)

// The helpers below mirror k8s.io/apimachinery/pkg/api/errors: an error
// from a client is an *api.Status when the server answered with one.

// ReasonOf returns the Status reason of err, or "" if err carries none.
func ReasonOf(err error) api.StatusReason {
	var s *api.Status
	if errors.As(err, &s) {
		return s.Reason
	}
	return ""
}

// CodeOf returns the HTTP code of err's Status, or 0.
func CodeOf(err error) int32 {
	var s *api.Status
	if errors.As(err, &s) {
		return s.Code
	}
	return 0
}

// IsNotFound: the object (or the resource) does not exist (404).
func IsNotFound(err error) bool { return ReasonOf(err) == api.StatusReasonNotFound }

// IsAlreadyExists: a create found an object with the same name (409).
func IsAlreadyExists(err error) bool { return ReasonOf(err) == api.StatusReasonAlreadyExists }

// IsConflict: the object changed since it was read (409); read it again
// and retry.
func IsConflict(err error) bool { return ReasonOf(err) == api.StatusReasonConflict }

// IsInvalid: the object failed validation (422); Details.Causes say which
// fields.
func IsInvalid(err error) bool { return ReasonOf(err) == api.StatusReasonInvalid }

// IsGone: a watch or list asked for a compacted resourceVersion (410
// Expired or Gone); list again and watch from the new revision.
func IsGone(err error) bool {
	r := ReasonOf(err)
	return r == api.StatusReasonExpired || r == api.StatusReasonGone
}

// IsBadRequest: the request could not be understood (400).
func IsBadRequest(err error) bool { return ReasonOf(err) == api.StatusReasonBadRequest }

// Status helpers used by the fake, spelled as the real apiserver spells
// them so that code tested against the fake sees what it will see in a
// cluster.

// NewNotFound is `pods "web" not found`.
func NewNotFound(kind api.Kind, name string) *api.Status {
	return failure(http.StatusNotFound, api.StatusReasonNotFound, kind, name,
		fmt.Sprintf("%s %q not found", qualified(kind), name))
}

// NewAlreadyExists is `pods "web" already exists`.
func NewAlreadyExists(kind api.Kind, name string) *api.Status {
	return failure(http.StatusConflict, api.StatusReasonAlreadyExists, kind, name,
		fmt.Sprintf("%s %q already exists", qualified(kind), name))
}

// ConflictMessage is what upstream says about a stale resourceVersion.
const ConflictMessage = "the object has been modified; please apply your changes to the latest version and try again"

// NewConflict is `Operation cannot be fulfilled on pods "web": <why>`.
func NewConflict(kind api.Kind, name, why string) *api.Status {
	return failure(http.StatusConflict, api.StatusReasonConflict, kind, name,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", qualified(kind), name, why))
}

// NewExpired is the 410 a watch from a compacted revision gets.
func NewExpired(message string) *api.Status {
	return &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure, Code: http.StatusGone, Reason: api.StatusReasonExpired,
		Message: message,
	}
}

// NewBadRequest is a 400 with a message.
func NewBadRequest(message string) *api.Status {
	return &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure, Code: http.StatusBadRequest, Reason: api.StatusReasonBadRequest,
		Message: message,
	}
}

func failure(code int32, reason api.StatusReason, kind api.Kind, name, msg string) *api.Status {
	return &api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  msg,
		Reason:   reason,
		Details:  &api.StatusDetails{Name: name, Group: kind.Group, Kind: kind.Resource},
		Code:     code,
	}
}

// qualified is the resource as upstream names it in messages: "pods",
// "deployments.apps".
func qualified(kind api.Kind) string {
	if kind.Group == "" {
		return kind.Resource
	}
	return kind.Resource + "." + kind.Group
}
