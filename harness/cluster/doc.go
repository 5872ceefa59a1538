// Package cluster runs a cluster in one process from its parts: the
// store, the apiserver, and (once their issues land) the scheduler, the
// controllers, the kubelets and kube-proxy. `kata up`, the scenarios and
// the tests generate a small program (harness/cluster/program) whose
// main is one call to Main with the parts it was built from: the
// learner's exercises or the reference solutions.
//
// Responsibilities:
//
//  1. The part contracts (Parts, Component): each part is a constructor
//     of a contract in harness/; a part may be absent, and the cluster
//     runs without it.
//  2. The lifecycle (Run), ordinary Go that tests drive with fakes:
//     open the store, make the apiserver handler and wrap it (the edge
//     outermost, then httpguard), listen, wait until /readyz answers,
//     bootstrap the system namespaces as kube-apiserver does, start the
//     components in order, and only then write DIR/kubeconfig
//     (atomically) and announce it. On stop: the components in reverse
//     order, then the apiserver (draining as Serve does), then the store
//     is closed, so every acknowledged write is durable.
//  3. Serve: the apiserver's HTTP server with kube-apiserver's limits,
//     and the store compacted every interval, as kube-apiserver does.
//  4. The admin endpoint: the running program hands its store's Snapshot
//     to `kata snapshot save`, through DIR/admin.json (only the same
//     user can read it; see internal/admin).
//  5. Main: the program's command line, `serve` and `restore`, with
//     messages that say what to do (a part that panics "not implemented"
//     names its exercise; a corrupt or busy store and a port in use are
//     explained).
package cluster
