package client

import (
	"context"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
)

// A generated name that is taken is generated again, up to 8 tries, as
// the apiserver's store does; the ninth collision is AlreadyExists.
func TestFakeGenerateNameRetries(t *testing.T) {
	defer func(f func() string) { nameSuffix = f }(nameSuffix)
	ctx := context.Background()
	f := NewFake()
	for _, name := range []string{"web-aaaaa", "web-bbbbb"} {
		if _, err := f.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}}); err != nil {
			t.Fatalf("Create(%s) = %v", name, err)
		}
	}
	suffixes := []string{"aaaaa", "bbbbb", "ccccc"}
	nameSuffix = func() string { s := suffixes[0]; suffixes = suffixes[1:]; return s }
	got, err := f.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{GenerateName: "web-", Namespace: "default"}})
	if err != nil || got.GetObjectMeta().Name != "web-ccccc" {
		t.Fatalf("Create(generateName web-) with web-aaaaa and web-bbbbb taken = %v, %v, want web-ccccc", got, err)
	}
	nameSuffix = func() string { return "aaaaa" }
	if _, err := f.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{GenerateName: "web-", Namespace: "default"}}); !IsAlreadyExists(err) {
		t.Fatalf("Create(generateName web-) when every try is taken = %v, want AlreadyExists", err)
	}
}
