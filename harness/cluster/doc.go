// Package cluster runs a cluster in one process from its parts: the
// store, the apiserver, the scheduler, the controllers, the kubelets,
// kube-proxy and the cluster DNS server. `kata up`, the scenarios and
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
//     outermost, then httpguard, then, with the pipeline, the audit log
//     and the pipeline), listen, wait until /readyz answers, bootstrap
//     the system namespaces as kube-apiserver does, start the components
//     in order (the scheduler first, exercise 06's New with the default
//     options, then the controller manager; a component whose Run
//     panics or returns stops the cluster in order, with that as its
//     error), and only then write DIR/kubeconfig (atomically) and
//     announce it. On stop: the components in reverse order, then the
//     apiserver (draining as Serve does), then the store is closed, so
//     every acknowledged write is durable.
//  3. The gate (Parts.Pipeline, exercise 05): with it, Run serves TLS
//     with the cluster's CA (DIR/pki, kept across restarts; client
//     certificates verified when given), issues a certificate and writes
//     a kubeconfig per identity (the admin in system:masters, the
//     learner, each component as the user upstream's bootstrap policy
//     binds), bootstraps as system:apiserver with a loopback token made
//     at each start, writes the bootstrap RBAC policy and the learner's
//     RoleBinding through the API, waits until it is in force, runs each
//     component with its own identity, and appends an audit event per
//     request to DIR/audit.log. Without it the cluster is plain HTTP and
//     refuses to listen beyond loopback.
//  4. Serve: the apiserver's HTTP server with kube-apiserver's limits,
//     and the store compacted every interval, as kube-apiserver does.
//  5. The admin endpoint: the running program hands its store's Snapshot
//     to `kata snapshot save`, and stops one node's kubelet when asked
//     (a node that fails, for scenarios), through DIR/admin.json (only
//     the same user can read it; see internal/admin).
//  6. The controller manager (ControllerManager): the controllers run
//     side by side as kube-controller-manager, and one that fails stops
//     the others and, through its error, the cluster; exercise 07's
//     ReplicaSet controller is the first, exercise 08's garbage
//     collector the second, exercise 09's Deployment controller the
//     third, exercise 10's Job and TTL-after-finished controllers (one
//     New) the fourth, exercise 11's node lifecycle and taint eviction
//     controllers (one New, with serve's --node-monitor-period and
//     --node-monitor-grace-period) the fifth, exercise 12's namespace
//     and ServiceAccount controllers (one New) the sixth (NewController
//     says which exercise a New that panics belongs to).
//  7. The nodes (ProcessKubelet): serve --nodes N runs exercise 13's
//     kubelet as node-1..node-N, each over a process runtime of its own
//     in DIR/nodes/node-N whose containers are this program's binary
//     (Main calls images.Dispatch first), pulling from the registry in
//     DIR; the cluster takes a pod network 127.X.0.0/16 no other cluster
//     on the machine holds (node N's pods in 127.X.N.0/24), and serves
//     pods/log from the runtime of the pod's node, behind the pipeline.
//     A kubelet's runtime closes when it stops: no container outlives
//     the cluster.
//  8. Services (exercise 14): the service registry (harness/servicealloc
//     with Parts.ServiceIPs and NodePorts) inside the pipeline, on a
//     service network 127.X.0.0/16 no other cluster on the machine holds;
//     the Service kubernetes and its EndpointSlice at each start;
//     kube-proxy (Parts.Proxy), whose rules the admin endpoint serves;
//     the cluster DNS server (Parts.DNS) on the network's tenth address,
//     port ClusterDNSPort, published in DIR/admin.json; and, around each
//     node's runtime, the service variables (Parts.ServiceEnv) and the
//     DNS server's address put before each container's own (podEnv).
//  9. Main: the program's command line, `serve` and `restore`, with
//     messages that say what to do (a part that panics "not implemented"
//     names its exercise; a corrupt or busy store and a port in use are
//     explained).
package cluster
