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
