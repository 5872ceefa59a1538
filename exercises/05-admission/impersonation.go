package admission

import (
	"context"
	"net/http"
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
	// TODO: read the Impersonate-User (a ServiceAccount when it is system:serviceaccount:<ns>:<name>), Impersonate-Group, Impersonate-Extra-* and Impersonate-Uid headers; groups, extras or a uid without a user are a 400 BadRequest.
	panic("not implemented: impersonationRequests")
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
	// TODO: authorize every impersonation r asks for as the verb impersonate for who (users and groups in the core group, uids and userextras in authentication.k8s.io, serviceaccounts in their namespace) and return the user the request goes on as, and whether it changed; a denial is the 403 of that check.
	panic("not implemented: impersonate")
}

// withImpersonatedGroup adds system:authenticated to an impersonated
// user's groups (system:unauthenticated for system:anonymous), unless
// the groups asked for say so already.
func withImpersonatedGroup(name string, groups []string) []string {
	// TODO: append system:authenticated (system:unauthenticated for system:anonymous) unless the groups asked for name it already.
	panic("not implemented: withImpersonatedGroup")
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
