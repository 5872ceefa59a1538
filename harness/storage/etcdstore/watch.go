package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubekata/kubekata/harness/storage"
)

// watcher hands the events of one etcd watch on to its channel.
type watcher struct {
	ch     chan storage.Event
	cancel context.CancelFunc // ends the etcd watch
	done   chan struct{}      // closed when the relay has returned

	mu     sync.Mutex
	err    error // why it ends; the first reason wins
	closed bool  // ch is closed; set with the close, under mu
}

func (w *watcher) Events() <-chan storage.Event { return w.ch }

// Err is nil while the channel is open, then why it was closed.
func (w *watcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		return nil
	}
	return w.err
}

// ending says whether the watch has a reason to end.
func (w *watcher) ending() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil
}

// end records why the watch ends (the first reason wins) and stops the
// etcd watch; the relay then closes the channel.
func (w *watcher) end(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
	w.cancel()
}

// Watch delivers the events under prefix from fromRevision on.
func (s *Store) Watch(ctx context.Context, prefix string, fromRevision int64) (storage.Watcher, error) {
	if fromRevision < 0 {
		return nil, fmt.Errorf("etcdstore: watch from %d: %w: negative revision", fromRevision, storage.ErrInvalidRange)
	}
	cli, cctx, end, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	what := fmt.Sprintf("watch %q from %d", prefix, fromRevision)
	opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithPrevKV(), clientv3.WithCreatedNotify()}
	if fromRevision > 0 {
		// etcd watches from exactly its compacted revision; the
		// contract does not. The read one revision below the start
		// (etcd's revision fromRevision) is compacted exactly when the
		// start is at or below the compacted revision.
		_, err := cli.Get(cctx, "\x00", clientv3.WithFromKey(), clientv3.WithCountOnly(), clientv3.WithRev(fromRevision))
		if err != nil && !errors.Is(err, rpctypes.ErrFutureRev) {
			return nil, s.fail(ctx, what, err)
		}
		opts = append(opts, clientv3.WithRev(toEtcd(fromRevision)))
	}

	// The etcd watch lives until the caller's context is done, the
	// store is closed, or the watcher ends it.
	// Without WithRequireLeader: a member that loses its leader would
	// cancel the watch, and a cluster that elects a new one would end
	// every watch on it; clientv3 instead moves the watch to another
	// member and resumes it after the last revision it delivered.
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w := &watcher{ch: make(chan storage.Event, storage.WatchBuffer), cancel: cancel, done: make(chan struct{})}
	wch := cli.Watch(wctx, prefix, opts...)

	// Wait for etcd to create the watcher, so that every write after
	// Watch returns is seen.
	select {
	case resp, ok := <-wch:
		switch {
		case !ok:
			cancel()
			return nil, s.fail(ctx, what, errors.New("the watch channel closed before etcd created the watcher"))
		case resp.Err() != nil:
			cancel()
			return nil, s.fail(ctx, what, resp.Err())
		case !resp.Created:
			cancel()
			return nil, fmt.Errorf("etcdstore: %s: etcd's first answer was not the watcher's creation", what)
		}
	case <-cctx.Done():
		cancel()
		return nil, s.fail(ctx, what, cctx.Err())
	}

	s.wmu.Lock()
	s.watchers[w] = struct{}{}
	s.wmu.Unlock()
	stopCtx := context.AfterFunc(ctx, func() { w.end(ctx.Err()) })
	go func() {
		defer close(w.done)
		defer func() {
			w.mu.Lock()
			w.closed = true
			close(w.ch)
			w.mu.Unlock()
		}()
		defer stopCtx()
		defer func() {
			s.wmu.Lock()
			delete(s.watchers, w)
			s.wmu.Unlock()
		}()
		w.relay(wch)
	}()
	return w, nil
}

// relay moves etcd's events to the channel until the watch ends. It never
// waits for the reader: a full channel ends the watch with ErrSlowWatcher.
func (w *watcher) relay(wch clientv3.WatchChan) {
	for resp := range wch {
		if err := resp.Err(); err != nil {
			if errors.Is(err, rpctypes.ErrCompacted) {
				err = fmt.Errorf("etcdstore: watch: %w", storage.ErrCompacted)
			} else {
				err = fmt.Errorf("etcdstore: watch: %w", err)
			}
			w.end(err)
			break
		}
		for _, ev := range resp.Events {
			e := storage.Event{KV: fromEtcd(ev.Kv), PrevKV: fromEtcdPtr(ev.PrevKv)}
			switch ev.Type {
			case clientv3.EventTypePut:
				e.Type = storage.EventPut
			case clientv3.EventTypeDelete:
				e.Type = storage.EventDelete
				e.KV = storage.KeyValue{Key: e.KV.Key, ModRevision: e.KV.ModRevision}
			}
			select {
			case w.ch <- e:
			default:
				w.end(fmt.Errorf("etcdstore: watch: %w: %d events not read", storage.ErrSlowWatcher, storage.WatchBuffer))
			}
			if w.ending() {
				break
			}
		}
		if w.ending() {
			break
		}
	}
	// Let clientv3 finish the cancel; drain what it still sends.
	w.cancel()
	for range wch {
	}
	w.mu.Lock()
	if w.err == nil {
		w.err = fmt.Errorf("etcdstore: watch: %w", errors.New("etcd ended the watch"))
	}
	w.mu.Unlock()
}

// endWatchers ends every watch with err and waits for their relays.
func (s *Store) endWatchers(err error) {
	s.wmu.Lock()
	ws := make([]*watcher, 0, len(s.watchers))
	for w := range s.watchers {
		ws = append(ws, w)
	}
	s.wmu.Unlock()
	for _, w := range ws {
		w.end(fmt.Errorf("etcdstore: watch: %w", err))
	}
	for _, w := range ws {
		<-w.done
	}
}
