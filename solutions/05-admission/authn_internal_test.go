package admission

import (
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTokens(t *testing.T) {
	tokens, err := parseTokens([]byte("t1,alice,u1\n" +
		"t2, bob ,u2,\"dev,qa\"\n" + // a space after a comma is trimmed, not one inside a field
		",nobody,u0\n" + // an empty token is skipped
		"t1,alice2,u3\n")) // a later duplicate wins
	require.NoError(t, err)
	assert.Equal(t, pipeline.UserInfo{Name: "alice2", UID: "u3"}, tokens["t1"], `parseTokens: tokens["t1"]`)
	assert.Equal(t, pipeline.UserInfo{Name: "bob ", UID: "u2", Groups: []string{"dev", "qa"}}, tokens["t2"], `parseTokens: tokens["t2"]`)
	assert.NotContains(t, tokens, "", "parseTokens: an empty token must not authenticate")
	assert.Len(t, tokens, 2, "parseTokens: tokens")

	empty, err := parseTokens(nil)
	require.NoError(t, err, "parseTokens(nil)")
	assert.Empty(t, empty, "parseTokens(nil)")

	for _, tc := range []struct{ file, want string }{
		{"t1,alice,u1\nt2,bob\n", "line 2"},
		{"t1\n", "line 1"},
		{"t1,alice,u1\n\"t2,bob,u2\n", "line 2"}, // an unterminated quote
	} {
		_, err := parseTokens([]byte(tc.file))
		if assert.Error(t, err, "parseTokens(%q)", tc.file) {
			assert.Contains(t, err.Error(), tc.want, "parseTokens(%q): the error must name the line", tc.file)
			assert.True(t, strings.HasPrefix(err.Error(), "admission: "), "parseTokens(%q) = %q, want the package prefix", tc.file, err)
		}
	}
}

func TestBearerToken(t *testing.T) {
	for _, tc := range []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"Basic YWxpY2U6cHc=", "", false},
		{"Bearer ", "", false},
		{"Bearer", "", false},
	} {
		token, ok := bearerToken(tc.header)
		assert.Equal(t, tc.ok, ok, "bearerToken(%q) ok", tc.header)
		assert.Equal(t, tc.token, token, "bearerToken(%q) token", tc.header)
	}
}

func TestWithAuthenticatedOnce(t *testing.T) {
	u := withAuthenticated(pipeline.UserInfo{Name: "a", Groups: []string{pipeline.AllAuthenticated, "g"}})
	assert.Equal(t, []string{pipeline.AllAuthenticated, "g"}, u.Groups, "withAuthenticated: groups that have it already")
	groups := []string{"g"}
	u = withAuthenticated(pipeline.UserInfo{Name: "a", Groups: groups})
	assert.Equal(t, []string{"g", pipeline.AllAuthenticated}, u.Groups, "withAuthenticated: groups")
	assert.Equal(t, []string{"g"}, groups, "withAuthenticated must not change the caller's slice")
}
