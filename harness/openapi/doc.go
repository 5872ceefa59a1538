// Package openapi builds the OpenAPI v3 documents an apiserver publishes
// under /openapi/v3, as far as kubectl needs them.
//
// kubectl validates what it sends (--validate=strict, its default). It
// reads /openapi/v3 to learn whether the server validates fields itself:
// when a kind's PATCH operation takes the fieldValidation query parameter,
// kubectl sends fieldValidation=Strict and leaves the check to the server
// (k8s.io/kubectl/pkg/cmd/util/helpers.go, GetValidationDirective, and
// k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go); otherwise it
// wants the kinds' full schemas, and fails without them. So the documents
// list, per group version, every path of every kind in
// harness/api.Kinds() with that parameter, and no schemas. An apiserver
// that serves them must honour fieldValidation=Strict.
//
// The contract is Document: a path in, the JSON document out. Upstream
// serves the same two levels (k8s.io/kube-openapi/pkg/handler3): a root
// listing {"paths": {"api/v1": {"serverRelativeURL": ...}}} and one
// document per group version. The deliberate simplification: no
// components or schemas, so kubectl explain has nothing to show.
//
// This is not the apiserver exercise's lesson: both the learner's
// apiserver and the reference serve these documents.
package openapi
