// Package store is your etcd: the cluster's single source of truth, an MVCC
// key-value store kept in one bbolt file (go.etcd.io/bbolt, the same
// storage engine etcd uses).
//
// The contract, its types and its errors are in harness/storage; read its
// package documentation first. README.md beside this file takes you
// through it one step at a time, and `kata test 03` tells you which step
// is next.
package store

import (
	"context"
	"io"

	"github.com/kubekata/kubekata/harness/storage"
)

// FileName is the store's file inside its directory.
const FileName = "store.db"

// Store is an MVCC key-value store on bbolt.
//
// Add the fields you need: the bbolt database, the store revision and
// the compacted revision, an index from each key to the revisions of its
// versions, and the watchers.
type Store struct{}

var _ storage.Store = (*Store)(nil)

// Open opens the store kept in dir, creating it when dir holds no store
// file. An existing file that is not a valid store is refused with an
// error wrapping storage.ErrCorrupt and never written to.
func Open(dir string) (storage.Store, error) {
	// TODO: open (or create) the bbolt file in dir, rebuild the in-memory index from it, and return the store.
	panic("not implemented: Open")
}

// Get returns the current version of key, or storage.ErrNotFound.
func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	// TODO: find the newest version of key; a missing key or a tombstone is storage.ErrNotFound.
	panic("not implemented: Store.Get")
}

// Range returns the keys under req.Prefix at req.Revision.
func (s *Store) Range(ctx context.Context, req storage.RangeRequest) (storage.RangeResponse, error) {
	// TODO: list the live keys under the prefix, in key order, as they were at the requested revision.
	panic("not implemented: Store.Range")
}

// Put creates or updates key.
func (s *Store) Put(ctx context.Context, key string, value []byte) (storage.KeyValue, error) {
	// TODO: write key at the next revision and return it as written (a Txn with one put will do).
	panic("not implemented: Store.Put")
}

// Delete removes key, returning it as it was and the revision of the
// delete; storage.ErrNotFound when there was nothing to delete.
func (s *Store) Delete(ctx context.Context, key string) (storage.KeyValue, int64, error) {
	// TODO: write a tombstone for key at the next revision (a Txn with one delete will do, if it says whether it deleted anything).
	panic("not implemented: Store.Delete")
}

// Txn runs etcd's If/Then/Else atomically: the compares pick the branch,
// and whatever it changes commits durably as one revision.
func (s *Store) Txn(ctx context.Context, txn storage.Txn) (storage.TxnResponse, error) {
	// TODO: validate txn, check its compares to pick Then or Else, run that branch's operations in order, and commit its changes at one new revision (none if it changed nothing).
	panic("not implemented: Store.Txn")
}

// Watch delivers the events under prefix from fromRevision on.
func (s *Store) Watch(ctx context.Context, prefix string, fromRevision int64) (storage.Watcher, error) {
	// TODO: replay history from fromRevision, then follow new writes, until ctx ends.
	panic("not implemented: Store.Watch")
}

// Compact forgets the history before revision.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	// TODO: delete the versions no read at revision or later can see, and remember the compacted revision.
	panic("not implemented: Store.Compact")
}

// Snapshot writes a consistent copy of the store to w.
func (s *Store) Snapshot(ctx context.Context, w io.Writer) error {
	// TODO: copy the store to w from one read transaction.
	panic("not implemented: Store.Snapshot")
}

// Restore loads a snapshot into the empty store.
func (s *Store) Restore(ctx context.Context, r io.Reader) error {
	// TODO: check the snapshot, then make it the store's content.
	panic("not implemented: Store.Restore")
}

// Close ends every watch with storage.ErrClosed and closes the file.
func (s *Store) Close() error {
	// TODO: stop the store, end the watchers and close the bbolt file.
	panic("not implemented: Store.Close")
}
