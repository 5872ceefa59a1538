// Package pipeline is the contract of exercise 05: the gate every request
// passes before the apiserver's REST handlers (seed 000 §2.2), as
// upstream's handler chain and admission do it
// (k8s.io/apiserver/pkg/server/config.go, DefaultBuildHandlerChain, and
// k8s.io/apiserver/pkg/admission).
//
// The exercise builds a filter, func(http.Handler) http.Handler, that wraps
// any apiserver (the learner's of exercise 04 or the reference), so that a
// learner who did 04 gets the pipeline by doing 05. The package gives:
//
//  1. The attributes every stage reads: RequestInfo (what the method and
//     path ask for, upstream's RequestInfo), UserInfo (who asks) and
//     Attributes (both, what authorization decides on), as plain data
//     that crosses a process boundary as JSON.
//  2. Where the chain leaves them for the handlers after it: WithUser
//     and WithRequestInfo put them in the request's context (upstream's
//     request.WithUser and request.WithRequestInfo), UserFrom and
//     RequestInfoFrom read them back. The cluster's audit log learns the
//     user from there too: WithUser also fills the audit Record a
//     request carries (the first user is who authenticated, a later
//     different one whom they impersonate).
//  3. The Authorizer contract, and Config: what a pipeline is built
//     from (the store it reads policy and namespaces from, the static
//     token file, the validating policies to enforce).
//  4. The users, groups and policies upstream names (system:masters,
//     system:authenticated, ...), and BootstrapPolicy: the ClusterRoles
//     and ClusterRoleBindings upstream's apiserver creates at its first
//     start, which the cluster writes and the suite loads.
//  5. Audit: the filter the cluster puts in front of the pipeline, which
//     gives every request a Record and, once it is answered, writes one
//     line of upstream's audit.k8s.io/v1 Event at level Metadata (who,
//     which verb on which object, the response code). It is not the
//     exercise's: the learner's pipeline only says who and what, through
//     WithUser and WithRequestInfo.
//
// Objects are read from the store where exercise 04 keeps them:
// /registry/<resource>/<namespace>/<name>, or /registry/<resource>/<name>
// for cluster-scoped kinds, as the object's JSON.
package pipeline
