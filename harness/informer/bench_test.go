package informer_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
)

// BenchmarkSync lists 10,000 pods from the fake client into a fresh
// informer and hands them to a handler; it reports the heap the cache
// holds per pod (the objects themselves, decoded, plus the map), the
// figure issue 13 asks for.
func BenchmarkSync(b *testing.B) {
	const n = 10000
	f := client.NewFake()
	for i := 0; i < n; i++ {
		p := pod("default", fmt.Sprintf("p%05d", i), map[string]string{"app": "web"})
		if _, err := f.Create(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
	var perPod float64
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		inf := informer.New(f, podKind, "", informer.Options{})
		added := 0
		inf.AddEventHandler(informer.Handler{OnAdd: func(api.Object, bool) { added++ }})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- inf.Run(ctx) }()
		if err := inf.WaitForSync(context.Background()); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		perPod = float64(after.HeapAlloc-before.HeapAlloc) / n
		cancel()
		<-done
		if added != n || inf.Len() != n {
			b.Fatalf("synced %d adds, %d cached, want %d", added, inf.Len(), n)
		}
	}
	b.ReportMetric(perPod, "heapB/pod")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
}

// BenchmarkWatch measures watch events through the informer to a handler:
// b.N pods created on the fake client, each seen by the handler.
func BenchmarkWatch(b *testing.B) {
	f := client.NewFake()
	inf := informer.New(f, podKind, "", informer.Options{})
	seen := make(chan struct{}, 1024)
	inf.AddEventHandler(informer.Handler{OnAdd: func(api.Object, bool) { seen <- struct{}{} }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(context.Background()); err != nil {
		b.Fatal(err)
	}
	got := make(chan int)
	b.ResetTimer()
	go func() {
		for i := 0; i < b.N; i++ {
			<-seen
		}
		got <- b.N
	}()
	for i := 0; i < b.N; i++ {
		if _, err := f.Create(context.Background(), pod("default", fmt.Sprintf("p%07d", i), nil)); err != nil {
			b.Fatal(err)
		}
	}
	<-got
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	cancel()
	<-done
}
