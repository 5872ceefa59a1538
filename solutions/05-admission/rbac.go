package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
)

// RBAC, as upstream's authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go
// and pkg/apis/rbac/v1/evaluation_helpers.go in kubernetes/kubernetes):
// a request is allowed when a rule of a role bound to the user, one of
// their groups or their ServiceAccount allows it; ClusterRoleBindings
// count everywhere, RoleBindings only in their namespace. Nothing denies:
// no rule means no.
//
// Upstream's authorizer reads informer caches; so does this one: an index
// built from a list of the four kinds and kept current by watches from
// the list's revision, so that a decision never touches the store.

// rbacPrefixes are where the four kinds live in the store.
var rbacPrefixes = [4]string{
	"/registry/clusterroles/",
	"/registry/clusterrolebindings/",
	"/registry/roles/",
	"/registry/rolebindings/",
}

// relistDelay is how long the cache waits before listing again after a
// list failed (a watch that ended relists at once).
const relistDelay = 100 * time.Millisecond

// rbacAuthorizer answers from the index of its latest snapshot.
type rbacAuthorizer struct {
	store storage.Store
	index atomic.Pointer[rbacIndex]
	// objects is the decoded state of the four kinds by store key; only
	// the loop goroutine touches it after NewAuthorizer returns.
	objects map[string]any
}

// NewAuthorizer returns the RBAC authorizer over the store's Roles,
// ClusterRoles, RoleBindings and ClusterRoleBindings, kept current until
// ctx is done.
func NewAuthorizer(ctx context.Context, store storage.Store) (pipeline.Authorizer, error) {
	a := &rbacAuthorizer{store: store}
	rev, err := a.list(ctx)
	if err != nil {
		return nil, err
	}
	go a.run(ctx, rev)
	return a, nil
}

// Authorize decides from the latest index.
func (a *rbacAuthorizer) Authorize(_ context.Context, attrs pipeline.Attributes) (pipeline.Decision, error) {
	return a.index.Load().authorize(attrs), nil
}

// list reads the four kinds at one revision and publishes their index.
func (a *rbacAuthorizer) list(ctx context.Context) (int64, error) {
	objects := map[string]any{}
	var rev int64
	for _, prefix := range rbacPrefixes {
		resp, err := a.store.Range(ctx, storage.RangeRequest{Prefix: prefix, Revision: rev})
		if err != nil {
			return 0, fmt.Errorf("admission: listing %s: %w", prefix, err)
		}
		rev = resp.Revision
		for _, kv := range resp.KVs {
			if obj := decodeRBAC(kv.Key, kv.Value); obj != nil {
				objects[kv.Key] = obj
			}
		}
	}
	a.objects = objects
	a.index.Store(buildIndex(objects))
	return rev, nil
}

// run keeps the index current until ctx is done: it watches from the
// list's revision on, and lists again when a watch ends (compacted, or
// fallen too far behind).
func (a *rbacAuthorizer) run(ctx context.Context, rev int64) {
	for {
		err := a.watch(ctx, rev)
		for {
			if ctx.Err() != nil || errors.Is(err, storage.ErrClosed) {
				return
			}
			if rev, err = a.list(ctx); err == nil {
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(relistDelay):
			}
		}
	}
}

// watch applies the events of the four kinds after rev until a watch
// ends, and says why it ended.
func (a *rbacAuthorizer) watch(ctx context.Context, rev int64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var chans [4]<-chan storage.Event
	var watchers [4]storage.Watcher
	for i, prefix := range rbacPrefixes {
		w, err := a.store.Watch(ctx, prefix, rev+1)
		if err != nil {
			return err
		}
		watchers[i], chans[i] = w, w.Events()
	}
	for {
		var ev storage.Event
		var ok bool
		var from int
		select {
		case ev, ok = <-chans[0]:
		case ev, ok = <-chans[1]:
			from = 1
		case ev, ok = <-chans[2]:
			from = 2
		case ev, ok = <-chans[3]:
			from = 3
		}
		if !ok {
			return watchers[from].Err()
		}
		a.apply(ev)
		// Take what else is already waiting, so that a burst of writes
		// costs one rebuild, not one each.
		for i, ch := range chans {
			for len(ch) > 0 {
				ev, ok := <-ch
				if !ok {
					return watchers[i].Err()
				}
				a.apply(ev)
			}
		}
		a.index.Store(buildIndex(a.objects))
	}
}

func (a *rbacAuthorizer) apply(ev storage.Event) {
	if ev.Type == storage.EventDelete {
		delete(a.objects, ev.KV.Key)
		return
	}
	if obj := decodeRBAC(ev.KV.Key, ev.KV.Value); obj != nil {
		a.objects[ev.KV.Key] = obj
	} else {
		delete(a.objects, ev.KV.Key)
	}
}

// decodeRBAC decodes one stored object by the prefix of its key; an
// object that does not decode grants nothing.
func decodeRBAC(key string, value []byte) any {
	var obj any
	switch {
	case strings.HasPrefix(key, rbacPrefixes[0]):
		obj = &api.ClusterRole{}
	case strings.HasPrefix(key, rbacPrefixes[1]):
		obj = &api.ClusterRoleBinding{}
	case strings.HasPrefix(key, rbacPrefixes[2]):
		obj = &api.Role{}
	case strings.HasPrefix(key, rbacPrefixes[3]):
		obj = &api.RoleBinding{}
	default:
		return nil
	}
	if json.Unmarshal(value, obj) != nil {
		return nil
	}
	return obj
}

// grant is one binding's role as it applies to one subject, resolved
// when the index is built: its rules, or why there are none (the role it
// names is missing).
type grant struct {
	rules []api.PolicyRule
	err   string
	// source describes the binding, for the reason of an allow.
	source string
}

// bindingSet is the grants of one scope (the cluster, or a namespace)
// by the user or group they name.
type bindingSet struct {
	users  map[string][]grant
	groups map[string][]grant
}

func newBindingSet() *bindingSet {
	return &bindingSet{users: map[string][]grant{}, groups: map[string][]grant{}}
}

// rbacIndex is an immutable snapshot: cluster-wide grants and grants
// per namespace.
type rbacIndex struct {
	cluster     *bindingSet
	byNamespace map[string]*bindingSet
}

// buildIndex resolves every binding against the roles it names.
func buildIndex(objects map[string]any) *rbacIndex {
	clusterRoles := map[string][]api.PolicyRule{}
	roles := map[[2]string][]api.PolicyRule{}
	var crbs []*api.ClusterRoleBinding
	var rbs []*api.RoleBinding
	for _, obj := range objects {
		switch o := obj.(type) {
		case *api.ClusterRole:
			clusterRoles[o.Name] = o.Rules
		case *api.Role:
			roles[[2]string{o.Namespace, o.Name}] = o.Rules
		case *api.ClusterRoleBinding:
			crbs = append(crbs, o)
		case *api.RoleBinding:
			rbs = append(rbs, o)
		}
	}
	// Bindings in name order, so that the reason of an allow does not
	// depend on map order.
	sort.Slice(crbs, func(i, j int) bool { return crbs[i].Name < crbs[j].Name })
	sort.Slice(rbs, func(i, j int) bool {
		if rbs[i].Namespace != rbs[j].Namespace {
			return rbs[i].Namespace < rbs[j].Namespace
		}
		return rbs[i].Name < rbs[j].Name
	})
	ix := &rbacIndex{cluster: newBindingSet(), byNamespace: map[string]*bindingSet{}}
	resolve := func(ns string, ref api.RoleRef) grant {
		switch ref.Kind {
		case "ClusterRole":
			if rules, ok := clusterRoles[ref.Name]; ok {
				return grant{rules: rules}
			}
			return grant{err: fmt.Sprintf("clusterrole.rbac.authorization.k8s.io %q not found", ref.Name)}
		case "Role":
			if rules, ok := roles[[2]string{ns, ref.Name}]; ok {
				return grant{rules: rules}
			}
			return grant{err: fmt.Sprintf("role.rbac.authorization.k8s.io %q not found", ref.Name)}
		}
		return grant{err: fmt.Sprintf("unsupported role reference kind: %q", ref.Kind)}
	}
	for _, b := range crbs {
		g := resolve("", b.RoleRef)
		for _, s := range b.Subjects {
			g.source = fmt.Sprintf("ClusterRoleBinding %q of %s %q to %s", b.Name, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(s, ""))
			ix.cluster.add(s, "", g)
		}
	}
	for _, b := range rbs {
		set := ix.byNamespace[b.Namespace]
		if set == nil {
			set = newBindingSet()
			ix.byNamespace[b.Namespace] = set
		}
		g := resolve(b.Namespace, b.RoleRef)
		for _, s := range b.Subjects {
			g.source = fmt.Sprintf("RoleBinding %q of %s %q to %s", b.Name+"/"+b.Namespace, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(s, b.Namespace))
			set.add(s, b.Namespace, g)
		}
	}
	return ix
}

// add files g under the user or group subject s names. A ServiceAccount
// is the user system:serviceaccount:<ns>:<name>, its namespace the
// binding's when the subject leaves it out (a ClusterRoleBinding has
// none, so such a subject matches nobody).
func (b *bindingSet) add(s api.Subject, bindingNamespace string, g grant) {
	switch s.Kind {
	case api.UserKind:
		b.users[s.Name] = append(b.users[s.Name], g)
	case api.GroupKind:
		b.groups[s.Name] = append(b.groups[s.Name], g)
	case api.ServiceAccountKind:
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		if ns == "" {
			return
		}
		name := pipeline.ServiceAccountUserPrefix + ns + ":" + s.Name
		b.users[name] = append(b.users[name], g)
	}
}

// describeSubject names a subject in an allow's reason, as upstream.
func describeSubject(s api.Subject, bindingNamespace string) string {
	if s.Kind == api.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// authorize visits the cluster's grants, then the namespace's, and
// allows at the first rule that allows. A denial's reason lists the
// roles that applied but were missing.
func (ix *rbacIndex) authorize(a pipeline.Attributes) pipeline.Decision {
	var errs []string
	sets := [2]*bindingSet{ix.cluster, nil}
	if a.Namespace != "" {
		sets[1] = ix.byNamespace[a.Namespace]
	}
	for _, set := range sets {
		if set == nil {
			continue
		}
		if d, ok := visit(set.users[a.User.Name], a, &errs); ok {
			return d
		}
		for _, g := range a.User.Groups {
			if d, ok := visit(set.groups[g], a, &errs); ok {
				return d
			}
		}
	}
	if len(errs) == 0 {
		return pipeline.Decision{}
	}
	return pipeline.Decision{Reason: "RBAC: " + aggregate(errs)}
}

// visit checks grants' rules and collects the errors of the grants
// whose role is missing.
func visit(grants []grant, a pipeline.Attributes, errs *[]string) (pipeline.Decision, bool) {
	for _, g := range grants {
		if g.err != "" {
			*errs = append(*errs, g.err)
			continue
		}
		for i := range g.rules {
			if ruleAllows(&g.rules[i], a) {
				return pipeline.Decision{Allowed: true, Reason: "RBAC: allowed by " + g.source}, true
			}
		}
	}
	return pipeline.Decision{}, false
}

// aggregate joins errors as upstream's utilerrors.Aggregate prints them:
// one alone, several as [a, b], each message once.
func aggregate(errs []string) string {
	seen := map[string]bool{}
	var uniq []string
	for _, e := range errs {
		if !seen[e] {
			seen[e] = true
			uniq = append(uniq, e)
		}
	}
	if len(uniq) == 1 {
		return uniq[0]
	}
	return "[" + strings.Join(uniq, ", ") + "]"
}

// ruleAllows is upstream's RuleAllows: verb, group, resource (with its
// subresource) and name for a resource request; verb and path for a
// non-resource one.
func ruleAllows(r *api.PolicyRule, a pipeline.Attributes) bool {
	if !matches(r.Verbs, a.Verb, api.VerbAll) {
		return false
	}
	if !a.IsResourceRequest {
		return nonResourceURLMatches(r.NonResourceURLs, a.Path)
	}
	combined := a.Resource
	if a.Subresource != "" {
		combined += "/" + a.Subresource
	}
	return matches(r.APIGroups, a.APIGroup, api.APIGroupAll) &&
		resourceMatches(r.Resources, combined, a.Subresource) &&
		(len(r.ResourceNames) == 0 || matches(r.ResourceNames, a.Name, ""))
}

// matches reports whether want is in list, or list has the wildcard.
func matches(list []string, want, wildcard string) bool {
	for _, s := range list {
		if s == want || (wildcard != "" && s == wildcard) {
			return true
		}
	}
	return false
}

// resourceMatches matches "*", the exact "pods/status", and "*/status"
// for any resource's status.
func resourceMatches(rules []string, combined, subresource string) bool {
	for _, r := range rules {
		if r == api.ResourceAll || r == combined {
			return true
		}
		if subresource != "" && len(r) == len(subresource)+2 && strings.HasPrefix(r, "*/") && strings.HasSuffix(r, subresource) {
			return true
		}
	}
	return false
}

// nonResourceURLMatches matches "*", the exact path, and a prefix ending
// in "*" ("/healthz/*" matches "/healthz/etcd").
func nonResourceURLMatches(urls []string, path string) bool {
	for _, u := range urls {
		if u == api.NonResourceAll || u == path {
			return true
		}
		if strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")) {
			return true
		}
	}
	return false
}
