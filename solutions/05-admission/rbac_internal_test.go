package admission

import (
	"context"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var listPodsInDev = pipeline.Attributes{
	User:        pipeline.UserInfo{Name: "alice", Groups: []string{pipeline.AllAuthenticated}},
	RequestInfo: pipeline.RequestInfo{IsResourceRequest: true, Verb: "list", APIVersion: "v1", Namespace: "dev", Resource: "pods"},
}

func podReader(s storage.Store, t *testing.T) {
	putObject(t, s, "/registry/roles/dev/pod-reader", &api.Role{
		ObjectMeta: api.ObjectMeta{Name: "pod-reader", Namespace: "dev"},
		Rules:      []api.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
	})
	putObject(t, s, "/registry/rolebindings/dev/alice-reads", &api.RoleBinding{
		ObjectMeta: api.ObjectMeta{Name: "alice-reads", Namespace: "dev"},
		Subjects:   []api.Subject{{Kind: api.UserKind, Name: "alice"}},
		RoleRef:    api.RoleRef{APIGroup: api.GroupRBAC, Kind: "Role", Name: "pod-reader"},
	})
}

func allowed(t *testing.T, a pipeline.Authorizer, attrs pipeline.Attributes) bool {
	t.Helper()
	d, err := a.Authorize(context.Background(), attrs)
	require.NoError(t, err, "Authorize")
	return d.Allowed
}

// The cache sees a binding written after it started, and its delete.
func TestAuthorizerFollowsTheStore(t *testing.T) {
	s := newTestStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := NewAuthorizer(ctx, s)
	require.NoError(t, err)
	require.False(t, allowed(t, a, listPodsInDev), "Authorize(alice lists pods in dev) before any binding: allowed")

	podReader(s, t)
	eventually(t, "alice may list pods in dev once the binding is written", func() bool { return allowed(t, a, listPodsInDev) })

	_, _, err = s.Delete(ctx, "/registry/rolebindings/dev/alice-reads")
	require.NoError(t, err)
	eventually(t, "alice may no longer list pods once the binding is deleted", func() bool { return !allowed(t, a, listPodsInDev) })
}

// A watch from a compacted revision fails; the cache lists again and
// carries on from there.
func TestAuthorizerRelistsWhenCompacted(t *testing.T) {
	s := newTestStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := &rbacAuthorizer{store: s}
	_, err := a.list(ctx)
	require.NoError(t, err)
	podReader(s, t)
	rev, err := storage.CurrentRevision(ctx, s)
	require.NoError(t, err)
	require.NoError(t, s.Compact(ctx, rev))
	// So no watch can replay the binding: only a new list sees it.
	_, err = s.Watch(ctx, rbacPrefixes[3], 2)
	require.ErrorIs(t, err, storage.ErrCompacted, "Watch from revision 2 after Compact(%d)", rev)

	done := make(chan struct{})
	go func() { a.run(ctx, 1); close(done) }() // revision 1 is compacted away
	eventually(t, "after a compacted watch, the relisted cache allows alice", func() bool { return allowed(t, a, listPodsInDev) })

	cancel()
	<-done // run returns once ctx is done: no goroutine left behind
}

// The loop ends when the store closes, too.
func TestAuthorizerStopsWhenTheStoreCloses(t *testing.T) {
	s := newTestStore(t)
	a := &rbacAuthorizer{store: s}
	rev, err := a.list(context.Background())
	require.NoError(t, err)
	done := make(chan struct{})
	go func() { a.run(context.Background(), rev); close(done) }()
	require.NoError(t, s.Close())
	<-done
}

func TestRBACRules(t *testing.T) {
	s := newTestStore(t)
	podReader(s, t)
	putObject(t, s, "/registry/rolebindings/dev/ghost", &api.RoleBinding{
		ObjectMeta: api.ObjectMeta{Name: "ghost", Namespace: "dev"},
		Subjects:   []api.Subject{{Kind: api.UserKind, Name: "carol"}},
		RoleRef:    api.RoleRef{APIGroup: api.GroupRBAC, Kind: "ClusterRole", Name: "missing"},
	})
	putObject(t, s, "/registry/rolebindings/dev/sa-view", &api.RoleBinding{
		ObjectMeta: api.ObjectMeta{Name: "sa-view", Namespace: "dev"},
		Subjects:   []api.Subject{{Kind: api.ServiceAccountKind, Name: "robot"}},
		RoleRef:    api.RoleRef{APIGroup: api.GroupRBAC, Kind: "ClusterRole", Name: "view"},
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := NewAuthorizer(ctx, s)
	require.NoError(t, err)

	d, err := a.Authorize(ctx, listPodsInDev)
	require.NoError(t, err)
	assert.Equal(t, pipeline.Decision{Allowed: true, Reason: `RBAC: allowed by RoleBinding "alice-reads/dev" of Role "pod-reader" to User "alice"`}, d, "Authorize(alice lists pods in dev)")

	other := listPodsInDev
	other.Namespace = "default"
	assert.False(t, allowed(t, a, other), "Authorize(alice lists pods in default): a RoleBinding grants only in its namespace")

	carol := listPodsInDev
	carol.User = pipeline.UserInfo{Name: "carol", Groups: []string{pipeline.AllAuthenticated}}
	d, err = a.Authorize(ctx, carol)
	require.NoError(t, err)
	assert.Equal(t, pipeline.Decision{Reason: `RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found`}, d, "Authorize(carol, bound to a missing role)")

	robot := listPodsInDev
	robot.User = pipeline.UserInfo{Name: "system:serviceaccount:dev:robot", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:dev", pipeline.AllAuthenticated}}
	assert.True(t, allowed(t, a, robot), "Authorize(dev:robot lists pods in dev): a ServiceAccount subject without a namespace is the binding's")

	healthz := pipeline.Attributes{User: pipeline.UserInfo{Name: pipeline.Anonymous, Groups: []string{pipeline.AllUnauthenticated}},
		RequestInfo: pipeline.RequestInfo{Path: "/healthz", Verb: "get"}}
	assert.True(t, allowed(t, a, healthz), "Authorize(anonymous GET /healthz): system:public-info-viewer allows it")
	healthz.Path = "/metrics"
	assert.False(t, allowed(t, a, healthz), "Authorize(anonymous GET /metrics)")
}

func TestRuleMatching(t *testing.T) {
	status := pipeline.Attributes{RequestInfo: pipeline.RequestInfo{IsResourceRequest: true, Verb: "update", Resource: "pods", Subresource: "status", Name: "web"}}
	for _, tc := range []struct {
		rule api.PolicyRule
		want bool
	}{
		{api.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"pods"}}, false},
		{api.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"pods/status"}}, true},
		{api.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"*/status"}}, true},
		{api.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, true},
		{api.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"apps"}, Resources: []string{"pods/status"}}, false},
		{api.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"pods/status"}, ResourceNames: []string{"db"}}, false},
		{api.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"pods/status"}, ResourceNames: []string{"db", "web"}}, true},
	} {
		assert.Equal(t, tc.want, ruleAllows(&tc.rule, status), "ruleAllows(%+v, update pods/status web)", tc.rule)
	}
	assert.True(t, nonResourceURLMatches([]string{"/healthz/*"}, "/healthz/etcd"), `nonResourceURLMatches("/healthz/*", "/healthz/etcd")`)
	assert.False(t, nonResourceURLMatches([]string{"/healthz"}, "/healthz/etcd"), `nonResourceURLMatches("/healthz", "/healthz/etcd")`)
}
