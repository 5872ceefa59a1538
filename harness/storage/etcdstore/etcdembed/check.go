package etcdembed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
	"go.etcd.io/etcd/server/v3/etcdserver/api/snap"
	"go.etcd.io/etcd/server/v3/storage/schema"
	"go.etcd.io/etcd/server/v3/storage/wal"
	"go.etcd.io/etcd/server/v3/storage/wal/walpb"
	"go.uber.org/zap"

	"github.com/kubekata/kubekata/harness/storage"
)

// storageCorrupt is the contract's error for files that are not a store.
var storageCorrupt = storage.ErrCorrupt

// checkDir reads, without changing it, the data directory of a member
// that has one, and refuses it with storage.ErrCorrupt when etcd could
// not start on it as it is: a write-ahead log that does not decode
// (etcd's own wal.ValidSnapshotEntries and wal.Verify, which accept a
// torn last record, as etcd repairs it: server/storage/wal/repair.go), a
// bbolt file that is cut short or fails bbolt's check, or a bbolt file
// that has applied entries the log does not have (a log cut on a record
// boundary: etcd would panic).
func checkDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(entries) == 0) {
		return nil // a new member
	}
	if err != nil {
		return fmt.Errorf("etcdembed: %w", err)
	}
	if !exists(walDir(dir)) {
		return fmt.Errorf("etcdembed: %s: %w: it has files but no write-ahead log (member/wal)", dir, storageCorrupt)
	}
	lg := zap.NewNop()
	walSnaps, err := wal.ValidSnapshotEntries(lg, walDir(dir))
	if err != nil {
		return fmt.Errorf("etcdembed: %s: %w: the write-ahead log: %v", dir, storageCorrupt, err)
	}
	at := &walpb.Snapshot{}
	raftSnap, err := snap.New(lg, snapDir(dir)).LoadNewestAvailable(walSnaps)
	switch {
	case err == nil:
		at = &walpb.Snapshot{Index: new(raftSnap.GetMetadata().GetIndex()), Term: new(raftSnap.GetMetadata().GetTerm())}
	case !errors.Is(err, snap.ErrNoSnapshot):
		return fmt.Errorf("etcdembed: %s: %w: the raft snapshot: %v", dir, storageCorrupt, err)
	}
	state, err := wal.Verify(lg, walDir(dir), at)
	if err != nil {
		return fmt.Errorf("etcdembed: %s: %w: the write-ahead log: %v", dir, storageCorrupt, err)
	}
	db := filepath.Join(snapDir(dir), "db")
	if !exists(db) {
		return nil // etcd makes it from the log
	}
	if err := checkBolt(db); err != nil {
		return fmt.Errorf("etcdembed: %w", err)
	}
	ci, err := consistentIndex(db)
	if err != nil {
		return fmt.Errorf("etcdembed: %w", err)
	}
	if ci > state.GetCommit() {
		return fmt.Errorf("etcdembed: %s: %w: the bbolt file has applied entry %d, the write-ahead log commits only up to %d", dir, storageCorrupt, ci, state.GetCommit())
	}
	return nil
}

// consistentIndex reads etcd's consistent index from a bbolt file
// (server/storage/schema/cindex.go: 8 bytes, big-endian, in the meta
// bucket).
func consistentIndex(path string) (uint64, error) {
	db, err := bolt.Open(path, 0o400, &bolt.Options{ReadOnly: true})
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", storageCorrupt, filepath.Base(path), err)
	}
	defer db.Close()
	var ci uint64
	err = db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(schema.Meta.Name())
		if b == nil {
			return nil
		}
		if v := b.Get(schema.MetaConsistentIndexKeyName); len(v) == 8 {
			ci = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	return ci, err
}
