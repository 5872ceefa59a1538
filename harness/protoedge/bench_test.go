package protoedge_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// BenchmarkCreate measures client-go's typed create through the edge
// (the default config: protobuf bodies) against its baseline in the same
// run, the same client with ContentType application/json, which the edge
// passes untouched. Each iteration makes one ConfigMap each way, in
// alternating order, so that both see the same machine; it reports the
// p50 and p99 latency of each and the ratio of the p99s (the target is
// at most 1.2). bbolt is the reference store on disk (an fsync per
// write, as a user's cluster); memory isolates the edge's own cost.
func BenchmarkCreate(b *testing.B) {
	for _, onDisk := range []bool{false, true} {
		name := "store=memory"
		if onDisk {
			name = "store=bbolt"
		}
		b.Run(name, func(b *testing.B) {
			c := startCluster(b, onDisk)
			// Both without client-go's client-side rate limit (QPS 5,
			// burst 10 by default), which would measure itself; nothing
			// else differs from the default but the JSON one's ContentType.
			proto := newClient(b, &rest.Config{Host: c.URL, QPS: -1})
			js := newClient(b, &rest.Config{Host: c.URL, QPS: -1, ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
			ctx := context.Background()
			data := map[string]string{"greeting": "hello", "config.yaml": "replicas: 3\nimage: nginx:1.27\nports: [80, 443]\n"}
			create := func(cs *kubernetes.Clientset, name string) time.Duration {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "bench"}}, Data: data}
				start := time.Now()
				if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					b.Fatalf("ConfigMaps.Create(%s): %v", name, err)
				}
				return time.Since(start)
			}
			// Warm both connections and code paths.
			create(proto, "warm-proto")
			create(js, "warm-json")
			var tp, tj []time.Duration
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 {
					tp = append(tp, create(proto, fmt.Sprintf("p-%d", i)))
					tj = append(tj, create(js, fmt.Sprintf("j-%d", i)))
				} else {
					tj = append(tj, create(js, fmt.Sprintf("j-%d", i)))
					tp = append(tp, create(proto, fmt.Sprintf("p-%d", i)))
				}
			}
			b.StopTimer()
			pp50, pp99 := quantiles(tp)
			jp50, jp99 := quantiles(tj)
			b.ReportMetric(float64(pp50.Nanoseconds()), "proto-p50-ns")
			b.ReportMetric(float64(pp99.Nanoseconds()), "proto-p99-ns")
			b.ReportMetric(float64(jp50.Nanoseconds()), "json-p50-ns")
			b.ReportMetric(float64(jp99.Nanoseconds()), "json-p99-ns")
			if jp99 > 0 {
				b.ReportMetric(float64(pp99)/float64(jp99), "p99-ratio")
			}
		})
	}
}

// quantiles returns the 50th and 99th percentiles (nearest rank).
func quantiles(d []time.Duration) (p50, p99 time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(q float64) time.Duration {
		i := int(q*float64(len(s))+0.5) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return at(0.50), at(0.99)
}
