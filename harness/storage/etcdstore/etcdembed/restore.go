package etcdembed

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/client/pkg/v3/types"
	"go.etcd.io/etcd/server/v3/etcdserver"
	"go.etcd.io/etcd/server/v3/etcdserver/api/membership"
	"go.etcd.io/etcd/server/v3/etcdserver/api/snap"
	"go.etcd.io/etcd/server/v3/etcdserver/cindex"
	"go.etcd.io/etcd/server/v3/storage/backend"
	"go.etcd.io/etcd/server/v3/storage/schema"
	"go.etcd.io/etcd/server/v3/storage/wal"
	"go.etcd.io/etcd/server/v3/storage/wal/walpb"
	"go.etcd.io/raft/v3/raftpb"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	bolt "go.etcd.io/bbolt"
)

// RestoreDir makes dir, which must not exist, the data directory of
// member name of the cluster initialCluster (etcd's --initial-cluster,
// name=peerURL,...) with the cluster token, holding the snapshot read
// from r, as `etcdutl snapshot restore` does
// (etcdutl/snapshot/v3_snapshot.go Restore): the bbolt file with its
// sha256 checked and cut off, the old membership trimmed from it, the new
// member added, a write-ahead log whose first entries add it (term 1,
// committed), a raft snapshot at that index, and etcd's consistent index
// set to it, so that the member applies nothing twice.
func RestoreDir(r io.Reader, dir, name, initialCluster, token string) (err error) {
	if exists(dir) {
		return fmt.Errorf("etcdembed: restore: %s exists", dir)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	lg := zap.NewNop()
	if err := os.MkdirAll(snapDir(dir), 0o700); err != nil {
		return fmt.Errorf("etcdembed: restore: %w", err)
	}
	db := filepath.Join(snapDir(dir), "db")
	if err := copyChecked(r, db); err != nil {
		return err
	}

	urls, err := types.NewURLsMap(initialCluster)
	if err != nil {
		return fmt.Errorf("etcdembed: restore: %w", err)
	}
	cl, err := membership.NewClusterFromURLsMap(lg, token, urls)
	if err != nil {
		return fmt.Errorf("etcdembed: restore: %w", err)
	}
	be := backend.NewDefaultBackend(lg, db)
	defer func() {
		if be != nil {
			be.Close()
		}
	}()
	mb := schema.NewMembershipBackend(lg, be)
	if err := mb.TrimMembershipFromBackend(); err != nil {
		return fmt.Errorf("etcdembed: restore: trimming the old membership: %w", err)
	}
	cl.SetBackend(mb)
	for _, m := range cl.Members() {
		cl.AddMember(m, true)
	}

	m := cl.MemberByName(name)
	if m == nil {
		return fmt.Errorf("etcdembed: restore: no member %q in %s", name, initialCluster)
	}
	metadata, err := proto.Marshal(&etcdserverpb.Metadata{NodeID: new(uint64(m.ID)), ClusterID: new(uint64(cl.ID()))})
	if err != nil {
		return fmt.Errorf("etcdembed: restore: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(walDir(dir)), 0o700); err != nil {
		return fmt.Errorf("etcdembed: restore: %w", err)
	}
	w, err := wal.Create(lg, walDir(dir), metadata)
	if err != nil {
		return fmt.Errorf("etcdembed: restore: %w", err)
	}
	defer w.Close()
	ids := cl.MemberIDs()
	ents := make([]*raftpb.Entry, len(ids))
	voters := make([]uint64, len(ids))
	for i, id := range ids {
		ctx, err := json.Marshal(cl.Member(id))
		if err != nil {
			return fmt.Errorf("etcdembed: restore: %w", err)
		}
		cc, err := proto.Marshal(&raftpb.ConfChange{Type: raftpb.ConfChangeAddNode.Enum(), NodeId: new(uint64(id)), Context: ctx})
		if err != nil {
			return fmt.Errorf("etcdembed: restore: %w", err)
		}
		voters[i] = uint64(id)
		ents[i] = &raftpb.Entry{Type: raftpb.EntryConfChange.Enum(), Term: new(uint64(1)), Index: new(uint64(i + 1)), Data: cc}
	}
	commit, term := uint64(len(ents)), uint64(1)
	if err := w.Save(&raftpb.HardState{Term: new(term), Vote: new(voters[0]), Commit: new(commit)}, ents); err != nil {
		return fmt.Errorf("etcdembed: restore: writing the log: %w", err)
	}
	conf := &raftpb.ConfState{Voters: voters}
	rs := &raftpb.Snapshot{
		Data:     etcdserver.GetMembershipInfoInV2Format(lg, cl),
		Metadata: &raftpb.SnapshotMetadata{Index: new(commit), Term: new(term), ConfState: conf},
	}
	if err := snap.New(lg, snapDir(dir)).SaveSnap(rs); err != nil {
		return fmt.Errorf("etcdembed: restore: writing the raft snapshot: %w", err)
	}
	if err := w.SaveSnapshot(&walpb.Snapshot{Index: new(commit), Term: new(term), ConfState: conf}); err != nil {
		return fmt.Errorf("etcdembed: restore: %w", err)
	}
	cindex.UpdateConsistentIndexForce(be.BatchTx(), commit, term)
	err = be.Close()
	be = nil
	if err != nil {
		return fmt.Errorf("etcdembed: restore: %w", err)
	}
	return nil
}

// copyChecked writes the snapshot r to path, checks the sha256 etcd
// appends to it (a snapshot without one is refused, as etcdutl does
// without --skip-hash-check) and cuts it off, then checks that what is
// left is a bbolt file.
func copyChecked(r io.Reader, path string) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("etcdembed: restore: reading the snapshot: %w", err)
	}
	// etcd appends the hash to a file of whole 512-byte pages
	// (etcdutl's hasChecksum).
	if len(data)%512 != sha256.Size {
		return fmt.Errorf("etcdembed: restore: %w: the snapshot (%d bytes) has no sha256 at its end: cut short, or not an etcd snapshot", storageCorrupt, len(data))
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return fmt.Errorf("etcdembed: restore: %w: the snapshot's sha256 is %x, its content's %x", storageCorrupt, sum, got)
	}
	if err := writeSynced(path, body); err != nil {
		return fmt.Errorf("etcdembed: restore: %w", err)
	}
	if err := checkBolt(path); err != nil {
		return fmt.Errorf("etcdembed: restore: %w", err)
	}
	return nil
}

// writeSynced writes data to a new file at path and fsyncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir fsyncs a directory, so that renames in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// checkBolt opens path read-only and checks bbolt's consistency.
func checkBolt(path string) error {
	db, err := bolt.Open(path, 0o400, &bolt.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("%w: %s: %v", storageCorrupt, filepath.Base(path), err)
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error {
		// A file cut short: its pages are not all there (reading them
		// through the mmap would fault).
		if info, err := os.Stat(path); err != nil {
			return err
		} else if tx.Size() > info.Size() {
			return fmt.Errorf("%w: %s: %d bytes, its pages reach %d", storageCorrupt, filepath.Base(path), info.Size(), tx.Size())
		}
		for err := range tx.Check() {
			return fmt.Errorf("%w: %s: %v", storageCorrupt, filepath.Base(path), err)
		}
		return nil
	})
}
