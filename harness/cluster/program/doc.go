// Package program makes, runs and talks to the cluster program: the small
// main package that `kata up` (and the scenarios, and the tests) generate
// from a Wiring, build with the go tool, and run as a process of its own.
//
// kata never imports exercises/ or solutions/ (DESIGN rule 8): the
// program imports them, and kata only builds and runs it. The program's
// whole body is one call to harness/cluster.Main with the parts the
// Wiring names; everything it does lives there.
//
// The package is light (the standard library only), because cmd/kata
// imports it. Its responsibilities:
//
//  1. Source: the generated main.go for a Wiring, gofmt'd, importing only
//     the packages the Wiring names (the etcd store and the protobuf edge
//     only when asked for, so that their modules stay out of a build
//     that does not use them).
//  2. Build: builds that source in the module root; a compile error
//     comes back as a *BuildError whose text is the compiler's output. An
//     unchanged wiring over unchanged packages is not linked again (the
//     executable comes from the go tool's cache; see Build).
//  3. Start: runs `PROG serve ...` and returns once the program says it
//     is ready (it prints the kubeconfig line only after its apiserver
//     answers /readyz and the bootstrap namespaces exist), or fails with
//     what the program printed when it exits first or the context ends.
//  4. Stop and Kill: a clean stop (SIGINT; the program drains, closes the
//     store, exits 0) and a crash (SIGKILL); both reap the process.
//  5. SaveSnapshot: asks the running program for its store's Snapshot
//     through the admin endpoint it announces in DIR/admin.json.
//  6. Restore: runs `PROG restore --data-dir DIR FILE`.
//  7. Credentials: how a test, kata or a scenario reaches the cluster
//     running on DIR as one identity (admin, learner, anonymous, a
//     component): the URL, an *http.Client that presents the identity's
//     certificate and trusts the cluster's CA, and its kubeconfig; on a
//     cluster without the pipeline, plain HTTP for everyone.
package program
