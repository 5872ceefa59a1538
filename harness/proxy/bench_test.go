package proxy

import (
	"io"
	"net"
	"slices"
	"testing"
	"time"
)

// What the forwarder adds to a connection, measured against the same
// traffic straight to the backend in the same run:
//
//	go test -run '^$' -bench . -benchtime 2000x ./harness/proxy/
//
// The RoundTrip pair sends 64 bytes and reads 64 back on one connection
// per benchmark; the Connect pair opens a connection per round trip.
// Each reports its median and 99th percentile latency (p50-ns, p99-ns)
// besides ns/op; the forwarder's target is a p99 at most 1ms above the
// direct one.

// benchEcho is a backend that writes back whatever it reads.
func benchEcho(b *testing.B) *fwBackend {
	b.Helper()
	ln, err := net.Listen("tcp", "127.244.254.250:0")
	if err != nil {
		b.Skipf("cannot listen on 127.244.254.250 (%v): the benchmarks need all of 127.0.0.0/8 on loopback, as on Linux", err)
	}
	be := &fwBackend{name: "echo", addr: ln.Addr().(*net.TCPAddr).AddrPort(), ln: ln, conns: map[net.Conn]bool{}}
	be.wg.Add(1)
	go func() {
		defer be.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			be.mu.Lock()
			be.conns[c] = true
			be.mu.Unlock()
			be.wg.Add(1)
			go func() {
				defer be.wg.Done()
				_, _ = io.Copy(c, c)
				be.mu.Lock()
				delete(be.conns, c)
				be.mu.Unlock()
				_ = c.Close()
			}()
		}
	}()
	b.Cleanup(be.stop)
	return be
}

// benchForwarded is the address of a Service whose one endpoint is be.
func benchForwarded(b *testing.B, be *fwBackend) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.96.254.250:0")
	if err != nil {
		b.Skipf("cannot listen on 127.96.254.250 (%v)", err)
	}
	addr := ln.Addr().(*net.TCPAddr).AddrPort()
	_ = ln.Close()
	f := New(Options{})
	b.Cleanup(func() { _ = f.Close() })
	if err := f.Apply(Table{Services: []Service{fwTCP("bench/echo:p", addr, fwEndpoints(be))}}); err != nil {
		b.Fatalf("Apply: %v", err)
	}
	return addr.String()
}

// benchRoundTrips runs b.N 64-byte echoes on one connection to addr.
func benchRoundTrips(b *testing.B, addr string) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatalf("dial %s: %v", addr, err)
	}
	defer c.Close()
	req, resp := make([]byte, 64), make([]byte, 64)
	// One round trip before the clock starts: the forwarder dials the
	// backend when the first connection comes, not at Accept.
	roundTrip(b, c, req, resp)
	lat := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		roundTrip(b, c, req, resp)
		lat[i] = time.Since(start)
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// benchConnects runs b.N connections to addr, one echo each.
func benchConnects(b *testing.B, addr string) {
	req, resp := make([]byte, 64), make([]byte, 64)
	lat := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatalf("dial %s: %v", addr, err)
		}
		roundTrip(b, c, req, resp)
		_ = c.Close()
		lat[i] = time.Since(start)
	}
	b.StopTimer()
	reportLatency(b, lat)
}

func roundTrip(b *testing.B, c net.Conn, req, resp []byte) {
	if _, err := c.Write(req); err != nil {
		b.Fatalf("write: %v", err)
	}
	if _, err := io.ReadFull(c, resp); err != nil {
		b.Fatalf("read: %v", err)
	}
}

// reportLatency adds the median and the 99th percentile of lat.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(q float64) float64 { return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Nanoseconds()) }
	b.ReportMetric(at(0.50), "p50-ns")
	b.ReportMetric(at(0.99), "p99-ns")
}

func BenchmarkDirectRoundTrip(b *testing.B) {
	be := benchEcho(b)
	benchRoundTrips(b, be.addr.String())
}

func BenchmarkForwardedRoundTrip(b *testing.B) {
	be := benchEcho(b)
	benchRoundTrips(b, benchForwarded(b, be))
}

func BenchmarkDirectConnect(b *testing.B) {
	be := benchEcho(b)
	benchConnects(b, be.addr.String())
}

func BenchmarkForwardedConnect(b *testing.B) {
	be := benchEcho(b)
	benchConnects(b, benchForwarded(b, be))
}
