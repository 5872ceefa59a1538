package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The forwarder's tests run real TCP on loopback: Services on
// 127.96.254.0/24 and backends on 127.244.254.0/24, every port chosen by
// the kernel, so that they meet no cluster a test elsewhere runs.

const fwWait = 5 * time.Second // the deadline of every wait

// fwNoLeaks fails the test if, once its cleanups ran, more goroutines
// run than when it started. Call it first: cleanups run last to first.
func fwNoLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		fwEventually(t, fmt.Sprintf("the goroutines back to the %d before the test", before),
			func() bool { return runtime.NumGoroutine() <= before },
			func() string {
				buf := make([]byte, 1<<20)
				return fmt.Sprintf("%d goroutines:\n%s", runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
			})
	})
}

// fwEventually waits for cond, up to fwWait, then fails saying what it
// waited for and what state says.
func fwEventually(t *testing.T, what string, cond func() bool, state func() string) {
	t.Helper()
	deadline := time.Now().Add(fwWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Errorf("waited %v for %s; it did not happen: %s", fwWait, what, state())
			return
		}
		time.Sleep(time.Millisecond) // a poll's interval
	}
}

var fwNextIP atomic.Uint32 // the last host byte handed out, per range

// fwIP is a fresh loopback address of the range "127.96.254" or
// "127.244.254"; the test is skipped where such an address cannot be
// listened on (Linux routes all of 127.0.0.0/8 to lo; macOS does not).
func fwIP(t *testing.T, prefix string) netip.Addr {
	t.Helper()
	n := fwNextIP.Add(1)%250 + 1
	ip := netip.MustParseAddr(fmt.Sprintf("%s.%d", prefix, n))
	ln, err := net.Listen("tcp", netip.AddrPortFrom(ip, 0).String())
	if err != nil {
		t.Skipf("cannot listen on %s (%v): the forwarder's tests need all of 127.0.0.0/8 on loopback, as on Linux", ip, err)
	}
	_ = ln.Close()
	return ip
}

// fwServiceAddr is a free Service address: a fresh 127.96.254.x and a port
// the kernel found free on it.
func fwServiceAddr(t *testing.T) netip.AddrPort {
	t.Helper()
	ln, err := net.Listen("tcp", netip.AddrPortFrom(fwIP(t, "127.96.254"), 0).String())
	require.NoError(t, err)
	addr := ln.Addr().(*net.TCPAddr).AddrPort()
	require.NoError(t, ln.Close())
	return addr
}

// fwBackend is a pod: a TCP server on a 127.244.254.x address.
type fwBackend struct {
	name string
	addr netip.AddrPort
	ln   net.Listener
	wg   sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]bool
}

// fwEchoName answers each line it reads with the backend's name.
func fwEchoName(name string, c net.Conn) {
	r := bufio.NewReader(c)
	for {
		if _, err := r.ReadString('\n'); err != nil {
			return
		}
		if _, err := io.WriteString(c, name+"\n"); err != nil {
			return
		}
	}
}

// fwStartBackend starts a backend that serves each connection with serve
// (fwEchoName when nil); the test's cleanup stops it.
func fwStartBackend(t *testing.T, name string, serve func(name string, c net.Conn)) *fwBackend {
	t.Helper()
	if serve == nil {
		serve = fwEchoName
	}
	ln, err := net.Listen("tcp", netip.AddrPortFrom(fwIP(t, "127.244.254"), 0).String())
	require.NoError(t, err)
	b := &fwBackend{name: name, addr: ln.Addr().(*net.TCPAddr).AddrPort(), ln: ln, conns: map[net.Conn]bool{}}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.mu.Lock()
			b.conns[c] = true
			b.mu.Unlock()
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				serve(name, c)
				b.mu.Lock()
				delete(b.conns, c)
				b.mu.Unlock()
				_ = c.Close()
			}()
		}
	}()
	t.Cleanup(b.stop)
	return b
}

func (b *fwBackend) stop() {
	_ = b.ln.Close()
	b.mu.Lock()
	for c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func fwBackends(t *testing.T, names ...string) []*fwBackend {
	var out []*fwBackend
	for _, n := range names {
		out = append(out, fwStartBackend(t, n, nil))
	}
	return out
}

// fwEndpoints are backends as upstream's rules list them: probability
// 1/(n-i), the last unconditional.
func fwEndpoints(backends ...*fwBackend) []Endpoint {
	var out []Endpoint
	for i, b := range backends {
		p := 1.0
		if i < len(backends)-1 {
			p = 1 / float64(len(backends)-i)
		}
		out = append(out, Endpoint{Addr: b.addr.String(), Probability: p})
	}
	return out
}

// fwTCP is a TCP Service at addr.
func fwTCP(name string, addr netip.AddrPort, eps []Endpoint) Service {
	return Service{Name: name, IP: addr.Addr().String(), Port: int(addr.Port()), Protocol: "tcp", Endpoints: eps}
}

// fwNew is a Forwarder the test's cleanup closes.
func fwNew(t *testing.T, opts Options) *Forwarder {
	t.Helper()
	f := New(opts)
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("Close() = %v, want nil", err)
		}
	})
	return f
}

// fwSeeded is a seeded Rand; the forwarder calls it from one goroutine
// at a time.
func fwSeeded(seed uint64) func() float64 {
	return rand.New(rand.NewPCG(seed, seed+1)).Float64
}

// fwConn is a client connection to a Service.
type fwConn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func fwDial(t *testing.T, addr string) *fwConn {
	t.Helper()
	return fwDialFrom(t, addr, netip.Addr{})
}

// fwDialFrom connects from the address from (any when invalid).
func fwDialFrom(t *testing.T, addr string, from netip.Addr) *fwConn {
	t.Helper()
	d := net.Dialer{Timeout: fwWait}
	if from.IsValid() {
		d.LocalAddr = net.TCPAddrFromAddrPort(netip.AddrPortFrom(from, 0))
	}
	c, err := d.Dial("tcp", addr)
	require.NoError(t, err, "dial %s", addr)
	require.NoError(t, c.SetDeadline(time.Now().Add(fwWait)))
	t.Cleanup(func() { _ = c.Close() })
	return &fwConn{t: t, c: c, r: bufio.NewReader(c)}
}

// ask sends a line and returns the backend's name.
func (c *fwConn) ask() string {
	c.t.Helper()
	_, err := io.WriteString(c.c, "who?\n")
	require.NoError(c.t, err, "write to %s", c.c.RemoteAddr())
	line, err := c.r.ReadString('\n')
	require.NoError(c.t, err, "read from %s: got %q", c.c.RemoteAddr(), line)
	return strings.TrimSuffix(line, "\n")
}

// fwAsk asks one question on a new connection and closes it.
func fwAsk(t *testing.T, addr string) string {
	t.Helper()
	c := fwDial(t, addr)
	defer c.c.Close()
	return c.ask()
}

// fwWantReset: a connection to addr is reset without a byte, as a
// REJECT or a failed DNAT target looks to a client. The reset may come
// before the dial has returned (connect: connection reset by peer) or
// at the first read.
func fwWantReset(t *testing.T, addr, why string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, fwWait)
	if err == nil {
		defer c.Close()
		require.NoError(t, c.SetDeadline(time.Now().Add(fwWait)))
		var n int
		n, err = c.Read(make([]byte, 1))
		require.Error(t, err, "read from %s (%s): got %d bytes, want a reset", addr, why, n)
	}
	assert.True(t, errors.Is(err, syscall.ECONNRESET), "connect to %s and read (%s): got %v, want connection reset by peer", addr, why, err)
}

// fwListener is the forwarder's listener at addr, nil if none.
func fwListener(f *Forwarder, addr string) *listener {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.listeners[addr]
}

// fwSyncBuffer is a Log the test reads while the forwarder writes.
type fwSyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *fwSyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *fwSyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// ---------------------------------------------------------------- tests

// TestForwarderBalances: 300 connections over upstream's probabilities
// reach each of 3 backends about 100 times.
func TestForwarderBalances(t *testing.T) {
	fwNoLeaks(t)
	bs := fwBackends(t, "a", "b", "c")
	addr := fwServiceAddr(t)
	f := fwNew(t, Options{Rand: fwSeeded(1)})
	require.NoError(t, f.Apply(Table{Services: []Service{fwTCP("demo/echo:p", addr, fwEndpoints(bs...))}}))
	assert.Equal(t, []string{addr.String()}, f.Listening(), "Listening()")

	counts := map[string]int{}
	for range 300 {
		counts[fwAsk(t, addr.String())]++
	}
	chi2 := 0.0
	for _, b := range bs {
		d := float64(counts[b.name]) - 100
		chi2 += d * d / 100
		assert.InDelta(t, 100, counts[b.name], 40, "connections answered by %s of 300: got %d, want 100 ± 40 (all: %v)", b.name, counts[b.name], counts)
	}
	// 2 degrees of freedom: 13.8 is p = 0.001.
	assert.Less(t, chi2, 13.8, "chi-square of %v against 100 each", counts)
}

// TestForwarderApplyRemovesEndpoint: once an endpoint leaves the table,
// new connections never reach it, and one it already serves goes on;
// the listener stays the same socket.
func TestForwarderApplyRemovesEndpoint(t *testing.T) {
	fwNoLeaks(t)
	bs := fwBackends(t, "a", "b", "c")
	addr := fwServiceAddr(t)
	f := fwNew(t, Options{Rand: fwSeeded(2)})
	require.NoError(t, f.Apply(Table{Services: []Service{fwTCP("demo/echo:p", addr, fwEndpoints(bs...))}}))
	before := fwListener(f, addr.String())

	var old *fwConn
	for i := 0; i < 100 && old == nil; i++ {
		c := fwDial(t, addr.String())
		if c.ask() == "b" {
			old = c
		} else {
			_ = c.c.Close()
		}
	}
	require.NotNil(t, old, "no connection reached b in 100")

	require.NoError(t, f.Apply(Table{Services: []Service{fwTCP("demo/echo:p", addr, fwEndpoints(bs[0], bs[2]))}}), "Apply(without b)")
	assert.Same(t, before, fwListener(f, addr.String()), "the listener of %s after Apply: want the same one, not a new socket", addr)
	counts := map[string]int{}
	for range 100 {
		counts[fwAsk(t, addr.String())]++
	}
	assert.Zero(t, counts["b"], "new connections answered by b after Apply removed it: got %v", counts)
	assert.Positive(t, counts["a"], "new connections answered by a: got %v", counts)
	assert.Positive(t, counts["c"], "new connections answered by c: got %v", counts)
	assert.Equal(t, "b", old.ask(), "the connection to b opened before Apply: want it still answered by b")
}

// TestForwarderReject: a Service the filter table rejects, or one whose
// chain no rule matches, resets every connection.
func TestForwarderReject(t *testing.T) {
	fwNoLeaks(t)
	b := fwStartBackend(t, "a", nil)
	rejected, unmatched := fwServiceAddr(t), fwServiceAddr(t)
	f := fwNew(t, Options{Rand: fwSeeded(3)})
	require.NoError(t, f.Apply(Table{Services: []Service{
		{Name: "demo/empty:p", IP: rejected.Addr().String(), Port: int(rejected.Port()), Protocol: "tcp", Reject: true},
		fwTCP("demo/never:p", unmatched, []Endpoint{{Addr: b.addr.String(), Probability: 0}}),
	}}))
	for range 3 {
		fwWantReset(t, rejected.String(), "a Service with Reject")
		fwWantReset(t, unmatched.String(), "a chain whose only rule has probability 0")
	}
}

// TestForwarderDialFails: an endpoint that refuses gets the client's
// connection reset, and the log says which.
func TestForwarderDialFails(t *testing.T) {
	fwNoLeaks(t)
	gone := fwStartBackend(t, "gone", nil)
	gone.stop()
	addr := fwServiceAddr(t)
	var log fwSyncBuffer
	f := fwNew(t, Options{Log: &log})
	require.NoError(t, f.Apply(Table{Services: []Service{fwTCP("demo/gone:p", addr, fwEndpoints(gone))}}))
	fwWantReset(t, addr.String(), "an endpoint that refuses")
	want := fmt.Sprintf("proxy: demo/gone:p: %s -> %s: ", addr, gone.addr)
	fwEventually(t, "the log to say "+want, func() bool { return strings.Contains(log.String(), want) }, log.String)
	assert.Contains(t, log.String(), "connection refused")
}

// fwClock is a clock the test moves.
type fwClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fwClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fwClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// fwScript is a Rand that returns its numbers in order, then 0.
type fwScript struct {
	mu   sync.Mutex
	next []float64
}

func (s *fwScript) Float64() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.next) == 0 {
		return 0
	}
	v := s.next[0]
	s.next = s.next[1:]
	return v
}

// TestForwarderAffinity: with sessionAffinity ClientIP a client goes
// back to the endpoint it got last while the timeout holds (each use
// renews it), another client picks its own, and a client whose endpoint
// left or whose time ran out picks again.
func TestForwarderAffinity(t *testing.T) {
	fwNoLeaks(t)
	bs := fwBackends(t, "a", "b", "c")
	addr := fwServiceAddr(t)
	clock := &fwClock{now: time.Date(2025, 12, 6, 10, 0, 0, 0, time.UTC)}
	script := &fwScript{next: []float64{0.9, 0.9}} // past a's 1/3 and b's 1/2: c
	f := fwNew(t, Options{Rand: script.Float64, Now: clock.Now})
	sticky := func(backends ...*fwBackend) Table {
		s := fwTCP("demo/sticky:p", addr, fwEndpoints(backends...))
		s.Affinity = 10 * time.Second
		return Table{Services: []Service{s}}
	}
	require.NoError(t, f.Apply(sticky(bs...)))
	me, other := netip.MustParseAddr("127.0.0.1"), fwIP(t, "127.244.254")
	ask := func(from netip.Addr) string {
		t.Helper()
		c := fwDialFrom(t, addr.String(), from)
		defer c.c.Close()
		return c.ask()
	}

	require.Equal(t, "c", ask(me), "first connection (rand 0.9, 0.9)")
	for i := range 5 {
		assert.Equal(t, "c", ask(me), "connection %d from %s within the timeout (rand now 0: a without affinity)", i+2, me)
	}
	assert.Equal(t, "a", ask(other), "first connection from %s (rand 0)", other)
	assert.Equal(t, "c", ask(me), "%s after %s came", me, other)

	clock.Advance(10 * time.Second)
	assert.Equal(t, "c", ask(me), "%s exactly 10s after its last connection: --seconds 10 still holds", me)
	clock.Advance(10*time.Second + time.Millisecond)
	assert.Equal(t, "a", ask(me), "%s 10.001s after its last connection: the affinity ran out, rand 0 picks a", me)

	require.NoError(t, f.Apply(sticky(bs[1], bs[2])), "Apply(without a)")
	assert.Equal(t, "b", ask(me), "%s, whose endpoint a left: picks again (rand 0: b)", me)
	assert.Equal(t, "b", ask(me), "%s again", me)
}

// TestForwarderHalfClose: a client that shuts its sending side down
// still reads the answer the backend writes once it has read everything.
func TestForwarderHalfClose(t *testing.T) {
	fwNoLeaks(t)
	b := fwStartBackend(t, "count", func(name string, c net.Conn) {
		n, err := io.Copy(io.Discard, c)
		if err == nil {
			fmt.Fprintf(c, "%s read %d bytes\n", name, n)
		}
	})
	addr := fwServiceAddr(t)
	f := fwNew(t, Options{})
	require.NoError(t, f.Apply(Table{Services: []Service{fwTCP("demo/count:p", addr, fwEndpoints(b))}}))
	c := fwDial(t, addr.String())
	payload := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	_, err := c.c.Write(payload)
	require.NoError(t, err)
	require.NoError(t, c.c.(*net.TCPConn).CloseWrite())
	got, err := io.ReadAll(c.c)
	require.NoError(t, err, "read after CloseWrite")
	assert.Equal(t, fmt.Sprintf("count read %d bytes\n", len(payload)), string(got))
}

// TestForwarderApplyListenErrors: an address in use does not stop the
// other Services, says which Service and address, and is tried again
// at the next Apply.
func TestForwarderApplyListenErrors(t *testing.T) {
	fwNoLeaks(t)
	b := fwStartBackend(t, "a", nil)
	free, taken := fwServiceAddr(t), fwServiceAddr(t)
	squatter, err := net.Listen("tcp", taken.String())
	require.NoError(t, err)
	defer squatter.Close()
	f := fwNew(t, Options{})
	table := Table{Services: []Service{
		fwTCP("demo/one:p", free, fwEndpoints(b)),
		fwTCP("demo/two:p", taken, fwEndpoints(b)),
	}}
	err = f.Apply(table)
	require.Error(t, err, "Apply with %s taken", taken)
	assert.True(t, errors.Is(err, syscall.EADDRINUSE), "Apply: got %v, want EADDRINUSE", err)
	assert.Contains(t, err.Error(), "proxy: demo/two:p: cannot listen on "+taken.String()+": ")
	assert.NotContains(t, err.Error(), "demo/one:p", "Apply's error: only the Service that failed")
	assert.Equal(t, []string{free.String()}, f.Listening(), "Listening() with %s taken", taken)
	assert.Equal(t, "a", fwAsk(t, free.String()), "the Service that could listen")

	require.NoError(t, squatter.Close())
	require.NoError(t, f.Apply(table), "Apply again once %s is free", taken)
	assert.ElementsMatch(t, []string{free.String(), taken.String()}, f.Listening(), "Listening() once %s is free", taken)
	assert.Equal(t, "a", fwAsk(t, taken.String()))
}

// TestForwarderPrivilegedPort: port 80 without the privilege to bind it
// says how to get it. Where the test runs with that privilege it only
// checks that the Service listens.
func TestForwarderPrivilegedPort(t *testing.T) {
	fwNoLeaks(t)
	b := fwStartBackend(t, "a", nil)
	addr := netip.AddrPortFrom(fwServiceAddr(t).Addr(), 80)
	f := fwNew(t, Options{})
	err := f.Apply(Table{Services: []Service{fwTCP("demo/web:http", addr, fwEndpoints(b))}})
	if err == nil {
		assert.Equal(t, "a", fwAsk(t, addr.String()))
		t.Skipf("this process may bind port 80 (uid %d, or net.ipv4.ip_unprivileged_port_start <= 80): the message is checked by TestListenErrorHint", os.Geteuid())
	}
	assert.Contains(t, err.Error(), "proxy: demo/web:http: cannot listen on "+addr.String())
	assert.Contains(t, err.Error(), "ports below 1024 need root or CAP_NET_BIND_SERVICE (sysctl net.ipv4.ip_unprivileged_port_start)")
}

func TestListenErrorHint(t *testing.T) {
	opErr := func(errno syscall.Errno) error {
		return &net.OpError{Op: "listen", Net: "tcp", Err: os.NewSyscallError("bind", errno)}
	}
	const hint = "; ports below 1024 need root or CAP_NET_BIND_SERVICE (sysctl net.ipv4.ip_unprivileged_port_start)"
	for _, tc := range []struct {
		port  int
		errno syscall.Errno
		want  string
	}{
		{80, syscall.EACCES, "proxy: demo/web:http: cannot listen on 127.96.0.1:80: listen tcp: bind: permission denied" + hint},
		{8080, syscall.EACCES, "proxy: demo/web:http: cannot listen on 127.96.0.1:80: listen tcp: bind: permission denied"},
		{80, syscall.EADDRINUSE, "proxy: demo/web:http: cannot listen on 127.96.0.1:80: listen tcp: bind: address already in use"},
	} {
		err := listenError(&Service{Name: "demo/web:http", Port: tc.port}, "127.96.0.1:80", opErr(tc.errno))
		assert.Equal(t, tc.want, err.Error(), "listenError(port %d, %v)", tc.port, tc.errno)
		assert.True(t, errors.Is(err, tc.errno), "listenError(port %d, %v): want it to wrap the errno", tc.port, tc.errno)
	}
}

// TestForwarderApplyStopsListening: a Service that leaves the table stops
// being listened on; a connection it forwarded goes on.
func TestForwarderApplyStopsListening(t *testing.T) {
	fwNoLeaks(t)
	b := fwStartBackend(t, "a", nil)
	keep, drop := fwServiceAddr(t), fwServiceAddr(t)
	f := fwNew(t, Options{})
	require.NoError(t, f.Apply(Table{Services: []Service{fwTCP("demo/keep:p", keep, fwEndpoints(b)), fwTCP("demo/drop:p", drop, fwEndpoints(b))}}))
	old := fwDial(t, drop.String())
	require.Equal(t, "a", old.ask())

	require.NoError(t, f.Apply(Table{Services: []Service{fwTCP("demo/keep:p", keep, fwEndpoints(b))}}))
	assert.Equal(t, []string{keep.String()}, f.Listening(), "Listening() after %s left", drop)
	_, err := net.DialTimeout("tcp", drop.String(), fwWait)
	assert.True(t, errors.Is(err, syscall.ECONNREFUSED), "dial %s after it left the table: got %v, want connection refused", drop, err)
	assert.Equal(t, "a", old.ask(), "the connection through %s opened before", drop)
}

// TestForwarderClose: Close ends every connection and listener and every
// goroutine (fwNoLeaks); afterwards a dial is refused.
func TestForwarderClose(t *testing.T) {
	fwNoLeaks(t)
	b := fwStartBackend(t, "a", nil)
	addr := fwServiceAddr(t)
	f := New(Options{})
	require.NoError(t, f.Apply(Table{Services: []Service{fwTCP("demo/echo:p", addr, fwEndpoints(b))}}))
	var open []*fwConn
	for range 5 {
		c := fwDial(t, addr.String())
		require.Equal(t, "a", c.ask())
		open = append(open, c)
	}
	require.NoError(t, f.Close(), "Close()")
	for i, c := range open {
		n, err := c.c.Read(make([]byte, 1))
		assert.Error(t, err, "read on connection %d after Close: got %d bytes, want it ended", i, n)
		var ne net.Error
		assert.False(t, errors.As(err, &ne) && ne.Timeout(), "read on connection %d after Close: got a timeout, want it ended", i)
	}
	assert.Empty(t, f.Listening(), "Listening() after Close")
	_, err := net.DialTimeout("tcp", addr.String(), fwWait)
	assert.True(t, errors.Is(err, syscall.ECONNREFUSED), "dial %s after Close: got %v, want connection refused", addr, err)
	assert.NoError(t, f.Close(), "Close() a second time")
	assert.Error(t, f.Apply(Table{}), "Apply after Close")
	f.mu.Lock()
	assert.Empty(t, f.conns, "connections the forwarder holds after Close")
	f.mu.Unlock()
}

// TestForwarderSkipsUDP: a UDP Service is kept in the Table, never
// listened on, and logged once.
func TestForwarderSkipsUDP(t *testing.T) {
	fwNoLeaks(t)
	addr := fwServiceAddr(t)
	var log fwSyncBuffer
	f := fwNew(t, Options{Log: &log})
	udp := Service{Name: "demo/dns:dns", IP: addr.Addr().String(), Port: 53, Protocol: "udp", Endpoints: []Endpoint{{Addr: "127.244.254.1:53", Probability: 1}}}
	for range 2 {
		require.NoError(t, f.Apply(Table{Services: []Service{udp}}))
	}
	assert.Empty(t, f.Listening())
	assert.Equal(t, 1, strings.Count(log.String(), "only TCP is forwarded"), "the log after two Applies: %q", log.String())
}

// TestForwarderListeningSorted: by IP (as numbers), then port.
func TestForwarderListeningSorted(t *testing.T) {
	fwNoLeaks(t)
	a := fwServiceAddr(t)
	ip := a.Addr()
	hi := netip.AddrPortFrom(ip, a.Port())
	lo := netip.AddrPortFrom(ip, a.Port()-1) // taken? then the test says so
	f := fwNew(t, Options{})
	require.NoError(t, f.Apply(Table{Services: []Service{fwTCP("demo/hi:p", hi, nil), fwTCP("demo/lo:p", lo, nil)}}), "Apply(%s, %s)", hi, lo)
	assert.Equal(t, []string{lo.String(), hi.String()}, f.Listening())
}

// TestForwarderConcurrentApply: Apply from one goroutine while
// connections are served (for the race detector): every connection gets
// an endpoint of some table it was applied.
func TestForwarderConcurrentApply(t *testing.T) {
	fwNoLeaks(t)
	bs := fwBackends(t, "a", "b")
	stable, churn := fwServiceAddr(t), fwServiceAddr(t)
	f := fwNew(t, Options{Rand: fwSeeded(4)})
	tables := []Table{
		{Services: []Service{fwTCP("demo/s:p", stable, fwEndpoints(bs[0]))}},
		{Services: []Service{fwTCP("demo/s:p", stable, fwEndpoints(bs[1])), fwTCP("demo/c:p", churn, fwEndpoints(bs[0]))}},
		{Services: []Service{fwTCP("demo/s:p", stable, fwEndpoints(bs...))}},
	}
	require.NoError(t, f.Apply(tables[0]))
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if err := f.Apply(tables[i%len(tables)]); err != nil {
				done <- err
				return
			}
			_ = f.Listening()
		}
	}()
	for range 100 {
		got := fwAsk(t, stable.String())
		assert.Contains(t, []string{"a", "b"}, got)
	}
	close(stop)
	require.NoError(t, <-done, "Apply in a loop")
}
