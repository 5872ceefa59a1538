package proxy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DialTimeout is how long the default Dial waits for an endpoint.
const DialTimeout = 5 * time.Second

// Options configure a Forwarder. Every field is optional.
type Options struct {
	// Rand draws the numbers that the statistic rules compare with their
	// probability, in [0, 1); math/rand/v2's Float64 when nil. The
	// forwarder calls it from one goroutine at a time.
	Rand func() float64
	// Dial connects to an endpoint; a net.Dialer with a DialTimeout
	// timeout when nil. Its context ends when the Forwarder is closed.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Now is the clock of session affinity; time.Now when nil.
	Now func() time.Time
	// Log receives a line for each listener opened or closed and for each
	// connection that could not be forwarded; discarded when nil.
	Log io.Writer
}

// Forwarder forwards TCP connections to Service addresses by a Table. It
// is safe for concurrent use.
type Forwarder struct {
	rand func() float64
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	now  func() time.Time

	randMu sync.Mutex // Options.Rand need not be safe for concurrent use
	logMu  sync.Mutex
	log    io.Writer

	ctx    context.Context // ends with Close: stops dials in flight
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine the forwarder started

	mu        sync.Mutex
	closed    bool
	listeners map[string]*listener // by "IP:port"
	conns     map[net.Conn]struct{}
	skipped   map[string]bool // the non-TCP Services already logged
}

// New makes a Forwarder that forwards nothing until its first Apply.
func New(opts Options) *Forwarder {
	f := &Forwarder{
		rand:      opts.Rand,
		dial:      opts.Dial,
		now:       opts.Now,
		log:       opts.Log,
		listeners: map[string]*listener{},
		conns:     map[net.Conn]struct{}{},
		skipped:   map[string]bool{},
	}
	if f.rand == nil {
		f.rand = rand.Float64
	}
	if f.dial == nil {
		f.dial = (&net.Dialer{Timeout: DialTimeout}).DialContext
	}
	if f.now == nil {
		f.now = time.Now
	}
	if f.log == nil {
		f.log = io.Discard
	}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	return f
}

// listener is the forwarder's socket for one Service address.
type listener struct {
	f    *Forwarder
	addr string
	ln   net.Listener
	svc  atomic.Pointer[Service] // swapped by Apply; read per connection

	affMu sync.Mutex
	// aff is session affinity's memory: the endpoint each client IP got
	// last, and when (the recent module's list, one per KUBE-SEP- chain
	// upstream; one per Service here, which picks the same endpoint).
	aff map[netip.Addr]affinity
}

type affinity struct {
	addr string
	last time.Time
}

// Apply makes the forwarder forward by t: it listens on the address of
// each TCP Service of t it does not listen on yet, stops listening on
// those no longer in t, and gives those that stay their new endpoints
// in place. Connections already forwarded are left alone, as conntrack
// keeps established flows when the rules change. An address it cannot
// listen on does not stop the others: Apply returns every such error
// joined, and tries again at the next Apply.
func (f *Forwarder) Apply(t Table) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errors.New("proxy: Apply on a closed forwarder")
	}
	var errs []error
	want := map[string]*Service{}
	var order []string
	for i := range t.Services {
		s := t.Services[i]
		s.Endpoints = slices.Clone(s.Endpoints) // the caller keeps its Table
		addr := net.JoinHostPort(s.IP, strconv.Itoa(s.Port))
		if s.Protocol != "tcp" {
			key := s.Name + " " + addr + "/" + s.Protocol
			if !f.skipped[key] {
				f.skipped[key] = true
				f.logf("proxy: %s at %s/%s: only TCP is forwarded", nameOf(&s), addr, s.Protocol)
			}
			continue
		}
		if s.Port < 1 || s.Port > 65535 {
			errs = append(errs, fmt.Errorf("proxy: %s: port %d is not a port (1-65535)", nameOf(&s), s.Port))
			continue
		}
		if other := want[addr]; other != nil {
			errs = append(errs, fmt.Errorf("proxy: %s and %s are both at %s/tcp: forwarding for the first", nameOf(other), nameOf(&s), addr))
			continue
		}
		want[addr] = &s
		order = append(order, addr)
	}
	for addr, l := range f.listeners {
		if want[addr] == nil {
			delete(f.listeners, addr)
			_ = l.ln.Close() // the accept loop ends; its connections go on
			f.logf("proxy: %s: stopped listening on %s", nameOf(l.svc.Load()), addr)
		}
	}
	for _, addr := range order {
		s := want[addr]
		if l := f.listeners[addr]; l != nil {
			l.svc.Store(s)
			continue
		}
		var lc net.ListenConfig
		ln, err := lc.Listen(f.ctx, "tcp", addr)
		if err != nil {
			errs = append(errs, listenError(s, addr, err))
			continue
		}
		l := &listener{f: f, addr: addr, ln: ln, aff: map[netip.Addr]affinity{}}
		l.svc.Store(s)
		f.listeners[addr] = l
		f.logf("proxy: %s: listening on %s", nameOf(s), addr)
		f.wg.Add(1)
		go l.serve()
	}
	return errors.Join(errs...)
}

// listenError says why the address of s cannot be listened on.
func listenError(s *Service, addr string, err error) error {
	hint := ""
	if s.Port < 1024 && errors.Is(err, os.ErrPermission) {
		hint = "; ports below 1024 need root or CAP_NET_BIND_SERVICE (sysctl net.ipv4.ip_unprivileged_port_start)"
	}
	return fmt.Errorf("proxy: %s: cannot listen on %s: %w%s", nameOf(s), addr, err, hint)
}

func nameOf(s *Service) string {
	if s == nil || s.Name == "" {
		return "(unnamed Service)"
	}
	return s.Name
}

// Listening is the addresses the forwarder listens on, "IP:port",
// sorted by IP then port.
func (f *Forwarder) Listening() []string {
	f.mu.Lock()
	out := make([]string, 0, len(f.listeners))
	for addr := range f.listeners {
		out = append(out, addr)
	}
	f.mu.Unlock()
	slices.SortFunc(out, func(a, b string) int {
		pa, ea := netip.ParseAddrPort(a)
		pb, eb := netip.ParseAddrPort(b)
		if ea != nil || eb != nil {
			return cmp.Compare(a, b)
		}
		return pa.Compare(pb)
	})
	return out
}

// Close stops listening, closes every connection the forwarder holds,
// and returns once every goroutine it started has ended. Calling it
// again does nothing.
func (f *Forwarder) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		f.wg.Wait()
		return nil
	}
	f.closed = true
	f.cancel()
	var errs []error
	for addr, l := range f.listeners {
		if err := l.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, fmt.Errorf("proxy: closing %s: %w", addr, err))
		}
	}
	f.listeners = map[string]*listener{}
	for c := range f.conns {
		_ = c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
	return errors.Join(errs...)
}

// track records c so that Close closes it; false when the forwarder is
// closed already (then the caller closes c).
func (f *Forwarder) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *Forwarder) untrack(c net.Conn) {
	f.mu.Lock()
	delete(f.conns, c)
	f.mu.Unlock()
	_ = c.Close()
}

func (f *Forwarder) logf(format string, args ...any) {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	fmt.Fprintf(f.log, format+"\n", args...)
}

func (f *Forwarder) draw() float64 {
	f.randMu.Lock()
	defer f.randMu.Unlock()
	return f.rand()
}

// serve accepts connections until the listener is closed.
func (l *listener) serve() {
	f := l.f
	defer f.wg.Done()
	var backoff time.Duration
	for {
		c, err := l.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait a little and
			// try again, as net/http's Server does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			f.logf("proxy: %s: accept on %s: %v; trying again in %v", nameOf(l.svc.Load()), l.addr, err, backoff)
			select {
			case <-f.ctx.Done():
				return
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		if !f.track(c) {
			reset(c)
			return
		}
		// The count is above zero (this goroutine holds one), so Add
		// cannot race with Close's Wait.
		f.wg.Add(1)
		go l.handle(c)
	}
}

// handle forwards one connection.
func (l *listener) handle(c net.Conn) {
	f := l.f
	defer f.wg.Done()
	defer f.untrack(c)
	s := l.svc.Load()
	i, ok := l.choose(s, c.RemoteAddr())
	if !ok {
		// REJECT, or a chain no rule of which matched: refuse it.
		reset(c)
		return
	}
	ep := s.Endpoints[i].Addr
	b, err := f.dial(f.ctx, "tcp", ep)
	if err != nil {
		if f.ctx.Err() == nil {
			f.logf("proxy: %s: %s -> %s: %v", nameOf(s), l.addr, ep, err)
		}
		reset(c)
		return
	}
	if !f.track(b) {
		reset(b)
		reset(c)
		return
	}
	defer f.untrack(b)
	f.wg.Add(1) // above zero: this goroutine holds one
	done := make(chan struct{})
	go func() {
		defer f.wg.Done()
		defer close(done)
		pipe(b, c)
	}()
	pipe(c, b)
	<-done
}

// pipe copies src to dst until src is done. At src's end of stream it
// half-closes dst, so that the other side sees it and the other
// direction goes on (a client's shutdown(SHUT_WR) reaches the backend);
// on an error it resets both, as a reset in a NATed flow reaches the
// other end.
func pipe(dst, src net.Conn) {
	_, err := io.Copy(dst, src)
	switch {
	case err == nil:
		if cw, ok := dst.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
			return
		}
		// No half-close (a Dial that returns no TCP connection): end the
		// flow; the other direction sees net.ErrClosed.
		_ = dst.Close()
	case errors.Is(err, net.ErrClosed):
		// Closed here: by Close, or by the other direction's end.
		_ = dst.Close()
		_ = src.Close()
	default:
		reset(dst)
		reset(src)
	}
}

// reset closes c with a TCP RST rather than a FIN (SO_LINGER 0), so that
// the client sees "connection reset by peer" at once, like the answer
// of the filter table's REJECT, not an empty reply.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// choose picks the endpoint of s for a connection from client: the one
// the client got last while session affinity holds, else Pick's.
func (l *listener) choose(s *Service, client net.Addr) (int, bool) {
	f := l.f
	if s.Affinity <= 0 {
		return Pick(s.Endpoints, f.draw)
	}
	ip := clientIP(client)
	now := f.now()
	l.affMu.Lock()
	defer l.affMu.Unlock()
	// --rcheck --seconds S: the client's entry counts while it was
	// seen in the last S seconds, and only while its endpoint's rules
	// are still there.
	if a, ok := l.aff[ip]; ok && now.Sub(a.last) <= s.Affinity {
		if i := slices.IndexFunc(s.Endpoints, func(e Endpoint) bool { return e.Addr == a.addr }); i >= 0 {
			l.aff[ip] = affinity{addr: a.addr, last: now} // the SEP chain's --set
			return i, true
		}
	}
	i, ok := Pick(s.Endpoints, f.draw)
	if !ok {
		return i, false
	}
	// --reap: forget clients older than the timeout, so that the memory
	// stays the size of the recent clients.
	if len(l.aff) >= 1024 {
		for k, a := range l.aff {
			if now.Sub(a.last) > s.Affinity {
				delete(l.aff, k)
			}
		}
	}
	l.aff[ip] = affinity{addr: s.Endpoints[i].Addr, last: now}
	return i, true
}

func clientIP(a net.Addr) netip.Addr {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.AddrPort().Addr().Unmap()
	}
	ap, _ := netip.ParseAddrPort(a.String())
	return ap.Addr()
}
