package client_test

import (
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/client"
)

func TestSelectorParseAndMatch(t *testing.T) {
	web := map[string]string{"app": "web", "replicas": "3"}
	for _, c := range []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"app=web", true},
		{"app==web,replicas>2", true},
		{"app=web,replicas<3", false},
		{"env in (b, a),!x", false},
		{"env notin (a),!x", true},
		{"app\tin\n(web,db)", true},
		{"app!=web", false},
		{"tier!=db", true},
		{"missing>1", false},
	} {
		s, err := client.ParseSelector(c.sel)
		if err != nil {
			t.Errorf("ParseSelector(%q) = %v", c.sel, err)
			continue
		}
		if got := s.MatchesLabels(web); got != c.want {
			t.Errorf("ParseSelector(%q).MatchesLabels(%v) = %v, want %v", c.sel, web, got, c.want)
		}
		if got := s.Empty(); got != (c.sel == "") {
			t.Errorf("ParseSelector(%q).Empty() = %v", c.sel, got)
		}
	}
}

// The harness's old parser accepted invalid keys and values; upstream's
// rejects them with its words.
func TestSelectorParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"-a=web", "client: found '-a', invalid label key: name part must consist of"},
		{"app=web/1", "client: found 'web/1', invalid label value: a valid label must be"},
		{"a in b", "client: found 'b', expected: '('"},
		{"a,", "client: found end of string, expected: identifier after ','"},
		{"=b", "client: found '=', expected: identifier"},
		{"a>b", "client: found 'b', for 'Gt', 'Lt' operators, the value must be an integer"},
		{"a in (b", "client: found end of string, expected: ',', ')' or identifier"},
	} {
		_, err := client.ParseSelector(c.in)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ParseSelector(%q) error = %v, want one starting %q", c.in, err, c.want)
		}
	}
}

func TestFieldSelector(t *testing.T) {
	get := func(k string) (string, bool) {
		return map[string]string{"spec.nodeName": "node-1", "status.phase": "Running"}[k], true
	}
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"", true},
		{"spec.nodeName=node-1", true},
		{"spec.nodeName==node-1,status.phase!=Pending", true},
		{"spec.nodeName=", false},
		{"status.phase!=Running", false},
	} {
		s, err := client.ParseFieldSelector(c.in)
		if err != nil {
			t.Errorf("ParseFieldSelector(%q) = %v", c.in, err)
			continue
		}
		if got := s.Matches(get); got != c.want {
			t.Errorf("ParseFieldSelector(%q).Matches = %v, want %v", c.in, got, c.want)
		}
	}
	if s, _ := client.ParseFieldSelector("a=b!=c"); len(s) != 1 || s[0].Key != "a" || s[0].Op != "=" || s[0].Values[0] != "b!=c" {
		t.Errorf("ParseFieldSelector(%q) = %+v, want a = \"b!=c\"", "a=b!=c", s)
	}
	if _, err := client.ParseFieldSelector("spec.nodeName"); err == nil {
		t.Errorf("ParseFieldSelector(%q) = nil error, want one", "spec.nodeName")
	}
}
