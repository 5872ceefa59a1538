// Package scenario is the testscript engine that drives a whole cluster
// end to end: the scenarios in testdata/scenarios start a cluster
// program (harness/cluster/program), apply manifests, read objects and
// fields, wait for conditions, watch, crash and restart the cluster, back
// it up and restore it, and run the real kubectl.
//
// `go test ./harness/scenario` runs every scenario against the reference
// cluster (solutions/03-store and solutions/04-apiserver, built once per
// test binary); with $KATA_SCENARIO_CLUSTER naming another cluster
// program (`kata scenario` builds the learner's), the same pristine test
// runs against that one.
//
// Its responsibilities:
//
//  1. Lifecycle: cluster-start [--reference] [--nodes N]
//     [--admission-policy NAME,...] [--node-monitor-period D]
//     [--node-monitor-grace-period D], cluster-stop (SIGINT, a clean
//     exit), cluster-restart (with the same flags), cluster-kill (SIGKILL, a crash), wipe
//     (the data directory of a stopped cluster), on $WORK/data; $URL and
//     $KUBECONFIG point at the running cluster. No cluster process or
//     watch outlives its scenario, whether it passes or fails (ts.Defer
//     and the Setup's Defer kill and reap them).
//  2. Identity: the commands act as the cluster's admin unless `as USER`
//     names another of its users (learner, anonymous, a component; see
//     program.Credentials) or `as --token TOKEN` sends a bearer token
//     with no client certificate; kubectl then runs with that user's
//     kubeconfig. On a cluster with the request pipeline (exercise 05)
//     that is TLS with the user's client certificate; without it, plain
//     HTTP where every identity is the same unauthenticated access.
//  3. Objects over Kubernetes' REST API with untyped JSON: apply FILE
//     (create, or a strategic merge patch as kubectl apply sends, keeping
//     the last-applied annotation), replace FILE (PUT, as kubectl
//     replace), get [-l SELECTOR] [--field-selector SELECTOR] [--env
//     VAR] RESOURCE[/NS[/NAME]] [TEMPLATE] (--env: into $VAR too, to
//     name an object the cluster named), delete.
//     A server error is printed as kubectl prints it ("Error from server
//     (Conflict): ...", "Error from server (Forbidden): pods is
//     forbidden: User ...", and for a 401 "error: You must be logged in
//     to the server (Unauthorized)"), to stderr when the command is
//     negated, so that a scenario checks a refusal's reason and message.
//  4. JSONPath templates, a subset of kubectl's (jsonpath.go says which).
//  5. Waiting without sleeps: wait-for RESOURCE/NS/NAME TEMPLATE=VALUE
//     (or TEMPLATE!=VALUE, until it prints anything else) lists
//     then watches the object from the list's resourceVersion, lists again
//     after a doubling back-off when the watch ends, and at its deadline
//     says what it saw last. watch-start NAME [-l SEL] [--field-selector
//     SEL] RESOURCE[/NS] records a watch's events from now on;
//     watch-expect NAME TYPE OBJECT waits for one (OBJECT a name, or a
//     glob such as web.* for a pod's Events) and prints its object;
//     watch-max NAME N checks that the watch never saw more than N
//     active objects at once (a pod counts until it is deleted,
//     terminating, or finished); wait-gone [-l SEL] RESOURCE[/NS] waits
//     until a collection lists nothing.
//  6. Backup: snapshot-save FILE (from the running cluster, through the
//     program's admin endpoint) and snapshot-restore FILE (into the data
//     directory of a stopped cluster).
//  7. kubectl ARGS: the real kubectl with $KUBECONFIG set (the
//     identity's kubeconfig); [kubectl] is true when it is on PATH, so
//     that a scenario can skip with a reason.
//  8. Heartbeats: renew-lease NODE EVERY creates or renews node NODE's
//     Lease in kube-node-lease now and then every EVERY in the
//     background, as a kubelet does, until renew-lease --stop NODE or
//     the end of the scenario (ts.Defer stops it), so that a scenario
//     can let one node's Lease expire while another's stays fresh.
//  9. Nodes and pods: cluster-start --nodes N runs N kubelets (those of
//     exercise 13), whose containers are processes; http-get URL sends one GET
//     (to a pod's IP) and prints the body of a 200, and `! http-get`
//     expects a refusal; http-spread N URL sends N GETs (to a Service's
//     address), each on a new connection, and prints how many answers
//     each body got and the fewest, so that a scenario sees kube-proxy
//     spread them over the pods; proxy-rules [--with TEXT] [--without
//     TEXT] [--namespace NS] prints the rules kube-proxy applies (kata
//     proxy rules), or those of NS's Services, waiting until they
//     mention (or no longer mention) TEXT; image-push NAME:TAG PROGRAM [ARGS...] adds an
//     image to the registry in the data directory that the nodes pull
//     from, as `kata image push` does; kubelet-stop NODE stops a node's
//     kubelet and its containers, as a node that fails (through the
//     program's admin endpoint); pod-processes [--gone] NS/NAME counts
//     the live processes of a pod's containers in this cluster, or
//     waits until there is none (Linux's /proc); pod-kill NS/NAME kills
//     them with SIGKILL, as a crash would, for the kubelet to restart the
//     container; pod-logs NS/NAME REGEXP
//     waits for a line of a pod's log (pods/log) that matches, so that a
//     pod's program (kata/curl) can say what it reached; dns-lookup
//     [--srv] NAME asks the cluster DNS server for a name's addresses
//     (or SRV records), and `! dns-lookup NAME` waits until it has none.
//
// Scenario files are named <area>_<behaviour>.txtar and open with a
// header that says what they show and which exercises they need
// (`# needs: 03-store 04-apiserver`); package catalog reads it.
package scenario
