package clusterdns_test

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/clusterdns"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// A Service and a slice created in the apiserver reach the lookup's
// input, and its answer reaches the client over UDP and TCP,
// authoritative and without recursion; what the lookup does to its input
// does not change what the next question sees.
func TestServiceShowsUp(t *testing.T) {
	noLeaks(t)
	f := client.NewFake()
	rec := &recorder{}
	s, log := start(t, f, testLookup(rec))
	ctx := context.Background()
	const web = "web.default.svc.cluster.local."

	if r := ask(t, "udp", s.Addr(), web, dns.TypeA); r.Rcode != dns.RcodeNameError {
		t.Fatalf("before the Service: %s", r)
	}
	if _, err := client.For[*api.Service](f).Create(ctx, service("default", "web", "10.96.0.10", 80)); err != nil {
		t.Fatal(err)
	}
	if _, err := client.For[*api.EndpointSlice](f).Create(ctx, slice("default", "web", "10.244.0.5")); err != nil {
		t.Fatal(err)
	}
	var last *dns.Msg
	eventually(t, "the Service and its slice in the lookup's input", func() bool {
		last = ask(t, "udp", s.Addr(), web, dns.TypeA)
		svcs, slices := rec.lastInput()
		return last.Rcode == dns.RcodeSuccess && len(svcs) == 1 && svcs[0] == "default/web" && len(slices) == 1 && slices[0] == "default/web-abcde"
	}, func() string { return last.String() + "\nthe lookup's " + rec.String() })

	for _, network := range []string{"udp", "tcp"} {
		for range 2 { // the lookup scribbled on its input the first time
			r := ask(t, network, s.Addr(), web, dns.TypeA)
			want := []string{web + "\t5\tIN\tA\t10.96.0.10"}
			if got := records(r.Answer); !slices.Equal(got, want) {
				t.Errorf("%s A %s: answer %q, want %q", network, web, got, want)
			}
			if r.Rcode != dns.RcodeSuccess || !r.Authoritative || r.RecursionAvailable || r.Truncated || len(r.Ns) != 0 {
				t.Errorf("%s A %s: want NOERROR, aa, no ra, no tc, nothing in authority:\n%s", network, web, r)
			}
			r = ask(t, network, s.Addr(), web, dns.TypeTXT)
			want = []string{web + "\t5\tIN\tTXT\t\"app=web\""}
			if got := records(r.Answer); !slices.Equal(got, want) {
				t.Errorf("%s TXT %s: answer %q, want %q (the Service's labels as created)", network, web, got, want)
			}
		}
	}
	if log.String() != "" {
		t.Errorf("the log has lines for answered questions:\n%s", log)
	}
}

// The answers the lookup does not give: NXDOMAIN and NOERROR without
// records carry the zone's SOA; a name outside the zone is refused; a
// query of two questions is a format error, an update is not
// implemented.
func TestNegativeAnswers(t *testing.T) {
	noLeaks(t)
	f := client.NewFake()
	if _, err := client.For[*api.Service](f).Create(context.Background(), service("default", "web", "10.96.0.10", 80)); err != nil {
		t.Fatal(err)
	}
	s, log := start(t, f, testLookup(nil))
	soa := "cluster.local.\t5\tIN\tSOA\tns.dns.cluster.local. hostmaster.cluster.local. 1 7200 1800 86400 5"

	for _, network := range []string{"udp", "tcp"} {
		r := ask(t, network, s.Addr(), "nope.default.svc.cluster.local.", dns.TypeA)
		if r.Rcode != dns.RcodeNameError || !r.Authoritative || len(r.Answer) != 0 || !slices.Equal(records(r.Ns), []string{soa}) {
			t.Errorf("%s: nope.default.svc.cluster.local. A: want NXDOMAIN, aa, the SOA %q in authority:\n%s", network, soa, r)
		}
		r = ask(t, network, s.Addr(), "web.default.svc.cluster.local.", dns.TypeAAAA)
		if r.Rcode != dns.RcodeSuccess || !r.Authoritative || len(r.Answer) != 0 || !slices.Equal(records(r.Ns), []string{soa}) {
			t.Errorf("%s: web.default.svc.cluster.local. AAAA: want NOERROR, aa, no answer, the SOA in authority:\n%s", network, r)
		}
		for _, name := range []string{"example.com.", "cluster.local.example.com.", "notcluster.local."} {
			r = ask(t, network, s.Addr(), name, dns.TypeA)
			if r.Rcode != dns.RcodeRefused || r.Authoritative || r.RecursionAvailable || len(r.Answer)+len(r.Ns) != 0 {
				t.Errorf("%s: %s A: want REFUSED, no aa, no ra, no records:\n%s", network, name, r)
			}
		}

		two := new(dns.Msg)
		two.SetQuestion("web.default.svc.cluster.local.", dns.TypeA)
		two.Question = append(two.Question, dns.Question{Name: "nope.default.svc.cluster.local.", Qtype: dns.TypeA, Qclass: dns.ClassINET})
		if r = exchange(t, network, s.Addr(), two); r.Rcode != dns.RcodeFormatError {
			t.Errorf("%s: two questions: want FORMERR:\n%s", network, r)
		}
		upd := new(dns.Msg)
		upd.SetUpdate("cluster.local.")
		if r = exchange(t, network, s.Addr(), upd); r.Rcode != dns.RcodeNotImplemented {
			t.Errorf("%s: an UPDATE: want NOTIMP:\n%s", network, r)
		}
	}
	for _, want := range []string{
		"clusterdns: refused example.com. A: not in zone cluster.local.\n",
		"clusterdns: a query with 2 questions: want exactly one\n",
		"clusterdns: opcode UPDATE not implemented\n",
	} {
		if n := strings.Count(log.String(), want); n != 2 {
			t.Errorf("the log says %q %d times, want twice (UDP and TCP):\n%s", want, n, log)
		}
	}
}

// The lookup gets the name as the client wrote it; the zone is matched
// whatever the case.
func TestCaseKept(t *testing.T) {
	noLeaks(t)
	f := client.NewFake()
	if _, err := client.For[*api.Service](f).Create(context.Background(), service("default", "web", "10.96.0.10", 80)); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	s, _ := start(t, f, testLookup(rec))
	const name = "Web.Default.SVC.Cluster.LOCAL."
	r := ask(t, "udp", s.Addr(), name, dns.TypeA)
	if r.Rcode != dns.RcodeSuccess || len(r.Answer) != 1 {
		t.Errorf("%s A: want NOERROR and one record:\n%s", name, r)
	}
	if q := (servicenet.Question{Name: name, Type: "A"}); !rec.saw(q) {
		t.Errorf("the lookup was not asked %+v: %s", q, rec)
	}
}

// An SRV answer carries the A records of its targets in the zone.
func TestSRVAdditional(t *testing.T) {
	noLeaks(t)
	f := client.NewFake()
	if _, err := client.For[*api.Service](f).Create(context.Background(), service("default", "web", "10.96.0.10", 80)); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	s, _ := start(t, f, testLookup(rec))
	const web = "web.default.svc.cluster.local."
	r := ask(t, "tcp", s.Addr(), web, dns.TypeSRV)
	if want := []string{web + "\t5\tIN\tSRV\t0 100 80 " + web}; !slices.Equal(records(r.Answer), want) {
		t.Errorf("SRV %s: answer %q, want %q", web, records(r.Answer), want)
	}
	if want := []string{web + "\t5\tIN\tA\t10.96.0.10"}; !slices.Equal(records(r.Extra), want) {
		t.Errorf("SRV %s: additional %q, want the target's A records %q", web, records(r.Extra), want)
	}
	if q := (servicenet.Question{Name: web, Type: "A"}); !rec.saw(q) {
		t.Errorf("the lookup was not asked %+v: %s", q, rec)
	}
}

// A lookup that answers badly or panics gets SERVFAIL, with a line in the
// log; the server keeps serving.
func TestBadLookups(t *testing.T) {
	noLeaks(t)
	f := client.NewFake()
	lookup := func(q servicenet.Question, _ []api.Service, _ []api.EndpointSlice) servicenet.Answer {
		rr := func(name, typ, data string) servicenet.Answer {
			return servicenet.Answer{Rcode: servicenet.NoError, Records: []servicenet.Record{{Name: name, Type: typ, TTL: 5, Data: data}}}
		}
		switch q.Name {
		case "bad.default.svc.cluster.local.":
			return rr(q.Name, "A", "10.96.0")
		case "relative.default.svc.cluster.local.":
			return rr("relative.default.svc.cluster.local", "A", "10.96.0.1")
		case "empty.default.svc.cluster.local.":
			return rr(q.Name, "A", "")
		case "rcode.default.svc.cluster.local.":
			return servicenet.Answer{Rcode: "SERVFAIL"}
		case "panic.default.svc.cluster.local.":
			panic("not implemented")
		}
		return rr(q.Name, "A", "10.96.0.1")
	}
	s, log := start(t, f, lookup)
	for _, tc := range []struct{ name, log string }{
		{"bad", `clusterdns: lookup(bad.default.svc.cluster.local. A) returned record {Name:bad.default.svc.cluster.local. Type:A TTL:5 Data:"10.96.0"}: dns: bad A A: "10.96.0"`},
		{"relative", `clusterdns: lookup(relative.default.svc.cluster.local. A) returned record {Name:relative.default.svc.cluster.local Type:A TTL:5 Data:"10.96.0.1"}: the name is not fully qualified`},
		{"empty", `clusterdns: lookup(empty.default.svc.cluster.local. A) returned record {Name:empty.default.svc.cluster.local. Type:A TTL:5 Data:""}: no data`},
		{"rcode", `clusterdns: lookup(rcode.default.svc.cluster.local. A) returned Rcode "SERVFAIL": want "NOERROR" or "NXDOMAIN"`},
		{"panic", `clusterdns: lookup(panic.default.svc.cluster.local. A) panicked: not implemented`},
	} {
		name := tc.name + ".default.svc.cluster.local."
		for _, network := range []string{"udp", "tcp"} {
			r := ask(t, network, s.Addr(), name, dns.TypeA)
			if r.Rcode != dns.RcodeServerFailure || len(r.Answer)+len(r.Ns)+len(r.Extra) != 0 {
				t.Errorf("%s %s A: want SERVFAIL and no records:\n%s", network, name, r)
			}
			// The next question is answered.
			r = ask(t, network, s.Addr(), "good.default.svc.cluster.local.", dns.TypeA)
			if r.Rcode != dns.RcodeSuccess || len(r.Answer) != 1 {
				t.Errorf("%s: the question after %s: want NOERROR and one record:\n%s", network, name, r)
			}
		}
		if n := strings.Count(log.String(), tc.log); n != 2 {
			t.Errorf("the log says %q %d times, want twice:\n%s", tc.log, n, log)
		}
	}
	if n := strings.Count(log.String(), "\n"); n != 10 {
		t.Errorf("the log has %d lines, want 10 (one per failed question):\n%s", n, log)
	}
}

// An answer larger than 512 bytes comes truncated over UDP without
// EDNS0, and whole over TCP or to a client whose OPT says it takes it.
func TestTruncated(t *testing.T) {
	noLeaks(t)
	s, _ := start(t, client.NewFake(), testLookup(nil))
	const many = "many.default.svc.cluster.local."

	r := ask(t, "udp", s.Addr(), many, dns.TypeA)
	if !r.Truncated || len(r.Answer) >= 40 || r.Rcode != dns.RcodeSuccess {
		t.Errorf("UDP without EDNS0: want TC and fewer than 40 records, got TC=%v and %d records", r.Truncated, len(r.Answer))
	}
	if r.Compress = true; r.Len() > dns.MinMsgSize {
		t.Errorf("UDP without EDNS0: %d bytes, want at most %d", r.Len(), dns.MinMsgSize)
	}
	r = ask(t, "tcp", s.Addr(), many, dns.TypeA)
	if r.Truncated || len(r.Answer) != 40 {
		t.Errorf("TCP: want all 40 records and no TC, got TC=%v and %d records", r.Truncated, len(r.Answer))
	}
	m := new(dns.Msg)
	m.SetQuestion(many, dns.TypeA)
	m.SetEdns0(4096, false)
	r = exchange(t, "udp", s.Addr(), m)
	if r.Truncated || len(r.Answer) != 40 || r.IsEdns0() == nil {
		t.Errorf("UDP with EDNS0 4096: want all 40 records, no TC, an OPT record, got TC=%v, %d records, OPT %v", r.Truncated, len(r.Answer), r.IsEdns0())
	}
}

// Run stops when its context ends: both listeners closed (the address
// can be listened on again), every goroutine ended.
func TestRunStops(t *testing.T) {
	noLeaks(t)
	s := clusterdns.New(client.NewFake(), testLookup(nil), clusterdns.Options{})
	if a := s.Addr(); a != "" {
		t.Errorf("Addr() = %q before Run, want \"\"", a)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	eventually(t, "Ready", func() bool {
		select {
		case <-s.Ready():
			return true
		default:
			return false
		}
	}, func() string { return "not ready" })
	addr := s.Addr()
	if host, _, err := net.SplitHostPort(addr); err != nil || host != "127.0.0.1" {
		t.Errorf("Addr() = %q, want 127.0.0.1:<port> (the default)", addr)
	}
	// Both transports answer, and hold connections open.
	ask(t, "udp", addr, "web.default.svc.cluster.local.", dns.TypeA)
	co, err := (&dns.Client{Net: "tcp"}).Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer co.Close()

	stop()
	eventually(t, "Run to return", func() bool {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v, want nil", err)
			}
			return true
		default:
			return false
		}
	}, func() string { return "still running" })
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Errorf("after Run returned, TCP %s: %v", addr, err)
	} else {
		ln.Close()
	}
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		t.Errorf("after Run returned, UDP %s: %v", addr, err)
	} else {
		pc.Close()
	}
	if err := s.Run(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "clusterdns: ") {
		t.Errorf("Run a second time = %v, want a clusterdns: error", err)
	}
}

// Run cannot start on an address taken, for TCP or for UDP: it says so,
// and is never ready.
func TestRunAddressInUse(t *testing.T) {
	noLeaks(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	for _, addr := range []string{ln.Addr().String(), pc.LocalAddr().String()} {
		s := clusterdns.New(client.NewFake(), testLookup(nil), clusterdns.Options{Addr: addr})
		err := s.Run(context.Background())
		if err == nil || !strings.HasPrefix(err.Error(), "clusterdns: ") || !strings.Contains(err.Error(), "address already in use") {
			t.Errorf("Run on %s, taken = %v, want clusterdns: ... address already in use", addr, err)
		}
		select {
		case <-s.Ready():
			t.Errorf("Ready closed, though Run could not start")
		default:
		}
		if a := s.Addr(); a != "" {
			t.Errorf("Addr() = %q, though Run could not start", a)
		}
	}
}
