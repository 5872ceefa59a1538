// Package replicaset is your ReplicaSet controller, the one
// kube-controller-manager runs (seed 000 §2.3, seed 001 §03): a
// thermostat around exercise 01's Plan that keeps a ReplicaSet's pods in
// step with its spec (k8s.io/kubernetes/pkg/controller/replicaset). In
// order:
//
//  1. make the pod a ReplicaSet creates from its template (NewPod,
//     pod.go);
//  2. decide which pods a ReplicaSet owns, adopts and releases through
//     its selector and the pods' controller references (Claim, claim.go);
//  3. remember the creations and deletions a sync started until the
//     informer reports them (NewExpectations, expectations.go);
//  4. compute the status from the owned pods (Status, status.go);
//  5. run the loop: watch ReplicaSets and pods, sync each key from a
//     rate-limited work queue, carry the Plan out through the API and
//     write the status (New, controller.go and sync.go).
//
// Read README.md beside this file for the tasks: every function that
// panics with "not implemented" is one of yours, and its TODO and the
// README say which task needs it. The types, the messages and upstream's
// constants are given; you may change any of it, only the behaviour is
// graded.
package replicaset

// Shared with the loop (controller.go, sync.go), defined in the core's
// files: isPodActive, podKey and objectKey (this file); selectorMatches
// and validSelector (claim.go); isPodReady and desiredReplicas
// (status.go).

import "github.com/kubekata/kubekata/harness/api"

// maxNameLength is the longest object name a DNS subdomain allows
// (k8s.io/apimachinery/pkg/util/validation: DNS1123SubdomainMaxLength).
const maxNameLength = 253

// NewPod returns the pod rs creates from its template: upstream's
// GetPodFromTemplate with rs as controller (pkg/controller/
// controller_utils.go). The pod shares no map, slice or pointer with rs,
// so that the caller may change it freely.
func NewPod(rs *api.ReplicaSet) *api.Pod {
	// TODO: return the pod rs creates from its template: rs's namespace, generateName from podsPrefix, fresh copies of the template's labels, annotations, finalizers and spec, and rs's controller reference as its only owner (task 1).
	panic("not implemented: NewPod")
}

// podsPrefix is upstream's getPodsPrefix (pkg/controller/
// controller_utils.go): "<name>-" so that the apiserver appends a random
// suffix after a dash, unless the dash would make the prefix longer than a
// name may be.
func podsPrefix(name string) string {
	// TODO: return the generateName prefix: name and a dash, or name alone when the dash would make it longer than maxNameLength (task 1).
	panic("not implemented: podsPrefix")
}

// isPodActive is upstream's IsPodActive (pkg/controller/
// controller_utils.go): a pod that has finished or is being deleted will
// not serve again, so it does not count towards the replicas.
func isPodActive(p *api.Pod) bool {
	// TODO: say whether the pod still counts: its phase is neither Succeeded nor Failed and it has no deletionTimestamp (task 6).
	panic("not implemented: isPodActive")
}

// podKey is upstream's PodKey (pkg/controller/controller_utils.go):
// "namespace/name", the key the expectations track deletions by.
func podKey(p *api.Pod) string {
	// TODO: return the pod's namespace/name key (task 10).
	// Until task 10: no key (activePods and deletePods, task 7, and deletePod, task 8, call this).
	return ""
}

// objectKey is the work queue's and the expectations' key of an object,
// as cache.MetaNamespaceKeyFunc makes it: "namespace/name", or "name"
// for an object without a namespace.
func objectKey(namespace, name string) string {
	// TODO: return namespace/name, or the name alone without a namespace (task 6).
	panic("not implemented: objectKey")
}
