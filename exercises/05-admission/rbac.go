package admission

import (
	"context"
	"encoding/json"
	"fmt"
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
	// TODO: list the four kinds into an index, and keep it current with a goroutine that watches the store until ctx is done.
	panic("not implemented: NewAuthorizer")
}

// Authorize decides from the latest index.
func (a *rbacAuthorizer) Authorize(_ context.Context, attrs pipeline.Attributes) (pipeline.Decision, error) {
	// TODO: decide from the latest index, without touching the store.
	panic("not implemented: Authorize")
}

// list reads the four kinds at one revision and publishes their index.
func (a *rbacAuthorizer) list(ctx context.Context) (int64, error) {
	// TODO: read the four kinds of rbacPrefixes at one revision, decode them, publish their index, and return the revision.
	panic("not implemented: list")
}

// run keeps the index current until ctx is done: it watches from the
// list's revision on, and lists again when a watch ends (compacted, or
// fallen too far behind).
func (a *rbacAuthorizer) run(ctx context.Context, rev int64) {
	// TODO: watch from rev on until ctx is done, and list again (then watch again) whenever a watch ends, for example because its history was compacted.
	panic("not implemented: run")
}

// watch applies the events of the four kinds after rev until a watch
// ends, and says why it ended.
func (a *rbacAuthorizer) watch(ctx context.Context, rev int64) error {
	// TODO: watch the four prefixes from rev+1, apply each event to a.objects and publish a new index, until a watch ends; return why it ended.
	panic("not implemented: watch")
}

func (a *rbacAuthorizer) apply(ev storage.Event) {
	// TODO: put the decoded object of a put event in a.objects, and remove it for a delete.
	panic("not implemented: apply")
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
	// TODO: resolve every binding against the role it names (a missing role is a grant with an error) and file the grants by subject: ClusterRoleBindings cluster-wide, RoleBindings under their namespace.
	panic("not implemented: buildIndex")
}

// add files g under the user or group subject s names. A ServiceAccount
// is the user system:serviceaccount:<ns>:<name>, its namespace the
// binding's when the subject leaves it out (a ClusterRoleBinding has
// none, so such a subject matches nobody).
func (b *bindingSet) add(s api.Subject, bindingNamespace string, g grant) {
	// TODO: file g under the user or group subject s names; a ServiceAccount subject is the user system:serviceaccount:<namespace>:<name>.
	panic("not implemented: add")
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
	// TODO: visit the cluster-wide grants, then the request's namespace's, for the user and each of its groups, and allow at the first rule that allows; a denial's reason names the missing roles ("RBAC: ...").
	panic("not implemented: authorize")
}

// visit checks grants' rules and collects the errors of the grants
// whose role is missing.
func visit(grants []grant, a pipeline.Attributes, errs *[]string) (pipeline.Decision, bool) {
	// TODO: check each grant's rules against a, collecting the errors of grants whose role is missing; report an allow at the first rule that allows.
	panic("not implemented: visit")
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
	// TODO: match the verb, then, for a resource request, the API group, the resource (resource/subresource for a subresource) and resourceNames, or, for a non-resource request, the path.
	panic("not implemented: ruleAllows")
}

// matches reports whether want is in list, or list has the wildcard.
func matches(list []string, want, wildcard string) bool {
	// TODO: report whether want is in list, or list holds the wildcard.
	panic("not implemented: matches")
}

// resourceMatches matches "*", the exact "pods/status", and "*/status"
// for any resource's status.
func resourceMatches(rules []string, combined, subresource string) bool {
	// TODO: match "*", the exact resource (pods/status for a subresource), and "*/status" for the status of any resource.
	panic("not implemented: resourceMatches")
}

// nonResourceURLMatches matches "*", the exact path, and a prefix ending
// in "*" ("/healthz/*" matches "/healthz/etcd").
func nonResourceURLMatches(urls []string, path string) bool {
	// TODO: match "*", the exact path, and every path that starts with a URL ending in "*" without its "*".
	panic("not implemented: nonResourceURLMatches")
}
