// Package protoedge lets clients with their default configuration talk to
// the kata's apiserver, which speaks JSON only.
//
// client-go's typed clients (kubernetes.NewForConfig, and kubectl's create
// namespace, create deployment, create configmap ...) send request bodies
// as protobuf unless told otherwise: Content-Type
// application/vnd.kubernetes.protobuf, Accept
// "application/vnd.kubernetes.protobuf,application/json"
// (UseProtobufAsDefault in k8s.io/client-go/rest/request.go, which the
// typed clients of k8s.io/client-go/gentype call for the built-in kinds
// when the config names no ContentType). The kata's
// apiserver and harness/httpguard answer such a body with 415. The edge
// sits in front of both, outermost, and turns those bodies into JSON with
// upstream's generated codecs (k8s.io/api), so that neither the learner's
// apiserver nor anything the learner compiles knows protobuf: only the
// cluster program imports this package (program.Wiring.Edge).
//
// Wrap's contract:
//
//  1. A POST, PUT or DELETE whose Content-Type is
//     application/vnd.kubernetes.protobuf (parameters ignored, as upstream's
//     NegotiateInputSerializerForMediaType does) is read up to MaxBodyBytes
//     (upstream's 3 MiB); a longer body is upstream's 413.
//  2. The body is decoded by upstream's protobuf serializer
//     (k8s.io/apimachinery/pkg/runtime/serializer/protobuf): the 4-byte
//     magic "k8s\x00", then a runtime.Unknown whose apiVersion and kind
//     choose the type (the endpoint's kind when they are empty, as
//     upstream's handlers default them), then the object itself. Known are
//     exactly the kinds the kata serves (harness/api's registry), the
//     scale subresource's autoscaling/v1 Scale, DeleteOptions in each
//     of their group versions and in meta.k8s.io/v1 (handlers/delete.go
//     accepts both), and the SelfSubjectAccessReview the request pipeline
//     answers (kubectl auth can-i).
//  3. A body that does not decode is upstream's 400 BadRequest, with the
//     message upstream's handlers give (transformDecodeError in
//     k8s.io/apiserver/pkg/endpoints/handlers/rest.go; the decoder's error
//     alone for DELETE); never a panic.
//  4. A body of a kind the edge does not know is a 415 whose message lists
//     the media types the kata reads for it (JSON and YAML); upstream,
//     whose scheme knows every built-in kind, would decode it and answer
//     404 for a resource it does not serve, or 400 "... cannot be handled
//     as a ..." when the kind is not the endpoint's.
//  5. A decoded body is re-encoded as upstream's JSON serializer writes it
//     (k8s.io/apimachinery/pkg/runtime/serializer/json, with apiVersion
//     and kind) and handed on with Content-Type application/json and its
//     Content-Length; the next handler never sees protobuf.
//  6. Every other request, and every response, passes unchanged; the
//     ResponseWriter is the server's own, so watches keep streaming and
//     flushing. Responses stay JSON whatever the Accept header says: HTTP
//     lets a server disregard Accept (RFC 9110, 12.5.1) rather than answer
//     406, and client-go decodes a response by its Content-Type, so a
//     client that accepts only protobuf still works (upstream would answer
//     it in protobuf).
package protoedge
