package pipeline_test

import (
	"slices"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/pipeline"
)

// grants reports whether any rule allows verb on group/resource (no
// resourceNames), the way evaluation_helpers.go's RuleAllows reads a rule.
func grants(rules []api.PolicyRule, verb, group, resource string) bool {
	has := func(list []string, s string) bool { return slices.Contains(list, s) || slices.Contains(list, "*") }
	for _, r := range rules {
		if has(r.Verbs, verb) && has(r.APIGroups, group) && has(r.Resources, resource) && len(r.ResourceNames) == 0 {
			return true
		}
	}
	return false
}

func TestBootstrapPolicy(t *testing.T) {
	roles, bindings := pipeline.BootstrapPolicy()
	byName := map[string]api.ClusterRole{}
	for _, r := range roles {
		if _, dup := byName[r.Name]; dup {
			t.Errorf("BootstrapPolicy(): ClusterRole %q twice, want names unique", r.Name)
		}
		byName[r.Name] = r
		if r.APIVersion != "rbac.authorization.k8s.io/v1" || r.Kind != "ClusterRole" {
			t.Errorf("ClusterRole %q TypeMeta = %q %q, want rbac.authorization.k8s.io/v1 ClusterRole", r.Name, r.APIVersion, r.Kind)
		}
		if r.Labels[pipeline.BootstrapLabelKey] != pipeline.BootstrapLabelValue {
			t.Errorf("ClusterRole %q labels = %v, want %s=%s", r.Name, r.Labels, pipeline.BootstrapLabelKey, pipeline.BootstrapLabelValue)
		}
		if len(r.Rules) == 0 {
			t.Errorf("ClusterRole %q has no rules, want the flattened rules (the kata has no aggregation)", r.Name)
		}
	}
	seen := map[string]bool{}
	for _, b := range bindings {
		if seen[b.Name] {
			t.Errorf("BootstrapPolicy(): ClusterRoleBinding %q twice, want names unique", b.Name)
		}
		seen[b.Name] = true
		if b.APIVersion != "rbac.authorization.k8s.io/v1" || b.Kind != "ClusterRoleBinding" {
			t.Errorf("ClusterRoleBinding %q TypeMeta = %q %q, want rbac.authorization.k8s.io/v1 ClusterRoleBinding", b.Name, b.APIVersion, b.Kind)
		}
		if b.RoleRef.Kind != "ClusterRole" || b.RoleRef.APIGroup != "rbac.authorization.k8s.io" {
			t.Errorf("ClusterRoleBinding %q roleRef = %+v, want a ClusterRole of rbac.authorization.k8s.io", b.Name, b.RoleRef)
		}
		if _, ok := byName[b.RoleRef.Name]; !ok {
			t.Errorf("ClusterRoleBinding %q names ClusterRole %q, which BootstrapPolicy does not return", b.Name, b.RoleRef.Name)
		}
		if len(b.Subjects) == 0 {
			t.Errorf("ClusterRoleBinding %q has no subjects", b.Name)
		}
	}
	for _, want := range []string{"cluster-admin", "admin", "edit", "view", "system:basic-user", "system:discovery",
		"system:public-info-viewer", "system:kube-scheduler", "system:kube-controller-manager", "system:node", "system:node-proxier"} {
		if _, ok := byName[want]; !ok {
			t.Errorf("BootstrapPolicy(): no ClusterRole %q, want upstream's", want)
		}
	}

	// Upstream facts (bootstrappolicy/policy.go).
	for _, c := range []struct {
		role, verb, group, resource string
		want                        bool
	}{
		{"cluster-admin", "delete", "anything.example.com", "widgets", true},
		{"view", "get", "", "pods", true},
		{"view", "list", "apps", "deployments", true},
		{"view", "get", "", "secrets", false},
		{"view", "create", "", "pods", false},
		{"view", "get", "rbac.authorization.k8s.io", "roles", false},
		{"edit", "get", "", "secrets", true},
		{"edit", "create", "apps", "deployments", true},
		{"edit", "create", "rbac.authorization.k8s.io", "rolebindings", false},
		{"edit", "update", "", "resourcequotas", false},
		{"admin", "create", "rbac.authorization.k8s.io", "rolebindings", true},
		{"admin", "delete", "", "pods", true},
		{"system:basic-user", "create", "authorization.k8s.io", "selfsubjectaccessreviews", true},
		{"system:node", "update", "", "pods/status", true},
		{"system:node", "create", "", "nodes", true},
		{"system:kube-scheduler", "create", "", "pods/binding", true},
		{"system:kube-controller-manager", "create", "", "pods", true},
		{"system:kube-controller-manager", "create", "apps", "replicasets", true},
	} {
		if got := grants(byName[c.role].Rules, c.verb, c.group, c.resource); got != c.want {
			t.Errorf("ClusterRole %q allows %s %q in group %q = %v, want %v", c.role, c.verb, c.resource, c.group, got, c.want)
		}
	}
	ca := byName["cluster-admin"].Rules
	if !slices.ContainsFunc(ca, func(r api.PolicyRule) bool {
		return slices.Equal(r.NonResourceURLs, []string{"*"}) && slices.Equal(r.Verbs, []string{"*"})
	}) {
		t.Errorf("cluster-admin rules = %+v, want a rule of verbs * on nonResourceURLs *", ca)
	}

	// Who is bound to what.
	bound := map[string][]string{}
	for _, b := range bindings {
		for _, s := range b.Subjects {
			bound[b.RoleRef.Name] = append(bound[b.RoleRef.Name], s.Kind+":"+s.Name)
		}
	}
	for role, want := range map[string][]string{
		"cluster-admin":                  {"Group:system:masters"},
		"system:basic-user":              {"Group:system:authenticated"},
		"system:public-info-viewer":      {"Group:system:authenticated", "Group:system:unauthenticated"},
		"system:node":                    {"Group:system:nodes"},
		"system:kube-scheduler":          {"User:system:kube-scheduler"},
		"system:kube-controller-manager": {"User:system:kube-controller-manager"},
		"system:node-proxier":            {"User:system:kube-proxy"},
	} {
		if !slices.Equal(bound[role], want) {
			t.Errorf("subjects bound to %q = %v, want %v", role, bound[role], want)
		}
	}

	// Fresh values: changing one result does not change the next.
	roles[0].Rules[0].Verbs[0] = "changed"
	again, _ := pipeline.BootstrapPolicy()
	if again[0].Rules[0].Verbs[0] == "changed" {
		t.Errorf("BootstrapPolicy() shares its slices between calls, want fresh values")
	}
}
