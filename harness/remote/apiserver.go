package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/storage"
)

// Headers between the grader's proxy and the program's handlers. The
// program removes the first two before the learner's handler sees the
// request; the last two mark an answer its handler did not give.
const (
	headerHandler = "Kata-Remote-Handler"
	headerRequest = "Kata-Remote-Request"
	headerPanic   = "Kata-Remote-Panic"
	headerGoexit  = "Kata-Remote-Goexit"
)

type newArgs struct {
	Back  string `json:"back"`  // the socket of the grader's stores
	Store int64  `json:"store"` // the grader's store the handler gets
}

type newResult struct {
	ID int64 `json:"id"` // 0: New returned nil
}

// APIServerService serves exercise 04's contract: the handlers newFn
// makes, over HTTP, each over the grader's store, which the program
// reaches back through the store protocol.
func APIServerService(newFn func(storage.Store) http.Handler) Service {
	hs := &handlers{byID: map[int64]http.Handler{}, active: map[string]chan struct{}{}}
	return Service{exercise: "04-apiserver", handlers: hs, methods: map[string]method{
		"apiserver.New": func(c *serverCall) *frame {
			var a newArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			s := &remoteStore{ep: &endpoint{path: a.Back}, id: a.Store}
			h := newFn(s)
			if h == nil {
				return resultFrame(newResult{}, nil)
			}
			return resultFrame(newResult{ID: hs.add(h)}, nil)
		},
		"http.Wait": httpWait(hs),
	}}
}

// httpWait is the method that waits until the handler of a request
// returned (the proxy's waitHandler).
func httpWait(hs *handlers) method {
	return func(c *serverCall) *frame {
		var id string
		if f := c.decode(&id); f != nil {
			return f
		}
		hs.mu.Lock()
		done, ok := hs.active[id]
		hs.mu.Unlock()
		if ok {
			select {
			case <-done:
			case <-c.ctx.Done():
				return &frame{Err: toWire(c.ctx.Err())}
			}
		}
		return resultFrame(true, nil)
	}
}

func (hs *handlers) add(h http.Handler) int64 {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.next++
	hs.byID[hs.next] = h
	return hs.next
}

// trackingWriter knows whether the handler started its answer.
type trackingWriter struct {
	http.ResponseWriter
	wrote atomic.Bool
}

func (w *trackingWriter) WriteHeader(code int) {
	w.wrote.Store(true)
	w.ResponseWriter.WriteHeader(code)
}

func (w *trackingWriter) Write(p []byte) (int, error) {
	w.wrote.Store(true)
	return w.ResponseWriter.Write(p)
}

func (w *trackingWriter) Flush() {
	w.wrote.Store(true)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *trackingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// requestIDKey is the context key of the proxy's id of a request, in the
// program: a request a gate passes to next names the client's request
// it came from (exercise 05).
type requestIDKey struct{}

// ServeHTTP runs the learner's handler the request names, on a goroutine
// of its own, so that a panic or runtime.Goexit in it still gets an
// answer that says so.
func (hs *handlers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.Header.Get(headerHandler), 10, 64)
	reqID := r.Header.Get(headerRequest)
	r.Header.Del(headerHandler)
	r.Header.Del(headerRequest)
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, reqID))
	hs.mu.Lock()
	h := hs.byID[id]
	done := make(chan struct{})
	if reqID != "" {
		hs.active[reqID] = done
	}
	hs.mu.Unlock()
	defer func() {
		hs.mu.Lock()
		delete(hs.active, reqID)
		hs.mu.Unlock()
		close(done)
	}()
	if h == nil {
		http.Error(w, fmt.Sprintf("remote: no handler %d in this program", id), http.StatusBadGateway)
		return
	}
	tw := &trackingWriter{ResponseWriter: w}
	f := guard(func() *frame {
		h.ServeHTTP(tw, r)
		return nil
	})
	switch {
	case f == nil:
	case tw.wrote.Load():
		// The answer has begun: all the grader can see is that it broke.
		panic(http.ErrAbortHandler)
	case f.Panic != nil:
		if f.Panic.Value == http.ErrAbortHandler.Error() {
			panic(http.ErrAbortHandler)
		}
		data, _ := json.Marshal(f.Panic)
		w.Header().Set(headerPanic, string(data))
		w.WriteHeader(http.StatusInternalServerError)
	case f.Goexit:
		w.Header().Set(headerGoexit, "1")
		w.WriteHeader(http.StatusInternalServerError)
	}
}

// NewAPIServer is the New function of apiservertest.Run: the handler it
// returns is a proxy to the handler the program's New made over store.
func NewAPIServer(p *Program) func(storage.Store) http.Handler {
	return func(s storage.Store) http.Handler {
		back, err := p.backServer()
		if err != nil {
			repanic(err.Error())
		}
		pr, err := p.proc()
		if err != nil {
			repanic(err.Error())
		}
		var out newResult
		args := newArgs{Back: back.path, Store: back.reg.add(s)}
		if err := pr.endpoint().call(context.Background(), "apiserver.New", args, &out, p.callTimeout()); err != nil {
			repanic(err.Error())
		}
		if out.ID == 0 {
			return nil
		}
		return &proxy{pr: pr, id: strconv.FormatInt(out.ID, 10)}
	}
}

// httpClient reaches the HTTP handlers of one run of the program.
type httpClient struct {
	pr *proc
	t  *http.Transport
}

func newHTTPClient(pr *proc) *httpClient {
	t := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", pr.httpPath)
		},
		DisableCompression:  true,
		MaxIdleConnsPerHost: 64,
	}
	return &httpClient{pr: pr, t: t}
}

func (h *httpClient) close() { h.t.CloseIdleConnections() }

// proxy is the grader's side of one handler in the program.
type proxy struct {
	pr   *proc
	id   string
	reqs atomic.Int64
	// prepare, when set, readies the request out that carries r, and
	// returns what to do once the program answered (exercise 05's gate).
	prepare func(id string, r, out *http.Request) func()
}

// ServeHTTP forwards r to the program's handler and its answer back,
// flushing as it streams. A panic there panics here with its text; a
// request whose client went away returns only once the program's
// handler returned, as it would in one process.
func (px *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The request body streams to the program while its answer streams
	// back: without full duplex, net/http's server discards (or closes)
	// the rest of the body once the answer's header is written, under the
	// transport that is still sending it, which then breaks the
	// connection the answer comes on.
	_ = http.NewResponseController(w).EnableFullDuplex()
	pr := px.pr
	method := r.Method + " " + r.URL.RequestURI()
	mark := pr.p.out.mark()
	reqID := px.id + "." + strconv.FormatInt(px.reqs.Add(1), 10)
	out, err := http.NewRequestWithContext(r.Context(), r.Method, "http://kata"+r.URL.RequestURI(), r.Body)
	if err != nil {
		panic(fmt.Sprintf("remote: %s: %v", method, err))
	}
	if out.Header = r.Header.Clone(); out.Header == nil {
		out.Header = http.Header{} // a request built with no header map
	}
	out.Header.Set(headerHandler, px.id)
	out.Header.Set(headerRequest, reqID)
	out.ContentLength = r.ContentLength
	out.Host = r.Host
	if r.Body == http.NoBody || r.ContentLength == 0 {
		out.Body = nil
	} else {
		// The transport may still read the body after the answer came:
		// the server's own reads of it must wait until it let go.
		b := newHeldBody(r.Body)
		out.Body = b
		defer b.wait()
	}
	if px.prepare != nil {
		defer px.prepare(reqID, r, out)()
	}
	resp, err := pr.http.t.RoundTrip(out)
	if err != nil {
		if r.Context().Err() != nil {
			px.waitHandler(reqID)
			return
		}
		repanic(pr.broken(method, mark, err).Error())
	}
	defer resp.Body.Close()
	if v := resp.Header.Get(headerPanic); v != "" {
		var wp wirePanic
		if json.Unmarshal([]byte(v), &wp) != nil {
			repanic(fmt.Sprintf("remote: %s: the implementation's program broke the protocol: a panic header that does not decode", method))
		}
		repanic(&Panic{Value: wp.Value + pr.printed(mark), Where: wp.Where})
	}
	if resp.Header.Get(headerGoexit) != "" {
		repanic("remote: " + method + ": " + goexitMessage + pr.printed(mark))
	}
	if px.prepare != nil {
		answered(r, resp.Header)
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush() // a watch's client waits for the header
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				px.waitHandler(reqID)
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			if r.Context().Err() != nil {
				px.waitHandler(reqID)
				return
			}
			// The program's answer broke off: so does this one.
			panic(http.ErrAbortHandler)
		}
	}
}

// heldBody is a request body a transport sends on: it says when the
// transport let go of it (a transport always closes the body it sent,
// at the latest once the connection it wrote on is closed). The body
// itself is its server's to close.
type heldBody struct {
	io.Reader
	once sync.Once
	done chan struct{}
}

func newHeldBody(r io.Reader) *heldBody { return &heldBody{Reader: r, done: make(chan struct{})} }

func (b *heldBody) Close() error {
	b.once.Do(func() { close(b.done) })
	return nil
}

// wait waits until the transport let go of the body, or exitWait.
func (b *heldBody) wait() {
	t := time.NewTimer(exitWait)
	defer t.Stop()
	select {
	case <-b.done:
	case <-t.C:
	}
}

// waitHandler waits until the program's handler of request id returned
// (or the program is gone).
func (px *proxy) waitHandler(id string) {
	var ok bool
	_ = px.pr.endpoint().call(context.Background(), "http.Wait", id, &ok, 0)
}
