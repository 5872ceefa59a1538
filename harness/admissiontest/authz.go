package admissiontest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/internal/httpcheck"
	"github.com/kubekata/kubekata/harness/pipeline"
)

// Steps 04-06: RBAC (k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac/rbac.go
// and pkg/apis/rbac/v1/evaluation_helpers.go), impersonation
// (k8s.io/apiserver/pkg/endpoints/filters/impersonation) and the
// SelfSubjectAccessReview (pkg/registry/authorization/selfsubjectaccessreview).
// A denial is upstream's 403: responsewriters.ForbiddenStatusError
// (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go)
// with apierrors.NewForbidden's message.

// ------------------------------------------------------------ RBAC objects

func policyRule(verbs, groups, resources []string, names ...string) api.PolicyRule {
	return api.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
}

func urlRule(verbs []string, urls ...string) api.PolicyRule {
	return api.PolicyRule{Verbs: verbs, NonResourceURLs: urls}
}

func list(s ...string) []string { return s }

var (
	readVerbs = list("get", "list", "watch")
	allVerbs  = list("*")
	coreGroup = list("")
)

func newRole(ns, name string, rules ...api.PolicyRule) *api.Role {
	return &api.Role{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}
}

func newClusterRole(name string, rules ...api.PolicyRule) *api.ClusterRole {
	return &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: name}, Rules: rules}
}

func user(name string) api.Subject {
	return api.Subject{Kind: api.UserKind, APIGroup: api.RBACGroupName, Name: name}
}

func groupSubject(name string) api.Subject {
	return api.Subject{Kind: api.GroupKind, APIGroup: api.RBACGroupName, Name: name}
}

func serviceAccount(ns, name string) api.Subject {
	return api.Subject{Kind: api.ServiceAccountKind, Namespace: ns, Name: name}
}

// newRoleBinding binds roleKind ("Role" or "ClusterRole") named role in ns.
func newRoleBinding(ns, name, roleKind, role string, subjects ...api.Subject) *api.RoleBinding {
	return &api.RoleBinding{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}, Subjects: subjects,
		RoleRef: api.RoleRef{APIGroup: api.RBACGroupName, Kind: roleKind, Name: role}}
}

func newClusterRoleBinding(name, role string, subjects ...api.Subject) *api.ClusterRoleBinding {
	return &api.ClusterRoleBinding{ObjectMeta: api.ObjectMeta{Name: name}, Subjects: subjects,
		RoleRef: api.RoleRef{APIGroup: api.RBACGroupName, Kind: "ClusterRole", Name: role}}
}

// ------------------------------------------------------------ the authorizer

// authorizer returns impl.NewAuthorizer over the env's store, stopped
// when the step ends.
func (e *env) authorizer() pipeline.Authorizer {
	e.t.Helper()
	need(e.t, "NewAuthorizer", e.impl.NewAuthorizer)
	ctx, cancel := context.WithCancel(context.Background())
	e.t.Cleanup(cancel)
	az, err := e.impl.NewAuthorizer(ctx, e.store)
	if err != nil {
		e.t.Fatalf("NewAuthorizer(ctx, store) = %v, want an authorizer", err)
	}
	if az == nil {
		e.t.Fatalf("NewAuthorizer(ctx, store) = nil, nil; want an authorizer")
	}
	return az
}

// resourceAttrs builds the Attributes of a resource request.
func resourceAttrs(u pipeline.UserInfo, verb, group, ns, resource, sub, name string) pipeline.Attributes {
	return pipeline.Attributes{User: u, RequestInfo: pipeline.RequestInfo{IsResourceRequest: true, Verb: verb,
		APIGroup: group, APIVersion: "v1", Namespace: ns, Resource: resource, Subresource: sub, Name: name}}
}

func pathAttrs(u pipeline.UserInfo, verb, path string) pipeline.Attributes {
	return pipeline.Attributes{User: u, RequestInfo: pipeline.RequestInfo{Verb: verb, Path: path}}
}

func describeAttrs(a pipeline.Attributes) string {
	who := fmt.Sprintf("user %q groups %q", a.User.Name, a.User.Groups)
	if !a.IsResourceRequest {
		return fmt.Sprintf("%s: %s path %q", who, a.Verb, a.Path)
	}
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	if a.APIGroup != "" {
		res += "." + a.APIGroup
	}
	if a.Name != "" {
		res += " " + a.Name
	}
	where := "cluster-wide"
	if a.Namespace != "" {
		where = "in namespace " + a.Namespace
	}
	return fmt.Sprintf("%s: %s %s %s", who, a.Verb, res, where)
}

// decide calls Authorize once.
func (e *env) decide(az pipeline.Authorizer, a pipeline.Attributes) pipeline.Decision {
	e.t.Helper()
	d, err := az.Authorize(e.t.Context(), a)
	if err != nil {
		e.t.Fatalf("Authorize(%s) = %v, want a decision (an error is a failure to decide)", describeAttrs(a), err)
	}
	return d
}

// expectDecision checks one decision now.
func (e *env) expectDecision(az pipeline.Authorizer, a pipeline.Attributes, allowed bool, why string) {
	e.t.Helper()
	if d := e.decide(az, a); d.Allowed != allowed {
		e.t.Fatalf("Authorize(%s).Allowed = %v, want %v: %s", describeAttrs(a), d.Allowed, allowed, why)
	}
}

// waitDecision waits until the authorizer gives the decision: RBAC
// objects written to the store are seen soon, not at once.
func (e *env) waitDecision(az pipeline.Authorizer, a pipeline.Attributes, allowed bool, why string) {
	e.t.Helper()
	e.eventually(fmt.Sprintf("Authorize(%s).Allowed = %v (%s)", describeAttrs(a), allowed, why), func() (bool, string) {
		d, err := az.Authorize(e.t.Context(), a)
		if err != nil {
			return false, fmt.Sprintf("error %v", err)
		}
		return d.Allowed == allowed, fmt.Sprintf("%+v", d)
	})
}

// ------------------------------------------------------------ through the gate

// waitPasses waits until the request passes the gate (RBAC objects are
// seen soon, not at once) and returns what next saw.
func (e *env) waitPasses(c *client, method, path string, body any, hdr ...string) recorded {
	e.t.Helper()
	var last *response
	e.eventually(fmt.Sprintf("%s %s (%s) passed to the handler behind the gate", method, path, c.who), func() (bool, string) {
		last = c.do(method, path, body, hdr...)
		if last.header.Get(httpcheck.PanicHeader) != "" {
			e.t.Fatalf("%s = %s\n\twant it passed to the handler behind the gate", last.call, last.body)
		}
		return last.fromNext(), last.describe()
	})
	rec, _ := e.next.last()
	return rec
}

// waitForbidden waits until the request is refused 403.
func (e *env) waitForbidden(c *client, method, path string) {
	e.t.Helper()
	e.eventually(fmt.Sprintf("%s %s (%s) = 403 Forbidden", method, path, c.who), func() (bool, string) {
		r := c.do(method, path, nil)
		return r.code == http.StatusForbidden, r.describe()
	})
}

// expectForbidden sends a request that must be refused 403 with
// upstream's message and details, and never reach next.
func (e *env) expectForbidden(c *client, method, path string, body any, message string, hdr ...string) *api.Status {
	e.t.Helper()
	before := len(e.next.requests())
	r := c.do(method, path, body, hdr...)
	st := e.expectStatus(r, http.StatusForbidden, api.StatusReasonForbidden, message)
	if n := len(e.next.requests()); n != before {
		e.t.Fatalf("%s = 403, but the request reached the handler behind the gate; want it stopped at the gate", r.call)
	}
	return st
}

// expectDetails checks a 403's details: {name, group, kind: resource}.
func (e *env) expectDetails(call string, st *api.Status, name, group, kind string) {
	e.t.Helper()
	var d api.StatusDetails
	if st.Details != nil {
		d = *st.Details
	}
	if d.Name != name || d.Group != group || d.Kind != kind {
		e.t.Fatalf("%s: Status details = {name:%q group:%q kind:%q}, want {name:%q group:%q kind:%q} (apierrors.NewForbidden puts the resource in kind)",
			call, d.Name, d.Group, d.Kind, name, group, kind)
	}
}

// forbiddenMsg is upstream's message for a resource request.
func forbiddenMsg(userName, verb, group, resource, sub, ns, name string) string {
	qualified := resource
	if group != "" {
		qualified += "." + group
	}
	res := resource
	if sub != "" {
		res += "/" + sub
	}
	who := fmt.Sprintf("User %q cannot %s resource %q in API group %q", userName, verb, res, group)
	if ns != "" {
		who += fmt.Sprintf(" in the namespace %q", ns)
	} else {
		who += " at the cluster scope"
	}
	if name != "" {
		return fmt.Sprintf("%s %q is forbidden: %s", qualified, name, who)
	}
	return fmt.Sprintf("%s is forbidden: %s", qualified, who)
}

// pathForbiddenMsg is upstream's message for a non-resource request.
func pathForbiddenMsg(userName, verb, path string) string {
	return fmt.Sprintf("forbidden: User %q cannot %s path %q", userName, verb, path)
}

func configMap(ns, name string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": ns}, "data": map[string]string{"k": "v"}}
}

func deployment(ns, name string) map[string]any {
	return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{"replicas": 1, "selector": map[string]any{"matchLabels": map[string]string{"app": name}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]string{"app": name}},
				"spec": map[string]any{"containers": []map[string]any{{"name": "app", "image": "nginx:1.27"}}}}}}
}

// ------------------------------------------------------------ 04

// rbacRoles: Roles and RoleBindings grant within their namespace; the
// default is deny, with upstream's message; system:masters may do
// anything (upstream's privileged group authorizer,
// k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go,
// sits before RBAC).
func rbacRoles(e *env) {
	az := e.authorizer()
	alice := e.as(TokenAlice)
	aliceUser := pipeline.UserInfo{Name: "alice", UID: "uid-alice", Groups: list(pipeline.AllAuthenticated)}

	// Nothing grants alice anything yet: every resource request is 403,
	// with the verb, resource, group and scope in the message.
	st := e.expectForbidden(alice, "GET", "/api/v1/namespaces/dev/pods", nil, forbiddenMsg("alice", "list", "", "pods", "", "dev", ""))
	e.expectDetails("GET /api/v1/namespaces/dev/pods", st, "", "", "pods")
	st = e.expectForbidden(alice, "GET", "/api/v1/namespaces/dev/pods/web", nil, forbiddenMsg("alice", "get", "", "pods", "", "dev", "web"))
	e.expectDetails("GET /api/v1/namespaces/dev/pods/web", st, "web", "", "pods")
	e.expectForbidden(alice, "GET", "/api/v1/nodes", nil, forbiddenMsg("alice", "list", "", "nodes", "", "", ""))
	st = e.expectForbidden(alice, "GET", "/apis/apps/v1/namespaces/dev/deployments", nil, forbiddenMsg("alice", "list", "apps", "deployments", "", "dev", ""))
	e.expectDetails("GET /apis/apps/v1/namespaces/dev/deployments", st, "", "apps", "deployments")
	e.expectForbidden(alice, "POST", "/api/v1/namespaces/dev/configmaps", configMap("dev", "c1"), forbiddenMsg("alice", "create", "", "configmaps", "", "dev", ""))
	e.expectForbidden(alice, "DELETE", "/api/v1/namespaces/dev/pods", nil, forbiddenMsg("alice", "deletecollection", "", "pods", "", "dev", ""))
	e.expectForbidden(e.anonymous(), "GET", "/api/v1/namespaces/dev/pods", nil, forbiddenMsg("system:anonymous", "list", "", "pods", "", "dev", ""))
	e.expectDecision(az, resourceAttrs(aliceUser, "list", "", "dev", "pods", "", ""), false, "nothing grants alice anything yet")

	// A Role and a RoleBinding in dev.
	e.put(newRole("dev", "pod-reader", policyRule(readVerbs, coreGroup, list("pods"))))
	e.put(newRoleBinding("dev", "alice-reads-pods", "Role", "pod-reader", user("alice")))
	rec := e.waitPasses(alice, "GET", "/api/v1/namespaces/dev/pods", nil)
	e.expectUser("GET /api/v1/namespaces/dev/pods (token \"alice-token\")", rec, "alice", "uid-alice", pipeline.AllAuthenticated)
	e.waitDecision(az, resourceAttrs(aliceUser, "list", "", "dev", "pods", "", ""), true, "the RoleBinding alice-reads-pods in dev grants Role pod-reader (get, list, watch pods)")
	e.passes(alice, "GET", "/api/v1/namespaces/dev/pods/web", nil)
	e.passes(alice, "GET", "/api/v1/namespaces/dev/pods?watch=1", nil)
	for _, c := range []struct {
		a   pipeline.Attributes
		why string
	}{
		{resourceAttrs(aliceUser, "get", "", "dev", "pods", "", "web"), "get is among the role's verbs"},
		{resourceAttrs(aliceUser, "watch", "", "dev", "pods", "", ""), "watch is among the role's verbs"},
	} {
		e.expectDecision(az, c.a, true, c.why)
	}
	// Only those verbs, that resource, that group, that namespace.
	e.expectForbidden(alice, "DELETE", "/api/v1/namespaces/dev/pods/web", nil, forbiddenMsg("alice", "delete", "", "pods", "", "dev", "web"))
	e.expectForbidden(alice, "POST", "/api/v1/namespaces/dev/pods", map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "x"}},
		forbiddenMsg("alice", "create", "", "pods", "", "dev", ""))
	e.expectForbidden(alice, "GET", "/api/v1/namespaces/default/pods", nil, forbiddenMsg("alice", "list", "", "pods", "", "default", ""))
	e.expectForbidden(alice, "GET", "/api/v1/pods", nil, forbiddenMsg("alice", "list", "", "pods", "", "", ""))
	e.expectForbidden(alice, "GET", "/api/v1/namespaces/dev/configmaps", nil, forbiddenMsg("alice", "list", "", "configmaps", "", "dev", ""))
	for _, c := range []struct {
		a   pipeline.Attributes
		why string
	}{
		{resourceAttrs(aliceUser, "update", "", "dev", "pods", "", "web"), "update is not among the role's verbs"},
		{resourceAttrs(aliceUser, "list", "", "default", "pods", "", ""), "a RoleBinding in dev grants nothing in default"},
		{resourceAttrs(aliceUser, "list", "", "", "pods", "", ""), "a RoleBinding grants nothing cluster-wide"},
		{resourceAttrs(aliceUser, "list", "apps", "dev", "pods", "", ""), "the rule names the core group, not apps"},
		{resourceAttrs(pipeline.UserInfo{Name: "alicia", Groups: list(pipeline.AllAuthenticated)}, "list", "", "dev", "pods", "", ""), "the binding names alice, not alicia"},
		{resourceAttrs(pipeline.UserInfo{Name: "bob", Groups: list("alice", pipeline.AllAuthenticated)}, "list", "", "dev", "pods", "", ""), "a group named alice is not the user alice"},
	} {
		e.expectDecision(az, c.a, false, c.why)
	}

	// Wildcards: "*" in verbs and resources, granted to a group.
	bob := e.as(TokenBob)
	bobUser := pipeline.UserInfo{Name: "bob", UID: "uid-bob", Groups: list("dev-team", "qa", pipeline.AllAuthenticated)}
	e.put(newRole("dev", "apps-all", policyRule(allVerbs, list("apps"), list("*")),
		policyRule(list("get"), coreGroup, list("deployments"))))
	e.put(newRoleBinding("dev", "dev-team-apps", "Role", "apps-all", groupSubject("dev-team")))
	rec = e.waitPasses(bob, "POST", "/apis/apps/v1/namespaces/dev/deployments", deployment("dev", "api"))
	e.expectUser("POST /apis/apps/v1/namespaces/dev/deployments (token \"bob-token\")", rec, "bob", "uid-bob", "dev-team", "qa", pipeline.AllAuthenticated)
	e.waitDecision(az, resourceAttrs(bobUser, "create", "apps", "dev", "deployments", "", ""), true, "Role apps-all grants * on apps/* to the group dev-team")
	for _, c := range []struct {
		a       pipeline.Attributes
		allowed bool
		why     string
	}{
		{resourceAttrs(bobUser, "delete", "apps", "dev", "deployments", "", "api"), true, "verbs * on resources * in group apps, through the group dev-team"},
		{resourceAttrs(bobUser, "patch", "apps", "dev", "replicasets", "scale", "api-1"), true, "resources * covers subresources"},
		{resourceAttrs(bobUser, "list", "", "dev", "pods", "", ""), false, "the rule's group is apps, not core"},
		{resourceAttrs(bobUser, "list", "", "dev", "deployments", "", ""), false, "the second rule allows get, not list, on core deployments"},
		{resourceAttrs(bobUser, "list", "apps", "default", "deployments", "", ""), false, "the RoleBinding is in dev"},
		{resourceAttrs(bobUser, "list", "batch", "dev", "jobs", "", ""), false, "the group batch is not apps"},
	} {
		e.expectDecision(az, c.a, c.allowed, c.why)
	}
	e.expectForbidden(bob, "GET", "/api/v1/namespaces/dev/pods", nil, forbiddenMsg("bob", "list", "", "pods", "", "dev", ""))

	// A binding to a Role that does not exist grants nothing, and says so:
	// the denial's reason (appended to the message after ": ") names it.
	gina := e.withCert("gina")
	ginaUser := pipeline.UserInfo{Name: "gina", Groups: list(pipeline.AllAuthenticated)}
	e.put(newRoleBinding("dev", "gina-ghost", "Role", "missing-role", user("gina")))
	e.put(newRoleBinding("dev", "gina-pods", "Role", "pod-reader", user("gina")))
	e.waitDecision(az, resourceAttrs(ginaUser, "list", "", "dev", "pods", "", ""), true, "the RoleBinding gina-pods grants pod-reader")
	d := e.decide(az, resourceAttrs(ginaUser, "list", "", "dev", "configmaps", "", ""))
	if d.Allowed || !strings.Contains(d.Reason, "missing-role") {
		e.t.Fatalf("Authorize(%s) = %+v, want denied with a reason that names the missing Role \"missing-role\" (upstream: RBAC: role.rbac.authorization.k8s.io \"missing-role\" not found)",
			describeAttrs(resourceAttrs(ginaUser, "list", "", "dev", "configmaps", "", "")), d)
	}
	e.waitPasses(gina, "GET", "/api/v1/namespaces/dev/pods", nil)
	r := gina.do("GET", "/api/v1/namespaces/dev/configmaps", nil)
	if st := r.status(); r.code == http.StatusForbidden && st != nil {
		base := forbiddenMsg("gina", "list", "", "configmaps", "", "dev", "")
		if !strings.HasPrefix(st.Message, base+": ") || !strings.Contains(st.Message, "missing-role") {
			e.t.Fatalf("%s: Status message = %q\n\twant %q followed by \": \" and the authorizer's reason, which names \"missing-role\"", r.call, st.Message, base)
		}
	} else {
		e.t.Fatalf("%s = %s\n\twant 403 Forbidden", r.call, r.describe())
	}

	// Changes are seen: a Role that grows, a binding that goes.
	e.put(newRole("dev", "pod-reader", policyRule(readVerbs, coreGroup, list("pods", "configmaps"))))
	e.waitPasses(alice, "GET", "/api/v1/namespaces/dev/configmaps", nil)
	e.waitDecision(az, resourceAttrs(aliceUser, "list", "", "dev", "configmaps", "", ""), true, "Role pod-reader now lists configmaps too")
	e.del(newRoleBinding("dev", "alice-reads-pods", "Role", "pod-reader"))
	e.waitForbidden(alice, "GET", "/api/v1/namespaces/dev/pods")
	e.waitDecision(az, resourceAttrs(aliceUser, "list", "", "dev", "pods", "", ""), false, "the RoleBinding alice-reads-pods was deleted")

	// system:masters may do anything, whatever RBAC says: even with
	// cluster-admin's binding gone.
	e.del(newClusterRoleBinding("cluster-admin", "cluster-admin"))
	e.put(newRoleBinding("kube-system", "alice-secrets", "Role", "secret-reader", user("alice")))
	e.put(newRole("kube-system", "secret-reader", policyRule(readVerbs, coreGroup, list("secrets"))))
	e.waitPasses(alice, "GET", "/api/v1/namespaces/kube-system/secrets", nil) // the gate has seen the deletion before this
	admin := e.as(TokenAdmin)
	rec = e.passes(admin, "GET", "/api/v1/namespaces/kube-system/secrets/token", nil)
	e.expectUser("GET /api/v1/namespaces/kube-system/secrets/token (token \"admin-token\")", rec, "admin", "uid-admin", "system:masters", pipeline.AllAuthenticated)
	e.passes(admin, "GET", "/api/v1/nodes", nil)
	e.passes(admin, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", newClusterRoleBinding("x", "view", user("x")))
	e.passes(admin, "GET", "/logs/anything", nil)
}

// ------------------------------------------------------------ 05

// rbacClusterRoles: ClusterRoles through ClusterRoleBindings (everywhere)
// and RoleBindings (in one namespace); Group and ServiceAccount subjects;
// resourceNames; subresources; nonResourceURLs; the bootstrap roles.
func rbacClusterRoles(e *env) {
	az := e.authorizer()
	alice := e.as(TokenAlice)
	aliceUser := pipeline.UserInfo{Name: "alice", UID: "uid-alice", Groups: list(pipeline.AllAuthenticated)}
	bob := e.as(TokenBob)

	// A ClusterRoleBinding grants everywhere.
	e.put(newClusterRole("node-reader", policyRule(readVerbs, coreGroup, list("nodes"))))
	e.put(newClusterRoleBinding("alice-nodes", "node-reader", user("alice")))
	e.waitPasses(alice, "GET", "/api/v1/nodes", nil)
	e.passes(alice, "GET", "/api/v1/nodes/node-1", nil)
	e.expectForbidden(alice, "DELETE", "/api/v1/nodes/node-1", nil, forbiddenMsg("alice", "delete", "", "nodes", "", "", "node-1"))

	// A RoleBinding to a ClusterRole grants only in its namespace.
	e.put(newClusterRole("pod-lister", policyRule(readVerbs, coreGroup, list("pods"))))
	e.put(newRoleBinding("dev", "alice-pods", "ClusterRole", "pod-lister", user("alice")))
	e.waitPasses(alice, "GET", "/api/v1/namespaces/dev/pods", nil)
	e.expectForbidden(alice, "GET", "/api/v1/namespaces/default/pods", nil, forbiddenMsg("alice", "list", "", "pods", "", "default", ""))
	e.expectForbidden(alice, "GET", "/api/v1/pods", nil, forbiddenMsg("alice", "list", "", "pods", "", "", ""))
	e.waitDecision(az, resourceAttrs(aliceUser, "list", "", "dev", "pods", "", ""), true, "the RoleBinding alice-pods in dev grants ClusterRole pod-lister there")
	e.expectDecision(az, resourceAttrs(aliceUser, "list", "", "kube-system", "pods", "", ""), false, "a RoleBinding in dev to ClusterRole pod-lister grants nothing in kube-system")

	// Group subjects, through a ClusterRoleBinding.
	e.put(newClusterRoleBinding("qa-pods", "pod-lister", groupSubject("qa")))
	rec := e.waitPasses(bob, "GET", "/api/v1/namespaces/default/pods", nil)
	e.expectUser("GET /api/v1/namespaces/default/pods (token \"bob-token\")", rec, "bob", "uid-bob", "dev-team", "qa", pipeline.AllAuthenticated)
	e.passes(bob, "GET", "/api/v1/pods", nil)
	e.expectForbidden(alice, "GET", "/api/v1/namespaces/default/pods", nil, forbiddenMsg("alice", "list", "", "pods", "", "default", ""))

	// ServiceAccount subjects: the user system:serviceaccount:<ns>:<name>.
	e.put(newRoleBinding("dev", "builder-edit", "ClusterRole", "edit", serviceAccount("dev", "builder")))
	builder := e.withCert("system:serviceaccount:dev:builder", "system:serviceaccounts", "system:serviceaccounts:dev")
	e.waitPasses(builder, "POST", "/api/v1/namespaces/dev/configmaps", configMap("dev", "built"))
	saUser := func(ns, name string) pipeline.UserInfo {
		return pipeline.UserInfo{Name: "system:serviceaccount:" + ns + ":" + name, Groups: list("system:serviceaccounts", "system:serviceaccounts:"+ns, pipeline.AllAuthenticated)}
	}
	e.waitDecision(az, resourceAttrs(saUser("dev", "builder"), "create", "", "dev", "configmaps", "", ""), true, "the RoleBinding builder-edit grants edit to ServiceAccount dev/builder")
	e.expectDecision(az, resourceAttrs(saUser("default", "builder"), "create", "", "dev", "configmaps", "", ""), false, "the subject is the ServiceAccount builder of dev, not of default")
	e.expectDecision(az, resourceAttrs(pipeline.UserInfo{Name: "builder", Groups: list(pipeline.AllAuthenticated)}, "create", "", "dev", "configmaps", "", ""), false, "the user builder is not the ServiceAccount dev/builder")
	e.expectForbidden(builder, "POST", "/api/v1/namespaces/default/configmaps", configMap("default", "x"),
		forbiddenMsg("system:serviceaccount:dev:builder", "create", "", "configmaps", "", "default", ""))

	// resourceNames: only the named objects, and a list or watch only
	// when a field selector pins it to a named one.
	lena := e.withCert("lena")
	lenaUser := pipeline.UserInfo{Name: "lena", Groups: list(pipeline.AllAuthenticated)}
	e.put(newRole("dev", "app-config-reader", policyRule(readVerbs, coreGroup, list("configmaps"), "app-config")))
	e.put(newRoleBinding("dev", "lena-config", "Role", "app-config-reader", user("lena")))
	e.waitPasses(lena, "GET", "/api/v1/namespaces/dev/configmaps/app-config", nil)
	e.expectForbidden(lena, "GET", "/api/v1/namespaces/dev/configmaps/other", nil, forbiddenMsg("lena", "get", "", "configmaps", "", "dev", "other"))
	e.expectForbidden(lena, "GET", "/api/v1/namespaces/dev/configmaps", nil, forbiddenMsg("lena", "list", "", "configmaps", "", "dev", ""))
	e.passes(lena, "GET", "/api/v1/namespaces/dev/configmaps?fieldSelector=metadata.name%3Dapp-config", nil)
	e.passes(lena, "GET", "/api/v1/namespaces/dev/configmaps?watch=1&fieldSelector=metadata.name%3Dapp-config", nil)
	e.expectForbidden(lena, "GET", "/api/v1/namespaces/dev/configmaps?watch=1&fieldSelector=metadata.name%3Dother", nil, forbiddenMsg("lena", "watch", "", "configmaps", "", "dev", "other"))
	e.waitDecision(az, resourceAttrs(lenaUser, "get", "", "dev", "configmaps", "", "app-config"), true, "resourceNames lists app-config")
	e.expectDecision(az, resourceAttrs(lenaUser, "get", "", "dev", "configmaps", "", "app-config-2"), false, "resourceNames lists app-config only")
	e.expectDecision(az, resourceAttrs(lenaUser, "list", "", "dev", "configmaps", "", ""), false, "a rule with resourceNames never allows a request without a name")

	// Subresources: "pods/log" is not "pods", and "pods" is not "pods/status".
	pete := e.withCert("pete")
	peteUser := pipeline.UserInfo{Name: "pete", Groups: list(pipeline.AllAuthenticated)}
	e.put(newRole("dev", "log-reader", policyRule(list("get"), coreGroup, list("pods/log"))))
	e.put(newRoleBinding("dev", "lena-logs", "Role", "log-reader", user("lena")))
	e.put(newRoleBinding("dev", "pete-pods", "Role", "pod-getter", user("pete")))
	e.put(newRole("dev", "pod-getter", policyRule(list("get"), coreGroup, list("pods")), policyRule(list("get"), list("*"), list("*/scale"))))
	e.waitPasses(lena, "GET", "/api/v1/namespaces/dev/pods/web/log", nil)
	e.expectForbidden(lena, "GET", "/api/v1/namespaces/dev/pods/web", nil, forbiddenMsg("lena", "get", "", "pods", "", "dev", "web"))
	e.expectForbidden(lena, "GET", "/api/v1/namespaces/dev/pods/web/status", nil, forbiddenMsg("lena", "get", "", "pods", "status", "dev", "web"))
	e.waitPasses(pete, "GET", "/api/v1/namespaces/dev/pods/web", nil)
	st := e.expectForbidden(pete, "GET", "/api/v1/namespaces/dev/pods/web/status", nil, forbiddenMsg("pete", "get", "", "pods", "status", "dev", "web"))
	e.expectDetails("GET /api/v1/namespaces/dev/pods/web/status (pete)", st, "web", "", "pods")
	e.expectForbidden(pete, "GET", "/api/v1/namespaces/dev/pods/web/log", nil, forbiddenMsg("pete", "get", "", "pods", "log", "dev", "web"))
	e.waitDecision(az, resourceAttrs(peteUser, "get", "", "dev", "pods", "", "web"), true, "Role pod-getter grants get pods")
	for _, c := range []struct {
		a       pipeline.Attributes
		allowed bool
		why     string
	}{
		{resourceAttrs(lenaUser, "get", "", "dev", "pods", "log", "web"), true, "log-reader grants get pods/log"},
		{resourceAttrs(lenaUser, "get", "", "dev", "pods", "", "web"), false, "pods/log does not grant pods"},
		{resourceAttrs(peteUser, "get", "", "dev", "pods", "status", "web"), false, "pods does not grant pods/status"},
		{resourceAttrs(peteUser, "get", "apps", "dev", "deployments", "scale", "api"), true, "*/scale grants the scale subresource of any resource"},
		{resourceAttrs(peteUser, "get", "apps", "dev", "deployments", "", "api"), false, "*/scale does not grant the resource itself"},
		{resourceAttrs(peteUser, "get", "apps", "dev", "deployments", "status", "api"), false, "*/scale does not grant status"},
	} {
		e.expectDecision(az, c.a, c.allowed, c.why)
	}

	// nonResourceURLs: exact paths, and prefixes ending in "*".
	e.expectForbidden(alice, "GET", "/healthz/etcd", nil, pathForbiddenMsg("alice", "get", "/healthz/etcd"))
	st = e.expectForbidden(alice, "GET", "/metrics", nil, pathForbiddenMsg("alice", "get", "/metrics"))
	e.expectDetails("GET /metrics (alice)", st, "", "", "")
	e.put(newClusterRole("health-reader", urlRule(list("get"), "/healthz/*", "/metrics")))
	e.put(newClusterRoleBinding("alice-health", "health-reader", user("alice")))
	e.waitPasses(alice, "GET", "/metrics", nil)
	e.passes(alice, "GET", "/healthz/etcd", nil)
	e.passes(alice, "GET", "/healthz/poststarthook/rbac", nil)
	e.expectForbidden(alice, "POST", "/metrics", nil, pathForbiddenMsg("alice", "post", "/metrics"))
	e.expectForbidden(alice, "GET", "/metrics/cadvisor", nil, pathForbiddenMsg("alice", "get", "/metrics/cadvisor"))
	e.waitDecision(az, pathAttrs(aliceUser, "get", "/healthz/etcd"), true, "/healthz/* grants paths under /healthz/")
	e.expectDecision(az, pathAttrs(aliceUser, "get", "/metricsx"), false, "/metrics grants that path only")
	e.expectDecision(az, pathAttrs(aliceUser, "put", "/metrics"), false, "the rule grants get only")
	// Everyone may read /version and /healthz (system:public-info-viewer),
	// and an authenticated user the discovery paths (system:discovery).
	e.passes(e.anonymous(), "GET", "/version", nil)
	e.passes(bob, "GET", "/apis/apps/v1", nil)
	e.expectForbidden(e.anonymous(), "GET", "/apis", nil, pathForbiddenMsg("system:anonymous", "get", "/apis"))

	// The bootstrap roles: view, edit, admin, cluster-admin.
	e.put(newRoleBinding("dev", "viewers", "ClusterRole", "view", user("viewer")))
	e.put(newRoleBinding("dev", "editors", "ClusterRole", "edit", user("editor")))
	e.put(newRoleBinding("dev", "admins", "ClusterRole", "admin", user("nsadmin")))
	e.put(newClusterRoleBinding("root", "cluster-admin", user("root")))
	u := func(name string) pipeline.UserInfo {
		return pipeline.UserInfo{Name: name, Groups: list(pipeline.AllAuthenticated)}
	}
	// Wait for each binding (an authorizer may see the kinds in any
	// order), then ask.
	e.waitDecision(az, resourceAttrs(u("viewer"), "list", "", "dev", "pods", "", ""), true, "the RoleBinding viewers grants view in dev")
	e.waitDecision(az, resourceAttrs(u("editor"), "get", "", "dev", "secrets", "", "token"), true, "the RoleBinding editors grants edit in dev")
	e.waitDecision(az, resourceAttrs(u("nsadmin"), "create", "rbac.authorization.k8s.io", "dev", "rolebindings", "", ""), true, "the RoleBinding admins grants admin in dev")
	e.waitDecision(az, resourceAttrs(u("root"), "delete", "", "", "nodes", "", "node-1"), true, "the ClusterRoleBinding root grants cluster-admin")
	for _, c := range []struct {
		a       pipeline.Attributes
		allowed bool
		why     string
	}{
		{resourceAttrs(u("viewer"), "list", "", "dev", "pods", "", ""), true, "view reads pods"},
		{resourceAttrs(u("viewer"), "get", "apps", "dev", "deployments", "", "api"), true, "view reads deployments"},
		{resourceAttrs(u("viewer"), "get", "", "dev", "secrets", "", "token"), false, "view does not read secrets"},
		{resourceAttrs(u("viewer"), "create", "", "dev", "pods", "", ""), false, "view does not write"},
		{resourceAttrs(u("viewer"), "list", "", "default", "pods", "", ""), false, "the RoleBinding is in dev"},
		{resourceAttrs(u("editor"), "get", "", "dev", "secrets", "", "token"), true, "edit reads secrets"},
		{resourceAttrs(u("editor"), "create", "apps", "dev", "deployments", "", ""), true, "edit writes deployments"},
		{resourceAttrs(u("editor"), "create", "rbac.authorization.k8s.io", "dev", "rolebindings", "", ""), false, "edit does not grant roles"},
		{resourceAttrs(u("editor"), "update", "", "dev", "resourcequotas", "", "q1"), false, "edit does not change quotas"},
		{resourceAttrs(u("nsadmin"), "create", "rbac.authorization.k8s.io", "dev", "rolebindings", "", ""), true, "admin grants roles in its namespace"},
		{resourceAttrs(u("nsadmin"), "delete", "", "dev", "pods", "", "web"), true, "admin deletes pods"},
		{resourceAttrs(u("nsadmin"), "list", "", "", "nodes", "", ""), false, "admin is namespaced"},
		{resourceAttrs(u("root"), "create", "rbac.authorization.k8s.io", "", "clusterroles", "", ""), true, "cluster-admin does anything"},
		{resourceAttrs(u("root"), "escalate", "example.com", "dev", "widgets", "status", "w"), true, "cluster-admin does anything"},
		{pathAttrs(u("root"), "delete", "/anything"), true, "cluster-admin's nonResourceURLs are *"},
	} {
		e.expectDecision(az, c.a, c.allowed, c.why)
	}
	viewer := e.withCert("viewer")
	e.waitPasses(viewer, "GET", "/apis/apps/v1/namespaces/dev/deployments", nil)
	e.expectForbidden(viewer, "GET", "/api/v1/namespaces/dev/secrets", nil, forbiddenMsg("viewer", "list", "", "secrets", "", "dev", ""))
	e.passes(e.withCert("root"), "GET", "/api/v1/namespaces/kube-system/secrets", nil)
}

// ------------------------------------------------------------ 06

// accessReview is authorization.k8s.io/v1 SelfSubjectAccessReview, as
// much as the suite sends and reads.
type accessReview struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		ResourceAttributes *struct {
			Namespace   string `json:"namespace,omitempty"`
			Verb        string `json:"verb,omitempty"`
			Group       string `json:"group,omitempty"`
			Resource    string `json:"resource,omitempty"`
			Subresource string `json:"subresource,omitempty"`
			Name        string `json:"name,omitempty"`
		} `json:"resourceAttributes,omitempty"`
		NonResourceAttributes *struct {
			Path string `json:"path,omitempty"`
			Verb string `json:"verb,omitempty"`
		} `json:"nonResourceAttributes,omitempty"`
	} `json:"spec"`
	Status *struct {
		Allowed bool   `json:"allowed"`
		Reason  string `json:"reason,omitempty"`
	} `json:"status,omitempty"`
}

func reviewOf(ns, verb, group, resource, sub, name string) map[string]any {
	ra := map[string]any{"verb": verb, "resource": resource}
	for k, v := range map[string]string{"namespace": ns, "group": group, "subresource": sub, "name": name} {
		if v != "" {
			ra[k] = v
		}
	}
	return map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
		"spec": map[string]any{"resourceAttributes": ra}}
}

func pathReviewOf(verb, path string) map[string]any {
	return map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
		"spec": map[string]any{"nonResourceAttributes": map[string]any{"verb": verb, "path": path}}}
}

// review posts a SelfSubjectAccessReview and returns status.allowed; the
// gate answers it itself, 201, and it never reaches next.
func (e *env) review(c *client, what string, body map[string]any, hdr ...string) bool {
	e.t.Helper()
	before := len(e.next.requests())
	r := c.do("POST", pipeline.SelfSubjectAccessReviewPath, body, hdr...)
	if r.fromNext() || len(e.next.requests()) != before {
		e.t.Fatalf("%s (%s) reached the handler behind the gate; want the gate to answer the review itself", r.call, what)
	}
	if r.code != http.StatusCreated {
		e.t.Fatalf("%s (%s) = %s\n\twant 201 Created and the review with its status", r.call, what, r.describe())
	}
	var got accessReview
	if err := json.Unmarshal(r.body, &got); err != nil {
		e.t.Fatalf("%s (%s) = %s\n\twant a SelfSubjectAccessReview: %v", r.call, what, r.describe(), err)
	}
	if got.Kind != "SelfSubjectAccessReview" || got.APIVersion != "authorization.k8s.io/v1" || got.Status == nil {
		e.t.Fatalf("%s (%s) = %s\n\twant kind SelfSubjectAccessReview, apiVersion authorization.k8s.io/v1 and a status", r.call, what, r.describe())
	}
	if ra := got.Spec.ResourceAttributes; body["spec"].(map[string]any)["resourceAttributes"] != nil && (ra == nil || ra.Verb == "") {
		e.t.Fatalf("%s (%s) = %s\n\twant the spec sent back with the status", r.call, what, r.describe())
	}
	return got.Status.Allowed
}

func (e *env) expectReview(c *client, what string, body map[string]any, want bool, hdr ...string) {
	e.t.Helper()
	if got := e.review(c, what, body, hdr...); got != want {
		e.t.Fatalf("POST %s (%s) %s: status.allowed = %v, want %v", pipeline.SelfSubjectAccessReviewPath, c.who, what, got, want)
	}
}

// impersonationAndAccessReview: Impersonate-User, -Group and -Uid, each
// checked as the verb impersonate (impersonation.go), and the
// SelfSubjectAccessReview the gate answers for the requesting user.
func impersonationAndAccessReview(e *env) {
	alice := e.as(TokenAlice)
	ivan := e.withCert("ivan")

	// Without a grant, impersonating is 403 and goes no further.
	e.expectForbidden(alice, "GET", "/version", nil,
		`users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`, pipeline.ImpersonateUserHeader, "bob")
	e.expectForbidden(alice, "GET", "/version", nil,
		`users "system:anonymous" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`, pipeline.ImpersonateUserHeader, "system:anonymous")
	// Groups or a uid without a user are a bad request.
	for _, hdr := range [][]string{
		{pipeline.ImpersonateGroupHeader, "system:masters"},
		{pipeline.ImpersonateUIDHeader, "uid-1"},
	} {
		before := len(e.next.requests())
		r := alice.do("GET", "/version", nil, hdr...)
		e.expectStatus(r, http.StatusBadRequest, api.StatusReasonBadRequest, "")
		if len(e.next.requests()) != before {
			e.t.Fatalf("%s with %s: %s = 400, but it reached the handler behind the gate", r.call, hdr[0], hdr[1])
		}
	}

	// alice may impersonate any user, group and uid. Users and groups are
	// in the core group, uids in authentication.k8s.io (impersonation.go
	// checks a uid as kind UID of authentication.k8s.io/v1).
	e.put(newClusterRole("impersonator", policyRule(list("impersonate"), coreGroup, list("users", "groups")),
		policyRule(list("impersonate"), list("authentication.k8s.io"), list("uids"))))
	e.put(newClusterRoleBinding("alice-impersonates", "impersonator", user("alice")))
	rec := e.waitPasses(alice, "GET", "/version", nil, pipeline.ImpersonateUserHeader, "bob")
	e.expectUser("GET /version (alice as bob)", rec, "bob", "", pipeline.AllAuthenticated)
	for _, h := range []string{pipeline.ImpersonateUserHeader, pipeline.ImpersonateGroupHeader, pipeline.ImpersonateUIDHeader} {
		if v := rec.Header.Get(h); v != "" {
			e.t.Fatalf("GET /version (alice as bob): next saw the header %s: %s, want the impersonation headers removed once they are acted on", h, v)
		}
	}
	rec = e.passes(alice, "GET", "/version", nil, pipeline.ImpersonateUserHeader, "bob",
		pipeline.ImpersonateGroupHeader, "dev-team", pipeline.ImpersonateGroupHeader, "qa", pipeline.ImpersonateUIDHeader, "uid-b")
	e.expectUser("GET /version (alice as bob in dev-team and qa with uid uid-b)", rec, "bob", "uid-b", "dev-team", "qa", pipeline.AllAuthenticated)
	rec = e.passes(alice, "GET", "/api/v1/nodes", nil, pipeline.ImpersonateUserHeader, "root", pipeline.ImpersonateGroupHeader, "system:masters")
	e.expectUser("GET /api/v1/nodes (alice as root in system:masters)", rec, "root", "", "system:masters", pipeline.AllAuthenticated)
	rec = e.passes(alice, "GET", "/version", nil, pipeline.ImpersonateUserHeader, pipeline.Anonymous)
	e.expectUser("GET /version (alice as system:anonymous)", rec, pipeline.Anonymous, "", pipeline.AllUnauthenticated)
	// Authorization is for whom they impersonate.
	e.expectForbidden(alice, "GET", "/api/v1/namespaces/dev/pods", nil, forbiddenMsg("bob", "list", "", "pods", "", "dev", ""), pipeline.ImpersonateUserHeader, "bob")

	// Narrow grants: resourceNames, and ServiceAccounts in a namespace.
	e.put(newClusterRole("impersonate-bob", policyRule(list("impersonate"), coreGroup, list("users"), "bob")))
	e.put(newClusterRoleBinding("ivan-impersonates-bob", "impersonate-bob", user("ivan")))
	e.put(newRole("dev", "sa-impersonator", policyRule(list("impersonate"), coreGroup, list("serviceaccounts"))))
	e.put(newRoleBinding("dev", "ivan-impersonates-sa", "Role", "sa-impersonator", user("ivan")))
	rec = e.waitPasses(ivan, "GET", "/version", nil, pipeline.ImpersonateUserHeader, "system:serviceaccount:dev:builder")
	e.expectUser("GET /version (ivan as system:serviceaccount:dev:builder)", rec, "system:serviceaccount:dev:builder", "",
		"system:serviceaccounts", "system:serviceaccounts:dev", pipeline.AllAuthenticated)
	rec = e.waitPasses(ivan, "GET", "/version", nil, pipeline.ImpersonateUserHeader, "bob")
	e.expectUser("GET /version (ivan as bob)", rec, "bob", "", pipeline.AllAuthenticated)
	e.expectForbidden(ivan, "GET", "/version", nil,
		`users "carl" is forbidden: User "ivan" cannot impersonate resource "users" in API group "" at the cluster scope`, pipeline.ImpersonateUserHeader, "carl")
	e.expectForbidden(ivan, "GET", "/version", nil,
		`groups "system:masters" is forbidden: User "ivan" cannot impersonate resource "groups" in API group "" at the cluster scope`,
		pipeline.ImpersonateUserHeader, "bob", pipeline.ImpersonateGroupHeader, "system:masters")
	e.expectForbidden(ivan, "GET", "/version", nil,
		`uids.authentication.k8s.io "uid-x" is forbidden: User "ivan" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`,
		pipeline.ImpersonateUserHeader, "bob", pipeline.ImpersonateUIDHeader, "uid-x")
	e.expectForbidden(ivan, "GET", "/version", nil,
		`serviceaccounts "builder" is forbidden: User "ivan" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "default"`,
		pipeline.ImpersonateUserHeader, "system:serviceaccount:default:builder")

	// SelfSubjectAccessReview: the gate answers for the requesting user.
	e.expectReview(alice, "list pods in dev", reviewOf("dev", "list", "", "pods", "", ""), false)
	e.expectReview(alice, "get /version", pathReviewOf("get", "/version"), true)
	e.expectReview(alice, "get /healthz/etcd", pathReviewOf("get", "/healthz/etcd"), false)
	e.expectReview(alice, "impersonate users", reviewOf("", "impersonate", "", "users", "", "bob"), true)
	e.put(newRole("dev", "pod-reader", policyRule(readVerbs, coreGroup, list("pods"))))
	e.put(newRoleBinding("dev", "alice-pods", "Role", "pod-reader", user("alice")))
	e.eventually("a SelfSubjectAccessReview by alice for list pods in dev says allowed once Role pod-reader is bound to her", func() (bool, string) {
		ok := e.review(alice, "list pods in dev", reviewOf("dev", "list", "", "pods", "", ""))
		return ok, fmt.Sprintf("status.allowed = %v", ok)
	})
	e.expectReview(alice, "list pods in default", reviewOf("default", "list", "", "pods", "", ""), false)
	e.expectReview(alice, "delete pods web in dev", reviewOf("dev", "delete", "", "pods", "", "web"), false)
	e.expectReview(alice, "get pods/log web in dev", reviewOf("dev", "get", "", "pods", "log", "web"), false)
	e.expectReview(alice, "list deployments.apps in dev", reviewOf("dev", "list", "apps", "deployments", "", ""), false)
	// For whom they impersonate, when they do.
	e.expectReview(alice, "as bob: list pods in dev", reviewOf("dev", "list", "", "pods", "", ""), false, pipeline.ImpersonateUserHeader, "bob")
	e.expectReview(alice, "as root in system:masters: delete nodes", reviewOf("", "delete", "", "nodes", "", "node-1"), true,
		pipeline.ImpersonateUserHeader, "root", pipeline.ImpersonateGroupHeader, "system:masters")
	e.expectReview(e.as(TokenAdmin), "delete nodes", reviewOf("", "delete", "", "nodes", "", "node-1"), true)
	// Creating a review is authorized like any create: the bootstrap's
	// system:basic-user grants it to authenticated users only.
	e.expectForbidden(e.anonymous(), "POST", pipeline.SelfSubjectAccessReviewPath, reviewOf("dev", "list", "", "pods", "", ""),
		forbiddenMsg("system:anonymous", "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", ""))
	if reqs := e.next.requests(); slices.ContainsFunc(reqs, func(r recorded) bool { return r.Path == pipeline.SelfSubjectAccessReviewPath }) {
		e.t.Fatalf("a SelfSubjectAccessReview reached the handler behind the gate; want the gate to answer every one itself")
	}
}
