package api

// The rbac.authorization.k8s.io/v1 kinds: Role, ClusterRole, RoleBinding
// and ClusterRoleBinding.

// Wildcards and subject kinds of RBAC.
const (
	VerbAll            = "*"
	APIGroupAll        = "*"
	ResourceAll        = "*"
	NonResourceAll     = "*"
	GroupKind          = "Group"
	ServiceAccountKind = "ServiceAccount"
	UserKind           = "User"
	RBACGroupName      = "rbac.authorization.k8s.io"
)

// PolicyRule allows verbs on resources (or non-resource URLs).
type PolicyRule struct {
	Verbs           []string `json:"verbs"`
	APIGroups       []string `json:"apiGroups,omitempty"`
	Resources       []string `json:"resources,omitempty"`
	ResourceNames   []string `json:"resourceNames,omitempty"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

// Subject is who a binding grants to: a User, Group or ServiceAccount.
type Subject struct {
	Kind      string `json:"kind"`
	APIGroup  string `json:"apiGroup,omitempty"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// RoleRef names the Role or ClusterRole a binding grants.
type RoleRef struct {
	APIGroup string `json:"apiGroup"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
}

// Role is a namespaced set of rules.
type Role struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Rules      []PolicyRule `json:"rules"`
}

// ClusterRole is a cluster-wide set of rules.
type ClusterRole struct {
	TypeMeta        `json:",inline"`
	ObjectMeta      `json:"metadata,omitempty"`
	Rules           []PolicyRule     `json:"rules"`
	AggregationRule *AggregationRule `json:"aggregationRule,omitempty"`
}

// AggregationRule builds a ClusterRole's rules from other ClusterRoles.
type AggregationRule struct {
	ClusterRoleSelectors []LabelSelector `json:"clusterRoleSelectors,omitempty"`
}

// RoleBinding grants a Role (or a ClusterRole) within one namespace.
type RoleBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Subjects   []Subject `json:"subjects,omitempty"`
	RoleRef    RoleRef   `json:"roleRef"`
}

// ClusterRoleBinding grants a ClusterRole cluster-wide.
type ClusterRoleBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Subjects   []Subject `json:"subjects,omitempty"`
	RoleRef    RoleRef   `json:"roleRef"`
}
