// Package httpguard keeps web pages in the learner's browser away from a
// local apiserver that has no authentication yet.
//
// Two holes are closed, both reachable from any web page while the
// apiserver listens on loopback:
//
//   - A cross-site "simple" request: a page may POST a body with
//     Content-Type text/plain, application/x-www-form-urlencoded or
//     multipart/form-data, or with no Content-Type at all, without the
//     CORS preflight that would stop it. An apiserver that reads any body
//     as JSON lets the page create pods. Upstream decodes only the media
//     types it serves and answers others with 415 Unsupported Media Type
//     (k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go,
//     NegotiateInputSerializer, and errors.go,
//     NewUnsupportedMediaTypeError); CheckBody does the same for the
//     kata's media types. Upstream reads a body without a Content-Type as
//     JSON, and real clients rely on it (client-go's scale client sends
//     its PUT without one: kubectl scale --current-replicas). A page can
//     send such a body too (fetch with an untyped Blob), but a browser
//     marks it with Origin and Sec-Fetch-Site headers, which no API client
//     sends: a body without a Content-Type is read as JSON unless it
//     carries them, and then it is refused.
//   - DNS rebinding: a page on attacker.example re-resolves its own name
//     to 127.0.0.1 and then talks to the apiserver as a same-origin site.
//     Its requests still carry Host: attacker.example, so CheckHost
//     accepts only loopback names and addresses (localhost, 127.0.0.0/8,
//     ::1), the address the connection arrived on, and the hosts the
//     caller lists. Anything else gets 421 Misdirected Request (RFC 9110
//     §15.5.20: the request names an authority this server does not
//     serve), not 403, which the apiserver keeps for what RBAC forbids.
//
// The contract is Wrap, which puts both checks in front of an apiserver's
// handler (kata up wraps the learner's and the reference's), and CheckBody,
// which an apiserver calls where it reads a body, so that it answers 415
// on its own, behind Wrap or not. Refusals are Kubernetes Status objects.
package httpguard
