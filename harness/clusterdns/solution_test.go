package clusterdns_test

// The server over exercise 14's reference Lookup: what a finished
// exercise answers, through the wire. This file imports solutions/, so a
// student copy drops it (nothing else in the package needs it).

import (
	"context"
	"slices"
	"testing"

	"github.com/miekg/dns"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	services "github.com/kubekata/kubekata/solutions/14-services"
)

// A ClusterIP Service and a headless one, with their slices, answered by
// the reference Lookup over UDP and TCP: A records, SRV records with
// their targets' A records in the additional section, and NXDOMAIN with
// the zone's SOA.
func TestServeReferenceLookup(t *testing.T) {
	noLeaks(t)
	f := client.NewFake()
	ctx := context.Background()
	db := service("default", "db", api.ClusterIPNone, 5432)
	db.Spec.ClusterIPs = nil
	db.Spec.Ports[0].Name = "sql"
	dbSlice := slice("default", "db", "10.244.1.5")
	dbSlice.Ports[0].Name, dbSlice.Ports[0].Port = ptr("sql"), ptr(int32(5432))
	host := "db-0"
	second := dbSlice.Endpoints[0]
	second.Addresses, second.Hostname = []string{"10.244.1.3"}, &host
	dbSlice.Endpoints = append(dbSlice.Endpoints, second)
	for _, s := range []*api.Service{service("default", "web", "10.96.0.10", 80), db} {
		if _, err := client.For[*api.Service](f).Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []*api.EndpointSlice{slice("default", "web", "10.244.0.5"), dbSlice} {
		if _, err := client.For[*api.EndpointSlice](f).Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	s, log := start(t, f, services.Lookup)

	const (
		web = "web.default.svc.cluster.local."
		dbN = "db.default.svc.cluster.local."
	)
	for _, network := range []string{"udp", "tcp"} {
		for _, tc := range []struct {
			name         string
			qtype        uint16
			rcode        int
			answer, more []string
			ns           int
		}{
			{web, dns.TypeA, dns.RcodeSuccess, []string{web + "\t5\tIN\tA\t10.96.0.10"}, nil, 0},
			{"WEB.Default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, []string{web + "\t5\tIN\tA\t10.96.0.10"}, nil, 0},
			{web, dns.TypeAAAA, dns.RcodeSuccess, nil, nil, 1},
			{"_http._tcp." + web, dns.TypeSRV, dns.RcodeSuccess,
				[]string{"_http._tcp." + web + "\t5\tIN\tSRV\t0 100 80 " + web},
				[]string{web + "\t5\tIN\tA\t10.96.0.10"}, 0},
			{dbN, dns.TypeA, dns.RcodeSuccess, []string{dbN + "\t5\tIN\tA\t10.244.1.3", dbN + "\t5\tIN\tA\t10.244.1.5"}, nil, 0},
			{"_sql._tcp." + dbN, dns.TypeSRV, dns.RcodeSuccess,
				[]string{"_sql._tcp." + dbN + "\t5\tIN\tSRV\t0 50 5432 10-244-1-5." + dbN, "_sql._tcp." + dbN + "\t5\tIN\tSRV\t0 50 5432 db-0." + dbN},
				[]string{"10-244-1-5." + dbN + "\t5\tIN\tA\t10.244.1.5", "db-0." + dbN + "\t5\tIN\tA\t10.244.1.3"}, 0},
			{"nope.default.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, nil, nil, 1},
		} {
			r := ask(t, network, s.Addr(), tc.name, tc.qtype)
			got, more := records(r.Answer), records(r.Extra)
			slices.Sort(got)
			slices.Sort(more)
			if r.Rcode != tc.rcode || !r.Authoritative || !slices.Equal(got, tc.answer) || !slices.Equal(more, tc.more) || len(r.Ns) != tc.ns {
				t.Errorf("%s %s %s: got %s answer %q additional %q and %d in authority; want %s, %q, %q and %d:\n%s",
					network, tc.name, dns.TypeToString[tc.qtype], dns.RcodeToString[r.Rcode], got, more, len(r.Ns),
					dns.RcodeToString[tc.rcode], tc.answer, tc.more, tc.ns, r)
			}
		}
	}
	if log.String() != "" {
		t.Errorf("the log has lines for answered questions:\n%s", log)
	}
}

func ptr[T any](v T) *T { return &v }
