// Package storage is the contract of the cluster's store: a small etcd.
//
// The apiserver is the only component that talks to a Store; everything
// else reads and writes through the apiserver. The model is etcd's MVCC
// key-value store (etcd server/storage/mvcc):
//
//   - The store has one global revision. It is 0 for an empty store and
//     rises by exactly one for every transaction that changes something.
//     A transaction is one revision, however many keys it touches: all its
//     changes carry the same revision, told apart by their position in
//     the transaction (etcd's main and sub revision).
//     etcd's empty store is at revision 1 and its first write is revision
//     2; here the first write is revision 1, a deliberate simplification
//     that changes no rule.
//   - Every key has a CreateRevision (the revision that created it), a
//     ModRevision (the revision of its last change) and a Version (how many
//     times it was written since it was created, from 1).
//   - A delete writes a tombstone: the key disappears from current reads,
//     but reads at an older revision still see it, and a later re-create
//     starts a new life with a new CreateRevision and Version 1.
//   - A transaction is etcd's If/Then/Else: when every compare holds, the
//     Then operations run, otherwise the Else operations; either way it
//     commits atomically at one revision, or changes nothing. A failing
//     compare is not an error: the response says Succeeded=false.
//   - Watch delivers every change under a prefix from a revision on, in
//     revision order, each exactly once, with the previous value.
//   - Compact(rev) forgets the history before rev: reads below it and
//     watches from at or below it fail with ErrCompacted. etcd still
//     serves a watch from exactly the compacted revision (its
//     watchable_store refuses only a start below it); here that watch is
//     refused too, because the previous values of its first events are
//     gone and every event here carries its PrevKV.
//
// Slow watchers. etcd never blocks a write on a watcher: a watcher whose
// channel is full becomes a "victim", its pending events are retried
// every few milliseconds, and once delivered it catches up from the
// history in bbolt (mvcc/watchable_store.go, syncVictimsLoop). The
// apiserver's watch cache, which serves every client watch, gives a full
// watcher a short time budget and then terminates it, and the client
// lists and watches again (apiserver/pkg/storage/cacher/cache_watcher.go).
// This contract follows the watch cache: a watcher more than WatchBuffer
// events behind is ended with ErrSlowWatcher. It is the simpler rule to
// build and to test, it bounds the memory a slow client costs, and it is
// what a client of the apiserver sees.
//
// Errors are the values below; callers test them with errors.Is.
package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Errors returned by a Store. Implementations may wrap them with detail
// (fmt.Errorf("%w: ...", ErrConflict)); callers test with errors.Is.
var (
	// ErrNotFound: the key does not exist (at the revision asked for).
	ErrNotFound = errors.New("storage: key not found")
	// ErrExists: a create found the key already there.
	ErrExists = errors.New("storage: key already exists")
	// ErrConflict: a compare-and-swap found a different ModRevision; the
	// key changed since the caller read it.
	ErrConflict = errors.New("storage: conflict: mod_revision has changed")
	// ErrCompacted: the revision asked for is older than the compacted
	// revision, as etcd's "mvcc: required revision has been compacted".
	ErrCompacted = errors.New("storage: required revision has been compacted")
	// ErrFutureRevision: the revision asked for is newer than the store's,
	// as etcd's "mvcc: required revision is a future revision".
	ErrFutureRevision = errors.New("storage: required revision is a future revision")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("storage: store is closed")
	// ErrEmptyKey: a key argument was "".
	ErrEmptyKey = errors.New("storage: key is empty")
	// ErrInvalidRange: a range, revision or limit that makes no sense,
	// such as a negative revision or a Start outside the Prefix.
	ErrInvalidRange = errors.New("storage: invalid range")
	// ErrInvalidTxn: a transaction that writes one key twice in a branch
	// (etcd's "duplicate key given in txn request"), or an unknown
	// operation.
	ErrInvalidTxn = errors.New("storage: invalid transaction")
	// ErrSlowWatcher closes the Events channel of a watcher that fell more
	// than WatchBuffer events behind (see Watcher). The caller should list
	// again and start a new watch from the list's revision.
	ErrSlowWatcher = errors.New("storage: watcher fell too far behind and was cancelled")
	// ErrNotEmpty: Restore into a store that has already been written.
	ErrNotEmpty = errors.New("storage: restore needs an empty store")
	// ErrCorrupt: the files in the store's directory are not a store, or
	// are truncated or damaged. The store never re-initialises over them.
	ErrCorrupt = errors.New("storage: not a store, or a corrupt one")
)

// WatchBuffer is how many events a watcher may fall behind before the store
// cancels it with ErrSlowWatcher. A write never waits for a watcher: when a
// watcher's buffer is full, the watcher is ended instead, as the
// apiserver's watch cache ends an unresponsive watcher (see the package
// documentation for what etcd does). An implementation may buffer more,
// never fewer.
const WatchBuffer = 1000

// KeyValue is one version of a key.
type KeyValue struct {
	Key   string
	Value []byte
	// CreateRevision is the revision that created this life of the key.
	CreateRevision int64
	// ModRevision is the revision of the key's last change; it is the
	// apiserver's resourceVersion.
	ModRevision int64
	// Version counts the writes since the key was created: 1 on create.
	Version int64
}

// EventType says what happened to a key.
type EventType int

const (
	// EventPut is a create or an update.
	EventPut EventType = iota + 1
	// EventDelete is a delete (a tombstone).
	EventDelete
)

func (t EventType) String() string {
	switch t {
	case EventPut:
		return "PUT"
	case EventDelete:
		return "DELETE"
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Event is one change of one key.
type Event struct {
	Type EventType
	// KV is the key after the change. For a delete, KV has only Key and
	// ModRevision (the revision of the delete); Value is nil and
	// CreateRevision and Version are 0, as etcd reports a tombstone.
	KV KeyValue
	// PrevKV is the key before the change: nil for a create, set for an
	// update and always set for a delete.
	PrevKV *KeyValue
}

// RangeRequest selects keys by prefix at a revision.
type RangeRequest struct {
	// Prefix selects every key that starts with it; "" selects all keys.
	// To read a single key at a past revision, use the key as the prefix
	// and pick it out of the result.
	Prefix string
	// Start, when not empty, skips keys that sort before it; it must start
	// with Prefix. A list continues after key k with Start = k + "\x00".
	Start string
	// Revision reads the store as it was at that revision; 0 means the
	// current revision. Below the compacted revision: ErrCompacted; above
	// the current one: ErrFutureRevision; negative: ErrInvalidRange.
	Revision int64
	// Limit caps the number of keys returned; 0 means no limit, negative
	// is ErrInvalidRange.
	Limit int64
}

// RangeResponse is the result of a Range.
type RangeResponse struct {
	// KVs are the selected keys in byte order of Key.
	KVs []KeyValue
	// More is true when Limit cut the result short.
	More bool
	// Revision is the revision the read was made at: the request's
	// Revision, or the store's current revision when that was 0. A list
	// followed by a watch from Revision+1 misses nothing.
	Revision int64
}

// OpType is the kind of a transaction operation.
type OpType int

const (
	// OpPut creates or updates Key with Value.
	OpPut OpType = iota + 1
	// OpDelete deletes Key. Deleting a key that does not exist is not an
	// error: it changes nothing, and makes no event (etcd's DeleteRange
	// with Deleted=0).
	OpDelete
	// OpGet reads the current version of Key, as seen by the transaction
	// at its place in the branch: it changes nothing. GuaranteedUpdate in
	// the apiserver (k8s.io/apiserver/pkg/storage/etcd3/store.go) puts one
	// in Else, to learn the key's current state when its compare failed.
	OpGet
)

func (t OpType) String() string {
	switch t {
	case OpPut:
		return "put"
	case OpDelete:
		return "delete"
	case OpGet:
		return "get"
	}
	return fmt.Sprintf("OpType(%d)", int(t))
}

// Op is one operation of a transaction.
type Op struct {
	Type  OpType
	Key   string
	Value []byte
}

// PutOp is an OpPut of key with value.
func PutOp(key string, value []byte) Op { return Op{Type: OpPut, Key: key, Value: value} }

// DeleteOp is an OpDelete of key.
func DeleteOp(key string) Op { return Op{Type: OpDelete, Key: key} }

// GetOp is an OpGet of key.
func GetOp(key string) Op { return Op{Type: OpGet, Key: key} }

// Compare is a transaction's guard: Key's ModRevision must equal
// ModRevision; 0 means the key must not exist.
type Compare struct {
	Key         string
	ModRevision int64
}

// Txn is etcd's transaction (etcd api/etcdserverpb TxnRequest): if every
// compare of If holds (an empty If holds), the operations of Then run,
// otherwise those of Else, in order; each operation sees the effect of
// the ones before it. Whatever ran commits atomically as one new revision
// if it changed anything, and changes nothing otherwise (then the store
// revision does not move). Either branch may be empty. A branch may read
// a key it writes, but may not write one key twice (ErrInvalidTxn).
type Txn struct {
	If   []Compare
	Then []Op
	Else []Op
}

// ValidateTxn checks what can be checked of txn without the store: keys
// that are not empty, known operations, compares with no negative
// revision, and no key written twice in a branch. Implementations may
// use it so that their errors read the same.
func ValidateTxn(txn Txn) error {
	for _, c := range txn.If {
		if c.Key == "" {
			return fmt.Errorf("%w: compare of an empty key", ErrEmptyKey)
		}
		if c.ModRevision < 0 {
			return fmt.Errorf("%w: compare of %q with negative mod_revision %d", ErrInvalidTxn, c.Key, c.ModRevision)
		}
	}
	for _, branch := range [][]Op{txn.Then, txn.Else} {
		written := map[string]bool{}
		for _, op := range branch {
			if op.Key == "" {
				return fmt.Errorf("%w: %v of an empty key", ErrEmptyKey, op.Type)
			}
			switch op.Type {
			case OpGet:
				continue
			case OpPut, OpDelete:
			default:
				return fmt.Errorf("%w: unknown operation %d on %q", ErrInvalidTxn, op.Type, op.Key)
			}
			if written[op.Key] {
				return fmt.Errorf("%w: duplicate key %q given in txn request", ErrInvalidTxn, op.Key)
			}
			written[op.Key] = true
		}
	}
	return nil
}

// OpResponse is the outcome of one operation of the branch that ran.
type OpResponse struct {
	// KV is, for an OpGet, the key as it is (nil when it does not exist)
	// and, for an OpPut, the key as written. It is nil for an OpDelete.
	KV *KeyValue
	// PrevKV is the key before an OpPut or an OpDelete changed it: nil
	// when it did not exist (so a delete with a nil PrevKV deleted
	// nothing). It is nil for an OpGet.
	PrevKV *KeyValue
}

// TxnResponse is the result of a transaction.
type TxnResponse struct {
	// Succeeded is true when every compare held and Then ran; false when
	// Else ran. A failed compare is not an error.
	Succeeded bool
	// Revision is the revision the transaction committed as when it
	// changed something, and the store's revision it read otherwise.
	Revision int64
	// Responses has one entry per operation of the branch that ran, in
	// order.
	Responses []OpResponse
	// Events are the changes it made, in the order of their operations:
	// one per put and per delete of an existing key, none for gets and
	// for deletes of missing keys. These are exactly the events watchers
	// receive.
	Events []Event
}

// Watcher is a running watch.
type Watcher interface {
	// Events delivers the events in revision order (and, within a
	// transaction, in operation order), each once. The channel is closed
	// when the watch ends: its context is done, the store is closed, or
	// the watcher fell more than WatchBuffer events behind. Events
	// received before the close are never followed by a gap.
	Events() <-chan Event
	// Err says why Events was closed: the context's error, ErrClosed or
	// ErrSlowWatcher. It is nil while the channel is open.
	Err() error
}

// Store is an etcd-like MVCC key-value store. All methods are safe for
// concurrent use. After Close every method returns ErrClosed.
//
// A method returns only once its write is durable: a write that returned
// without error survives a crash of the process.
type Store interface {
	// Get returns the current version of key, or ErrNotFound.
	Get(ctx context.Context, key string) (KeyValue, error)
	// Range returns the keys selected by req.
	Range(ctx context.Context, req RangeRequest) (RangeResponse, error)
	// Put creates or updates key unconditionally and returns the key as
	// written.
	Put(ctx context.Context, key string, value []byte) (KeyValue, error)
	// Delete removes key unconditionally, returning the key as it was and
	// the revision of the delete; ErrNotFound if it does not exist (then
	// nothing is written).
	Delete(ctx context.Context, key string) (prev KeyValue, revision int64, err error)
	// Txn runs txn atomically (see Txn). A failing compare is not an
	// error: Else runs and the response says Succeeded=false. An error
	// means nothing was written: an invalid transaction, a closed store,
	// a done context or a failure of the disk.
	Txn(ctx context.Context, txn Txn) (TxnResponse, error)
	// Watch delivers the events of keys starting with prefix ("" for all
	// keys) whose revision is at least fromRevision; 0 means from the next
	// write on. It fails with ErrCompacted when fromRevision is at or
	// below the compacted revision, because the previous values of those
	// events are gone. The watch ends when ctx is done.
	Watch(ctx context.Context, prefix string, fromRevision int64) (Watcher, error)
	// Compact forgets the history before revision: afterwards, reads at a
	// revision below it and watches from a revision at or below it fail
	// with ErrCompacted, while the state at revision and everything after
	// it stay. Compacting at or below the current compacted revision is
	// ErrCompacted; above the store's revision, ErrFutureRevision.
	Compact(ctx context.Context, revision int64) error
	// Snapshot writes a consistent copy of the store to w, in a format of
	// the implementation's choosing: the state at one revision, with the
	// history the store keeps (as etcd's snapshot is its bbolt file), so
	// that its size follows what the store keeps: after a compaction, new
	// writes use the space of what it deleted. Writes may go on while it
	// runs.
	Snapshot(ctx context.Context, w io.Writer) error
	// Restore loads a snapshot made by Snapshot into an empty store
	// (ErrNotEmpty otherwise). Afterwards the store has the same keys,
	// values, revisions and store revision as the one snapshotted; older
	// history may be compacted away. A snapshot that does not read back
	// is an error that leaves the store empty.
	Restore(ctx context.Context, r io.Reader) error
	// Close stops the store, ends every watch with ErrClosed and releases
	// its files. Calling it again is harmless.
	Close() error
}

// CompareFailed is the error for a compare of key that wanted ModRevision
// want and found got (0 when the key does not exist). The helpers below
// turn a transaction that did not succeed into it.
func CompareFailed(key string, want, got int64) error {
	switch {
	case want == 0:
		return fmt.Errorf("%w: %q (mod_revision %d)", ErrExists, key, got)
	case got == 0:
		return fmt.Errorf("%w: %q (wanted mod_revision %d)", ErrNotFound, key, want)
	default:
		return fmt.Errorf("%w: %q has mod_revision %d, want %d", ErrConflict, key, got, want)
	}
}

// guarded runs "if key's ModRevision is modRevision then op else get
// key", as the apiserver's GuaranteedUpdate does, and turns an Else into
// the CompareFailed error.
func guarded(ctx context.Context, s Store, key string, modRevision int64, op Op) (TxnResponse, error) {
	r, err := s.Txn(ctx, Txn{
		If:   []Compare{{Key: key, ModRevision: modRevision}},
		Then: []Op{op},
		Else: []Op{GetOp(key)},
	})
	if err != nil {
		return TxnResponse{}, err
	}
	if !r.Succeeded {
		var got int64
		if len(r.Responses) == 1 && r.Responses[0].KV != nil {
			got = r.Responses[0].KV.ModRevision
		}
		if got == modRevision {
			// The store says the compare failed, and its own Get says
			// it held: the store is wrong, not the caller.
			return TxnResponse{}, fmt.Errorf("storage: txn on %q: compare of mod_revision %d failed, but the get in Else found mod_revision %d", key, modRevision, got)
		}
		return TxnResponse{}, CompareFailed(key, modRevision, got)
	}
	if len(r.Events) != 1 {
		return TxnResponse{}, fmt.Errorf("storage: txn on %q: %v succeeded with %d events, want 1", key, op.Type, len(r.Events))
	}
	return r, nil
}

// Create writes key only if it does not exist (ErrExists otherwise).
func Create(ctx context.Context, s Store, key string, value []byte) (KeyValue, error) {
	r, err := guarded(ctx, s, key, 0, PutOp(key, value))
	if err != nil {
		return KeyValue{}, err
	}
	return r.Events[0].KV, nil
}

// CompareAndSwap updates key only if its ModRevision is still modRevision
// (ErrConflict or ErrNotFound otherwise).
func CompareAndSwap(ctx context.Context, s Store, key string, value []byte, modRevision int64) (KeyValue, error) {
	if modRevision <= 0 {
		return KeyValue{}, fmt.Errorf("%w: compare-and-swap of %q needs a mod_revision above 0, got %d", ErrInvalidTxn, key, modRevision)
	}
	r, err := guarded(ctx, s, key, modRevision, PutOp(key, value))
	if err != nil {
		return KeyValue{}, err
	}
	return r.Events[0].KV, nil
}

// CompareAndDelete deletes key only if its ModRevision is still
// modRevision, returning the key as it was and the revision of the delete.
func CompareAndDelete(ctx context.Context, s Store, key string, modRevision int64) (KeyValue, int64, error) {
	if modRevision <= 0 {
		return KeyValue{}, 0, fmt.Errorf("%w: compare-and-delete of %q needs a mod_revision above 0, got %d", ErrInvalidTxn, key, modRevision)
	}
	r, err := guarded(ctx, s, key, modRevision, DeleteOp(key))
	if err != nil {
		return KeyValue{}, 0, err
	}
	if r.Events[0].PrevKV == nil {
		return KeyValue{}, 0, fmt.Errorf("storage: compare-and-delete of %q: the delete event has no previous value", key)
	}
	return *r.Events[0].PrevKV, r.Revision, nil
}

// CurrentRevision returns the store's current revision.
func CurrentRevision(ctx context.Context, s Store) (int64, error) {
	r, err := s.Range(ctx, RangeRequest{Limit: 1})
	if err != nil {
		return 0, err
	}
	return r.Revision, nil
}
