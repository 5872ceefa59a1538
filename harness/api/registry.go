package api

import (
	"reflect"
	"slices"
	"strings"
)

// Object is implemented by a pointer to every registered kind (*Pod,
// *Node, ...): through the embedded TypeMeta and ObjectMeta.
type Object interface {
	GetObjectMeta() *ObjectMeta
	GetTypeMeta() *TypeMeta
}

// API groups served here. The core group is the empty string.
const (
	GroupCore         = ""
	GroupApps         = "apps"
	GroupBatch        = "batch"
	GroupRBAC         = "rbac.authorization.k8s.io"
	GroupCoordination = "coordination.k8s.io"
	GroupDiscovery    = "discovery.k8s.io"
)

// Kind describes one registered kind: its group, version and kind, the
// REST resource that serves it, and how to make a new one.
type Kind struct {
	Group    string // "" for the core group, "apps", ...
	Version  string // "v1"
	Kind     string // "Deployment"
	Resource string // the plural in URLs: "deployments"
	// Singular is the lower-case singular name ("deployment").
	Singular string
	// ShortNames are kubectl's abbreviations ("deploy"), as upstream.
	ShortNames []string
	// Namespaced is false for cluster-scoped kinds (Node, Namespace, ...).
	Namespaced bool
	// Subresources served besides the object itself: "status" for kinds
	// with a status, "binding" for pods, "scale" for kinds with replicas.
	Subresources []string
	// Verbs the resource supports, as discovery lists them.
	Verbs []string
	// Categories, such as "all" for kubectl get all.
	Categories []string
	// New returns a new empty object with its TypeMeta set.
	New func() Object
}

// APIVersion returns "v1" for the core group, else "group/version".
func (k Kind) APIVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// ListKind returns the kind of the kind's list: "PodList".
func (k Kind) ListKind() string { return k.Kind + "List" }

// HasSubresource reports whether k serves the named subresource.
func (k Kind) HasSubresource(name string) bool { return slices.Contains(k.Subresources, name) }

var (
	allVerbs   = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	createOnly = []string{"create"}
	statusOnly = []string{"status"}
)

// newOf returns a constructor that sets TypeMeta on a new T.
func newOf[T any, P interface {
	*T
	Object
}](apiVersion, kind string) func() Object {
	return func() Object {
		p := P(new(T))
		*p.GetTypeMeta() = TypeMeta{APIVersion: apiVersion, Kind: kind}
		return p
	}
}

// kind builds a registry entry; the constructor's TypeMeta comes from it.
func kind[T any, P interface {
	*T
	Object
}](k Kind) Kind {
	k.Singular = strings.ToLower(k.Kind)
	k.New = newOf[T, P](k.APIVersion(), k.Kind)
	return k
}

// kinds is the registry, in the order discovery lists them.
var kinds = []Kind{
	kind[Pod](Kind{Version: "v1", Kind: "Pod", Resource: "pods", ShortNames: []string{"po"}, Namespaced: true,
		Subresources: []string{"status", "binding"}, Verbs: allVerbs, Categories: []string{"all"}}),
	kind[Binding](Kind{Version: "v1", Kind: "Binding", Resource: "bindings", Namespaced: true, Verbs: createOnly}),
	kind[Node](Kind{Version: "v1", Kind: "Node", Resource: "nodes", ShortNames: []string{"no"}, Subresources: statusOnly, Verbs: allVerbs}),
	kind[Namespace](Kind{Version: "v1", Kind: "Namespace", Resource: "namespaces", ShortNames: []string{"ns"}, Subresources: []string{"status", "finalize"},
		Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"}}),
	kind[Service](Kind{Version: "v1", Kind: "Service", Resource: "services", ShortNames: []string{"svc"}, Namespaced: true,
		Subresources: statusOnly, Verbs: allVerbs, Categories: []string{"all"}}),
	kind[ServiceAccount](Kind{Version: "v1", Kind: "ServiceAccount", Resource: "serviceaccounts", ShortNames: []string{"sa"}, Namespaced: true, Verbs: allVerbs}),
	kind[LimitRange](Kind{Version: "v1", Kind: "LimitRange", Resource: "limitranges", ShortNames: []string{"limits"}, Namespaced: true, Verbs: allVerbs}),
	kind[ResourceQuota](Kind{Version: "v1", Kind: "ResourceQuota", Resource: "resourcequotas", ShortNames: []string{"quota"}, Namespaced: true,
		Subresources: statusOnly, Verbs: allVerbs}),
	kind[ConfigMap](Kind{Version: "v1", Kind: "ConfigMap", Resource: "configmaps", ShortNames: []string{"cm"}, Namespaced: true, Verbs: allVerbs}),
	kind[Secret](Kind{Version: "v1", Kind: "Secret", Resource: "secrets", Namespaced: true, Verbs: allVerbs}),
	kind[Event](Kind{Version: "v1", Kind: "Event", Resource: "events", ShortNames: []string{"ev"}, Namespaced: true, Verbs: allVerbs}),
	kind[Deployment](Kind{Group: GroupApps, Version: "v1", Kind: "Deployment", Resource: "deployments", ShortNames: []string{"deploy"}, Namespaced: true,
		Subresources: []string{"status", "scale"}, Verbs: allVerbs, Categories: []string{"all"}}),
	kind[ReplicaSet](Kind{Group: GroupApps, Version: "v1", Kind: "ReplicaSet", Resource: "replicasets", ShortNames: []string{"rs"}, Namespaced: true,
		Subresources: []string{"status", "scale"}, Verbs: allVerbs, Categories: []string{"all"}}),
	kind[Job](Kind{Group: GroupBatch, Version: "v1", Kind: "Job", Resource: "jobs", Namespaced: true,
		Subresources: statusOnly, Verbs: allVerbs, Categories: []string{"all"}}),
	kind[Lease](Kind{Group: GroupCoordination, Version: "v1", Kind: "Lease", Resource: "leases", Namespaced: true, Verbs: allVerbs}),
	kind[EndpointSlice](Kind{Group: GroupDiscovery, Version: "v1", Kind: "EndpointSlice", Resource: "endpointslices", Namespaced: true, Verbs: allVerbs}),
	kind[Role](Kind{Group: GroupRBAC, Version: "v1", Kind: "Role", Resource: "roles", Namespaced: true, Verbs: allVerbs}),
	kind[RoleBinding](Kind{Group: GroupRBAC, Version: "v1", Kind: "RoleBinding", Resource: "rolebindings", Namespaced: true, Verbs: allVerbs}),
	kind[ClusterRole](Kind{Group: GroupRBAC, Version: "v1", Kind: "ClusterRole", Resource: "clusterroles", Verbs: allVerbs}),
	kind[ClusterRoleBinding](Kind{Group: GroupRBAC, Version: "v1", Kind: "ClusterRoleBinding", Resource: "clusterrolebindings", Verbs: allVerbs}),
}

var (
	byAPIVersionKind = map[[2]string]int{}
	byResource       = map[[3]string]int{}
	byType           = map[reflect.Type]int{}
)

func init() {
	for i, k := range kinds {
		byAPIVersionKind[[2]string{k.APIVersion(), k.Kind}] = i
		byResource[[3]string{k.Group, k.Version, k.Resource}] = i
		byType[reflect.TypeOf(k.New())] = i
	}
}

// Kinds returns every registered kind, core group first. The slice is a
// copy; the caller may keep or change it.
func Kinds() []Kind {
	out := make([]Kind, len(kinds))
	for i, k := range kinds {
		out[i] = k.clone()
	}
	return out
}

// clone copies k's slices so that callers cannot change the registry.
func (k Kind) clone() Kind {
	k.ShortNames = slices.Clone(k.ShortNames)
	k.Subresources = slices.Clone(k.Subresources)
	k.Verbs = slices.Clone(k.Verbs)
	k.Categories = slices.Clone(k.Categories)
	return k
}

// LookupKind finds a kind by apiVersion ("v1", "apps/v1") and kind ("Pod").
func LookupKind(apiVersion, kind string) (Kind, bool) {
	i, ok := byAPIVersionKind[[2]string{apiVersion, kind}]
	if !ok {
		return Kind{}, false
	}
	return kinds[i].clone(), true
}

// LookupResource finds a kind by its URL coordinates: group ("" for core),
// version and plural resource ("pods").
func LookupResource(group, version, resource string) (Kind, bool) {
	i, ok := byResource[[3]string{group, version, resource}]
	if !ok {
		return Kind{}, false
	}
	return kinds[i].clone(), true
}

// KindOf returns the registered kind of obj's Go type, whatever its
// TypeMeta says.
func KindOf(obj Object) (Kind, bool) {
	if isNil(obj) {
		return Kind{}, false
	}
	i, ok := byType[reflect.TypeOf(obj)]
	if !ok {
		return Kind{}, false
	}
	return kinds[i].clone(), true
}

// ResolveResource finds a kind by what a user types after "kubectl get":
// a plural ("pods"), a singular ("pod"), a short name ("po") or a kind
// ("Pod"), case-insensitively, optionally qualified by group
// ("deployments.apps").
func ResolveResource(name string) (Kind, bool) {
	name = strings.ToLower(name)
	for pass := 0; pass < 2; pass++ {
		for _, k := range kinds {
			n := name
			if pass == 1 {
				// Qualified: the name must end with ".group".
				if k.Group == "" || !strings.HasSuffix(name, "."+k.Group) {
					continue
				}
				n = strings.TrimSuffix(name, "."+k.Group)
			}
			if n == k.Resource || n == k.Singular || n == strings.ToLower(k.Kind) {
				return k.clone(), true
			}
			for _, s := range k.ShortNames {
				if n == s {
					return k.clone(), true
				}
			}
		}
	}
	return Kind{}, false
}

// SetTypeMeta fills obj's apiVersion and kind from the registry and
// reports whether its type is registered.
func SetTypeMeta(obj Object) bool {
	k, ok := KindOf(obj)
	if ok {
		*obj.GetTypeMeta() = TypeMeta{APIVersion: k.APIVersion(), Kind: k.Kind}
	}
	return ok
}
