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
//  1. Lifecycle: cluster-start [--reference], cluster-stop (SIGINT, a
//     clean exit), cluster-restart, cluster-kill (SIGKILL, a crash), wipe
//     (the data directory of a stopped cluster), on $WORK/data; $URL and
//     $KUBECONFIG point at the running cluster. No cluster process or
//     watch outlives its scenario, whether it passes or fails (ts.Defer
//     and the Setup's Defer kill and reap them).
//  2. Objects over Kubernetes' REST API with untyped JSON: apply FILE
//     (create, or a strategic merge patch as kubectl apply sends, keeping
//     the last-applied annotation), replace FILE (PUT, as kubectl
//     replace), get [-l SELECTOR] RESOURCE[/NS[/NAME]] [TEMPLATE], delete.
//     A server error is printed as kubectl prints it ("Error from server
//     (Conflict): ..."), to stderr when the command is negated.
//  3. JSONPath templates, a subset of kubectl's (jsonpath.go says which).
//  4. Waiting without sleeps: wait-for RESOURCE/NS/NAME TEMPLATE=VALUE lists
//     then watches the object from the list's resourceVersion, lists again
//     after a doubling back-off when the watch ends, and at its deadline
//     says what it saw last. watch-start NAME RESOURCE[/NS] records a
//     watch's events from now on; watch-expect NAME TYPE OBJECT waits for
//     one and prints its object.
//  5. Backup: snapshot-save FILE (from the running cluster, through the
//     program's admin endpoint) and snapshot-restore FILE (into the data
//     directory of a stopped cluster).
//  6. kubectl ARGS: the real kubectl with $KUBECONFIG set; [kubectl] is
//     true when it is on PATH, so that a scenario can skip with a reason.
//
// Scenario files are named <area>_<behaviour>.txtar and open with a
// header that says what they show and which exercises they need
// (`# needs: 03-store 04-apiserver`); package catalog reads it.
package scenario
