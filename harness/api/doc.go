// Package api holds the Kubernetes object types the whole kata shares, the
// registry of their kinds, and the codec that reads and writes them as
// Kubernetes JSON and YAML. It depends on the standard library and
// sigs.k8s.io/yaml only. Its contract:
//
//  1. Shapes. The types carry upstream's Go field names and exactly
//     upstream's JSON names and omitempty choices (k8s.io/api core/v1,
//     apps/v1, batch/v1, rbac/v1, coordination/v1, discovery/v1 and
//     apimachinery meta/v1), so that what a real kubectl sends decodes and
//     what is written here reads back in kubectl. All kinds live in this
//     one package (api.Pod, api.Deployment, ...); constants keep upstream
//     names (api.PodRunning, api.TaintEffectNoSchedule, ...). Fields that
//     no component here interprets but that common manifests carry
//     (securityContext, projected volumes, ...) are kept as raw JSON.
//  2. Time. Time is metav1.Time: RFC 3339 in UTC with second precision,
//     null when zero; MicroTime has microseconds. Decoded times are UTC.
//  3. Quantities. Quantity is resource.Quantity with exact arithmetic (an
//     integer count of nano units, never a float): it parses "100m",
//     "0.5", "128Mi", "1.5Gi", "1e3", prints upstream's canonical form
//     ("0.5" prints "500m", "1.5Gi" prints "1536Mi") and reports bad input
//     with upstream's messages (ErrFormatWrong, ErrSuffix, ErrNumeric).
//  4. Registry. Every kind is registered once with its group, version,
//     kind, plural resource, short names, scope, subresources, verbs and
//     a constructor: Kinds, LookupKind, LookupResource, KindOf,
//     ResolveResource. Only pointers implement Object (*Pod, not Pod).
//  5. Codec. Decode reads JSON (one value or a stream) or multi-document
//     YAML, skips empty documents and expands kind List. Decoding is
//     strict by default, like kubectl --validate=strict: an unknown field
//     or a repeated YAML key is an error; Codec{AllowUnknownFields: true}
//     drops unknown fields instead. Every error is a *DecodeError that
//     names the document (its index among the non-empty ones, and kind and
//     name once known) and, where there is one, the field path with list
//     indexes: `document 2 (Deployment "web"): spec.replicas: cannot
//     unmarshal string into int32`. An unregistered kind reads `no kind
//     "Foo" is registered for version "v1"`.
//  6. Round trip. Decoding then encoding keeps every field the input had
//     (the round-trip tests check every manifest in testdata/manifests),
//     and encoding is stable: encode(decode(encode(x))) == encode(x).
//     Encode fills apiVersion and kind from the registry when they are
//     empty; EncodeYAML prints keys sorted, as kubectl -o yaml does.
//  7. Copies. DeepCopy copies any object by reflection, sharing nothing
//     mutable with the original and losing nothing (unlike a JSON round
//     trip, which would drop sub-second times).
package api
