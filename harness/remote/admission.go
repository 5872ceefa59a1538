package remote

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/kubekata/kubekata/harness/admissiontest"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
)

// Exercise 05's contract crosses the boundary in three parts:
//
//   - NewRequestInfo is a pure call.
//   - NewAuthorizer and New are handles: a call that stays open while the
//     grader's ctx lives (Started, with the handle's number, then End once
//     the grader hung up), so that the learner's ctx in the program ends
//     when the grader's does. Authorize is a call on the authorizer's
//     handle; the store either reads is the grader's, reached back.
//   - The filter New returns is applied in the program ("admission.Wrap")
//     to a next that is the grader's handler, reached back over HTTP; the
//     handler it makes is served over HTTP like exercise 04's. The
//     request carries the client's connection (its remote address and the
//     TLS state the grader's server verified) to the program, and a
//     request to next carries what the gate put in its context (the user
//     and the request info) back to the grader.

// Headers of exercise 05's hops. Every header the adapter uses starts
// with headerPrefix, and the grader removes all such headers from what a
// client sent before the gate sees the request: a client cannot forge a
// certificate, a user or a request info.
const (
	headerPrefix = "Kata-Remote-"
	// headerConn: grader to program, the client's connection (connInfo).
	headerConn = "Kata-Remote-Conn"
	// headerNext: program to grader, which next the gate called.
	headerNext = "Kata-Remote-Next"
	// headerContext: program to grader, what the gate put in the context
	// of the request it passed to next (gateContext).
	headerContext = "Kata-Remote-Context"
	// headerRecord: program to grader, on the gate's answer: what the
	// gate told the request's audit Record (gateContext), refusals too.
	headerRecord = "Kata-Remote-Record"
)

// wireInfo is pipeline.RequestInfo as it crosses: the same fields, with
// no omitempty, so that an empty Parts stays empty and a nil one nil.
// (Converting between the two is Go's struct conversion: a field added to
// RequestInfo breaks the build here rather than silently not crossing.)
type wireInfo struct {
	IsResourceRequest bool
	Path              string
	Verb              string
	APIPrefix         string
	APIGroup          string
	APIVersion        string
	Namespace         string
	Resource          string
	Subresource       string
	Name              string
	Parts             []string
}

// wireUser is pipeline.UserInfo as it crosses (as wireInfo).
type wireUser struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

type wireAttrs struct {
	User wireUser
	Info wireInfo
}

func toWireAttrs(a pipeline.Attributes) wireAttrs {
	return wireAttrs{User: wireUser(a.User), Info: wireInfo(a.RequestInfo)}
}

func (a wireAttrs) attributes() pipeline.Attributes {
	return pipeline.Attributes{User: pipeline.UserInfo(a.User), RequestInfo: pipeline.RequestInfo(a.Info)}
}

// The arguments and answers of exercise 05's methods.
type (
	requestInfoArgs struct {
		Method string
		Path   string
		Query  url.Values
	}
	authorizerArgs struct {
		Back  string // the socket of the grader's stores
		Store int64  // the grader's store; 0 for a nil store
	}
	authorizeArgs struct {
		ID    int64
		Attrs wireAttrs
	}
	authorizeResult struct {
		Decision pipeline.Decision
		Err      *wireError
	}
	gateArgs struct {
		Back     string
		Store    int64 // 0 for a nil Config.Store
		Tokens   []byte
		Policies []string
	}
	// handleResult is the final answer of a handle that did not start:
	// the constructor's error, or ID 0 for a nil handle and no error.
	handleResult struct {
		ID  int64
		Err *wireError
	}
	wrapArgs struct {
		Gate int64
		Next int64  // the grader's next handler; 0 for a nil next
		Back string // the socket of the grader's next handlers
	}
	wrapResult struct {
		ID int64 // the program's handler; 0 for nil
	}
)

// connInfo is what the grader's server knew of a request's connection:
// its remote address and, over TLS, the certificates the client showed
// and the chains the server verified them with (DER).
type connInfo struct {
	RemoteAddr string
	TLS        *wireTLS
}

type wireTLS struct {
	Version            uint16
	CipherSuite        uint16
	ServerName         string
	NegotiatedProtocol string
	Peer               [][]byte
	Verified           [][][]byte
}

// gateContext is what the gate said of a request: the user and request
// info in the context it passed on (User, Info), and what it told the
// audit Record (Authenticated, Impersonated, RecordInfo). Nil: never said.
type gateContext struct {
	User          *wireUser `json:",omitempty"`
	Info          *wireInfo `json:",omitempty"`
	Authenticated *wireUser `json:",omitempty"`
	Impersonated  *wireUser `json:",omitempty"`
	RecordInfo    *wireInfo `json:",omitempty"`
}

// encodeHeader is v as a header value: base64 of its JSON, so that any
// name a certificate holds crosses as it is.
func encodeHeader(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("remote: encoding a header: %v", err)) // plain data: cannot happen
	}
	return base64.StdEncoding.EncodeToString(data)
}

func decodeHeader(s string, v any) error {
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// stripAdapterHeaders removes every header the adapter uses from h.
func stripAdapterHeaders(h http.Header) {
	for k := range h {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), headerPrefix) {
			delete(h, k)
		}
	}
}

func connOf(r *http.Request) connInfo {
	ci := connInfo{RemoteAddr: r.RemoteAddr}
	if r.TLS != nil {
		t := &wireTLS{Version: r.TLS.Version, CipherSuite: r.TLS.CipherSuite, ServerName: r.TLS.ServerName, NegotiatedProtocol: r.TLS.NegotiatedProtocol}
		for _, c := range r.TLS.PeerCertificates {
			t.Peer = append(t.Peer, c.Raw)
		}
		for _, chain := range r.TLS.VerifiedChains {
			var raw [][]byte
			for _, c := range chain {
				raw = append(raw, c.Raw)
			}
			t.Verified = append(t.Verified, raw)
		}
		ci.TLS = t
	}
	return ci
}

// state rebuilds the TLS connection state the grader's server saw.
func (t *wireTLS) state() (*tls.ConnectionState, error) {
	parsed := map[string]*x509.Certificate{}
	parse := func(der []byte) (*x509.Certificate, error) {
		if c, ok := parsed[string(der)]; ok {
			return c, nil
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, err
		}
		parsed[string(der)] = c
		return c, nil
	}
	st := &tls.ConnectionState{Version: t.Version, HandshakeComplete: true, CipherSuite: t.CipherSuite, ServerName: t.ServerName, NegotiatedProtocol: t.NegotiatedProtocol}
	for _, der := range t.Peer {
		c, err := parse(der)
		if err != nil {
			return nil, err
		}
		st.PeerCertificates = append(st.PeerCertificates, c)
	}
	for _, chain := range t.Verified {
		var certs []*x509.Certificate
		for _, der := range chain {
			c, err := parse(der)
			if err != nil {
				return nil, err
			}
			certs = append(certs, c)
		}
		st.VerifiedChains = append(st.VerifiedChains, certs)
	}
	return st, nil
}

// The program's side.

// admissionProgram is what one run of the learner's program keeps of
// exercise 05: its authorizers and filters, and its clients of the
// grader's next handlers.
type admissionProgram struct {
	mu          sync.Mutex
	next        int64
	authorizers map[int64]pipeline.Authorizer
	gates       map[int64]func(http.Handler) http.Handler
	backs       map[string]*http.Transport // by the grader's socket
}

func (ap *admissionProgram) add(a pipeline.Authorizer, g func(http.Handler) http.Handler) int64 {
	ap.mu.Lock()
	defer ap.mu.Unlock()
	ap.next++
	if a != nil {
		ap.authorizers[ap.next] = a
	} else {
		ap.gates[ap.next] = g
	}
	return ap.next
}

func (ap *admissionProgram) transport(path string) *http.Transport {
	ap.mu.Lock()
	defer ap.mu.Unlock()
	if t, ok := ap.backs[path]; ok {
		return t
	}
	t := unixTransport(path)
	ap.backs[path] = t
	return t
}

// unixTransport is an HTTP client transport to the unix socket at path.
func unixTransport(path string) *http.Transport {
	return &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		DisableCompression:  true,
		MaxIdleConnsPerHost: 64,
	}
}

// holdHandle answers a handle's call: Started with id, then, once the
// grader hung up (which ended the learner's ctx), End.
func holdHandle(c *serverCall, id int64) *frame {
	data, _ := json.Marshal(id)
	if err := c.conn.write(&frame{Started: true, Result: data}); err != nil {
		return &frame{End: true}
	}
	<-c.ctx.Done()
	return &frame{End: true}
}

// AdmissionService serves exercise 05's contract, impl: NewRequestInfo,
// authorizers over the grader's stores, and the gate's filters applied to
// the grader's handlers.
func AdmissionService(impl admissiontest.Impl) Service {
	hs := &handlers{byID: map[int64]http.Handler{}, active: map[string]chan struct{}{}}
	ap := &admissionProgram{authorizers: map[int64]pipeline.Authorizer{}, gates: map[int64]func(http.Handler) http.Handler{}, backs: map[string]*http.Transport{}}
	storeOf := func(back string, id int64) storage.Store {
		if id == 0 {
			return nil
		}
		return &remoteStore{ep: &endpoint{path: back}, id: id}
	}
	return Service{exercise: "05-admission", handlers: hs, methods: map[string]method{
		"admission.NewRequestInfo": func(c *serverCall) *frame {
			var a requestInfoArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			return resultFrame(wireInfo(impl.NewRequestInfo(a.Method, a.Path, a.Query)), nil)
		},
		"admission.NewAuthorizer": func(c *serverCall) *frame {
			var a authorizerArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			authz, err := impl.NewAuthorizer(c.ctx, storeOf(a.Back, a.Store))
			if err != nil || authz == nil {
				return resultFrame(handleResult{Err: toWire(err)}, nil)
			}
			return holdHandle(c, ap.add(authz, nil))
		},
		"admission.Authorize": func(c *serverCall) *frame {
			var a authorizeArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			ap.mu.Lock()
			authz := ap.authorizers[a.ID]
			ap.mu.Unlock()
			if authz == nil {
				return &frame{Err: toWire(fmt.Errorf("remote: no authorizer %d in this program", a.ID))}
			}
			d, err := authz.Authorize(c.ctx, a.Attrs.attributes())
			return resultFrame(authorizeResult{Decision: d, Err: toWire(err)}, nil)
		},
		"admission.New": func(c *serverCall) *frame {
			var a gateArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			cfg := pipeline.Config{Store: storeOf(a.Back, a.Store), Tokens: a.Tokens, Policies: a.Policies}
			g, err := impl.New(c.ctx, cfg)
			if err != nil || g == nil {
				return resultFrame(handleResult{Err: toWire(err)}, nil)
			}
			return holdHandle(c, ap.add(nil, g))
		},
		"admission.Wrap": func(c *serverCall) *frame {
			var a wrapArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			ap.mu.Lock()
			g := ap.gates[a.Gate]
			ap.mu.Unlock()
			if g == nil {
				return &frame{Err: toWire(fmt.Errorf("remote: no filter %d in this program", a.Gate))}
			}
			var next http.Handler
			if a.Next != 0 {
				next = &remoteNext{t: ap.transport(a.Back), id: strconv.FormatInt(a.Next, 10)}
			}
			h := g(next)
			if h == nil {
				return resultFrame(wrapResult{}, nil)
			}
			return resultFrame(wrapResult{ID: hs.add(gateEntry{h})}, nil)
		},
		"http.Wait": httpWait(hs),
	}}
}

type recordKey struct{}

// gateEntry is where a request reaches the learner's gate in the
// program: the connection the grader's server saw is restored (r.TLS,
// r.RemoteAddr), and the request carries an audit Record whose content
// goes back with the answer.
type gateEntry struct{ h http.Handler }

func (g gateEntry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var ci connInfo
	if err := decodeHeader(r.Header.Get(headerConn), &ci); err != nil {
		http.Error(w, fmt.Sprintf("remote: the grader sent a connection that does not decode: %v", err), http.StatusBadGateway)
		return
	}
	r.Header.Del(headerConn)
	r.RemoteAddr = ci.RemoteAddr
	r.TLS = nil
	if ci.TLS != nil {
		st, err := ci.TLS.state()
		if err != nil {
			http.Error(w, fmt.Sprintf("remote: the grader sent a certificate that does not parse: %v", err), http.StatusBadGateway)
			return
		}
		r.TLS = st
	}
	ctx, rec := pipeline.WithRecord(r.Context())
	ctx = context.WithValue(ctx, recordKey{}, rec)
	g.h.ServeHTTP(&recordWriter{ResponseWriter: w, rec: rec}, r.WithContext(ctx))
}

// recordWriter puts what the gate told the audit Record in the header of
// its answer.
type recordWriter struct {
	http.ResponseWriter
	rec  *pipeline.Record
	sent bool
}

func (w *recordWriter) header() {
	if w.sent {
		return
	}
	w.sent = true
	var gc gateContext
	gc.fromRecord(w.rec)
	w.ResponseWriter.Header().Set(headerRecord, encodeHeader(gc))
}

func (w *recordWriter) WriteHeader(code int) {
	w.header()
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordWriter) Write(p []byte) (int, error) {
	w.header()
	return w.ResponseWriter.Write(p)
}

func (w *recordWriter) Flush() {
	w.header()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *recordWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (gc *gateContext) fromRecord(rec *pipeline.Record) {
	if rec == nil {
		return
	}
	u, imp := rec.User()
	if u != nil {
		wu := wireUser(*u)
		gc.Authenticated = &wu
	}
	if imp != nil {
		wi := wireUser(*imp)
		gc.Impersonated = &wi
	}
	if info := rec.RequestInfo(); info != nil {
		wi := wireInfo(*info)
		gc.RecordInfo = &wi
	}
}

// replay says to ctx's audit Record what the gate told its own, and
// returns ctx with the user and request info the gate passed on.
func (gc *gateContext) replay(ctx context.Context) context.Context {
	rctx := ctx
	if gc.Authenticated != nil {
		rctx = pipeline.WithUser(rctx, pipeline.UserInfo(*gc.Authenticated))
	}
	if gc.Impersonated != nil {
		rctx = pipeline.WithUser(rctx, pipeline.UserInfo(*gc.Impersonated))
	}
	if gc.RecordInfo != nil {
		rctx = pipeline.WithRequestInfo(rctx, pipeline.RequestInfo(*gc.RecordInfo))
	}
	_ = rctx // only the Record's side effects: the values are gc.User and gc.Info
	if gc.User != nil {
		ctx = pipeline.WithUser(ctx, pipeline.UserInfo(*gc.User))
	}
	if gc.Info != nil {
		ctx = pipeline.WithRequestInfo(ctx, pipeline.RequestInfo(*gc.Info))
	}
	return ctx
}

// remoteNext is, in the program, the grader's next handler: a request
// the gate passes to it goes to the grader over HTTP with what the gate
// put in its context, and the answer streams back.
type remoteNext struct {
	t  *http.Transport
	id string
}

func (n *remoteNext) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var gc gateContext
	if u, ok := pipeline.UserFrom(ctx); ok {
		wu := wireUser(u)
		gc.User = &wu
	}
	if info, ok := pipeline.RequestInfoFrom(ctx); ok {
		wi := wireInfo(info)
		gc.Info = &wi
	}
	rec, _ := ctx.Value(recordKey{}).(*pipeline.Record)
	gc.fromRecord(rec)
	out, err := http.NewRequestWithContext(ctx, r.Method, "http://kata"+r.URL.RequestURI(), nil)
	if err != nil {
		http.Error(w, fmt.Sprintf("remote: the request the gate passed to next: %v", err), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	if out.Header == nil {
		out.Header = http.Header{}
	}
	stripAdapterHeaders(out.Header)
	out.Header.Set(headerNext, n.id)
	out.Header.Set(headerContext, encodeHeader(gc))
	if id, ok := ctx.Value(requestIDKey{}).(string); ok {
		out.Header.Set(headerRequest, id)
	}
	out.Host = r.Host
	if r.Body != nil && r.Body != http.NoBody {
		b := newHeldBody(r.Body)
		out.Body = b
		out.ContentLength = r.ContentLength // 0 with a body: unknown, as for any client request
		defer b.wait()
	}
	resp, err := n.t.RoundTrip(out)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		http.Error(w, fmt.Sprintf("remote: reaching the grader's next handler: %v", err), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	if !copyFlushing(w, resp.Body) && ctx.Err() == nil {
		// The grader's answer broke off: so does this one.
		panic(http.ErrAbortHandler)
	}
}

// copyFlushing copies body to w, flushing as it comes; false when body broke
// off before its end (or w failed).
func copyFlushing(w http.ResponseWriter, body io.Reader) bool {
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush() // a watch's client waits for the header
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return false
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// The grader's side.

// Admission is an admissiontest.Impl whose functions call the program's:
// NewRequestInfo as a pure call, the authorizer and the gate as handles
// in the program that runs when they are made.
func Admission(p *Program) admissiontest.Impl {
	return admissiontest.Impl{
		NewRequestInfo: func(method, path string, query url.Values) pipeline.RequestInfo {
			var out wireInfo
			p.pure("admission.NewRequestInfo", requestInfoArgs{Method: method, Path: path, Query: query}, &out)
			return pipeline.RequestInfo(out)
		},
		NewAuthorizer: func(ctx context.Context, s storage.Store) (pipeline.Authorizer, error) {
			back, err := p.backServer()
			if err != nil {
				return nil, err
			}
			pr, err := p.proc()
			if err != nil {
				return nil, err
			}
			var id int64
			if s != nil {
				id = back.reg.add(s)
			}
			h, err := openHandle(ctx, pr.endpoint(), "admission.NewAuthorizer", authorizerArgs{Back: back.path, Store: id})
			if err != nil || h == 0 {
				return nil, err
			}
			return &remoteAuthorizer{ep: pr.endpoint(), id: h}, nil
		},
		New: func(ctx context.Context, cfg pipeline.Config) (func(http.Handler) http.Handler, error) {
			back, err := p.backServer()
			if err != nil {
				return nil, err
			}
			pr, err := p.proc()
			if err != nil {
				return nil, err
			}
			var id int64
			if cfg.Store != nil {
				id = back.reg.add(cfg.Store)
			}
			h, err := openHandle(ctx, pr.endpoint(), "admission.New", gateArgs{Back: back.path, Store: id, Tokens: cfg.Tokens, Policies: cfg.Policies})
			if err != nil || h == 0 {
				return nil, err
			}
			g := &remoteGate{p: p, pr: pr, id: h}
			return g.wrap, nil
		},
	}
}

// openHandle makes a handle in the program: its number, 0 with the
// constructor's error (or none, for a nil handle). The call stays open
// until ctx ends, which ends the learner's ctx in the program.
func openHandle(ctx context.Context, ep *endpoint, method string, args any) (int64, error) {
	cc, err := ep.open(ctx, method, args, 0, hangGrace)
	if err != nil {
		return 0, &callError{msg: err.Error()}
	}
	f, err := cc.recv()
	if err != nil {
		cc.close()
		return 0, &callError{msg: err.Error()}
	}
	if !f.Started {
		cc.close()
		var out handleResult
		if err := cc.final(f, &out); err != nil {
			return 0, err
		}
		return out.ID, fromWire(out.Err)
	}
	var id int64
	if err := json.Unmarshal(f.Result, &id); err != nil || id == 0 {
		cc.close()
		return 0, &callError{msg: fmt.Sprintf("remote: %s: the implementation's program broke the protocol: a handle with no number%s", method, cc.printed())}
	}
	// From here on the program waits for ctx's end, and answers it.
	cc.settled()
	go func() {
		defer cc.close()
		defer context.AfterFunc(ctx, cc.cancel)()
		_, _ = cc.recv()
	}()
	return id, nil
}

// remoteAuthorizer is an authorizer in the program.
type remoteAuthorizer struct {
	ep *endpoint
	id int64
}

func (a *remoteAuthorizer) Authorize(ctx context.Context, attrs pipeline.Attributes) (pipeline.Decision, error) {
	var out authorizeResult
	if err := a.ep.call(ctx, "admission.Authorize", authorizeArgs{ID: a.id, Attrs: toWireAttrs(attrs)}, &out, 0); err != nil {
		return pipeline.Decision{}, err
	}
	return out.Decision, fromWire(out.Err)
}

// remoteGate is a filter New made in the program.
type remoteGate struct {
	p  *Program
	pr *proc
	id int64
}

// wrap applies the filter to next in the program: a pure call.
func (g *remoteGate) wrap(next http.Handler) http.Handler {
	ns, err := g.p.nextServer()
	if err != nil {
		repanic(err.Error())
	}
	var nextID int64
	if next != nil {
		nextID = ns.add(next)
	}
	var out wrapResult
	if err := g.pr.endpoint().call(context.Background(), "admission.Wrap", wrapArgs{Gate: g.id, Next: nextID, Back: ns.path}, &out, g.p.callTimeout()); err != nil {
		var ce *callError
		if errors.As(err, &ce) {
			repanic(ce.msg)
		}
		repanic(err.Error())
	}
	if out.ID == 0 {
		return nil
	}
	return &proxy{pr: g.pr, id: strconv.FormatInt(out.ID, 10), prepare: ns.prepare}
}

// nextServer serves the grader's next handlers to the program, over HTTP
// on a unix socket. A request the gate passes on is matched with the
// client's request it came from (by the proxy's request id), whose
// context values, connection and audit Record next gets.
type nextServer struct {
	dir  string
	path string
	srv  *http.Server

	mu     sync.Mutex
	n      int64
	byID   map[int64]http.Handler
	origin map[string]*http.Request // by request id, while the gate serves it
}

func newNextServer() (*nextServer, error) {
	dir, err := socketDir()
	if err != nil {
		return nil, err
	}
	path := socketName(dir, "next")
	l, err := net.Listen("unix", path)
	if err != nil {
		removeSocketDir(dir)
		return nil, fmt.Errorf("remote: %w", err)
	}
	ns := &nextServer{dir: dir, path: path, byID: map[int64]http.Handler{}, origin: map[string]*http.Request{}}
	ns.srv = &http.Server{Handler: ns}
	go func() { _ = ns.srv.Serve(l) }()
	return ns, nil
}

func (ns *nextServer) close() {
	_ = ns.srv.Close()
	removeSocketDir(ns.dir)
}

func (ns *nextServer) add(h http.Handler) int64 {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	ns.n++
	ns.byID[ns.n] = h
	return ns.n
}

// prepare readies the request out that carries the client's r to the
// gate: no header of the adapter's from the client, the connection as
// the grader's server saw it, and r known by its id until the gate
// answered. It returns what to do then.
func (ns *nextServer) prepare(id string, r, out *http.Request) func() {
	handler := out.Header.Get(headerHandler) // the proxy's own, set already
	stripAdapterHeaders(out.Header)
	out.Header.Set(headerHandler, handler)
	out.Header.Set(headerRequest, id)
	out.Header.Set(headerConn, encodeHeader(connOf(r)))
	ns.mu.Lock()
	ns.origin[id] = r
	ns.mu.Unlock()
	return func() {
		ns.mu.Lock()
		delete(ns.origin, id)
		ns.mu.Unlock()
	}
}

// answered replays what the gate told its audit Record, as the header of
// its answer says, to the Record of the client's request r.
func answered(r *http.Request, h http.Header) {
	v := h.Get(headerRecord)
	stripAdapterHeaders(h)
	var gc gateContext
	if v == "" || decodeHeader(v, &gc) != nil {
		return
	}
	gc.User, gc.Info = nil, nil
	gc.replay(r.Context())
}

// ServeHTTP serves a request the gate passed to next: next gets it with
// the client's request's context values, connection, and what the gate
// put in the context.
func (ns *nextServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.Header.Get(headerNext), 10, 64)
	reqID := r.Header.Get(headerRequest)
	var gc gateContext
	if err := decodeHeader(r.Header.Get(headerContext), &gc); err != nil {
		http.Error(w, fmt.Sprintf("remote: a context from the program that does not decode: %v", err), http.StatusBadGateway)
		return
	}
	stripAdapterHeaders(r.Header)
	ns.mu.Lock()
	next := ns.byID[id]
	orig := ns.origin[reqID]
	ns.mu.Unlock()
	if next == nil {
		http.Error(w, fmt.Sprintf("remote: no next handler %d in the grader", id), http.StatusBadGateway)
		return
	}
	ctx := r.Context()
	if orig != nil {
		ctx = valuesOf{Context: ctx, values: orig.Context()}
		r.TLS = orig.TLS
		r.RemoteAddr = orig.RemoteAddr
	} else {
		r.TLS = nil
		r.RemoteAddr = ""
	}
	next.ServeHTTP(w, r.WithContext(gc.replay(ctx)))
}

// valuesOf is a context that ends with Context and has the values of
// values (the client's request's, which carry what its server and the
// test put there), then Context's.
type valuesOf struct {
	context.Context
	values context.Context
}

func (c valuesOf) Value(key any) any {
	if v := c.values.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}

// nextServer returns the grader's server of next handlers.
func (p *Program) nextServer() (*nextServer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("remote: the program was closed")
	}
	if p.nexts == nil {
		ns, err := newNextServer()
		if err != nil {
			return nil, err
		}
		p.nexts = ns
	}
	return p.nexts, nil
}
