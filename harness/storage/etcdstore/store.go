package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/kubekata/kubekata/harness/storage"
)

// Store is a storage.Store, and Open is what the cluster program's
// Parts.OpenEtcd takes (harness/cluster).
var (
	_ storage.Store                                          = (*Store)(nil)
	_ func(context.Context, []string) (storage.Store, error) = Open
)

// offset is how far etcd's revisions are ahead of the kata's: etcd's
// empty store is at revision 1, the kata's at 0.
const offset = 1

// Owner is the etcd member a Store runs on, when the Store owns it (an
// embedded member, see package etcdembed). With an Owner, Close stops the
// member and Restore replaces its data.
type Owner interface {
	// Restore replaces the member's data with the snapshot read from r
	// (`etcdutl snapshot restore` into a new data directory, then a
	// restart on it) and returns a client of the restarted member. When
	// it fails, the member runs on its old data again, and the returned
	// client (nil when the member could not restart) talks to it.
	Restore(ctx context.Context, r io.Reader) (*clientv3.Client, error)
	// Stop stops the member; its data stays in its directory.
	Stop() error
}

// Store is a storage.Store on an etcd cluster.
type Store struct {
	owner Owner

	// closing is cancelled by Close: it ends the calls in flight.
	closing context.Context
	stop    context.CancelFunc

	// mu is held shared by every call while it runs, and exclusively by
	// Restore (which swaps the client) and Close.
	mu     sync.RWMutex
	cli    *clientv3.Client
	closed bool

	wmu      sync.Mutex
	watchers map[*watcher]struct{}
}

// dialTimeout bounds how long Open waits for the cluster to answer.
const dialTimeout = 10 * time.Second

// Open opens a store on the etcd cluster at endpoints (URLs such as
// http://127.0.0.1:2379). It checks that the cluster answers before it
// returns.
func Open(ctx context.Context, endpoints []string) (storage.Store, error) {
	if len(endpoints) == 0 {
		return nil, errors.New("etcdstore: open: no etcd endpoints given")
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: dialTimeout,
		Context:     context.WithoutCancel(ctx),
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcdstore: open %v: %w", endpoints, err)
	}
	cctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	// A linearizable read needs a quorum: the cluster is up.
	if _, err := cli.Get(cctx, "/", clientv3.WithCountOnly()); err != nil {
		cli.Close()
		return nil, fmt.Errorf("etcdstore: open %v: the cluster does not answer: %w", endpoints, err)
	}
	return New(cli, nil), nil
}

// New makes a Store on cli, which it closes on Close. owner, when not
// nil, is the member the store owns.
func New(cli *clientv3.Client, owner Owner) *Store {
	closing, stop := context.WithCancel(context.Background())
	return &Store{owner: owner, closing: closing, stop: stop, cli: cli, watchers: map[*watcher]struct{}{}}
}

// begin starts a call: it returns the client and a context that ends
// with ctx or with Close; the caller calls end when done.
func (s *Store) begin(ctx context.Context) (cli *clientv3.Client, cctx context.Context, end func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("etcdstore: %w", err)
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return nil, nil, nil, fmt.Errorf("etcdstore: %w", storage.ErrClosed)
	}
	cctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.closing, cancel)
	return s.cli, cctx, func() { stop(); cancel(); s.mu.RUnlock() }, nil
}

// fail turns an error of etcd's client into the contract's, for the call
// named by what.
func (s *Store) fail(ctx context.Context, what string, err error) error {
	switch {
	case s.closing.Err() != nil:
		return fmt.Errorf("etcdstore: %s: %w", what, storage.ErrClosed)
	case ctx.Err() != nil:
		return fmt.Errorf("etcdstore: %s: %w", what, ctx.Err())
	case errors.Is(err, rpctypes.ErrCompacted):
		return fmt.Errorf("etcdstore: %s: %w", what, storage.ErrCompacted)
	case errors.Is(err, rpctypes.ErrFutureRev):
		return fmt.Errorf("etcdstore: %s: %w", what, storage.ErrFutureRevision)
	}
	return fmt.Errorf("etcdstore: %s: %w", what, err)
}

// fromEtcd is etcd's key-value with the kata's revisions.
func fromEtcd(kv *mvccpb.KeyValue) storage.KeyValue {
	out := storage.KeyValue{Key: string(kv.Key), Value: kv.Value, ModRevision: kv.ModRevision - offset, Version: kv.Version}
	if kv.CreateRevision != 0 {
		out.CreateRevision = kv.CreateRevision - offset
	}
	if out.Value == nil && kv.Version != 0 {
		out.Value = []byte{}
	}
	return out
}

func fromEtcdPtr(kv *mvccpb.KeyValue) *storage.KeyValue {
	if kv == nil {
		return nil
	}
	out := fromEtcd(kv)
	return &out
}

// toEtcd is a kata revision as etcd's; 0 stays 0 (current, or absent).
func toEtcd(rev int64) int64 {
	if rev == 0 {
		return 0
	}
	return rev + offset
}

// Get returns the current version of key.
func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	if key == "" {
		return storage.KeyValue{}, fmt.Errorf("etcdstore: get: %w", storage.ErrEmptyKey)
	}
	cli, cctx, end, err := s.begin(ctx)
	if err != nil {
		return storage.KeyValue{}, err
	}
	defer end()
	resp, err := cli.Get(cctx, key)
	if err != nil {
		return storage.KeyValue{}, s.fail(ctx, fmt.Sprintf("get %q", key), err)
	}
	if len(resp.Kvs) == 0 {
		return storage.KeyValue{}, fmt.Errorf("etcdstore: get %q: %w", key, storage.ErrNotFound)
	}
	return fromEtcd(resp.Kvs[0]), nil
}

// Range returns the keys selected by req.
func (s *Store) Range(ctx context.Context, req storage.RangeRequest) (storage.RangeResponse, error) {
	switch {
	case req.Revision < 0:
		return storage.RangeResponse{}, fmt.Errorf("etcdstore: range at revision %d: %w: negative revision", req.Revision, storage.ErrInvalidRange)
	case req.Limit < 0:
		return storage.RangeResponse{}, fmt.Errorf("etcdstore: range with limit %d: %w: negative limit", req.Limit, storage.ErrInvalidRange)
	case req.Start != "" && (len(req.Start) < len(req.Prefix) || req.Start[:len(req.Prefix)] != req.Prefix):
		return storage.RangeResponse{}, fmt.Errorf("etcdstore: range: %w: start %q is outside prefix %q", storage.ErrInvalidRange, req.Start, req.Prefix)
	}
	cli, cctx, end, err := s.begin(ctx)
	if err != nil {
		return storage.RangeResponse{}, err
	}
	defer end()
	from := req.Start
	if from == "" {
		from = req.Prefix
	}
	if from == "" {
		from = "\x00" // etcd has no empty key: the first key there can be
	}
	opts := []clientv3.OpOption{clientv3.WithRange(clientv3.GetPrefixRangeEnd(req.Prefix))}
	if req.Revision > 0 {
		opts = append(opts, clientv3.WithRev(toEtcd(req.Revision)))
	}
	if req.Limit > 0 {
		opts = append(opts, clientv3.WithLimit(req.Limit))
	}
	resp, err := cli.Get(cctx, from, opts...)
	if err != nil {
		return storage.RangeResponse{}, s.fail(ctx, fmt.Sprintf("range %q at revision %d", req.Prefix, req.Revision), err)
	}
	out := storage.RangeResponse{More: resp.More, Revision: req.Revision, KVs: make([]storage.KeyValue, len(resp.Kvs))}
	if out.Revision == 0 {
		out.Revision = resp.Header.Revision - offset
	}
	for i, kv := range resp.Kvs {
		out.KVs[i] = fromEtcd(kv)
	}
	return out, nil
}

// Put creates or updates key.
func (s *Store) Put(ctx context.Context, key string, value []byte) (storage.KeyValue, error) {
	r, err := s.Txn(ctx, storage.Txn{Then: []storage.Op{storage.PutOp(key, value)}})
	if err != nil {
		return storage.KeyValue{}, err
	}
	return r.Events[0].KV, nil
}

// Delete removes key, or says ErrNotFound.
func (s *Store) Delete(ctx context.Context, key string) (storage.KeyValue, int64, error) {
	r, err := s.Txn(ctx, storage.Txn{Then: []storage.Op{storage.DeleteOp(key)}})
	if err != nil {
		return storage.KeyValue{}, 0, err
	}
	if len(r.Events) == 0 {
		return storage.KeyValue{}, 0, fmt.Errorf("etcdstore: delete %q: %w", key, storage.ErrNotFound)
	}
	return *r.Events[0].PrevKV, r.Revision, nil
}

// Txn runs txn as one etcd transaction.
func (s *Store) Txn(ctx context.Context, txn storage.Txn) (storage.TxnResponse, error) {
	if err := storage.ValidateTxn(txn); err != nil {
		return storage.TxnResponse{}, fmt.Errorf("etcdstore: txn: %w", err)
	}
	cli, cctx, end, err := s.begin(ctx)
	if err != nil {
		return storage.TxnResponse{}, err
	}
	defer end()
	cmps := make([]clientv3.Cmp, len(txn.If))
	for i, c := range txn.If {
		cmps[i] = clientv3.Compare(clientv3.ModRevision(c.Key), "=", toEtcd(c.ModRevision))
	}
	resp, err := cli.Txn(cctx).If(cmps...).Then(etcdOps(txn.Then)...).Else(etcdOps(txn.Else)...).Commit()
	if err != nil {
		return storage.TxnResponse{}, s.fail(ctx, "txn", err)
	}
	branch := txn.Then
	if !resp.Succeeded {
		branch = txn.Else
	}
	if len(resp.Responses) != len(branch) {
		return storage.TxnResponse{}, fmt.Errorf("etcdstore: txn: etcd answered %d operations, want %d", len(resp.Responses), len(branch))
	}
	rev := resp.Header.Revision - offset
	out := storage.TxnResponse{Succeeded: resp.Succeeded, Revision: rev, Responses: make([]storage.OpResponse, len(branch))}
	for i, op := range branch {
		r := resp.Responses[i]
		switch op.Type {
		case storage.OpGet:
			if kvs := r.GetResponseRange().GetKvs(); len(kvs) > 0 {
				out.Responses[i].KV = fromEtcdPtr(kvs[0])
			}
		case storage.OpPut:
			prev := fromEtcdPtr(r.GetResponsePut().GetPrevKv())
			// As etcd's put: a new life starts at this revision with
			// version 1, an update keeps the create revision.
			cur := storage.KeyValue{Key: op.Key, Value: op.Value, CreateRevision: rev, ModRevision: rev, Version: 1}
			if cur.Value == nil {
				cur.Value = []byte{}
			}
			if prev != nil {
				cur.CreateRevision, cur.Version = prev.CreateRevision, prev.Version+1
			}
			out.Responses[i] = storage.OpResponse{KV: &cur, PrevKV: prev}
			out.Events = append(out.Events, storage.Event{Type: storage.EventPut, KV: cur, PrevKV: prev})
		case storage.OpDelete:
			prevs := r.GetResponseDeleteRange().GetPrevKvs()
			if len(prevs) == 0 {
				continue // deleted nothing: no event
			}
			prev := fromEtcdPtr(prevs[0])
			out.Responses[i].PrevKV = prev
			out.Events = append(out.Events, storage.Event{Type: storage.EventDelete, KV: storage.KeyValue{Key: op.Key, ModRevision: rev}, PrevKV: prev})
		}
	}
	return out, nil
}

// etcdOps are the etcd operations of a branch, one per operation.
func etcdOps(ops []storage.Op) []clientv3.Op {
	out := make([]clientv3.Op, len(ops))
	for i, op := range ops {
		switch op.Type {
		case storage.OpGet:
			out[i] = clientv3.OpGet(op.Key)
		case storage.OpPut:
			out[i] = clientv3.OpPut(op.Key, string(op.Value), clientv3.WithPrevKV())
		case storage.OpDelete:
			out[i] = clientv3.OpDelete(op.Key, clientv3.WithPrevKV())
		}
	}
	return out
}

// Compact forgets the history before revision.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	if revision < 0 {
		return fmt.Errorf("etcdstore: compact at %d: %w: negative revision", revision, storage.ErrInvalidRange)
	}
	cli, cctx, end, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	if revision == 0 {
		// Revision 0 is the empty store's: always compacted already.
		return fmt.Errorf("etcdstore: compact at 0: %w", storage.ErrCompacted)
	}
	lcli, done, err := leader(cctx, cli)
	if err != nil {
		return s.fail(ctx, fmt.Sprintf("compact at %d", revision), err)
	}
	defer done()
	if _, err := lcli.Compact(cctx, toEtcd(revision), clientv3.WithCompactPhysical()); err != nil {
		return s.fail(ctx, fmt.Sprintf("compact at %d", revision), err)
	}
	return nil
}

// leader is a client of the cluster's leader alone, when cli has several
// endpoints, and cli itself otherwise; the caller calls done. Compact
// and Snapshot go to the leader: every member compacts its own bbolt
// file when it applies the compaction, and WithCompactPhysical waits
// only for the member that answered, so a snapshot from another member
// could still hold the history just compacted.
func leader(ctx context.Context, cli *clientv3.Client) (lcli *clientv3.Client, done func(), err error) {
	eps := cli.Endpoints()
	if len(eps) < 2 {
		return cli, func() {}, nil
	}
	var errs []error
	for _, ep := range eps {
		st, err := cli.Status(ctx, ep)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if st.Leader == 0 || st.Leader != st.Header.MemberId {
			continue
		}
		lcli, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: dialTimeout, Logger: zap.NewNop()})
		if err != nil {
			return nil, nil, err
		}
		return lcli, func() { lcli.Close() }, nil
	}
	return nil, nil, fmt.Errorf("no endpoint of %v is the leader: %w", eps, errors.Join(errs...))
}

// Snapshot writes etcd's snapshot of the leader (see leader): its bbolt
// file, followed by its sha256.
func (s *Store) Snapshot(ctx context.Context, w io.Writer) error {
	cli, cctx, end, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	lcli, done, err := leader(cctx, cli)
	if err != nil {
		return s.fail(ctx, "snapshot", err)
	}
	defer done()
	rc, err := lcli.Snapshot(cctx)
	if err != nil {
		return s.fail(ctx, "snapshot", err)
	}
	defer rc.Close()
	if _, err := io.Copy(w, rc); err != nil {
		return s.fail(ctx, "snapshot", err)
	}
	return nil
}

// Restore loads a snapshot into an empty store that owns its member.
func (s *Store) Restore(ctx context.Context, r io.Reader) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("etcdstore: restore: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("etcdstore: restore: %w", storage.ErrClosed)
	}
	resp, err := s.cli.Get(ctx, "\x00", clientv3.WithFromKey(), clientv3.WithCountOnly())
	if err != nil {
		return s.fail(ctx, "restore", err)
	}
	if rev := resp.Header.Revision - offset; rev != 0 {
		return fmt.Errorf("etcdstore: restore: %w: the store is at revision %d", storage.ErrNotEmpty, rev)
	}
	if s.owner == nil {
		return fmt.Errorf("etcdstore: restore: %w: etcd restores a snapshot offline, into a new data directory of every member: stop the cluster, run `etcdutl snapshot restore FILE --data-dir DIR` for each member, and start it on DIR", errors.ErrUnsupported)
	}
	s.endWatchers(storage.ErrClosed)
	cli, err := s.owner.Restore(ctx, r)
	if cli != nil {
		s.cli.Close()
		s.cli = cli
	}
	if err != nil {
		return fmt.Errorf("etcdstore: restore: %w", err)
	}
	return nil
}

// Close ends every watch with ErrClosed, closes the client and stops the
// member the store owns.
func (s *Store) Close() error {
	s.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.endWatchers(storage.ErrClosed)
	err := s.cli.Close()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	if s.owner != nil {
		err = errors.Join(err, s.owner.Stop())
	}
	if err != nil {
		return fmt.Errorf("etcdstore: close: %w", err)
	}
	return nil
}
