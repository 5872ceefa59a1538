package admission

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/pipeline"
)

// A SelfSubjectAccessReview asks "may I do this?" (kubectl auth can-i).
// Upstream serves it from a REST storage that only calls the authorizer
// and stores nothing (pkg/registry/authorization/selfsubjectaccessreview/rest.go);
// here the gate answers it itself, so the apiserver behind never needs
// to know the kind.

// selfSubjectAccessReview is authorization.k8s.io/v1's kind, as much of
// it as the review reads and answers.
type selfSubjectAccessReview struct {
	api.TypeMeta `json:",inline"`
	Metadata     json.RawMessage `json:"metadata,omitempty"`
	Spec         struct {
		ResourceAttributes    *resourceAttributes    `json:"resourceAttributes,omitempty"`
		NonResourceAttributes *nonResourceAttributes `json:"nonResourceAttributes,omitempty"`
	} `json:"spec"`
	Status accessReviewStatus `json:"status"`
}

type resourceAttributes struct {
	Namespace   string `json:"namespace,omitempty"`
	Verb        string `json:"verb,omitempty"`
	Group       string `json:"group,omitempty"`
	Version     string `json:"version,omitempty"`
	Resource    string `json:"resource,omitempty"`
	Subresource string `json:"subresource,omitempty"`
	Name        string `json:"name,omitempty"`
}

type nonResourceAttributes struct {
	Path string `json:"path,omitempty"`
	Verb string `json:"verb,omitempty"`
}

type accessReviewStatus struct {
	Allowed         bool   `json:"allowed"`
	Denied          bool   `json:"denied,omitempty"`
	Reason          string `json:"reason,omitempty"`
	EvaluationError string `json:"evaluationError,omitempty"`
}

// maxBodyBytes is upstream's limit on a request body (3 MiB).
const maxBodyBytes = 3 << 20

// isAccessReview reports whether a request is the create of a
// SelfSubjectAccessReview.
func isAccessReview(info pipeline.RequestInfo) bool {
	return info.Verb == "create" && info.APIGroup == "authorization.k8s.io" &&
		info.Resource == "selfsubjectaccessreviews" && info.Subresource == "" && info.APIVersion == "v1"
}

// accessReview answers a SelfSubjectAccessReview for who: 201 and the
// review with its status.
func (g *gate) accessReview(ctx context.Context, w http.ResponseWriter, r *http.Request, who pipeline.UserInfo) {
	// TODO: decode the SelfSubjectAccessReview, authorize its resourceAttributes or nonResourceAttributes for who, and answer 201 with the review and its status (allowed, reason).
	panic("not implemented: accessReview")
}

// invalidReview is the 422 for a review that asks nothing, or two things.
func invalidReview(detail string) *api.Status {
	return status(http.StatusUnprocessableEntity, api.StatusReasonInvalid,
		"SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "+detail,
		&api.StatusDetails{Group: "authorization.k8s.io", Kind: "SelfSubjectAccessReview"})
}
