package admission

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

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
	tokens := tokenFile{}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	for {
		record, err := r.Read()
		if errors.Is(err, io.EOF) {
			return tokens, nil
		}
		if err != nil {
			// csv.ParseError names the line and column already.
			return nil, fmt.Errorf("admission: token file: %w", err)
		}
		line, _ := r.FieldPos(0)
		if len(record) < 3 {
			return nil, fmt.Errorf("admission: token file line %d: must have at least 3 columns (token, user name, user uid), found %d", line, len(record))
		}
		if record[0] == "" {
			continue
		}
		u := pipeline.UserInfo{Name: record[1], UID: record[2]}
		if len(record) >= 4 && record[3] != "" {
			u.Groups = strings.Split(record[3], ",")
		}
		tokens[record[0]] = u
	}
}

// errUnauthorized is a credential that was offered and is not good: the
// request gets 401 rather than falling back to anonymous.
var errUnauthorized = errors.New("admission: invalid credentials")

// authenticate returns who sent r.
func (g *gate) authenticate(r *http.Request) (pipeline.UserInfo, error) {
	if u, ok := certificateUser(r); ok {
		return withAuthenticated(u), nil
	}
	// Only a bearer token is a credential here: another scheme (Basic),
	// or "Bearer" with nothing after it, offers none, and the anonymous
	// authenticator answers, as upstream's bearertoken authenticator
	// returns "no opinion" for them.
	if token, ok := bearerToken(r.Header.Get("Authorization")); ok {
		u, ok := g.tokens[token]
		if !ok {
			return pipeline.UserInfo{}, errUnauthorized
		}
		return withAuthenticated(u), nil
	}
	return pipeline.UserInfo{Name: pipeline.Anonymous, Groups: []string{pipeline.AllUnauthenticated}}, nil
}

// certificateUser reads the user from a client certificate the TLS
// server verified: the leaf's common name is the user, its organizations
// the groups. A certificate without a common name authenticates nobody.
func certificateUser(r *http.Request) (pipeline.UserInfo, bool) {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
		return pipeline.UserInfo{}, false
	}
	leaf := r.TLS.VerifiedChains[0][0]
	if leaf.Subject.CommonName == "" {
		return pipeline.UserInfo{}, false
	}
	return pipeline.UserInfo{Name: leaf.Subject.CommonName, Groups: slices.Clone(leaf.Subject.Organization)}, true
}

// bearerToken reads "Bearer <token>" (the scheme in any case), as
// upstream's bearertoken authenticator.
func bearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// withAuthenticated appends system:authenticated to an authenticated
// user's groups unless it is already there (or the user says it is
// unauthenticated), as upstream's AuthenticatedGroupAdder.
func withAuthenticated(u pipeline.UserInfo) pipeline.UserInfo {
	if slices.Contains(u.Groups, pipeline.AllAuthenticated) || slices.Contains(u.Groups, pipeline.AllUnauthenticated) {
		return u
	}
	u.Groups = append(slices.Clone(u.Groups), pipeline.AllAuthenticated)
	return u
}
