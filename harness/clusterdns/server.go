package clusterdns

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/miekg/dns"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// Options configure a Server.
type Options struct {
	// Addr is the host:port the server listens on, for UDP and TCP
	// alike; port 0 picks a port free for both. "127.0.0.1:0" when
	// empty.
	Addr string
	// Domain is the zone the server answers for; servicenet.ClusterDomain
	// when empty.
	Domain string
	// Log receives one line per question refused or failed; io.Discard
	// when nil.
	Log io.Writer
}

// Server is the cluster's DNS server: it answers the questions for its
// zone with a servicenet.LookupFunc over the cluster's Services and
// EndpointSlices. Create it with New; Run serves.
type Server struct {
	c      client.Interface
	lookup servicenet.LookupFunc
	addr   string // what to listen on
	zone   string // fully qualified, lowercase: "cluster.local."

	logMu sync.Mutex
	log   io.Writer

	running atomic.Bool
	caches  atomic.Pointer[caches] // set by Run once its informers run
	mu      sync.Mutex
	bound   string // where it listens
	ready   chan struct{}
}

// caches are the informers a running server answers from.
type caches struct {
	svcs, slices *informer.Informer
	synced       atomic.Bool
}

// New makes the DNS server over the apiserver c, answering with lookup,
// the learner's Lookup.
func New(c client.Interface, lookup servicenet.LookupFunc, opts Options) *Server {
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	domain := opts.Domain
	if domain == "" {
		domain = servicenet.ClusterDomain
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	return &Server{c: c, lookup: lookup, addr: addr, zone: strings.ToLower(dns.Fqdn(domain)), log: log,
		ready: make(chan struct{})}
}

// Addr is the address the server listens on, UDP and TCP ("127.0.0.1:
// 40123"), once it listens; "" before. It stays the same once Run has
// returned.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bound
}

// Ready is closed once the server listens and its caches have synced.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// udpBufSize is the largest query the server reads over UDP, and the UDP
// size its OPT records advertise.
const udpBufSize = 4096

// Run listens, fills the caches and serves until ctx ends; then it shuts
// both servers down and returns once every goroutine it started has
// ended. It returns an error only when it cannot start. Run is called
// once.
func (s *Server) Run(ctx context.Context) error {
	if !s.running.CompareAndSwap(false, true) {
		return errors.New("clusterdns: Run called twice")
	}
	pc, ln, err := listen(s.addr)
	if err != nil {
		return fmt.Errorf("clusterdns: %w", err)
	}
	defer func() { _ = pc.Close(); _ = ln.Close() }() // both already closed but when a server did not start

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cs := &caches{
		svcs:   informer.New(s.c, client.For[*api.Service](s.c).Kind(), "", informer.Options{}),
		slices: informer.New(s.c, client.For[*api.EndpointSlice](s.c).Kind(), "", informer.Options{}),
	}
	s.caches.Store(cs)

	handler := dns.HandlerFunc(s.serveDNS)
	servers := []*server{
		startServer(&dns.Server{Net: "udp", PacketConn: pc, Handler: handler, UDPSize: udpBufSize, MsgAcceptFunc: accept}),
		startServer(&dns.Server{Net: "tcp", Listener: ln, Handler: handler, MsgAcceptFunc: accept}),
	}
	var startErr error
	for _, sv := range servers {
		if err := sv.waitStarted(); err != nil && startErr == nil {
			startErr = err
		}
	}
	// Whatever happens next, the servers are shut down before Run returns.
	defer func() {
		for _, sv := range servers {
			sv.stop()
		}
	}()
	if startErr != nil {
		return fmt.Errorf("clusterdns: %w", startErr)
	}
	s.mu.Lock()
	s.bound = ln.Addr().String()
	s.mu.Unlock()

	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel() // the informers stop before wg.Wait
	for _, inf := range []*informer.Informer{cs.svcs, cs.slices} {
		wg.Go(func() { _ = inf.Run(ctx) })
	}
	for _, inf := range []*informer.Informer{cs.svcs, cs.slices} {
		if err := inf.WaitForSync(ctx); err != nil {
			return nil // stopped before the caches filled
		}
	}
	cs.synced.Store(true)
	close(s.ready)
	<-ctx.Done()
	return nil
}

// listen opens the TCP listener and the UDP socket of addr on the same
// port. With port 0, the TCP listener picks the port; when that port is
// taken for UDP, it tries again with another.
func listen(addr string) (net.PacketConn, net.Listener, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, err
	}
	pick := port == "0" || port == ""
	for try := 1; ; try++ {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, nil, err
		}
		pc, err := net.ListenPacket("udp", ln.Addr().String())
		if err == nil {
			return pc, ln, nil
		}
		_ = ln.Close()
		if !pick || try == 10 {
			return nil, nil, err
		}
	}
}

// server is one of miekg's servers, UDP or TCP, serving in a goroutine.
type server struct {
	srv     *dns.Server
	started chan struct{} // closed once it serves
	done    chan error    // ActivateAndServe's error, once it returned
}

func startServer(srv *dns.Server) *server {
	sv := &server{srv: srv, started: make(chan struct{}), done: make(chan error, 1)}
	srv.NotifyStartedFunc = func() { close(sv.started) }
	go func() { sv.done <- srv.ActivateAndServe() }()
	return sv
}

// waitStarted waits until the server serves, or says why it never will.
func (sv *server) waitStarted() error {
	select {
	case <-sv.started:
		return nil
	case err := <-sv.done:
		sv.done <- err // for stop
		return err
	}
}

// stop shuts the server down, if it started, and waits until its
// goroutines have ended. Only a started server can be shut down (miekg's
// ShutdownContext fails otherwise), and waitStarted saw that it did or
// that it returned.
func (sv *server) stop() {
	select {
	case <-sv.started:
		// Its goroutines end before ShutdownContext returns; its
		// connections are told to stop reading at once.
		_ = sv.srv.ShutdownContext(context.Background())
	default:
	}
	<-sv.done
}

// accept lets every query reach the handler, which answers FORMERR and
// NOTIMP itself; responses are dropped, as miekg's default does. A
// message that does not parse still gets miekg's FORMERR.
func accept(dh dns.Header) dns.MsgAcceptAction {
	const qr = 1 << 15 // the header's QR bit: a response
	if dh.Bits&qr != 0 {
		return dns.MsgIgnore
	}
	return dns.MsgAccept
}

// logf writes one line to the log.
func (s *Server) logf(format string, args ...any) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.log, "clusterdns: "+format+"\n", args...)
}
