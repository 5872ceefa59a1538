package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"

	"github.com/kubekata/kubekata/harness/storage"
)

var be = binary.BigEndian

// revKey is the bbolt key of a version: big-endian so that bbolt's byte
// order is revision order, which is what a watch replays and what
// compaction walks.
func revKey(rev int64, sub int32) []byte {
	k := make([]byte, 12)
	be.PutUint64(k, uint64(rev))
	be.PutUint32(k[8:], uint32(sub))
	return k
}

func parseRevKey(k []byte) (int64, int32, bool) {
	if len(k) != 12 {
		return 0, 0, false
	}
	return int64(be.Uint64(k)), int32(be.Uint32(k[8:])), true
}

func putInt(v int64) []byte {
	b := make([]byte, 8)
	be.PutUint64(b, uint64(v))
	return b
}

// entry is one version as stored: flags, create revision, version, key
// length, key, value.
type entry struct {
	tomb    bool
	create  int64
	version int64
	key     string
	value   []byte
}

const entryHeader = 1 + 8 + 8

func encodeEntry(e entry) []byte {
	b := make([]byte, entryHeader, entryHeader+binary.MaxVarintLen64+len(e.key)+len(e.value))
	if e.tomb {
		b[0] = 1
	}
	be.PutUint64(b[1:], uint64(e.create))
	be.PutUint64(b[9:], uint64(e.version))
	b = binary.AppendUvarint(b, uint64(len(e.key)))
	b = append(b, e.key...)
	return append(b, e.value...)
}

var errBadEntry = errors.New("bad entry")

// decodeHeader decodes everything but the value, copying the key out of
// bbolt's memory map.
func decodeHeader(v []byte) (entry, error) {
	e, _, err := decode(v)
	return e, err
}

// decodeEntry decodes a whole entry; the value is copied, because bbolt's
// bytes are valid only inside the transaction.
func decodeEntry(v []byte) (entry, error) {
	e, rest, err := decode(v)
	if err != nil {
		return e, err
	}
	e.value = append([]byte{}, rest...)
	return e, nil
}

func decode(v []byte) (entry, []byte, error) {
	if len(v) < entryHeader+1 || v[0] > 1 {
		return entry{}, nil, errBadEntry
	}
	e := entry{tomb: v[0] == 1, create: int64(be.Uint64(v[1:])), version: int64(be.Uint64(v[9:]))}
	n, w := binary.Uvarint(v[entryHeader:])
	rest := v[entryHeader:]
	if w <= 0 || n == 0 || uint64(len(rest)-w) < n {
		return entry{}, nil, errBadEntry
	}
	e.key = string(rest[w : w+int(n)])
	return e, rest[w+int(n):], nil
}

// bbolt's file header, as laid out by go.etcd.io/bbolt/internal/common:
// a 16-byte page header, then the meta.
const (
	boltPageHeader = 16
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	boltMetaSize   = 64 // up to and including the checksum
)

type boltMeta struct {
	pageSize uint32
	pgid     uint64
	txid     uint64
}

// readMeta reads and verifies the meta at offset off of f.
func readMeta(f *os.File, off int64) (boltMeta, bool) {
	b := make([]byte, boltMetaSize)
	if _, err := f.ReadAt(b, off+boltPageHeader); err != nil {
		return boltMeta{}, false
	}
	le := binary.LittleEndian // bbolt writes its meta in the machine's order
	h := fnv.New64a()
	h.Write(b[:56])
	if le.Uint32(b[0:]) != boltMagic || le.Uint32(b[4:]) != boltVersion || le.Uint64(b[56:]) != h.Sum64() {
		return boltMeta{}, false
	}
	m := boltMeta{pageSize: le.Uint32(b[8:]), pgid: le.Uint64(b[40:]), txid: le.Uint64(b[48:])}
	if m.pageSize < 512 || m.pageSize > 1<<20 || m.pageSize&(m.pageSize-1) != 0 {
		return boltMeta{}, false
	}
	return m, true
}

// checkFile verifies, without writing, that path is a whole bbolt file:
// a valid meta page, and at least as many bytes as that meta says the
// file holds. A file cut short would otherwise open, and crash the
// process on the first read past its end.
func checkFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if fi.Size() == 0 {
		return fmt.Errorf("%w: %s is empty", storage.ErrCorrupt, path)
	}
	m0, ok0 := readMeta(f, 0)
	var m1 boltMeta
	var ok1 bool
	switch {
	case ok0:
		m1, ok1 = readMeta(f, int64(m0.pageSize))
	default:
		// The first meta is damaged: look for the second one at the
		// usual page sizes, as bbolt does.
		for _, size := range []int64{4096, 8192, 16384, 65536, 512, 1024, 2048} {
			if m1, ok1 = readMeta(f, size); ok1 && int64(m1.pageSize) == size {
				break
			}
			ok1 = false
		}
	}
	var m boltMeta
	switch {
	case ok0 && ok1:
		m = m0
		if m1.txid > m0.txid {
			m = m1
		}
	case ok0:
		m = m0
	case ok1:
		m = m1
	default:
		return fmt.Errorf("%w: %s has no valid bbolt header", storage.ErrCorrupt, path)
	}
	if want := int64(m.pgid) * int64(m.pageSize); fi.Size() < want {
		return fmt.Errorf("%w: %s is truncated: %d bytes, its header says %d", storage.ErrCorrupt, path, fi.Size(), want)
	}
	return nil
}

// copyFile is io.Copy with an fsync, for Restore.
func copyFile(path string, r io.Reader) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
