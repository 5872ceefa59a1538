package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

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
	pod := a.createdPod()
	if pod == nil {
		return nil
	}
	ranges, err := g.limitRanges(ctx, a)
	if err != nil {
		return internalError(err)
	}
	for _, lr := range ranges {
		var defaults api.ResourceRequirements
		for _, item := range lr.Spec.Limits {
			if item.Type != api.LimitTypeContainer {
				continue
			}
			defaults.Limits = merged(defaults.Limits, item.Default)
			defaults.Requests = merged(defaults.Requests, item.DefaultRequest)
		}
		if len(defaults.Limits) == 0 && len(defaults.Requests) == 0 {
			continue
		}
		var notes []string
		for _, group := range []struct {
			what string
			cs   []api.Container
		}{{"container", pod.Spec.Containers}, {"init container", pod.Spec.InitContainers}} {
			for i := range group.cs {
				c := &group.cs[i]
				if set := fill(&c.Resources.Requests, defaults.Requests); len(set) > 0 {
					notes = append(notes, fmt.Sprintf("%s request for %s %s", strings.Join(set, ", "), group.what, c.Name))
				}
				if set := fill(&c.Resources.Limits, defaults.Limits); len(set) > 0 {
					notes = append(notes, fmt.Sprintf("%s limit for %s %s", strings.Join(set, ", "), group.what, c.Name))
				}
			}
		}
		if len(notes) > 0 {
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			pod.Annotations[limitRangerAnnotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
		}
	}
	return nil
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
	var set []string
	for k, v := range defaults {
		if _, ok := (*list)[k]; ok {
			continue
		}
		if *list == nil {
			*list = api.ResourceList{}
		}
		(*list)[k] = v
		set = append(set, string(k))
	}
	sort.Strings(set)
	return set
}

// limitRangerValidate checks a new pod against every LimitRange of its
// namespace: Min, Max and MaxLimitRequestRatio per container (type
// Container) and for the sum of the containers (type Pod).
func (g *gate) limitRangerValidate(ctx context.Context, a *attributes) *api.Status {
	pod := a.createdPod()
	if pod == nil {
		return nil
	}
	ranges, err := g.limitRanges(ctx, a)
	if err != nil {
		return internalError(err)
	}
	var errs []string
	for _, lr := range ranges {
		for _, item := range lr.Spec.Limits {
			switch item.Type {
			case api.LimitTypeContainer:
				for _, cs := range [][]api.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
					for _, c := range cs {
						errs = append(errs, checkItem(item, c.Resources.Requests, c.Resources.Limits)...)
					}
				}
			case api.LimitTypePod:
				requests, limits := podTotals(pod)
				errs = append(errs, checkItem(item, requests, limits)...)
			}
		}
	}
	if len(errs) > 0 {
		return admissionForbidden(a, joinErrors(errs))
	}
	return nil
}

// checkItem checks one LimitRangeItem against requests and limits; its
// messages are upstream's minConstraint, maxConstraint and
// limitRequestRatioConstraint.
func checkItem(item api.LimitRangeItem, requests, limits api.ResourceList) []string {
	var errs []string
	t := string(item.Type)
	for _, k := range sortedNames(item.Min) {
		min := item.Min[k]
		req, hasReq := requests[k]
		lim, hasLim := limits[k]
		switch {
		case !hasReq:
			errs = append(errs, fmt.Sprintf("minimum %s usage per %s is %s.  No request is specified", k, t, min.String()))
		case req.Cmp(min) < 0:
			errs = append(errs, fmt.Sprintf("minimum %s usage per %s is %s, but request is %s", k, t, min.String(), req.String()))
		case hasLim && lim.Cmp(min) < 0:
			errs = append(errs, fmt.Sprintf("minimum %s usage per %s is %s, but limit is %s", k, t, min.String(), lim.String()))
		}
	}
	for _, k := range sortedNames(item.Max) {
		max := item.Max[k]
		req, hasReq := requests[k]
		lim, hasLim := limits[k]
		switch {
		case !hasLim:
			errs = append(errs, fmt.Sprintf("maximum %s usage per %s is %s.  No limit is specified", k, t, max.String()))
		case lim.Cmp(max) > 0:
			errs = append(errs, fmt.Sprintf("maximum %s usage per %s is %s, but limit is %s", k, t, max.String(), lim.String()))
		case hasReq && req.Cmp(max) > 0:
			errs = append(errs, fmt.Sprintf("maximum %s usage per %s is %s, but request is %s", k, t, max.String(), req.String()))
		}
	}
	for _, k := range sortedNames(item.MaxLimitRequestRatio) {
		ratio := item.MaxLimitRequestRatio[k]
		req, hasReq := requests[k]
		lim, hasLim := limits[k]
		switch {
		case !hasReq || req.IsZero():
			errs = append(errs, fmt.Sprintf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", k, t, ratio.String()))
		case !hasLim || lim.IsZero():
			errs = append(errs, fmt.Sprintf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", k, t, ratio.String()))
		default:
			observed := lim.AsApproximateFloat64() / req.AsApproximateFloat64()
			if observed > ratio.AsApproximateFloat64() {
				errs = append(errs, fmt.Sprintf("%s max limit to request ratio per %s is %s, but provided ratio is %f", k, t, ratio.String(), observed))
			}
		}
	}
	return errs
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
