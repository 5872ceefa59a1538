// Package store is the reference storage.Store: an MVCC key-value store
// kept in one bbolt file, in the way etcd keeps its data.
//
// On disk, every version of every key is one bbolt entry keyed by its
// revision (8 bytes, big-endian, so bbolt's key order is revision order)
// and its position in the transaction (4 bytes). The entry holds the key,
// its create revision, version, a tombstone flag and the value. A meta
// bucket holds the compacted revision. The store revision is the newest
// entry's, so it can never disagree with the entries.
//
// In memory, an index maps every key to the revisions of its versions
// (no values): a read finds the revision there and reads the value from
// bbolt. That keeps memory proportional to the number of versions, not to
// the size of the data, and makes Open one scan of the file.
//
// All writes go through one committer goroutine, which groups the
// transactions that arrive while it is busy into one bbolt transaction:
// one fsync acknowledges many writes (group commit). A transaction that
// changes nothing (etcd's Else that only reads, a delete of a missing
// key) takes no revision; a batch that changes nothing is rolled back,
// with no fsync.
package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/kubekata/kubekata/harness/storage"
)

// FileName is the store's file inside its directory.
const FileName = "store.db"

var (
	bucketKV      = []byte("kv")
	bucketMeta    = []byte("meta")
	metaFormat    = []byte("format")
	metaCompacted = []byte("compacted")
	formatVersion = []byte("kubekata-store/1")
)

// rec is the index entry of one version of a key; its value stays in
// bbolt under revKey(rev, sub).
type rec struct {
	rev     int64
	sub     int32
	create  int64
	version int64
	tomb    bool
}

// Store is an MVCC key-value store on bbolt.
type Store struct {
	path string
	db   *bolt.DB

	// mu guards the index. Readers hold it shared while they read from
	// bbolt; the committer holds it exclusively only to apply a commit
	// that is already durable, and for compaction.
	mu        sync.RWMutex
	closed    bool
	rev       int64
	compacted int64
	index     map[string][]rec // versions per key, oldest first
	sortMu    sync.Mutex       // guards sorted and unsorted among readers
	sorted    []string         // every key of index, sorted...
	unsorted  []string         // ...except these, added since the last sort

	reqs          chan *request
	closing       chan struct{}
	committerDone chan struct{}
	closeOnce     sync.Once

	hub     hub
	watchWG sync.WaitGroup
}

var _ storage.Store = (*Store)(nil)

// Open opens the store in dir, creating it if dir holds no store file. An
// existing file that is not a valid store is refused with
// storage.ErrCorrupt and never touched.
func Open(dir string) (storage.Store, error) {
	return open(dir)
}

func open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	path := filepath.Join(dir, FileName)
	_, err := os.Stat(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("store: %w", err)
	}
	if exists {
		// Check the header ourselves before bbolt maps the file: bbolt
		// trusts it, and reading a page past the end of a truncated file
		// kills the process with SIGBUS.
		if err := checkFile(path); err != nil {
			return nil, err
		}
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, FreelistType: bolt.FreelistMapType})
	if err != nil {
		if exists {
			return nil, fmt.Errorf("%w: %s: %v", storage.ErrCorrupt, path, err)
		}
		return nil, fmt.Errorf("store: %w", err)
	}
	if !exists {
		err := db.Update(func(tx *bolt.Tx) error {
			kv, err := tx.CreateBucket(bucketKV)
			if err != nil {
				return err
			}
			_ = kv
			meta, err := tx.CreateBucket(bucketMeta)
			if err != nil {
				return err
			}
			return meta.Put(metaFormat, formatVersion)
		})
		if err == nil {
			err = syncDir(dir)
		}
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("store: creating %s: %w", path, err)
		}
	}
	s := &Store{
		path:          path,
		db:            db,
		reqs:          make(chan *request, 1024),
		closing:       make(chan struct{}),
		committerDone: make(chan struct{}),
	}
	s.hub.watchers = map[*watcher]struct{}{}
	if err := s.load(); err != nil {
		db.Close()
		return nil, err
	}
	s.hub.published = s.rev
	go s.committer()
	return s, nil
}

// syncDir makes a new file's directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// load rebuilds the index from the file.
func (s *Store) load() error {
	idx, err := readIndex(s.db, s.path)
	if err != nil {
		return err
	}
	s.index, s.sorted, s.unsorted = idx.index, idx.sorted, nil
	s.rev, s.compacted = idx.rev, idx.compacted
	return nil
}

type loaded struct {
	index          map[string][]rec
	sorted         []string
	rev, compacted int64
}

// readIndex reads the index of the store in db: one pass over the entries
// in revision order, decoding keys and headers but no values.
func readIndex(db *bolt.DB, path string) (*loaded, error) {
	l := &loaded{index: map[string][]rec{}}
	err := db.View(func(tx *bolt.Tx) error {
		kvb, meta := tx.Bucket(bucketKV), tx.Bucket(bucketMeta)
		if kvb == nil || meta == nil || string(meta.Get(metaFormat)) != string(formatVersion) {
			return fmt.Errorf("%w: %s is a bbolt file but not a store", storage.ErrCorrupt, path)
		}
		var err error
		if l.compacted, err = getInt(meta, metaCompacted); err != nil {
			return err
		}
		c := kvb.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			rev, sub, ok := parseRevKey(k)
			e, derr := decodeHeader(v)
			if !ok || derr != nil || rev < l.rev {
				return fmt.Errorf("%w: %s: bad entry %x", storage.ErrCorrupt, path, k)
			}
			l.rev = rev
			r := rec{rev: rev, sub: sub, create: e.create, version: e.version, tomb: e.tomb}
			h, seen := l.index[e.key]
			if !seen {
				l.sorted = append(l.sorted, e.key)
			}
			l.index[e.key] = append(h, r)
		}
		sort.Strings(l.sorted)
		// The store revision is the newest entry's: entries after the
		// compacted revision are never deleted, so if compaction removed
		// the newest one, the store revision is the compacted one.
		l.rev = max(l.rev, l.compacted)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// sortedKeys returns every key of the index in order. Called with mu held
// (shared or exclusive).
func (s *Store) sortedKeys() []string {
	s.sortMu.Lock()
	defer s.sortMu.Unlock()
	if len(s.unsorted) > 0 {
		slices.Sort(s.unsorted)
		merged := make([]string, 0, len(s.sorted)+len(s.unsorted))
		i, j := 0, 0
		for i < len(s.sorted) || j < len(s.unsorted) {
			if j == len(s.unsorted) || (i < len(s.sorted) && s.sorted[i] < s.unsorted[j]) {
				merged = append(merged, s.sorted[i])
				i++
			} else {
				merged = append(merged, s.unsorted[j])
				j++
			}
		}
		s.sorted, s.unsorted = merged, nil
	}
	return s.sorted
}

// at finds the version of key visible at rev. Called with mu held.
func (s *Store) at(key string, rev int64) (rec, bool) {
	h := s.index[key]
	i := sort.Search(len(h), func(i int) bool { return h[i].rev > rev }) - 1
	if i < 0 || h[i].tomb {
		return rec{}, false
	}
	return h[i], true
}

// before finds the version of key just before revision rev (a tombstone
// counts as "none"). Called with mu held.
func (s *Store) before(key string, rev int64) (rec, bool) {
	return s.at(key, rev-1)
}

// readValue reads the value of r from bbolt inside tx.
func readValue(tx *bolt.Tx, r rec) ([]byte, error) {
	v := tx.Bucket(bucketKV).Get(revKey(r.rev, r.sub))
	if v == nil {
		return nil, fmt.Errorf("%w: revision %d", storage.ErrCompacted, r.rev)
	}
	e, err := decodeEntry(v)
	if err != nil {
		return nil, err
	}
	return e.value, nil
}

func toKV(key string, r rec, value []byte) storage.KeyValue {
	return storage.KeyValue{Key: key, Value: value, CreateRevision: r.create, ModRevision: r.rev, Version: r.version}
}

// view runs f with the index locked for reading and a bbolt read
// transaction, after checking that the store is open.
func (s *Store) view(ctx context.Context, f func(tx *bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return storage.ErrClosed
	}
	return s.db.View(f)
}

// Get returns the current version of key.
func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	if key == "" {
		return storage.KeyValue{}, storage.ErrEmptyKey
	}
	var kv storage.KeyValue
	err := s.view(ctx, func(tx *bolt.Tx) error {
		r, ok := s.at(key, s.rev)
		if !ok {
			return fmt.Errorf("%w: %q", storage.ErrNotFound, key)
		}
		v, err := readValue(tx, r)
		kv = toKV(key, r, v)
		return err
	})
	return kv, err
}

// Range returns the keys under a prefix at a revision.
func (s *Store) Range(ctx context.Context, req storage.RangeRequest) (storage.RangeResponse, error) {
	switch {
	case req.Revision < 0:
		return storage.RangeResponse{}, fmt.Errorf("%w: revision %d is negative", storage.ErrInvalidRange, req.Revision)
	case req.Limit < 0:
		return storage.RangeResponse{}, fmt.Errorf("%w: limit %d is negative", storage.ErrInvalidRange, req.Limit)
	case req.Start != "" && !strings.HasPrefix(req.Start, req.Prefix):
		return storage.RangeResponse{}, fmt.Errorf("%w: start %q is outside prefix %q", storage.ErrInvalidRange, req.Start, req.Prefix)
	}
	resp := storage.RangeResponse{KVs: []storage.KeyValue{}}
	err := s.view(ctx, func(tx *bolt.Tx) error {
		rev := req.Revision
		switch {
		case rev == 0:
			rev = s.rev
		case rev < s.compacted:
			return fmt.Errorf("%w: revision %d, compacted at %d", storage.ErrCompacted, rev, s.compacted)
		case rev > s.rev:
			return fmt.Errorf("%w: revision %d, store at %d", storage.ErrFutureRevision, rev, s.rev)
		}
		resp.Revision = rev
		keys := s.sortedKeys()
		for i := sort.SearchStrings(keys, max(req.Prefix, req.Start)); i < len(keys); i++ {
			k := keys[i]
			if !strings.HasPrefix(k, req.Prefix) {
				break
			}
			r, ok := s.at(k, rev)
			if !ok {
				continue
			}
			if req.Limit > 0 && int64(len(resp.KVs)) == req.Limit {
				resp.More = true
				break
			}
			v, err := readValue(tx, r)
			if err != nil {
				return err
			}
			resp.KVs = append(resp.KVs, toKV(k, r, v))
		}
		return nil
	})
	if err != nil {
		return storage.RangeResponse{}, err
	}
	return resp, nil
}

// Close stops the committer, ends every watch with ErrClosed and closes
// the file.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.closing)
		<-s.committerDone
		s.hub.endAll(storage.ErrClosed)
		s.watchWG.Wait()
		s.mu.Lock()
		s.closed = true
		err = s.db.Close()
		s.mu.Unlock()
	})
	return err
}

func getInt(b *bolt.Bucket, name []byte) (int64, error) {
	v := b.Get(name)
	if v == nil {
		return 0, nil
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: meta %s has %d bytes", storage.ErrCorrupt, name, len(v))
	}
	return int64(be.Uint64(v)), nil
}
