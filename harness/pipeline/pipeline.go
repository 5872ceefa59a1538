package pipeline

import (
	"context"
	"slices"
	"sync"

	"github.com/kubekata/kubekata/harness/storage"
)

// RequestInfo is what a request asks for, read from its method and path
// alone (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go).
//
// For a resource request (/api/v1/..., /apis/{group}/{version}/...) Verb
// is one of get, list, watch, create, update, patch, delete and
// deletecollection, and the other fields name the resource. Any other
// path (/healthz, /version, /api, /apis, /openapi/v3) is a non-resource
// request: IsResourceRequest is false, Verb is the lower-case HTTP method
// ("get", "post", ...) and only Path is set besides.
type RequestInfo struct {
	IsResourceRequest bool   `json:"isResourceRequest"`
	Path              string `json:"path"`
	Verb              string `json:"verb"`
	APIPrefix         string `json:"apiPrefix,omitempty"`
	APIGroup          string `json:"apiGroup,omitempty"`
	APIVersion        string `json:"apiVersion,omitempty"`
	Namespace         string `json:"namespace,omitempty"`
	Resource          string `json:"resource,omitempty"`
	Subresource       string `json:"subresource,omitempty"`
	Name              string `json:"name,omitempty"`
	// Parts are the path's segments after the group version (after
	// namespaces/{ns} when present): ["pods", "web", "status"].
	Parts []string `json:"parts,omitempty"`
}

// UserInfo is who a request comes from
// (k8s.io/apiserver/pkg/authentication/user/user.go).
type UserInfo struct {
	Name   string              `json:"username"`
	UID    string              `json:"uid,omitempty"`
	Groups []string            `json:"groups,omitempty"`
	Extra  map[string][]string `json:"extra,omitempty"`
}

// Attributes are what authorization decides on: who, and what they ask
// (k8s.io/apiserver/pkg/authorization/authorizer/interfaces.go). For a
// check that is not the request itself (impersonation, a
// SelfSubjectAccessReview) the RequestInfo fields say what is checked:
// Verb "impersonate" on Resource "users" named "bob", say.
type Attributes struct {
	User UserInfo `json:"user"`
	RequestInfo
}

// Decision is an authorizer's answer. Reason says why, when there is
// something to say (a binding that names a missing role, say); upstream
// appends it to the 403's message after ": ".
type Decision struct {
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitempty"`
}

// Authorizer decides whether the attributes are allowed. An error is a
// failure to decide (the store failed), never a denial.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (Decision, error)
}

// Users and groups upstream names (k8s.io/apiserver/pkg/authentication/user).
const (
	Anonymous          = "system:anonymous"
	AllUnauthenticated = "system:unauthenticated"
	AllAuthenticated   = "system:authenticated"
	// SystemPrivilegedGroup may do anything: upstream's apiserver puts
	// an authorizer that allows it in front of RBAC.
	SystemPrivilegedGroup = "system:masters"
	NodesGroup            = "system:nodes"
	// NodeUserPrefix starts a kubelet's user name: system:node:node-1.
	NodeUserPrefix = "system:node:"
	// ServiceAccountUserPrefix starts a ServiceAccount's user name:
	// system:serviceaccount:<namespace>:<name>.
	ServiceAccountUserPrefix    = "system:serviceaccount:"
	ServiceAccountsGroup        = "system:serviceaccounts"
	KubeSchedulerUser           = "system:kube-scheduler"
	KubeControllerManagerUser   = "system:kube-controller-manager"
	KubeProxyUser               = "system:kube-proxy"
	APIServerUser               = "system:apiserver"
	ImpersonateUserHeader       = "Impersonate-User"
	ImpersonateGroupHeader      = "Impersonate-Group"
	ImpersonateUIDHeader        = "Impersonate-Uid"
	ImpersonateUserExtraPrefix  = "Impersonate-Extra-"
	SelfSubjectAccessReviewPath = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
)

// PolicyDenyLatestTag names the validating policy that refuses a pod
// (or a pod template) with a container image whose tag is "latest" or
// missing. Config.Policies turns it on.
const PolicyDenyLatestTag = "deny-latest-tag"

// Config is what a pipeline is built from.
type Config struct {
	// Store is the cluster's store. The pipeline reads Roles,
	// ClusterRoles, their bindings, Namespaces, LimitRanges,
	// ResourceQuotas and the object a write replaces from it, and writes
	// a quota's usage (its status.used) back.
	Store storage.Store
	// Tokens is the static token file (upstream's --token-auth-file):
	// one CSV record per line, token,user,uid[,"group1,group2"]. Empty:
	// no token authenticates.
	Tokens []byte
	// Policies names the validating policies to enforce
	// (PolicyDenyLatestTag).
	Policies []string
}

type userKey struct{}
type infoKey struct{}
type recordKey struct{}

// WithUser returns ctx carrying u for the handlers after the chain, and
// tells the request's audit Record, if it carries one.
func WithUser(ctx context.Context, u UserInfo) context.Context {
	if rec, ok := ctx.Value(recordKey{}).(*Record); ok {
		rec.setUser(u)
	}
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user WithUser put in ctx.
func UserFrom(ctx context.Context) (UserInfo, bool) {
	u, ok := ctx.Value(userKey{}).(UserInfo)
	return u, ok
}

// WithRequestInfo returns ctx carrying info, and tells the request's
// audit Record, if it carries one.
func WithRequestInfo(ctx context.Context, info RequestInfo) context.Context {
	if rec, ok := ctx.Value(recordKey{}).(*Record); ok {
		rec.setInfo(info)
	}
	return context.WithValue(ctx, infoKey{}, info)
}

// RequestInfoFrom returns the RequestInfo WithRequestInfo put in ctx.
func RequestInfoFrom(ctx context.Context) (RequestInfo, bool) {
	info, ok := ctx.Value(infoKey{}).(RequestInfo)
	return info, ok
}

// Record is what an audit log learns of a request from the chain. The
// cluster puts one in every request's context (WithRecord) before the
// pipeline runs, and reads it once the response is written.
type Record struct {
	mu           sync.Mutex
	user         *UserInfo
	impersonated *UserInfo
	info         *RequestInfo
}

// WithRecord returns ctx carrying a fresh Record, and the Record.
func WithRecord(ctx context.Context) (context.Context, *Record) {
	rec := &Record{}
	return context.WithValue(ctx, recordKey{}, rec), rec
}

func (r *Record) setUser(u UserInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u.Groups = slices.Clone(u.Groups)
	switch {
	case r.user == nil:
		r.user = &u
	case r.user.Name != u.Name || !slices.Equal(r.user.Groups, u.Groups):
		r.impersonated = &u
	}
}

func (r *Record) setInfo(info RequestInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.info = &info
}

// User returns who authenticated, and whom they impersonated (nil when
// nobody), as the chain said.
func (r *Record) User() (user, impersonated *UserInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.user, r.impersonated
}

// RequestInfo returns the RequestInfo the chain said, nil if none.
func (r *Record) RequestInfo() *RequestInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.info
}
