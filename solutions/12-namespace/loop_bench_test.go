package namespace

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/namespaces"
)

// The size of the namespace the benchmark empties.
const (
	benchPods       = 1000
	benchConfigMaps = 100
)

// fillNamespace creates namespace name on c with benchPods pods (no
// node: each goes at its delete) and benchConfigMaps ConfigMaps.
func fillNamespace(b *testing.B, c client.Interface, name string) {
	b.Helper()
	ctx := context.Background()
	objs := []api.Object{newNamespace(name)}
	for i := range benchPods {
		objs = append(objs, newPod(name, fmt.Sprintf("web-%04d", i)))
	}
	for i := range benchConfigMaps {
		objs = append(objs, newConfigMap(name, fmt.Sprintf("settings-%03d", i)))
	}
	for _, o := range objs {
		if _, err := c.Create(ctx, o); err != nil {
			b.Fatalf("Create(%T %s) = %v", o, o.GetObjectMeta().Name, err)
		}
	}
}

// deleteAndWait deletes namespace name on c and returns once a watch
// shows it gone.
func deleteAndWait(b *testing.B, c client.Interface, name string) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns, err := c.Get(ctx, namespaceKind, "", name)
	if err != nil {
		b.Fatal(err)
	}
	w, err := c.Watch(ctx, namespaceKind, "", client.ListOptions{ResourceVersion: ns.GetObjectMeta().ResourceVersion})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	if err := c.Delete(ctx, namespaceKind, "", name, client.DeleteOptions{}); err != nil {
		b.Fatal(err)
	}
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				b.Fatalf("the watch of namespaces ended before %s was gone", name)
			}
			if ev.Type == api.WatchDeleted && ev.Object.GetObjectMeta().Name == name {
				return
			}
		case <-ctx.Done():
			b.Fatalf("namespace %s not gone within a minute", name)
		}
	}
}

// emptyDirectly is what the controller does, written by hand with no
// informer, queue, Sweep or conditions: mark the namespace deleted, list
// and delete each pod and ConfigMap, finalize.
func emptyDirectly(b *testing.B, c client.Interface, name string) {
	b.Helper()
	ctx := context.Background()
	if err := c.Delete(ctx, namespaceKind, "", name, client.DeleteOptions{}); err != nil {
		b.Fatal(err)
	}
	background := api.DeletePropagationBackground
	for _, k := range []api.Kind{podKind, configMapKind} {
		list, err := c.List(ctx, k, name, client.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range list.Items {
			if err := c.Delete(ctx, k, name, o.GetObjectMeta().Name, client.DeleteOptions{PropagationPolicy: &background}); err != nil {
				b.Fatal(err)
			}
		}
	}
	ns, err := client.For[*api.Namespace](c).Get(ctx, "", name)
	if err != nil {
		b.Fatal(err)
	}
	ns.Spec.Finalizers = []api.FinalizerName{}
	if _, err := c.Finalize(ctx, ns); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Get(ctx, namespaceKind, "", name); !client.IsNotFound(err) {
		b.Fatalf("namespace %s after its finalize: %v, want NotFound", name, err)
	}
}

// BenchmarkEmptyNamespace empties a namespace of 1,000 pods and 100
// ConfigMaps on the fake client, from its DELETE until a watch shows it
// gone, through the running controllers (Options.Kinds the default: every
// namespaced kind is listed twice), and, in the same op, the same
// objects deleted directly with the client. It reports both and their
// ratio.
func BenchmarkEmptyNamespace(b *testing.B) {
	c := client.NewFake()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(c, namespaces.Options{}).Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("Run = %v", err)
		}
	}()
	var byController, direct time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		name := fmt.Sprintf("bench-%d", i)
		fillNamespace(b, c, name)
		other := client.NewFake()
		fillNamespace(b, other, name)
		b.StartTimer()

		start := time.Now()
		deleteAndWait(b, c, name)
		byController += time.Since(start)

		start = time.Now()
		emptyDirectly(b, other, name)
		direct += time.Since(start)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(byController.Nanoseconds())/n, "controller-ns/op")
	b.ReportMetric(float64(direct.Nanoseconds())/n, "direct-ns/op")
	b.ReportMetric(float64(byController)/float64(direct), "controller/direct")
}
