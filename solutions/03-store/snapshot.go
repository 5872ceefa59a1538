package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/kubekata/kubekata/harness/storage"
)

// Snapshot writes a copy of the bbolt file as of one read transaction:
// consistent, and writers go on meanwhile.
func (s *Store) Snapshot(ctx context.Context, w io.Writer) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Begin the read transaction under the index lock (so the store is
	// known open), but copy without it, so that writers are not held up.
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return storage.ErrClosed
	}
	tx, err := s.db.Begin(false)
	s.mu.RUnlock()
	if err != nil {
		return fmt.Errorf("store: snapshot: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.WriteTo(w); err != nil {
		return fmt.Errorf("store: snapshot: %w", err)
	}
	return nil
}

// Restore replaces the empty store with a snapshot. The snapshot is first
// written beside the store and checked as if it were opened; only a good
// one replaces the store's file, by an atomic rename.
func (s *Store) Restore(ctx context.Context, r io.Reader) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	closed, rev := s.closed, s.rev
	s.mu.RUnlock()
	if closed {
		return storage.ErrClosed
	}
	if rev != 0 {
		return fmt.Errorf("%w: store is at revision %d", storage.ErrNotEmpty, rev)
	}
	tmp := s.path + ".restore"
	if err := copyFile(tmp, r); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("store: restore: %w", err)
	}
	if err := checkSnapshot(tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("store: restore: %w", err)
	}
	_, err := s.do(ctx, &request{restore: tmp})
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// checkSnapshot opens path read-only and reads its whole index.
func checkSnapshot(path string) error {
	if err := checkFile(path); err != nil {
		return err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return fmt.Errorf("%w: %v", storage.ErrCorrupt, err)
	}
	defer db.Close()
	_, err = readIndex(db, path)
	return err
}

// doRestore runs in the committer, with no write in flight.
func (s *Store) doRestore(tmp string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rev != 0 {
		return fmt.Errorf("%w: store is at revision %d", storage.ErrNotEmpty, s.rev)
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: restore: %w", err)
	}
	err := os.Rename(tmp, s.path)
	if err == nil {
		err = syncDir(filepath.Dir(s.path))
	}
	// Reopen whichever file is in place now: the restored one, or the old
	// one if the rename failed.
	db, openErr := bolt.Open(s.path, 0o600, &bolt.Options{Timeout: 2 * time.Second, FreelistType: bolt.FreelistMapType})
	if openErr != nil {
		s.closed = true // the store cannot go on without its file
		return fmt.Errorf("store: restore: reopening: %w", errors.Join(err, openErr))
	}
	s.db = db
	if loadErr := s.load(); loadErr != nil {
		err = errors.Join(err, loadErr)
	}
	if err != nil {
		return fmt.Errorf("store: restore: %w", err)
	}
	// Watchers of the empty store would see revisions jump: end them, as
	// if their history had been compacted away.
	s.hub.mu.Lock()
	s.hub.published = s.rev
	for w := range s.hub.watchers {
		s.hub.end(w, fmt.Errorf("%w: the store was restored from a snapshot", storage.ErrCompacted))
	}
	s.hub.mu.Unlock()
	return nil
}
