// Package servicealloc is the apiserver's service registry, the half of
// Services that lives in kube-apiserver: around the apiserver's handler
// it gives each Service its ClusterIP and its NodePorts from exercise
// 14's allocators, as upstream's registry does in the same request
// (pkg/registry/core/service/storage/storage.go and alloc.go). The
// allocators are the learner's; this package decides when to call them.
//
// A Registry, wrapped around the apiserver (inside the pipeline, so that
// a request that is refused allocates nothing):
//
//  1. On a create (POST .../services), allocates spec.clusterIP (the one
//     asked for, or the next free one) unless the Service is headless
//     (clusterIP None) or an ExternalName, and a nodePort for each port
//     of a NodePort or LoadBalancer Service that has none; sets
//     spec.clusterIP, spec.clusterIPs, spec.ipFamilies and
//     spec.ipFamilyPolicy (SingleStack) as upstream's registry does.
//     An address or port that is taken or out of the range is refused
//     with upstream's 422 (`spec.clusterIPs: Invalid value:
//     []string{"10.0.0.1"}: failed to allocate IP 10.0.0.1: provided IP
//     is already allocated`); a full range with its 500 (`Internal error
//     occurred: failed to allocate a serviceIP: range is full`).
//  2. On an update (PUT, or a PATCH it applies first to know the
//     result), keeps the values the Service had when the update leaves
//     them out (patchAllocatedValues), refuses a changed ClusterIP
//     (`spec.clusterIPs[0]: Invalid value: ...: may not change once
//     set`), allocates for a type that now needs values and frees those
//     a type no longer needs or a port no longer uses.
//  3. Frees a Service's values once it is gone: after a delete that
//     removed it (not one that left it to its finalizers), after the
//     update that removed its last finalizer.
//  4. Gives back everything it took for a request the apiserver then
//     refused, and for a dry run (dryRun=All) that left the store as it
//     was (an apiserver that does not know dryRun stores it: then the
//     registry keeps what it gave).
//  5. Before it serves, takes the values of every Service already stored
//     (upstream's repair controllers rebuild the bitmaps the same way at
//     start), so that a restart over old data hands out no value twice.
//
// Every write of a Service goes through one lock, so that what a Registry
// reads of a Service before a write is still true when it writes.
package servicealloc
