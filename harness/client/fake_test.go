package client_test

import (
	"context"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/client/clienttest"
)

func TestFake(t *testing.T) {
	clienttest.Run(t, func(t *testing.T) client.Interface { return client.NewFake() })
}

func TestFakeWatchExpired(t *testing.T) {
	ctx := context.Background()
	f := client.NewFake()
	pods := client.For[*api.Pod](f)
	for _, n := range []string{"a", "b", "c"} {
		if _, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: n}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Store().Compact(ctx, 3); err != nil {
		t.Fatal(err)
	}
	w, err := pods.Watch(ctx, "default", client.ListOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev := <-w.ResultChan()
	if ev.Type != api.WatchError || !client.IsGone(ev.Status) {
		t.Fatalf("Watch(rv 1) after Compact(3): first event %s %v, want ERROR with 410 Expired", ev.Type, ev.Status)
	}
}

func TestSelectorParse(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a=b", "a=b"},
		{"a==b,c!=d", "a=b,c!=d"},
		{"env in (b, a),!x, y", "env in (a,b),!x,y"},
		{"", ""},
	} {
		s, err := client.ParseSelector(c.in)
		if err != nil || s.String() != c.want {
			t.Errorf("ParseSelector(%q) = %q, %v; want %q", c.in, s.String(), err, c.want)
		}
	}
	for _, bad := range []string{"a in b", "=b", "a,", "a in (b"} {
		if _, err := client.ParseSelector(bad); err == nil {
			t.Errorf("ParseSelector(%q) = nil error, want one", bad)
		}
	}
	s, _ := client.ParseSelector("app=web,tier notin (db)")
	if !s.MatchesLabels(map[string]string{"app": "web"}) || s.MatchesLabels(map[string]string{"app": "web", "tier": "db"}) {
		t.Errorf("%q matched wrongly", s)
	}
}
