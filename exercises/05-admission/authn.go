package admission

import (
	"errors"
	"net/http"

	"github.com/kubekata/kubekata/harness/pipeline"
)

// Authentication says who sent a request, from the first of: a client
// certificate the server verified against the cluster CA
// (k8s.io/apiserver/pkg/authentication/request/x509), a bearer token in
// the static token file (.../plugin/pkg/authenticator/token/tokenfile),
// or nobody, who is system:anonymous (.../request/anonymous).

// tokenFile maps a token to its user.
type tokenFile map[string]pipeline.UserInfo

// parseTokens reads the static token file: CSV records
// token,user,uid[,"group1,group2"]. A record with fewer than three
// columns is an error naming its line; a record with an empty token is
// skipped and a later duplicate of a token wins, as upstream (which only
// logs both).
func parseTokens(data []byte) (tokenFile, error) {
	// TODO: read the CSV records token,user,uid[,"group1,group2"]; a record with fewer than three columns, or CSV that does not parse, is an error that names its line; skip a record with an empty token.
	panic("not implemented: parseTokens")
}

// errUnauthorized is a credential that was offered and is not good: the
// request gets 401 rather than falling back to anonymous.
var errUnauthorized = errors.New("admission: invalid credentials")

// authenticate returns who sent r.
func (g *gate) authenticate(r *http.Request) (pipeline.UserInfo, error) {
	// TODO: return the user of a verified client certificate, else of a bearer token (errUnauthorized when g.tokens does not hold it), else system:anonymous in system:unauthenticated; authenticated users get system:authenticated.
	panic("not implemented: authenticate")
}

// certificateUser reads the user from a client certificate the TLS
// server verified: the leaf's common name is the user, its organizations
// the groups. A certificate without a common name authenticates nobody.
func certificateUser(r *http.Request) (pipeline.UserInfo, bool) {
	// TODO: when the TLS server verified a client certificate (r.TLS.VerifiedChains is not empty), return the leaf's subject: common name as the user, organizations as the groups.
	panic("not implemented: certificateUser")
}

// bearerToken reads "Bearer <token>" (the scheme in any case), as
// upstream's bearertoken authenticator.
func bearerToken(h string) (string, bool) {
	// TODO: return the token of "Bearer <token>" (the scheme in any case), and false for any other header or an empty token.
	panic("not implemented: bearerToken")
}

// withAuthenticated appends system:authenticated to an authenticated
// user's groups unless it is already there (or the user says it is
// unauthenticated), as upstream's AuthenticatedGroupAdder.
func withAuthenticated(u pipeline.UserInfo) pipeline.UserInfo {
	// TODO: append system:authenticated to the user's groups, unless it (or system:unauthenticated) is there already.
	panic("not implemented: withAuthenticated")
}
