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
	one := api.MustParse("1")
	usage := api.ResourceList{
		api.ResourceName("count/" + qualifiedResource(a.kind.Group, a.kind.Resource)): one,
	}
	if a.kind.Group == "" && legacyCounts[a.kind.Resource] {
		usage[api.ResourceName(a.kind.Resource)] = one
	}
	if pod, ok := a.obj.(*api.Pod); ok {
		requests, limits := podTotals(pod)
		addAll(requests, pod.Spec.Overhead)
		addAll(limits, pod.Spec.Overhead)
		for k, v := range computeUsage(requests, limits) {
			usage[k] = v
		}
	}
	return usage
}

// computeUsage names a pod's (or a container's) compute usage as quotas
// do: "pods", requests as "requests.cpu" and plain "cpu", limits as
// "limits.cpu" (upstream's podComputeUsageHelper).
func computeUsage(requests, limits api.ResourceList) api.ResourceList {
	u := api.ResourceList{api.ResourcePods: api.MustParse("1")}
	for _, r := range []api.ResourceName{api.ResourceCPU, api.ResourceMemory, api.ResourceEphemeralStorage} {
		if q, ok := requests[r]; ok {
			u[r] = q
			u["requests."+r] = q
		}
		if q, ok := limits[r]; ok {
			u["limits."+r] = q
		}
	}
	return u
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
	if a.operation() != "create" || a.Subresource != "" || !a.kind.Namespaced || a.Namespace == "" {
		return nil
	}
	delta := usageOf(a)
	for attempt := 0; attempt < maxQuotaAttempts; attempt++ {
		txn, st := g.charge(ctx, a, delta)
		if st != nil || len(txn.Then) == 0 || a.dryRun {
			// A dry run is refused like the real one, but charges
			// nothing (upstream's quota evaluator skips it).
			return st
		}
		resp, err := g.store.Txn(ctx, txn)
		if err != nil {
			return internalError(err)
		}
		if resp.Succeeded {
			return nil
		}
		// A quota changed since we read it (another create charged
		// it): read again and decide again.
	}
	return internalError(fmt.Errorf("admission: resource quota: %d conflicts charging namespace %s", maxQuotaAttempts, a.Namespace))
}

// charge reads the namespace's quotas and returns the transaction that
// charges delta to each quota that limits any of it, if all of it fits.
func (g *gate) charge(ctx context.Context, a *attributes, delta api.ResourceList) (storage.Txn, *api.Status) {
	var txn storage.Txn
	resp, err := g.store.Range(ctx, storage.RangeRequest{Prefix: "/registry/resourcequotas/" + a.Namespace + "/"})
	if err != nil {
		return txn, internalError(err)
	}
	type pending struct {
		kv    storage.KeyValue
		quota api.ResourceQuota
		hard  api.ResourceList
	}
	var quotas []pending
	for _, kv := range resp.KVs {
		var q api.ResourceQuota
		if json.Unmarshal(kv.Value, &q) != nil {
			continue
		}
		// The quota controller copies spec.hard to status.hard; until
		// it has, the spec is the limit.
		hard := q.Status.Hard
		if len(hard) == 0 {
			hard = q.Spec.Hard
		}
		quotas = append(quotas, pending{kv, q, hard})
	}
	if pod, ok := a.obj.(*api.Pod); ok {
		for _, p := range quotas {
			if why := podConstraints(pod, p.hard); why != "" {
				return txn, admissionForbidden(a, fmt.Sprintf("failed quota: %s: %s", p.quota.Name, why))
			}
		}
	}
	for _, p := range quotas {
		requested := mask(delta, p.hard)
		if len(requested) == 0 {
			continue
		}
		used := p.quota.Status.Used
		newUsed := api.ResourceList{}
		for k, v := range used {
			newUsed[k] = v
		}
		addAll(newUsed, requested)
		var exceeded []api.ResourceName
		for _, k := range sortedNames(requested) {
			if newUsed[k].Cmp(p.hard[k]) > 0 {
				exceeded = append(exceeded, k)
			}
		}
		if len(exceeded) > 0 {
			return txn, admissionForbidden(a, fmt.Sprintf("exceeded quota: %s, requested: %s, used: %s, limited: %s",
				p.quota.Name, prettyPrint(requested, exceeded), prettyPrint(used, exceeded), prettyPrint(p.hard, exceeded)))
		}
		p.quota.Status.Used = newUsed
		data, err := json.Marshal(&p.quota)
		if err != nil {
			return txn, internalError(err)
		}
		txn.If = append(txn.If, storage.Compare{Key: p.kv.Key, ModRevision: p.kv.ModRevision})
		txn.Then = append(txn.Then, storage.PutOp(p.kv.Key, data))
	}
	return txn, nil
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
