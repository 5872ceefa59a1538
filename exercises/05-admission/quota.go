package admission

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
)

// ResourceQuota (plugin/pkg/admission/resourcequota and
// pkg/quota/v1/evaluator/core/pods.go): a create that would take a
// namespace past a quota's hard limit is refused; one that fits is
// charged into the quota's status.used before it goes on, with a
// compare-and-swap on the quota, so that two creates racing for the
// last unit cannot both have it. As upstream, the charge is not undone
// when the apiserver then refuses the create: the quota controller
// recounts. It runs last, so that nothing refused earlier is charged.

// maxQuotaAttempts bounds the compare-and-swap retries of one charge.
const maxQuotaAttempts = 64

// legacyCounts are the object counts upstream also knows by their bare
// resource name ("configmaps" as well as "count/configmaps").
var legacyCounts = map[string]bool{
	"configmaps": true, "secrets": true, "services": true, "resourcequotas": true,
	"persistentvolumeclaims": true, "replicationcontrollers": true,
}

// usageOf is what a create adds to its namespace's usage: one object of
// its resource and, for a pod, its compute requests and limits.
func usageOf(a *attributes) api.ResourceList {
	// TODO: return what a create adds to its namespace's usage: count/<resource> 1 and, for a pod, its compute usage.
	panic("not implemented: usageOf")
}

// computeUsage names a pod's (or a container's) compute usage as quotas
// do: "pods", requests as "requests.cpu" and plain "cpu", limits as
// "limits.cpu" (upstream's podComputeUsageHelper).
func computeUsage(requests, limits api.ResourceList) api.ResourceList {
	// TODO: name a pod's compute usage as quotas do: pods 1, requests as requests.cpu and cpu (likewise memory), limits as limits.cpu and limits.memory.
	panic("not implemented: computeUsage")
}

// mustSpecify are the pod resources a quota on them makes every
// container name explicitly (upstream's validationSet).
var mustSpecify = []api.ResourceName{"cpu", "limits.cpu", "limits.memory", "memory", "requests.cpu", "requests.memory"}

// podConstraints is upstream's podEvaluator.Constraints: with a quota on
// cpu or memory, every container must request (or limit) it.
func podConstraints(pod *api.Pod, hard api.ResourceList) string {
	missing := map[api.ResourceName][]string{}
	for _, cs := range [][]api.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range cs {
			has := computeUsage(c.Resources.Requests, c.Resources.Limits)
			for _, r := range mustSpecify {
				if _, quoted := hard[r]; !quoted {
					continue
				}
				if _, ok := has[r]; !ok {
					missing[r] = append(missing[r], c.Name)
				}
			}
		}
	}
	if len(missing) == 0 {
		return ""
	}
	var msgs []string
	for _, r := range mustSpecify {
		if names, ok := missing[r]; ok {
			sort.Strings(names)
			msgs = append(msgs, fmt.Sprintf("%s for: %s", r, strings.Join(names, ",")))
		}
	}
	return "must specify " + strings.Join(msgs, "; ")
}

// resourceQuota checks a create against every quota of its namespace
// and charges it.
func (g *gate) resourceQuota(ctx context.Context, a *attributes) *api.Status {
	// TODO: charge a create to the namespace's quotas with one compare-and-swap transaction, reading again and deciding again when it loses.
	panic("not implemented: resourceQuota")
}

// charge reads the namespace's quotas and returns the transaction that
// charges delta to each quota that limits any of it, if all of it fits.
func (g *gate) charge(ctx context.Context, a *attributes, delta api.ResourceList) (storage.Txn, *api.Status) {
	// TODO: read the namespace's quotas and return the transaction that charges delta to every quota that names any of it, or the 403 exceeded quota of the first it would exceed.
	panic("not implemented: charge")
}

// mask keeps the entries of l that hard names.
func mask(l, hard api.ResourceList) api.ResourceList {
	out := api.ResourceList{}
	for k, v := range l {
		if _, ok := hard[k]; ok {
			out[k] = v
		}
	}
	return out
}

// prettyPrint prints the named entries as upstream's quota messages do:
// sorted, name=quantity, comma-joined. A usage the quota has not
// recorded yet prints as 0.
func prettyPrint(l api.ResourceList, names []api.ResourceName) string {
	parts := make([]string, len(names))
	for i, k := range names {
		q := l[k]
		parts[i] = fmt.Sprintf("%s=%s", k, q.String())
	}
	return strings.Join(parts, ",")
}
