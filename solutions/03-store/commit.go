package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	bolt "go.etcd.io/bbolt"

	"github.com/kubekata/kubekata/harness/storage"
)

// maxBatch bounds how many transactions share one bbolt commit.
const maxBatch = 256

// request is a write handed to the committer. Exactly one of txn,
// compact and restore is set.
type request struct {
	txn     *storage.Txn
	compact int64
	restore string // path of a validated snapshot file
	done    chan result
}

type result struct {
	resp storage.TxnResponse
	err  error
}

// do hands req to the committer and waits for its result. Once handed
// over, a write is not abandoned when ctx ends: it may commit, and the
// caller must learn whether it did.
func (s *Store) do(ctx context.Context, req *request) (storage.TxnResponse, error) {
	if err := ctx.Err(); err != nil {
		return storage.TxnResponse{}, err
	}
	req.done = make(chan result, 1)
	select {
	case s.reqs <- req:
	case <-s.closing:
		return storage.TxnResponse{}, storage.ErrClosed
	case <-ctx.Done():
		return storage.TxnResponse{}, ctx.Err()
	}
	select {
	case r := <-req.done:
		return r.resp, r.err
	case <-s.committerDone:
		select {
		case r := <-req.done:
			return r.resp, r.err
		default:
			return storage.TxnResponse{}, storage.ErrClosed
		}
	}
}

// committer is the only goroutine that writes. It takes a request, then
// every request that is already waiting, and commits them together.
func (s *Store) committer() {
	defer close(s.committerDone)
	for {
		var first *request
		select {
		case first = <-s.reqs:
		case <-s.closing:
			s.failPending()
			return
		}
		batch := []*request{first}
	gather:
		for len(batch) < maxBatch {
			select {
			case r := <-s.reqs:
				batch = append(batch, r)
			default:
				break gather
			}
		}
		// Compactions and restores run alone, in their place in line.
		for len(batch) > 0 {
			i := slices.IndexFunc(batch, func(r *request) bool { return r.txn == nil })
			switch {
			case i < 0:
				s.commit(batch)
				batch = nil
			case i > 0:
				s.commit(batch[:i])
				batch = batch[i:]
			default:
				r := batch[0]
				var err error
				if r.restore != "" {
					err = s.doRestore(r.restore)
				} else {
					err = s.doCompact(r.compact)
				}
				r.done <- result{err: err}
				batch = batch[1:]
			}
		}
	}
}

func (s *Store) failPending() {
	for {
		select {
		case r := <-s.reqs:
			r.done <- result{err: storage.ErrClosed}
		default:
			return
		}
	}
}

// errNothingToWrite rolls back a batch whose transactions all failed
// their checks.
var errNothingToWrite = errors.New("nothing to write")

// change is one applied operation of a batch, in commit order.
type change struct {
	key string
	rec rec
}

// commit applies a batch of transactions in one bbolt transaction. Each
// transaction's compares see the effects of the earlier ones in the
// batch (the overlay), as if they had been committed one by one; the
// index and the watchers see nothing until bbolt has made the batch
// durable.
func (s *Store) commit(batch []*request) {
	results := make([]result, len(batch))
	var changes []change
	var events []storage.Event
	rev := s.rev // only the committer changes s.rev: no lock needed to read it
	err := s.db.Update(func(tx *bolt.Tx) error {
		kvb := tx.Bucket(bucketKV)
		// Revisions only grow, so entries are appended: fill pages up
		// instead of splitting them in half (etcd does the same).
		kvb.FillPercent = 0.9
		overlay := map[string]rec{}            // latest version of keys written in this batch
		values := map[int64]map[int32][]byte{} // their values, for PrevKV
		current := func(key string) (rec, bool) {
			if r, ok := overlay[key]; ok {
				return r, !r.tomb
			}
			h := s.index[key]
			if len(h) == 0 || h[len(h)-1].tomb {
				return rec{}, false
			}
			return h[len(h)-1], true
		}
		value := func(r rec) ([]byte, error) {
			if v, ok := values[r.rev][r.sub]; ok {
				return v, nil
			}
			return readValue(tx, r)
		}
		for i, req := range batch {
			resp, ioErr := s.apply(kvb, *req.txn, rev+1, current, value, func(key string, r rec, v []byte) {
				overlay[key] = r
				if values[r.rev] == nil {
					values[r.rev] = map[int32][]byte{}
				}
				values[r.rev][r.sub] = v
				changes = append(changes, change{key, r})
			})
			if ioErr != nil {
				return ioErr // abort the whole bbolt transaction
			}
			results[i] = result{resp: resp}
			if len(resp.Events) > 0 {
				rev++
				events = append(events, resp.Events...)
			}
		}
		if rev == s.rev {
			return errNothingToWrite // nothing changed: no commit, no fsync
		}
		// The store revision is not written separately: it is the
		// revision of the newest entry (see readIndex), so a commit
		// touches only the pages of the kv bucket.
		return nil
	})
	if err == errNothingToWrite {
		err = nil
	}
	if err != nil {
		for i := range results {
			results[i] = result{err: fmt.Errorf("store: commit: %w", err)}
		}
	} else if rev != s.rev {
		s.mu.Lock()
		for _, c := range changes {
			if _, ok := s.index[c.key]; !ok {
				s.unsorted = append(s.unsorted, c.key)
			}
			s.index[c.key] = append(s.index[c.key], c.rec)
		}
		s.rev = rev
		s.mu.Unlock()
		s.hub.publish(rev, events)
	}
	for i, req := range batch {
		req.done <- results[i]
	}
}

// apply runs one transaction at revision rev inside a bbolt transaction:
// its compares pick the branch, whose operations run in order, each
// seeing the ones before it through current; record tells the batch
// about every version it writes. A transaction that changes nothing
// answers with the revision before rev. ioErr is a failure of bbolt
// itself, which must abort the whole batch.
func (s *Store) apply(kvb *bolt.Bucket, txn storage.Txn, rev int64,
	current func(string) (rec, bool), value func(rec) ([]byte, error),
	record func(string, rec, []byte)) (resp storage.TxnResponse, ioErr error) {
	resp.Succeeded = true
	for _, c := range txn.If {
		var got int64
		if r, ok := current(c.Key); ok {
			got = r.rev
		}
		if got != c.ModRevision {
			resp.Succeeded = false
			break
		}
	}
	ops := txn.Then
	if !resp.Succeeded {
		ops = txn.Else
	}
	resp.Responses = make([]storage.OpResponse, 0, len(ops))
	var sub int32 // the position of a change in its revision
	for _, op := range ops {
		prev, existed := current(op.Key)
		var prevKV *storage.KeyValue
		if existed {
			v, err := value(prev)
			if err != nil {
				return resp, err
			}
			kv := toKV(op.Key, prev, v)
			prevKV = &kv
		}
		switch op.Type {
		case storage.OpGet:
			resp.Responses = append(resp.Responses, storage.OpResponse{KV: prevKV})
			continue
		case storage.OpDelete:
			if !existed {
				// Deleting nothing writes nothing (etcd: Deleted=0).
				resp.Responses = append(resp.Responses, storage.OpResponse{})
				continue
			}
		}
		r := rec{rev: rev, sub: sub, create: rev, version: 1}
		e := entry{key: op.Key}
		var ev storage.Event
		if op.Type == storage.OpPut {
			if existed {
				r.create, r.version = prev.create, prev.version+1
			}
			e.create, e.version = r.create, r.version
			e.value = bytes.Clone(op.Value)
			if e.value == nil {
				e.value = []byte{}
			}
			ev = storage.Event{Type: storage.EventPut, KV: toKV(op.Key, r, e.value), PrevKV: prevKV}
			kv := ev.KV
			resp.Responses = append(resp.Responses, storage.OpResponse{KV: &kv, PrevKV: prevKV})
		} else {
			r = rec{rev: rev, sub: sub, tomb: true}
			e.tomb = true
			ev = storage.Event{Type: storage.EventDelete, KV: storage.KeyValue{Key: op.Key, ModRevision: rev}, PrevKV: prevKV}
			resp.Responses = append(resp.Responses, storage.OpResponse{PrevKV: prevKV})
		}
		if err := kvb.Put(revKey(rev, sub), encodeEntry(e)); err != nil {
			return resp, err
		}
		sub++
		record(op.Key, r, e.value)
		resp.Events = append(resp.Events, ev)
	}
	resp.Revision = rev
	if len(resp.Events) == 0 {
		resp.Revision = rev - 1
	}
	return resp, nil
}

// Txn commits txn atomically, durably, as one revision.
func (s *Store) Txn(ctx context.Context, txn storage.Txn) (storage.TxnResponse, error) {
	if err := storage.ValidateTxn(txn); err != nil {
		return storage.TxnResponse{}, err
	}
	return s.do(ctx, &request{txn: &txn})
}

// Put creates or updates key.
func (s *Store) Put(ctx context.Context, key string, value []byte) (storage.KeyValue, error) {
	r, err := s.Txn(ctx, storage.Txn{Then: []storage.Op{storage.PutOp(key, value)}})
	if err != nil {
		return storage.KeyValue{}, err
	}
	return r.Events[0].KV, nil
}

// Delete removes key.
func (s *Store) Delete(ctx context.Context, key string) (storage.KeyValue, int64, error) {
	r, err := s.Txn(ctx, storage.Txn{Then: []storage.Op{storage.DeleteOp(key)}})
	if err != nil {
		return storage.KeyValue{}, 0, err
	}
	if len(r.Events) == 0 {
		return storage.KeyValue{}, 0, fmt.Errorf("%w: delete of %q", storage.ErrNotFound, key)
	}
	return *r.Events[0].PrevKV, r.Revision, nil
}

// Compact forgets the history before revision.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	if revision < 0 {
		return fmt.Errorf("%w: compact at negative revision %d", storage.ErrInvalidRange, revision)
	}
	_, err := s.do(ctx, &request{compact: revision})
	return err
}

// doCompact runs in the committer. It holds the index exclusively while
// it deletes, so that no reader looks up a version that is going away.
func (s *Store) doCompact(revision int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case revision <= s.compacted:
		return fmt.Errorf("%w: compact at %d, already compacted at %d", storage.ErrCompacted, revision, s.compacted)
	case revision > s.rev:
		return fmt.Errorf("%w: compact at %d, store at %d", storage.ErrFutureRevision, revision, s.rev)
	}
	keep := map[string]int{} // per key: index of the first version kept
	err := s.db.Update(func(tx *bolt.Tx) error {
		kvb := tx.Bucket(bucketKV)
		for key, h := range s.index {
			// Keep the version visible at revision, unless it is a
			// tombstone, and everything after it.
			i := sort.Search(len(h), func(i int) bool { return h[i].rev > revision }) - 1
			if i >= 0 && h[i].tomb {
				i++
			}
			i = max(i, 0)
			for _, r := range h[:i] {
				if err := kvb.Delete(revKey(r.rev, r.sub)); err != nil {
					return err
				}
			}
			if i > 0 {
				keep[key] = i
			}
		}
		return tx.Bucket(bucketMeta).Put(metaCompacted, putInt(revision))
	})
	if err != nil {
		return fmt.Errorf("store: compact: %w", err)
	}
	s.compacted = revision
	removed := false
	for key, i := range keep {
		if h := s.index[key]; i == len(h) {
			delete(s.index, key)
			removed = true
		} else {
			s.index[key] = slices.Clone(h[i:])
		}
	}
	if removed {
		keys := s.sortedKeys()
		s.sorted = slices.DeleteFunc(slices.Clone(keys), func(k string) bool { _, ok := s.index[k]; return !ok })
	}
	return nil
}
