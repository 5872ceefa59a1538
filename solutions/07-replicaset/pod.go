// Package replicaset is the reference of exercise 07: the ReplicaSet
// controller of kube-controller-manager (pkg/controller/replicaset), built
// around exercise 01's Plan. In order:
//
//  1. make the pod a ReplicaSet creates from its template (NewPod,
//     pod.go);
//  2. decide which pods a ReplicaSet owns, adopts and releases through
//     its selector and the pods' controller references (Claim, claim.go);
//  3. remember the creations and deletions a sync started until the
//     informer reports them, so that a sync on a stale cache does not act
//     twice (NewExpectations, expectations.go);
//  4. compute the status from the owned pods (Status, status.go);
//  5. run the loop: watch ReplicaSets and pods, sync each key from a
//     rate-limited work queue, carry the Plan out through the API and
//     write the status (New, controller.go and sync.go).
//
// Steps 1 to 4 are pure functions of their arguments and change none.
package replicaset

// Shared with the loop (controller.go, sync.go), defined in the core's
// files: isPodActive, podKey and objectKey (this file); selectorMatches
// and validSelector (claim.go); isPodReady and desiredReplicas
// (status.go).

import (
	"maps"
	"slices"

	"github.com/kubekata/kubekata/harness/api"
)

// maxNameLength is the longest object name a DNS subdomain allows
// (k8s.io/apimachinery/pkg/util/validation: DNS1123SubdomainMaxLength).
const maxNameLength = 253

// NewPod returns the pod rs creates from its template: upstream's
// GetPodFromTemplate with rs as controller (pkg/controller/
// controller_utils.go). The pod shares no map, slice or pointer with rs,
// so that the caller may change it freely.
func NewPod(rs *api.ReplicaSet) *api.Pod {
	t := &rs.Spec.Template
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{
			Namespace:    rs.Namespace,
			GenerateName: podsPrefix(rs.Name),
			// Fresh copies (getPodsLabelSet, getPodsAnnotationSet,
			// getPodsFinalizers): a pod's labels change later, its
			// template's must not.
			Labels:          maps.Clone(t.Labels),
			Annotations:     maps.Clone(t.Annotations),
			Finalizers:      slices.Clone(t.Finalizers),
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(rs)},
		},
		Spec: api.DeepCopyValue(t.Spec),
	}
	return pod
}

// podsPrefix is upstream's getPodsPrefix (pkg/controller/
// controller_utils.go): "<name>-" so that the apiserver appends a random
// suffix after a dash, unless the dash would make the prefix longer than a
// name may be.
func podsPrefix(name string) string {
	if len(name)+1 > maxNameLength {
		return name
	}
	return name + "-"
}

// isPodActive is upstream's IsPodActive (pkg/controller/
// controller_utils.go): a pod that has finished or is being deleted will
// not serve again, so it does not count towards the replicas.
func isPodActive(p *api.Pod) bool {
	return p.Status.Phase != api.PodSucceeded &&
		p.Status.Phase != api.PodFailed &&
		p.DeletionTimestamp == nil
}

// podKey is upstream's PodKey (pkg/controller/controller_utils.go):
// "namespace/name", the key the expectations track deletions by.
func podKey(p *api.Pod) string { return objectKey(p.Namespace, p.Name) }

// objectKey is the work queue's and the expectations' key of an object,
// as cache.MetaNamespaceKeyFunc makes it: "namespace/name", or "name"
// for an object without a namespace.
func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
