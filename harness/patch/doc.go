// Package patch applies the three patch types a Kubernetes apiserver
// serves on PATCH, so that an apiserver can answer kubectl apply, label,
// annotate, scale and patch without writing the algorithms itself:
//
//   - Merge, JSON merge patch (RFC 7386, Content-Type
//     application/merge-patch+json): maps merge key by key, null deletes
//     a key, anything else (lists included) replaces the old value.
//   - Strategic, strategic merge patch (application/
//     strategic-merge-patch+json, what kubectl apply, label and annotate
//     send): a merge patch whose lists of objects with a merge key
//     (containers by name, ports by containerPort, ...) merge element by
//     element, and whose lists of scalars with a merge strategy
//     (finalizers) merge as sets, the patch's elements first; with the
//     directives $patch (replace, delete), $deleteFromPrimitiveList,
//     $retainKeys and $setElementOrder.
//   - JSON, JSON patch (RFC 6902, application/json-patch+json, kubectl
//     patch --type=json): a list of add, remove, replace, move, copy and
//     test operations on JSON pointers; as in json-patch, a copy is deep
//     and a negative list index counts from the end.
//
// The contract is Apply: the stored object's JSON and the request body in,
// the patched JSON out, or an *Error that carries the HTTP status upstream
// answers with (400 for a patch that does not decode, 413 for too many
// operations, 422 for an operation that does not apply).
//
// It follows upstream's k8s.io/apiserver/pkg/endpoints/handlers/patch.go,
// which uses gopkg.in/evanphx/json-patch for merge and JSON patches and
// k8s.io/apimachinery/pkg/util/strategicpatch for strategic ones.
// Deliberate simplifications: strategic merge keys come from a table of the
// kata's list fields (upstream reads them from the Go types' struct
// tags), and the directives are not checked against the lists they name as
// strictly as upstream checks them.
//
// This is not the apiserver exercise's lesson: both the learner's
// apiserver and the reference call it.
package patch
