// Package trace turns what a running cluster leaves behind into the life
// of one object across the components: the relay of seed 000, where the
// apiserver accepts a Deployment, the controller manager makes its
// ReplicaSet and pods, the scheduler binds each pod and the node's
// kubelet starts it until it is Ready. `kata trace` reads the cluster
// (the audit log, Events, successive versions of the objects) and hands
// it to this package; nothing here does IO beyond the io.Reader and
// io.Writer it is given, and nothing reads a clock.
//
// Its responsibilities:
//
//  1. Parse the audit log: one audit.k8s.io/v1 Event per line
//     (k8s.io/apiserver/pkg/apis/audit/v1/types.go, the shape
//     harness/pipeline writes). A line that is not one is skipped and
//     counted, never a panic and never the end of the log (ParseAudit,
//     ParseAuditLine).
//  2. Name the component that acted: from a request's user
//     (system:kube-scheduler is kube-scheduler, system:node:node-1 is
//     node-1, kubernetes-admin is admin), or an Event's
//     source.component or reportingComponent (default-scheduler is
//     kube-scheduler, a *-controller is kube-controller-manager, the
//     kubelet is its node) (Component, EventComponent).
//  3. Build the timeline of a pod or a Deployment (Build): the requests
//     about it and, for a Deployment, its ReplicaSets and their pods
//     (subresources binding and status included); the core/v1 Events
//     whose involvedObject is one of them; and the status changes seen
//     between successive versions of each (phase, conditions, nodeName,
//     container states, ready and restartCount, a ReplicaSet's or
//     Deployment's replica counts). Entries are sorted by time, each with
//     its offset since the first.
//  4. Date what carries no time of its own. The audit log names no
//     object for a create (the name comes from the body, and
//     generateName makes it on the server), so the n-th last create of a
//     resource in a namespace is matched to the n-th last object of it
//     created, as long as its creationTimestamp agrees. A version of an
//     object takes the time of the earliest unused audited write that
//     can have made it (binding for nodeName, status for a status
//     change, delete for a deletion), done no earlier than a write
//     received before an earlier revision was committed (the store
//     commits in revision order: a ReplicaSet's readyReplicas follows
//     its pod's Ready, past a status write that changed nothing);
//     without one, the time a live watch saw it; without that, the
//     newest timestamp the object carries (seconds only, as
//     metav1.Time). Such an entry is Estimated.
//  5. Measure the hops of each pod, accepted (the create, 201) → bound
//     (the binding, or nodeName set) → started (the Started Event, or a
//     container running) → Ready (condition Ready True), and their p50
//     and p99 over many pods by nearest rank (PodHops, Summarize).
//  6. Render a timeline as a text table (WriteText, FormatEntry) and as
//     an SVG 1.1 picture (WriteSVG): one lane per component in the order
//     components first act, a dot per entry, and an arrow for each
//     handoff between lanes: from one entry of an object to its next by
//     another component, and from an owner's creation to its
//     dependent's.
package trace
