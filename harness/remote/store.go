package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/storage"
)

// watchWindow is how many events a watch may have sent that its reader
// has not taken yet: the slack the boundary adds to a watcher, far below
// the storage.WatchBuffer a slow watcher is allowed, so the store still
// sees a reader that stops reading.
const watchWindow = 128

// creditEvery is how many events the reader takes before it grants that
// many more.
const creditEvery = 32

// chunk is the most bytes of a snapshot or restore in one message.
const chunk = 256 << 10

// stores are the stores one side serves, by number.
type stores struct {
	mu   sync.Mutex
	next int64
	byID map[int64]storage.Store
}

func (r *stores) add(s storage.Store) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID == nil {
		r.byID = map[int64]storage.Store{}
	}
	r.next++
	r.byID[r.next] = s
	return r.next
}

func (r *stores) get(id int64) (storage.Store, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.byID[id]
	if !ok {
		return nil, fmt.Errorf("remote: no store %d here", id)
	}
	return s, nil
}

// The arguments and answers of the store's methods.
type (
	storeArgs struct {
		ID       int64                `json:"id"`
		Key      string               `json:"key,omitempty"`
		Value    []byte               `json:"value,omitempty"`
		Range    storage.RangeRequest `json:"range,omitzero"`
		Txn      storage.Txn          `json:"txn,omitzero"`
		Prefix   string               `json:"prefix,omitempty"`
		Revision int64                `json:"revision,omitempty"`
	}
	kvResult struct {
		KV       storage.KeyValue `json:"kv"`
		Revision int64            `json:"revision,omitempty"`
		Err      *wireError       `json:"err,omitempty"`
	}
	rangeResult struct {
		Resp storage.RangeResponse `json:"resp"`
		Err  *wireError            `json:"err,omitempty"`
	}
	txnResult struct {
		Resp storage.TxnResponse `json:"resp"`
		Err  *wireError          `json:"err,omitempty"`
	}
	errResult struct {
		Err *wireError `json:"err,omitempty"`
	}
	openResult struct {
		ID  int64      `json:"id"`
		Err *wireError `json:"err,omitempty"`
	}
)

// storeMethods serves the stores of reg.
func storeMethods(reg *stores) map[string]method {
	with := func(fn func(c *serverCall, a storeArgs, s storage.Store) *frame) method {
		return func(c *serverCall) *frame {
			var a storeArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			s, err := reg.get(a.ID)
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			return fn(c, a, s)
		}
	}
	return map[string]method{
		"store.Get": with(func(c *serverCall, a storeArgs, s storage.Store) *frame {
			kv, err := s.Get(c.ctx, a.Key)
			return resultFrame(kvResult{KV: kv, Err: toWire(err)}, nil)
		}),
		"store.Range": with(func(c *serverCall, a storeArgs, s storage.Store) *frame {
			resp, err := s.Range(c.ctx, a.Range)
			return resultFrame(rangeResult{Resp: resp, Err: toWire(err)}, nil)
		}),
		"store.Put": with(func(c *serverCall, a storeArgs, s storage.Store) *frame {
			kv, err := s.Put(c.ctx, a.Key, a.Value)
			return resultFrame(kvResult{KV: kv, Err: toWire(err)}, nil)
		}),
		"store.Delete": with(func(c *serverCall, a storeArgs, s storage.Store) *frame {
			kv, rev, err := s.Delete(c.ctx, a.Key)
			return resultFrame(kvResult{KV: kv, Revision: rev, Err: toWire(err)}, nil)
		}),
		"store.Txn": with(func(c *serverCall, a storeArgs, s storage.Store) *frame {
			resp, err := s.Txn(c.ctx, a.Txn)
			return resultFrame(txnResult{Resp: resp, Err: toWire(err)}, nil)
		}),
		"store.Compact": with(func(c *serverCall, a storeArgs, s storage.Store) *frame {
			return resultFrame(errResult{Err: toWire(s.Compact(c.ctx, a.Revision))}, nil)
		}),
		"store.Close": with(func(c *serverCall, a storeArgs, s storage.Store) *frame {
			return resultFrame(errResult{Err: toWire(s.Close())}, nil)
		}),
		"store.Watch":    with(serveWatch),
		"store.Snapshot": with(serveSnapshot),
		"store.Restore":  with(serveRestore),
	}
}

// serveWatch streams a watch: Started, then events as the caller grants
// credit, then End with the watcher's Err. A caller that hangs up
// cancels the watch's context.
func serveWatch(c *serverCall, a storeArgs, s storage.Store) *frame {
	w, err := s.Watch(c.ctx, a.Prefix, a.Revision)
	if err != nil {
		return &frame{End: true, Err: toWire(err)}
	}
	if w == nil {
		return &frame{End: true, Err: toWire(errors.New("remote: Watch returned a nil watcher and no error"))}
	}
	if err := c.conn.write(&frame{Started: true}); err != nil {
		return &frame{End: true}
	}
	pumpEvents(c, w.Events(), func(evs []storage.Event) error {
		return c.conn.write(&frame{Events: evs})
	})
	return &frame{End: true, Err: toWire(w.Err())}
}

// frameWriter sends what is written as Data frames.
type frameWriter struct{ c *conn }

func (w frameWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), chunk)
		if err := w.c.write(&frame{Data: append([]byte(nil), p[:k]...)}); err != nil {
			return n, err
		}
		n += k
		p = p[k:]
	}
	return n, nil
}

func serveSnapshot(c *serverCall, a storeArgs, s storage.Store) *frame {
	err := s.Snapshot(c.ctx, frameWriter{c.conn})
	return resultFrame(errResult{Err: toWire(err)}, nil)
}

// frameReader reads the Data frames the caller sends, until EOF.
type frameReader struct {
	in  <-chan *frame
	buf []byte
	err error
}

func (r *frameReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		f, ok := <-r.in
		switch {
		case !ok:
			r.err = io.ErrUnexpectedEOF
		case f.Err != nil:
			r.err = fromWire(f.Err)
		case f.EOF:
			r.err = io.EOF
		default:
			r.buf = f.Data
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

func serveRestore(c *serverCall, a storeArgs, s storage.Store) *frame {
	err := s.Restore(c.ctx, &frameReader{in: c.in})
	return resultFrame(errResult{Err: toWire(err)}, nil)
}

// StoreService serves exercise 03's contract: stores opened by open, as
// many as the grader opens, each with as many watches as it starts.
func StoreService(open func(dir string) (storage.Store, error)) Service {
	reg := &stores{}
	m := storeMethods(reg)
	m["store.Open"] = func(c *serverCall) *frame {
		var dir string
		if f := c.decode(&dir); f != nil {
			return f
		}
		s, err := open(dir)
		var id int64
		if s != nil {
			id = reg.add(s)
		}
		return resultFrame(openResult{ID: id, Err: toWire(err)}, nil)
	}
	return Service{exercise: "03-store", methods: m}
}

// Opener is the open function of storetest.Run: each store it opens
// lives in the program that runs when it is opened.
func Opener(p *Program) func(dir string) (storage.Store, error) {
	return func(dir string) (storage.Store, error) {
		pr, err := p.proc()
		if err != nil {
			return nil, err
		}
		ep := pr.endpoint()
		var out openResult
		if err := ep.call(context.Background(), "store.Open", dir, &out, 0); err != nil {
			return nil, err
		}
		if out.ID == 0 {
			return nil, fromWire(out.Err)
		}
		return &remoteStore{ep: ep, id: out.ID}, fromWire(out.Err)
	}
}

// remoteStore is a storage.Store served by the other side.
type remoteStore struct {
	ep *endpoint
	id int64
}

var _ storage.Store = (*remoteStore)(nil)

func (s *remoteStore) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	var out kvResult
	if err := s.ep.call(ctx, "store.Get", storeArgs{ID: s.id, Key: key}, &out, 0); err != nil {
		return storage.KeyValue{}, err
	}
	return out.KV, fromWire(out.Err)
}

func (s *remoteStore) Range(ctx context.Context, req storage.RangeRequest) (storage.RangeResponse, error) {
	var out rangeResult
	if err := s.ep.call(ctx, "store.Range", storeArgs{ID: s.id, Range: req}, &out, 0); err != nil {
		return storage.RangeResponse{}, err
	}
	return out.Resp, fromWire(out.Err)
}

func (s *remoteStore) Put(ctx context.Context, key string, value []byte) (storage.KeyValue, error) {
	var out kvResult
	if err := s.ep.call(ctx, "store.Put", storeArgs{ID: s.id, Key: key, Value: value}, &out, 0); err != nil {
		return storage.KeyValue{}, err
	}
	return out.KV, fromWire(out.Err)
}

func (s *remoteStore) Delete(ctx context.Context, key string) (storage.KeyValue, int64, error) {
	var out kvResult
	if err := s.ep.call(ctx, "store.Delete", storeArgs{ID: s.id, Key: key}, &out, 0); err != nil {
		return storage.KeyValue{}, 0, err
	}
	return out.KV, out.Revision, fromWire(out.Err)
}

func (s *remoteStore) Txn(ctx context.Context, txn storage.Txn) (storage.TxnResponse, error) {
	var out txnResult
	if err := s.ep.call(ctx, "store.Txn", storeArgs{ID: s.id, Txn: txn}, &out, 0); err != nil {
		return storage.TxnResponse{}, err
	}
	return out.Resp, fromWire(out.Err)
}

func (s *remoteStore) Compact(ctx context.Context, revision int64) error {
	var out errResult
	if err := s.ep.call(ctx, "store.Compact", storeArgs{ID: s.id, Revision: revision}, &out, 0); err != nil {
		return err
	}
	return fromWire(out.Err)
}

// closeTimeout bounds Close, which takes no context.
const closeTimeout = 10 * time.Second

func (s *remoteStore) Close() error {
	var out errResult
	if err := s.ep.call(context.Background(), "store.Close", storeArgs{ID: s.id}, &out, closeTimeout); err != nil {
		return err
	}
	return fromWire(out.Err)
}

func (s *remoteStore) Snapshot(ctx context.Context, w io.Writer) error {
	cc, err := s.ep.open(ctx, "store.Snapshot", storeArgs{ID: s.id}, 0, hangGrace)
	if err != nil {
		return err
	}
	defer cc.close()
	for {
		f, err := cc.recv()
		if err != nil {
			return err
		}
		if f.Data != nil && f.Result == nil && f.Err == nil && f.Panic == nil && !f.Goexit {
			if _, err := w.Write(f.Data); err != nil {
				return err
			}
			continue
		}
		cc.settled()
		var out errResult
		if err := cc.final(f, &out); err != nil {
			return err
		}
		return fromWire(out.Err)
	}
}

func (s *remoteStore) Restore(ctx context.Context, r io.Reader) error {
	cc, err := s.ep.open(ctx, "store.Restore", storeArgs{ID: s.id}, 0, hangGrace)
	if err != nil {
		return err
	}
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		buf := make([]byte, chunk)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				if cc.c.write(&frame{Data: append([]byte(nil), buf[:n]...)}) != nil {
					return
				}
			}
			if err == io.EOF {
				_ = cc.c.write(&frame{EOF: true})
				return
			}
			if err != nil {
				_ = cc.c.write(&frame{Err: toWire(err)})
				return
			}
		}
	}()
	f, err := cc.recv()
	cc.close()
	<-sent
	if err != nil {
		return err
	}
	var out errResult
	if err := cc.final(f, &out); err != nil {
		return err
	}
	return fromWire(out.Err)
}

// openWatch opens a watch call (method, args) and reads its first frame:
// the stream has started, or the peer (named for messages) refused it
// with an error, or broke the protocol. The caller takes the call over
// once it started.
func (ep *endpoint) openWatch(ctx context.Context, method string, args any, peer string) (*clientCall, error) {
	cc, err := ep.open(ctx, method, args, 0, hangGrace)
	if err != nil {
		return nil, err
	}
	f, err := cc.recv()
	if err != nil {
		cc.close()
		return nil, err
	}
	if f.Started {
		return cc, nil
	}
	cc.close()
	if f.End {
		if f.Err == nil {
			return nil, fmt.Errorf("remote: Watch: %s broke the protocol: a watch that ended before it started, with no error", peer)
		}
		return nil, fromWire(f.Err)
	}
	var out struct{}
	if err := cc.final(f, &out); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("remote: Watch: %s broke the protocol: an answer that is not a watch", peer)
}

func (s *remoteStore) Watch(ctx context.Context, prefix string, fromRevision int64) (storage.Watcher, error) {
	cc, err := s.ep.openWatch(ctx, "store.Watch", storeArgs{ID: s.id, Prefix: prefix, Revision: fromRevision}, "the implementation's program")
	if err != nil {
		return nil, err
	}
	// From here on, the watch handles its context itself: its end is
	// normal, and the program answers it by closing the watch.
	cc.settled()
	w := &remoteWatcher{ch: make(chan storage.Event)}
	go w.run(ctx, cc)
	return w, nil
}

// remoteWatcher is a watch served by the other side.
type remoteWatcher struct {
	ch  chan storage.Event
	mu  sync.Mutex
	err error
}

func (w *remoteWatcher) Events() <-chan storage.Event { return w.ch }

func (w *remoteWatcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// run delivers the events the program sends, granting credit as they are
// taken. Once ctx ends, it stops delivering, tells the program, and
// closes the channel when the program says the watch ended, with the
// watcher's Err from there.
func (w *remoteWatcher) run(ctx context.Context, cc *clientCall) {
	defer cc.close()
	// While it waits for a message, the program still hears of the end.
	defer context.AfterFunc(ctx, cc.cancel)()
	var final error
	cancelled := false
	taken := 0
	done := ctx.Done()
	stop := func() {
		cancelled = true
		done = nil
		cc.cancel()
	}
loop:
	for {
		f, err := cc.recv()
		if err != nil {
			// Not ctx.Err(), even after a cancel: the reason a watch
			// ended is the implementation's to give.
			final = err
			break
		}
		switch {
		case f.End:
			final = fromWire(f.Err)
			break loop
		case f.Events != nil:
			for _, e := range f.Events {
				if cancelled {
					break
				}
				select {
				case w.ch <- e:
					taken++
					if taken%creditEvery == 0 {
						_ = cc.c.write(&frame{Credit: creditEvery})
					}
				case <-done:
					stop()
				}
			}
		default:
			final = fmt.Errorf("remote: Watch: the implementation's program broke the protocol: a watch message with no events")
			break loop
		}
		if !cancelled {
			select {
			case <-done:
				stop()
			default:
			}
		}
	}
	w.mu.Lock()
	w.err = final
	w.mu.Unlock()
	close(w.ch)
}

// backServer serves the grader's stores to the learner's program (the
// apiserver's store is the grader's, so that the suite controls it), and
// the grader's clients (the client protocol, client.go).
type backServer struct {
	dir     string
	path    string
	l       net.Listener
	reg     *stores
	clients *clients
	shares  *shares // the values the program reaches back (reachback.go)
}

func newBackServer() (*backServer, error) {
	dir, err := socketDir()
	if err != nil {
		return nil, err
	}
	path := socketName(dir, "store")
	l, err := net.Listen("unix", path)
	if err != nil {
		removeSocketDir(dir)
		return nil, fmt.Errorf("remote: %w", err)
	}
	b := &backServer{dir: dir, path: path, l: l, reg: &stores{}, clients: &clients{}, shares: &shares{}}
	methods := storeMethods(b.reg)
	maps.Copy(methods, clientMethods(b.clients))
	maps.Copy(methods, shareMethods(b.shares))
	maps.Copy(methods, runtimeMethods(b.shares))
	go serve(l, methods)
	return b, nil
}

func (b *backServer) close() {
	_ = b.l.Close()
	removeSocketDir(b.dir)
}

// backServer returns the program's server of the grader's stores.
func (p *Program) backServer() (*backServer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("remote: the program was closed")
	}
	if p.back == nil {
		b, err := newBackServer()
		if err != nil {
			return nil, err
		}
		p.back = b
	}
	return p.back, nil
}
