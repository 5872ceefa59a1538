package admission

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
)

// LimitRanger (plugin/pkg/admission/limitranger/admission.go): a
// namespace's LimitRanges fill in the requests and limits a new pod's
// containers leave out, then bound them. Upstream skips pod updates (the
// resources of a pod's containers are immutable), and so does the gate.

// limitRangerAnnotation records what the plugin set, as upstream.
const limitRangerAnnotation = "kubernetes.io/limit-ranger"

// limitRanges reads the namespace's LimitRanges, in name order, once
// per request: the mutating and the validating half both need them.
func (g *gate) limitRanges(ctx context.Context, a *attributes) ([]api.LimitRange, error) {
	if a.limitRanges != nil {
		return *a.limitRanges, nil
	}
	resp, err := g.store.Range(ctx, storage.RangeRequest{Prefix: "/registry/limitranges/" + a.Namespace + "/"})
	if err != nil {
		return nil, err
	}
	out := []api.LimitRange{}
	for _, kv := range resp.KVs {
		var lr api.LimitRange
		if json.Unmarshal(kv.Value, &lr) == nil {
			out = append(out, lr)
		}
	}
	a.limitRanges = &out
	return out, nil
}

// limitRangerDefaults sets a Container LimitRange's default (limits) and
// defaultRequest (requests) on every container that sets none of that
// resource, and notes what it set in the pod's annotation.
func (g *gate) limitRangerDefaults(ctx context.Context, a *attributes) *api.Status {
	// TODO: give every container of a created pod the namespace's Container defaults: default as limits and defaultRequest as requests, for each resource it leaves unset.
	panic("not implemented: limitRangerDefaults")
}

// merged returns into with from's entries added.
func merged(into, from api.ResourceList) api.ResourceList {
	for k, v := range from {
		if into == nil {
			into = api.ResourceList{}
		}
		into[k] = v
	}
	return into
}

// fill sets the defaults a list lacks and returns their names, sorted.
func fill(list *api.ResourceList, defaults api.ResourceList) []string {
	// TODO: set in *list every default it lacks, and return the names set, sorted.
	panic("not implemented: fill")
}

// limitRangerValidate checks a new pod against every LimitRange of its
// namespace: Min, Max and MaxLimitRequestRatio per container (type
// Container) and for the sum of the containers (type Pod).
func (g *gate) limitRangerValidate(ctx context.Context, a *attributes) *api.Status {
	// TODO: check every container of a created pod against each Container item's min and max, and refuse with all the violations.
	panic("not implemented: limitRangerValidate")
}

// checkItem checks one LimitRangeItem against requests and limits; its
// messages are upstream's minConstraint, maxConstraint and
// limitRequestRatioConstraint.
func checkItem(item api.LimitRangeItem, requests, limits api.ResourceList) []string {
	// TODO: return upstream's message for each min and max of item that requests and limits break.
	panic("not implemented: checkItem")
}

func sortedNames(l api.ResourceList) []api.ResourceName {
	names := make([]api.ResourceName, 0, len(l))
	for k := range l {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// podTotals is what a pod asks for as a whole: the sum of its
// containers, or its largest init container where that is more (init
// containers run one at a time, before the others).
func podTotals(pod *api.Pod) (requests, limits api.ResourceList) {
	requests, limits = api.ResourceList{}, api.ResourceList{}
	for _, c := range pod.Spec.Containers {
		addAll(requests, c.Resources.Requests)
		addAll(limits, c.Resources.Limits)
	}
	for _, c := range pod.Spec.InitContainers {
		maxAll(requests, c.Resources.Requests)
		maxAll(limits, c.Resources.Limits)
	}
	return requests, limits
}

func addAll(into, from api.ResourceList) {
	for k, v := range from {
		q := into[k]
		q.Add(v)
		into[k] = q
	}
}

func maxAll(into, from api.ResourceList) {
	for k, v := range from {
		if q, ok := into[k]; !ok || v.Cmp(q) > 0 {
			into[k] = v
		}
	}
}
