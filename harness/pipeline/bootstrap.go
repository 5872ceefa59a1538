package pipeline

import (
	"slices"

	"github.com/kubekata/kubekata/harness/api"
)

// The bootstrap policy: the ClusterRoles and ClusterRoleBindings
// upstream's apiserver reconciles at every start (its post-start hook
// "rbac/bootstrap-roles"). The facts are upstream's
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (the roles
// and bindings) and controller_policy.go (the controllers' roles),
// carried as data. What the kata does differently, on purpose:
//
//   - No aggregation. Upstream's admin, edit and view have no rules of
//     their own: an AggregationRule collects them from
//     system:aggregate-to-admin, -edit and -view, and edit aggregates
//     into admin, view into edit. Here each role carries the flattened
//     result (view; edit = view plus aggregate-to-edit; admin = edit plus
//     aggregate-to-admin), and the aggregate-to-* roles are not created.
//     The aggregate-to labels stay as upstream has them.
//   - One controller identity. Upstream's kube-controller-manager runs
//     each controller as its own ServiceAccount (kube-system:<name>,
//     bound to system:controller:<name>) under
//     --use-service-account-credentials. The kata runs its controllers
//     as the one user system:kube-controller-manager, so that role also
//     carries the rules of the controller roles for the controllers the
//     kata has (deployment, replicaset, garbage collector, namespace,
//     endpoint, endpointslice, node, pod garbage collector, resourcequota,
//     service account); the system:controller:* roles are not created.
//   - system:node is bound to the group system:nodes. Upstream leaves
//     that binding without subjects and authorizes kubelets with the Node
//     authorizer; the kata keeps the RBAC grant and leaves narrowing a
//     node to its own objects to the NodeRestriction admission plugin.
//   - Only the roles the kata's components and learners use: the
//     storage, certificates, DNS, metrics and volume roles are left out.

// Verb sets of bootstrappolicy/policy.go.
var (
	verbsRead      = []string{"get", "list", "watch"}
	verbsWrite     = []string{"create", "update", "patch", "delete", "deletecollection"}
	verbsReadWrite = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
)

// Labels and annotations upstream puts on every bootstrap object
// (bootstrappolicy.Label and Annotation; the annotation is
// rbacv1.AutoUpdateAnnotationKey).
const (
	BootstrapLabelKey        = "kubernetes.io/bootstrapping"
	BootstrapLabelValue      = "rbac-defaults"
	AutoUpdateAnnotationKey  = "rbac.authorization.kubernetes.io/autoupdate"
	aggregateToAdminLabelKey = "rbac.authorization.k8s.io/aggregate-to-admin"
	aggregateToEditLabelKey  = "rbac.authorization.k8s.io/aggregate-to-edit"
)

// API groups the rules name.
const (
	groupCore          = ""
	groupApps          = "apps"
	groupAuthn         = "authentication.k8s.io"
	groupAuthz         = "authorization.k8s.io"
	groupAutoscaling   = "autoscaling"
	groupBatch         = "batch"
	groupCertificates  = "certificates.k8s.io"
	groupCoordination  = "coordination.k8s.io"
	groupDiscovery     = "discovery.k8s.io"
	groupEvents        = "events.k8s.io"
	groupExtensions    = "extensions"
	groupNetworking    = "networking.k8s.io"
	groupPolicy        = "policy"
	groupRBAC          = "rbac.authorization.k8s.io"
	groupStorage       = "storage.k8s.io"
	groupNode          = "node.k8s.io"
	controllerRoleName = "system:kube-controller-manager"
)

// rule is upstream's rbacv1helpers.NewRule(verbs...).Groups(groups...).Resources(resources...).
func rule(verbs, groups []string, resources ...string) api.PolicyRule {
	return api.PolicyRule{Verbs: slices.Clone(verbs), APIGroups: slices.Clone(groups), Resources: resources}
}

// named is rule(...).Names(names...).
func named(verbs, groups []string, resources []string, names ...string) api.PolicyRule {
	r := rule(verbs, groups, resources...)
	r.ResourceNames = names
	return r
}

// urls is NewRule(verbs...).URLs(urls...).
func urls(verbs []string, u ...string) api.PolicyRule {
	return api.PolicyRule{Verbs: verbs, NonResourceURLs: u}
}

func v(verbs ...string) []string  { return verbs }
func g(groups ...string) []string { return groups }

// eventsRule is bootstrappolicy's eventsRule.
func eventsRule() api.PolicyRule {
	return rule(v("create", "update", "patch"), g(groupCore, groupEvents), "events")
}

// viewRules are upstream's system:aggregate-to-view.
func viewRules() []api.PolicyRule {
	return []api.PolicyRule{
		rule(verbsRead, g(groupCore), "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
			"services", "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "configmaps"),
		rule(verbsRead, g(groupCore), "limitranges", "resourcequotas", "bindings", "events",
			"pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"),
		// Reading namespaces at the namespace scope reads that namespace.
		rule(verbsRead, g(groupCore), "namespaces"),
		rule(verbsRead, g(groupApps), "controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
			"daemonsets", "daemonsets/status", "deployments", "deployments/status", "deployments/scale",
			"replicasets", "replicasets/status", "replicasets/scale"),
		rule(verbsRead, g(groupAutoscaling), "horizontalpodautoscalers", "horizontalpodautoscalers/status"),
		rule(verbsRead, g(groupBatch), "jobs", "cronjobs", "cronjobs/status", "jobs/status"),
		rule(verbsRead, g(groupExtensions), "daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status",
			"ingresses", "ingresses/status", "replicasets", "replicasets/scale", "replicasets/status", "replicationcontrollers/scale",
			"networkpolicies"),
		rule(verbsRead, g(groupPolicy), "poddisruptionbudgets", "poddisruptionbudgets/status"),
		rule(verbsRead, g(groupNetworking), "networkpolicies", "ingresses", "ingresses/status"),
	}
}

// editRules are upstream's system:aggregate-to-edit: reads of the
// escalating resources (secrets among them, which view cannot read) and
// writes of the user-level ones.
func editRules() []api.PolicyRule {
	return []api.PolicyRule{
		rule(verbsRead, g(groupCore), "pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"),
		rule(v("impersonate"), g(groupCore), "serviceaccounts"),
		rule(verbsWrite, g(groupCore), "pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"),
		rule(verbsWrite, g(groupCore), "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
			"services", "services/proxy", "endpoints", "persistentvolumeclaims", "configmaps", "secrets"),
		rule(verbsWrite, g(groupApps), "statefulsets", "statefulsets/scale", "daemonsets",
			"deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"),
		rule(verbsWrite, g(groupAutoscaling), "horizontalpodautoscalers"),
		rule(verbsWrite, g(groupBatch), "jobs", "cronjobs"),
		rule(verbsWrite, g(groupExtensions), "daemonsets", "deployments", "deployments/scale", "deployments/rollback", "ingresses",
			"replicasets", "replicasets/scale", "replicationcontrollers/scale", "networkpolicies"),
		rule(verbsWrite, g(groupPolicy), "poddisruptionbudgets"),
		rule(verbsWrite, g(groupNetworking), "networkpolicies", "ingresses"),
	}
}

// adminRules are upstream's system:aggregate-to-admin: edit plus the
// power to grant permissions in the namespace.
func adminRules() []api.PolicyRule {
	return []api.PolicyRule{
		rule(v("create"), g(groupAuthz), "localsubjectaccessreviews"),
		rule(verbsReadWrite, g(groupRBAC), "roles", "rolebindings"),
	}
}

// nodeRules are upstream's NodeRules (system:node).
func nodeRules() []api.PolicyRule {
	return []api.PolicyRule{
		rule(v("create"), g(groupAuthn), "tokenreviews"),
		rule(v("create"), g(groupAuthz), "subjectaccessreviews", "localsubjectaccessreviews"),
		rule(verbsRead, g(groupCore), "services"),
		// Nodes register themselves and report status; NodeRestriction
		// narrows this to the node's own object.
		rule(v("create", "get", "list", "watch"), g(groupCore), "nodes"),
		rule(v("update", "patch"), g(groupCore), "nodes/status"),
		rule(v("update", "patch"), g(groupCore), "nodes"),
		rule(v("create", "update", "patch"), g(groupCore), "events"),
		rule(verbsRead, g(groupCore), "pods"),
		// Mirror pods; NodeRestriction narrows to pods bound to the node.
		rule(v("create", "delete"), g(groupCore), "pods"),
		rule(v("update", "patch"), g(groupCore), "pods/status"),
		rule(v("create"), g(groupCore), "pods/eviction"),
		rule(v("get", "list", "watch"), g(groupCore), "secrets", "configmaps"),
		rule(v("get"), g(groupCore), "persistentvolumeclaims", "persistentvolumes"),
		rule(v("get"), g(groupCore), "endpoints"),
		rule(v("create", "get", "list", "watch"), g(groupCertificates), "certificatesigningrequests"),
		rule(v("get", "create", "update", "patch", "delete"), g(groupCoordination), "leases"),
		rule(v("get"), g(groupStorage), "volumeattachments"),
		rule(v("create"), g(groupCore), "serviceaccounts/token"),
		rule(v("get", "list", "watch"), g(groupNode), "runtimeclasses"),
	}
}

// controllerManagerRules are upstream's system:kube-controller-manager
// followed by the system:controller:* roles of the controllers the kata
// runs under that one identity (controller_policy.go).
func controllerManagerRules() []api.PolicyRule {
	return []api.PolicyRule{
		// system:kube-controller-manager (policy.go).
		eventsRule(),
		rule(v("create"), g(groupCoordination), "leases"),
		named(v("get", "update"), g(groupCoordination), []string{"leases"}, "kube-controller-manager"),
		rule(v("create"), g(groupCore), "secrets", "serviceaccounts"),
		rule(v("delete"), g(groupCore), "secrets"),
		rule(v("get"), g(groupCore), "namespaces", "secrets", "serviceaccounts", "configmaps"),
		rule(v("update"), g(groupCore), "secrets", "serviceaccounts"),
		rule(v("create"), g(groupAuthn), "tokenreviews"),
		rule(v("create"), g(groupAuthz), "subjectaccessreviews"),
		// Every shared informer lists and watches.
		rule(v("list", "watch"), g("*"), "*"),
		rule(v("create"), g(groupCore), "serviceaccounts/token"),
		// system:controller:deployment-controller.
		rule(v("get", "list", "watch", "update"), g(groupExtensions, groupApps), "deployments"),
		rule(v("update"), g(groupExtensions, groupApps), "deployments/status"),
		rule(v("update"), g(groupExtensions, groupApps), "deployments/finalizers"),
		rule(v("get", "list", "watch", "create", "update", "patch", "delete"), g(groupApps, groupExtensions), "replicasets"),
		rule(v("get", "list", "watch", "update"), g(groupCore), "pods"),
		// system:controller:replicaset-controller.
		rule(v("get", "list", "watch", "update"), g(groupApps, groupExtensions), "replicasets"),
		rule(v("update"), g(groupApps, groupExtensions), "replicasets/status"),
		rule(v("update"), g(groupApps, groupExtensions), "replicasets/finalizers"),
		rule(v("list", "watch", "patch", "create", "delete"), g(groupCore), "pods"),
		// system:controller:generic-garbage-collector.
		rule(v("get", "list", "watch", "patch", "update", "delete"), g("*"), "*"),
		// system:controller:namespace-controller.
		rule(v("get", "list", "watch", "delete"), g(groupCore), "namespaces"),
		rule(v("update"), g(groupCore), "namespaces/finalize", "namespaces/status"),
		rule(v("get", "list", "watch", "delete", "deletecollection"), g("*"), "*"),
		// system:controller:endpoint-controller.
		rule(v("get", "list", "watch"), g(groupCore), "services", "pods"),
		rule(v("get", "list", "watch", "create", "update", "delete"), g(groupCore), "endpoints"),
		rule(v("create"), g(groupCore), "endpoints/restricted"),
		// system:controller:endpointslice-controller.
		rule(v("get", "list", "watch"), g(groupCore), "services", "pods", "nodes"),
		rule(v("update"), g(groupCore), "services/finalizers"),
		rule(v("get", "list", "watch", "create", "update", "delete"), g(groupDiscovery), "endpointslices"),
		// system:controller:node-controller.
		rule(v("get", "list", "watch", "update", "delete", "patch"), g(groupCore), "nodes"),
		rule(v("patch", "update"), g(groupCore), "nodes/status"),
		rule(v("patch", "update"), g(groupCore), "pods/status"),
		rule(v("list", "watch", "get", "delete"), g(groupCore), "pods"),
		// system:controller:pod-garbage-collector.
		rule(v("list", "watch", "delete"), g(groupCore), "pods"),
		rule(v("patch"), g(groupCore), "pods/status"),
		// system:controller:resourcequota-controller.
		rule(v("update"), g(groupCore), "resourcequotas/status"),
		// system:controller:service-account-controller.
		rule(v("create"), g(groupCore), "serviceaccounts"),
	}
}

// schedulerRules are upstream's system:kube-scheduler.
func schedulerRules() []api.PolicyRule {
	return []api.PolicyRule{
		eventsRule(),
		rule(v("create"), g(groupCoordination), "leases"),
		named(v("get", "update"), g(groupCoordination), []string{"leases"}, "kube-scheduler"),
		rule(verbsRead, g(groupCore), "nodes"),
		rule(v("get", "list", "watch", "delete"), g(groupCore), "pods"),
		rule(v("create"), g(groupCore), "pods/binding", "bindings"),
		rule(v("patch", "update"), g(groupCore), "pods/status"),
		rule(verbsRead, g(groupCore), "services", "replicationcontrollers"),
		rule(verbsRead, g(groupApps, groupExtensions), "replicasets"),
		rule(verbsRead, g(groupApps), "statefulsets"),
		rule(verbsRead, g(groupPolicy), "poddisruptionbudgets"),
		rule(verbsRead, g(groupCore), "persistentvolumeclaims", "persistentvolumes"),
		rule(v("create"), g(groupAuthn), "tokenreviews"),
		rule(v("create"), g(groupAuthz), "subjectaccessreviews"),
		rule(verbsRead, g(groupStorage), "csinodes"),
		rule(verbsRead, g(groupStorage), "csidrivers", "csistoragecapacities"),
	}
}

// nodeProxierRules are upstream's system:node-proxier (kube-proxy).
func nodeProxierRules() []api.PolicyRule {
	return []api.PolicyRule{
		rule(v("list", "watch"), g(groupCore), "services", "endpoints"),
		rule(v("get", "list", "watch"), g(groupCore), "nodes"),
		eventsRule(),
		rule(v("list", "watch"), g(groupDiscovery), "endpointslices"),
	}
}

func concat(parts ...[]api.PolicyRule) []api.PolicyRule {
	var out []api.PolicyRule
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func clusterRole(name string, labels map[string]string, rules []api.PolicyRule) api.ClusterRole {
	l := map[string]string{BootstrapLabelKey: BootstrapLabelValue}
	for k, val := range labels {
		l[k] = val
	}
	return api.ClusterRole{
		TypeMeta: api.TypeMeta{APIVersion: groupRBAC + "/v1", Kind: "ClusterRole"},
		ObjectMeta: api.ObjectMeta{
			Name:        name,
			Labels:      l,
			Annotations: map[string]string{AutoUpdateAnnotationKey: "true"},
		},
		Rules: rules,
	}
}

func clusterRoleBinding(role string, subjects ...api.Subject) api.ClusterRoleBinding {
	return api.ClusterRoleBinding{
		TypeMeta: api.TypeMeta{APIVersion: groupRBAC + "/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: api.ObjectMeta{
			Name:        role,
			Labels:      map[string]string{BootstrapLabelKey: BootstrapLabelValue},
			Annotations: map[string]string{AutoUpdateAnnotationKey: "true"},
		},
		Subjects: subjects,
		RoleRef:  api.RoleRef{APIGroup: groupRBAC, Kind: "ClusterRole", Name: role},
	}
}

func groupSubject(name string) api.Subject {
	return api.Subject{Kind: api.GroupKind, APIGroup: groupRBAC, Name: name}
}

func userSubject(name string) api.Subject {
	return api.Subject{Kind: api.UserKind, APIGroup: groupRBAC, Name: name}
}

// BootstrapPolicy returns the ClusterRoles and ClusterRoleBindings a
// cluster starts with (see the top of this file for what differs from
// upstream). Every call returns fresh values the caller may change.
func BootstrapPolicy() (roles []api.ClusterRole, bindings []api.ClusterRoleBinding) {
	roles = []api.ClusterRole{
		// The root role: anything, anywhere.
		clusterRole("cluster-admin", nil, []api.PolicyRule{
			rule(v("*"), g("*"), "*"),
			urls(v("*"), "*"),
		}),
		// Enough to check health and discover the API.
		clusterRole("system:discovery", nil, []api.PolicyRule{
			urls(v("get"), "/livez", "/readyz", "/healthz", "/version", "/version/",
				"/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"),
		}),
		// Enough for a user to learn about themselves (kubectl auth can-i).
		clusterRole("system:basic-user", nil, []api.PolicyRule{
			rule(v("create"), g(groupAuthz), "selfsubjectaccessreviews", "selfsubjectrulesreviews"),
		}),
		// What anyone, even unauthenticated, may read.
		clusterRole("system:public-info-viewer", nil, []api.PolicyRule{
			urls(v("get"), "/livez", "/readyz", "/healthz", "/version", "/version/"),
		}),
		clusterRole("admin", nil, concat(viewRules(), editRules(), adminRules())),
		clusterRole("edit", map[string]string{aggregateToAdminLabelKey: "true"}, concat(viewRules(), editRules())),
		clusterRole("view", map[string]string{aggregateToEditLabelKey: "true"}, viewRules()),
		clusterRole("system:node", nil, nodeRules()),
		clusterRole("system:node-proxier", nil, nodeProxierRules()),
		clusterRole("system:kube-scheduler", nil, schedulerRules()),
		clusterRole(controllerRoleName, nil, controllerManagerRules()),
	}
	bindings = []api.ClusterRoleBinding{
		clusterRoleBinding("cluster-admin", groupSubject(SystemPrivilegedGroup)),
		clusterRoleBinding("system:discovery", groupSubject(AllAuthenticated)),
		clusterRoleBinding("system:basic-user", groupSubject(AllAuthenticated)),
		clusterRoleBinding("system:public-info-viewer", groupSubject(AllAuthenticated), groupSubject(AllUnauthenticated)),
		clusterRoleBinding("system:node", groupSubject(NodesGroup)),
		clusterRoleBinding("system:node-proxier", userSubject(KubeProxyUser)),
		clusterRoleBinding("system:kube-scheduler", userSubject(KubeSchedulerUser)),
		clusterRoleBinding(controllerRoleName, userSubject(KubeControllerManagerUser)),
	}
	return roles, bindings
}
