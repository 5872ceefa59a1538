package admission

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/pipeline"
)

// Impersonation lets a user act as another (kubectl --as, --as-group):
// each thing asked for is a check of the verb "impersonate" on it, and
// only when all pass does the request go on as the new user
// (k8s.io/apiserver/pkg/endpoints/filters/impersonation/impersonation.go).

// actingAs is one thing a request asks to impersonate. Its fields are
// those of upstream's v1.ObjectReference, in its order, so that the 400
// for groups without a user prints the list as upstream does.
type actingAs struct {
	Kind, Namespace, Name, UID, APIVersion, ResourceVersion, FieldPath string
}

// authenticationGroupVersion is where upstream puts the impersonation of
// a UID and of extras (authentication.k8s.io/v1).
const authenticationGroupVersion = "authentication.k8s.io/v1"

// impersonationRequests reads the Impersonate-* headers: a user (or a
// ServiceAccount, by its user name), groups, extras and a uid. Groups,
// extras or a uid without a user is a 400.
func impersonationRequests(h http.Header) ([]actingAs, *api.Status) {
	var reqs []actingAs
	requested := h.Get(pipeline.ImpersonateUserHeader)
	if requested != "" {
		if ns, name, ok := splitServiceAccount(requested); ok {
			reqs = append(reqs, actingAs{Kind: "ServiceAccount", Namespace: ns, Name: name})
		} else {
			reqs = append(reqs, actingAs{Kind: "User", Name: requested})
		}
	}
	others := false
	for _, g := range h.Values(pipeline.ImpersonateGroupHeader) {
		others = true
		reqs = append(reqs, actingAs{Kind: "Group", Name: g})
	}
	// Extras in header order is map order; sorted, so that the checks
	// (and a refusal) do not change from one request to the next.
	var extraHeaders []string
	for name := range h {
		if strings.HasPrefix(name, pipeline.ImpersonateUserExtraPrefix) {
			extraHeaders = append(extraHeaders, name)
		}
	}
	sort.Strings(extraHeaders)
	for _, name := range extraHeaders {
		others = true
		key := strings.ToLower(name[len(pipeline.ImpersonateUserExtraPrefix):])
		if k, err := url.PathUnescape(key); err == nil {
			key = k
		}
		for _, v := range h[name] {
			reqs = append(reqs, actingAs{Kind: "UserExtra", APIVersion: authenticationGroupVersion, Name: v, FieldPath: key})
		}
	}
	if uid := h.Get(pipeline.ImpersonateUIDHeader); uid != "" {
		others = true
		reqs = append(reqs, actingAs{Kind: "UID", APIVersion: authenticationGroupVersion, Name: uid})
	}
	if others && requested == "" {
		return nil, badRequest(fmt.Sprintf("requested %v without impersonating a user", reqs))
	}
	return reqs, nil
}

// splitServiceAccount reads system:serviceaccount:<ns>:<name>.
func splitServiceAccount(user string) (ns, name string, ok bool) {
	rest, ok := strings.CutPrefix(user, pipeline.ServiceAccountUserPrefix)
	if !ok {
		return "", "", false
	}
	ns, name, ok = strings.Cut(rest, ":")
	if !ok || ns == "" || name == "" || strings.Contains(name, ":") {
		return "", "", false
	}
	return ns, name, true
}

// impersonate checks every impersonation r asks for as who, and returns
// the user the request goes on as: who itself when it asks for none.
func (g *gate) impersonate(ctx context.Context, r *http.Request, who pipeline.UserInfo) (pipeline.UserInfo, bool, *api.Status) {
	reqs, st := impersonationRequests(r.Header)
	if st != nil {
		return pipeline.UserInfo{}, false, st
	}
	if len(reqs) == 0 {
		return who, false, nil
	}
	groupsGiven := len(r.Header.Values(pipeline.ImpersonateGroupHeader)) > 0
	var as pipeline.UserInfo
	for _, req := range reqs {
		check := pipeline.Attributes{User: who, RequestInfo: pipeline.RequestInfo{
			IsResourceRequest: true, Verb: "impersonate", Namespace: req.Namespace, Name: req.Name,
		}}
		switch req.Kind {
		case "ServiceAccount":
			check.Resource = "serviceaccounts"
			check.APIVersion = "v1"
			as.Name = pipeline.ServiceAccountUserPrefix + req.Namespace + ":" + req.Name
			if !groupsGiven {
				// A ServiceAccount's groups are fixed: add them.
				as.Groups = []string{pipeline.ServiceAccountsGroup, pipeline.ServiceAccountsGroup + ":" + req.Namespace}
			}
		case "User":
			check.Resource = "users"
			check.APIVersion = "v1"
			as.Name = req.Name
		case "Group":
			check.Resource = "groups"
			check.APIVersion = "v1"
			as.Groups = append(as.Groups, req.Name)
		case "UserExtra":
			check.APIGroup, check.APIVersion = "authentication.k8s.io", "v1"
			check.Resource, check.Subresource = "userextras", req.FieldPath
			if as.Extra == nil {
				as.Extra = map[string][]string{}
			}
			as.Extra[req.FieldPath] = append(as.Extra[req.FieldPath], req.Name)
		case "UID":
			check.APIGroup, check.APIVersion = "authentication.k8s.io", "v1"
			check.Resource = "uids"
			as.UID = req.Name
		}
		d, err := g.authorize(ctx, check)
		if err != nil || !d.Allowed {
			return pipeline.UserInfo{}, false, denied(check, d.Reason)
		}
	}
	as.Groups = withImpersonatedGroup(as.Name, as.Groups)
	return as, true, nil
}

// withImpersonatedGroup adds system:authenticated to an impersonated
// user's groups (system:unauthenticated for system:anonymous), unless
// the groups asked for say so already.
func withImpersonatedGroup(name string, groups []string) []string {
	if name == pipeline.Anonymous {
		for _, g := range groups {
			if g == pipeline.AllUnauthenticated {
				return groups
			}
		}
		return append(groups, pipeline.AllUnauthenticated)
	}
	for _, g := range groups {
		if g == pipeline.AllAuthenticated || g == pipeline.AllUnauthenticated {
			return groups
		}
	}
	return append(groups, pipeline.AllAuthenticated)
}

// dropImpersonationHeaders removes the headers once they were honoured:
// what comes after sees the new user, never the request for it.
func dropImpersonationHeaders(h http.Header) {
	h.Del(pipeline.ImpersonateUserHeader)
	h.Del(pipeline.ImpersonateGroupHeader)
	h.Del(pipeline.ImpersonateUIDHeader)
	for name := range h {
		if strings.HasPrefix(name, pipeline.ImpersonateUserExtraPrefix) {
			h.Del(name)
		}
	}
}
