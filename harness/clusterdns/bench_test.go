package clusterdns_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/miekg/dns"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// benchServices is how many Services the benchmarks' cluster has.
const benchServices = 1000

// benchName is the name they ask for, a Service half-way down the list.
const benchName = "svc-500.default.svc.cluster.local."

// benchCluster is a fake apiserver with benchServices Services.
func benchCluster(b *testing.B) *client.Fake {
	b.Helper()
	f := client.NewFake()
	for i := range benchServices {
		s := service("default", fmt.Sprintf("svc-%d", i), fmt.Sprintf("10.96.%d.%d", i/250, i%250+1), 80)
		if _, err := client.For[*api.Service](f).Create(context.Background(), s); err != nil {
			b.Fatal(err)
		}
	}
	return f
}

// benchLookup is testLookup without its recording and scribbling.
func benchLookup(q servicenet.Question, svcs []api.Service, _ []api.EndpointSlice) servicenet.Answer {
	return answerOf(q, svcs)
}

// BenchmarkServeA: one A question over UDP, answered by the server from
// a cache of 1,000 Services (each question copies the caches for the
// lookup); BenchmarkLookupDirect is the same lookup called directly on
// the same Services, the baseline.
func BenchmarkServeA(b *testing.B) {
	s, _ := start(b, benchCluster(b), benchLookup)
	c := &dns.Client{Net: "udp", Timeout: wait}
	co, err := c.Dial(s.Addr())
	if err != nil {
		b.Fatal(err)
	}
	defer co.Close()
	m := new(dns.Msg)
	m.SetQuestion(benchName, dns.TypeA)
	for b.Loop() {
		m.Id = dns.Id()
		r, _, err := c.ExchangeWithConn(m, co)
		if err != nil {
			b.Fatal(err)
		}
		if r.Rcode != dns.RcodeSuccess || len(r.Answer) != 1 {
			b.Fatalf("%s A: want NOERROR and one record:\n%s", benchName, r)
		}
	}
}

func BenchmarkLookupDirect(b *testing.B) {
	svcs, _, err := client.For[*api.Service](benchCluster(b)).List(context.Background(), "", client.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var in []api.Service
	for _, s := range svcs {
		in = append(in, *s)
	}
	q := servicenet.Question{Name: benchName, Type: servicenet.TypeA}
	for b.Loop() {
		ans := benchLookup(q, in, nil)
		if ans.Rcode != servicenet.NoError || len(ans.Records) != 1 {
			b.Fatalf("lookup(%v) = %+v", q, ans)
		}
	}
}
