package store

import (
	"context"
	"fmt"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/kubekata/kubekata/harness/storage"
)

// A watcher lives in two phases. First it catches up: its own goroutine
// reads history from bbolt, a chunk at a time, and sends it on the
// channel (blocking is fine: no writer waits on it). When it has read
// everything up to the last published revision, it registers with the hub
// under the hub's lock; from then on the committer hands it every new
// event, never blocking: a full buffer cancels the watcher.

// hub holds the watchers that are caught up.
type hub struct {
	mu        sync.Mutex
	closed    bool
	published int64 // the last revision handed to watchers
	watchers  map[*watcher]struct{}
}

type watcher struct {
	prefix string
	from   int64 // events before it are not wanted (a watch from a future revision)
	ch     chan storage.Event
	ended  chan struct{}
	hub    *hub
	done   bool  // guarded by hub.mu
	err    error // guarded by hub.mu
}

func (w *watcher) Events() <-chan storage.Event { return w.ch }

func (w *watcher) Err() error {
	w.hub.mu.Lock()
	defer w.hub.mu.Unlock()
	return w.err
}

// end closes w once, recording why. Called with h.mu held, by whoever owns
// the sending side: the watcher's goroutine while it catches up, the hub
// once it is registered.
func (h *hub) end(w *watcher, err error) {
	if w.done {
		return
	}
	w.done, w.err = true, err
	delete(h.watchers, w)
	close(w.ch)
	close(w.ended)
}

// publish hands the events of a durable commit to the caught-up watchers.
func (h *hub) publish(rev int64, events []storage.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.published = rev
	for w := range h.watchers {
		for _, ev := range events {
			if w.done {
				break
			}
			if ev.KV.ModRevision < w.from || !strings.HasPrefix(ev.KV.Key, w.prefix) {
				continue
			}
			select {
			case w.ch <- ev:
			default:
				h.end(w, storage.ErrSlowWatcher) // never make the writer wait
			}
		}
	}
}

func (h *hub) endAll(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for w := range h.watchers {
		h.end(w, err)
	}
}

// Watch delivers the events under prefix from fromRevision on.
func (s *Store) Watch(ctx context.Context, prefix string, fromRevision int64) (storage.Watcher, error) {
	if fromRevision < 0 {
		return nil, fmt.Errorf("%w: watch from negative revision %d", storage.ErrInvalidRange, fromRevision)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	closed, compacted := s.closed, s.compacted
	s.mu.RUnlock()
	if closed {
		return nil, storage.ErrClosed
	}
	if fromRevision != 0 && fromRevision <= compacted {
		return nil, fmt.Errorf("%w: watch from %d, compacted at %d", storage.ErrCompacted, fromRevision, compacted)
	}
	w := &watcher{prefix: prefix, ch: make(chan storage.Event, storage.WatchBuffer), ended: make(chan struct{}), hub: &s.hub}
	s.hub.mu.Lock()
	if s.hub.closed {
		s.hub.mu.Unlock()
		return nil, storage.ErrClosed
	}
	if fromRevision == 0 {
		fromRevision = s.hub.published + 1
	}
	w.from = fromRevision
	s.watchWG.Add(1) // under hub.mu, so never after Close started waiting
	s.hub.mu.Unlock()
	go s.runWatcher(ctx, w, fromRevision)
	return w, nil
}

// historyChunk bounds how many entries one catch-up read scans while it
// holds the index lock.
const historyChunk = 1000

func (s *Store) runWatcher(ctx context.Context, w *watcher, from int64) {
	defer s.watchWG.Done()
	end := func(err error) {
		s.hub.mu.Lock()
		s.hub.end(w, err)
		s.hub.mu.Unlock()
	}
	pos := revKey(from, 0)
	for {
		s.hub.mu.Lock()
		if s.hub.closed {
			s.hub.end(w, storage.ErrClosed)
			s.hub.mu.Unlock()
			return
		}
		upto := s.hub.published
		if next, _, _ := parseRevKey(pos); next > upto {
			// Caught up: from now on the committer feeds us.
			s.hub.watchers[w] = struct{}{}
			s.hub.mu.Unlock()
			break
		}
		s.hub.mu.Unlock()
		events, next, err := s.history(w.prefix, pos, upto)
		if err != nil {
			end(err)
			return
		}
		for _, ev := range events {
			select {
			case w.ch <- ev:
			case <-ctx.Done():
				end(ctx.Err())
				return
			case <-s.closing:
				end(storage.ErrClosed)
				return
			}
		}
		pos = next
	}
	select {
	case <-ctx.Done():
		end(ctx.Err())
	case <-w.ended:
	}
}

// history reads up to historyChunk entries from position pos (a revKey)
// up to revision upto, and returns the events under prefix and the
// position after the last entry read.
func (s *Store) history(prefix string, pos []byte, upto int64) ([]storage.Event, []byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, nil, storage.ErrClosed
	}
	if rev, _, _ := parseRevKey(pos); rev <= s.compacted {
		return nil, nil, fmt.Errorf("%w: watch at %d, compacted at %d", storage.ErrCompacted, rev, s.compacted)
	}
	var events []storage.Event
	next := revKey(upto+1, 0)
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketKV).Cursor()
		n := 0
		for k, v := c.Seek(pos); k != nil; k, v = c.Next() {
			rev, sub, _ := parseRevKey(k)
			if rev > upto {
				break
			}
			if n == historyChunk {
				next = revKey(rev, sub)
				break
			}
			n++
			e, err := decodeEntry(v)
			if err != nil {
				return fmt.Errorf("%w: entry %x", storage.ErrCorrupt, k)
			}
			if !strings.HasPrefix(e.key, prefix) {
				continue
			}
			ev := storage.Event{Type: storage.EventPut, KV: toKV(e.key, rec{rev: rev, create: e.create, version: e.version}, e.value)}
			if e.tomb {
				ev = storage.Event{Type: storage.EventDelete, KV: storage.KeyValue{Key: e.key, ModRevision: rev}}
			}
			if p, ok := s.before(e.key, rev); ok {
				v, err := readValue(tx, p)
				if err != nil {
					return err
				}
				kv := toKV(e.key, p, v)
				ev.PrevKV = &kv
			}
			events = append(events, ev)
		}
		return nil
	})
	return events, next, err
}
