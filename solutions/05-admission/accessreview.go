package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		writeStatus(w, badRequest(fmt.Sprintf("reading the body: %v", err)))
		return
	}
	var review selfSubjectAccessReview
	if err := json.Unmarshal(body, &review); err != nil {
		writeStatus(w, badRequest(fmt.Sprintf("SelfSubjectAccessReview in version \"v1\" cannot be handled as a SelfSubjectAccessReview: %v", err)))
		return
	}
	attrs := pipeline.Attributes{User: who}
	ra, nra := review.Spec.ResourceAttributes, review.Spec.NonResourceAttributes
	switch {
	case ra == nil && nra == nil:
		writeStatus(w, invalidReview("spec.resourceAttributes: Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified"))
		return
	case ra != nil && nra != nil:
		writeStatus(w, invalidReview("spec.nonResourceAttributes: Invalid value: \"null\": cannot be specified in combination with resourceAttributes"))
		return
	case ra != nil:
		attrs.RequestInfo = pipeline.RequestInfo{IsResourceRequest: true, Verb: ra.Verb, Namespace: ra.Namespace,
			APIGroup: ra.Group, APIVersion: ra.Version, Resource: ra.Resource, Subresource: ra.Subresource, Name: ra.Name}
	default:
		attrs.RequestInfo = pipeline.RequestInfo{Path: nra.Path, Verb: nra.Verb}
	}
	d, err := g.authorize(ctx, attrs)
	review.Status = accessReviewStatus{Allowed: d.Allowed, Reason: d.Reason}
	if err != nil {
		review.Status.EvaluationError = err.Error()
	}
	review.TypeMeta = api.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SelfSubjectAccessReview"}
	review.Metadata = json.RawMessage(`{"creationTimestamp":null}`)
	writeJSON(w, http.StatusCreated, review)
}

// invalidReview is the 422 for a review that asks nothing, or two things.
func invalidReview(detail string) *api.Status {
	return status(http.StatusUnprocessableEntity, api.StatusReasonInvalid,
		"SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "+detail,
		&api.StatusDetails{Group: "authorization.k8s.io", Kind: "SelfSubjectAccessReview"})
}
