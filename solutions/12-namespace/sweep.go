package namespace

import (
	"fmt"
	"slices"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/namespaces"
)

// Sweep is what kind k left behind in namespace ns after its objects were
// deleted (namespaces.SweepFunc): the tail of upstream's
// deleteAllContentForGroupVersionResource
// (pkg/controller/namespace/deletion/namespaced_resources_deleter.go),
// from its second list on, with the pods' estimate given as grace. The
// result shares no memory with left.
func Sweep(ns string, k api.Kind, left []namespaces.Leftover, grace int64) namespaces.KindResult {
	r := namespaces.KindResult{Resource: namespaces.ResourceKey(k)}
	// Rule 1: the second list came back empty: done, whatever the pods
	// asked for (upstream returns a zero estimate).
	if len(left) == 0 {
		return r
	}

	// Rule 2: how many remain, and which finalizers hold them, each
	// leftover counted once per finalizer it carries (upstream counts
	// each item's finalizers into finalizersToNumRemaining).
	r.Remaining = len(left)
	for i := range left {
		fins := left[i].Finalizers
		for j, f := range fins {
			if slices.Contains(fins[:j], f) {
				continue // the same leftover carries it twice: counted once
			}
			if r.Finalizers == nil {
				r.Finalizers = make(map[string]int)
			}
			r.Finalizers[f]++
		}
	}

	// Rule 3: the pods' grace wins; else a finalizer means waiting the
	// default finalizerEstimateSeconds; else the objects should be gone,
	// and that is an error.
	switch {
	case grace > 0:
		r.Estimate = grace
	case len(r.Finalizers) > 0:
		r.Estimate = namespaces.FinalizerEstimate
	default:
		r.Err = fmt.Sprintf(namespaces.MessageUnexpected, ns, r.Resource)
	}
	return r
}

// GraceEstimate is the seconds the pods of a namespace ask to stop
// (namespaces.GraceEstimateFunc): upstream's
// estimateGracefulTerminationForPods
// (pkg/controller/namespace/deletion/namespaced_resources_deleter.go).
func GraceEstimate(pods []api.Pod) int64 {
	// Rule 1: the largest terminationGracePeriodSeconds of the pods still
	// running; a pod that has finished asks for nothing.
	var est int64
	for i := range pods {
		p := &pods[i]
		if p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed {
			continue
		}
		if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g > est {
			est = *g
		}
	}
	return est
}

var (
	_ namespaces.SweepFunc         = Sweep
	_ namespaces.GraceEstimateFunc = GraceEstimate
)
