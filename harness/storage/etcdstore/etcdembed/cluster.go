package etcdembed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/storage/etcdstore"
)

// The layout of a cluster's directory: one data directory per member
// (kata-1, kata-2, ...), the URLs of a cluster of several members
// (which its members keep in their data, so they must not change), and
// the place a restore builds the next data directories in.
const (
	urlsName    = "cluster.json"
	restoreName = "restore.tmp"
	oldName     = "restore.old"
	token       = "kata"
)

// Cluster is a cluster of embedded members, kept in one directory.
type Cluster struct {
	dir string
	// urls has each member's peer and client URL; for a cluster of one,
	// new ones at each start.
	urls []memberURLs

	mu      sync.Mutex
	members []*Member // nil: stopped
}

type memberURLs struct {
	Peer   string `json:"peer"`
	Client string `json:"client"`
}

// attempts is how often the first start of a cluster is tried on new
// ports when another process took one of them first.
const attempts = 5

// StartCluster starts a cluster of n members kept in dir, or the one
// dir holds, and waits until every member is ready.
func StartCluster(ctx context.Context, dir string, n int) (*Cluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("etcdembed: a cluster of %d members", n)
	}
	c := &Cluster{dir: dir, members: make([]*Member, n)}
	if n > 1 {
		data, err := os.ReadFile(filepath.Join(dir, urlsName))
		switch {
		case err == nil:
			if err := json.Unmarshal(data, &c.urls); err != nil || len(c.urls) != n {
				return nil, fmt.Errorf("etcdembed: %s: %w: not the URLs of %d members", filepath.Join(dir, urlsName), storage.ErrCorrupt, n)
			}
			return c, c.startAll(ctx)
		case !errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("etcdembed: %w", err)
		}
	}
	var err error
	for range attempts {
		if err = c.newURLs(n); err != nil {
			return nil, err
		}
		if n > 1 {
			if err = c.bootstrap(ctx); err != nil {
				return nil, err
			}
		}
		if err = c.startAll(ctx); err == nil || !inUse(err) {
			break
		}
		for i := range n {
			os.RemoveAll(c.Dir(i))
		}
	}
	if err != nil {
		return nil, err
	}
	if n > 1 {
		data, _ := json.Marshal(c.urls)
		if err := writeSynced(filepath.Join(dir, urlsName), data); err != nil {
			c.Stop()
			return nil, fmt.Errorf("etcdembed: %w", err)
		}
	}
	return c, nil
}

// newURLs picks free ports for n members.
func (c *Cluster) newURLs(n int) error {
	urls, err := FreeURLs(2 * n)
	if err != nil {
		return err
	}
	c.urls = make([]memberURLs, n)
	for i := range c.urls {
		c.urls[i] = memberURLs{Peer: urls[2*i], Client: urls[2*i+1]}
	}
	return nil
}

// Name is member i's name; Dir its data directory.
func (c *Cluster) Name(i int) string { return fmt.Sprintf("kata-%d", i+1) }
func (c *Cluster) Dir(i int) string  { return filepath.Join(c.dir, c.Name(i)) }

// initialCluster is etcd's --initial-cluster of the cluster.
func (c *Cluster) initialCluster() string {
	parts := make([]string, len(c.urls))
	for i, u := range c.urls {
		parts[i] = c.Name(i) + "=" + u.Peer
	}
	return strings.Join(parts, ",")
}

func (c *Cluster) config(i int) MemberConfig {
	return MemberConfig{
		Name: c.Name(i), Dir: c.Dir(i), PeerURL: c.urls[i].Peer, ClientURL: c.urls[i].Client,
		InitialCluster: c.initialCluster(), Token: token,
	}
}

// startAll starts every member at once (the first needs a quorum to be
// ready) and stops them all if one fails.
func (c *Cluster) startAll(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Check every member's data first: a member that starts writes to
	// its files, and a refused open must change none.
	for i := range c.members {
		if err := checkDir(c.Dir(i)); err != nil {
			return err
		}
	}
	errs := make([]error, len(c.members))
	var wg sync.WaitGroup
	for i := range c.members {
		wg.Go(func() { c.members[i], errs[i] = Start(ctx, c.config(i)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.stopAllLocked()
		return err
	}
	return nil
}

// Member is member i, nil while it is stopped.
func (c *Cluster) Member(i int) *Member {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.members[i]
}

// StopMember stops member i as if it died (Member.Halt); its data stays.
func (c *Cluster) StopMember(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.members[i] == nil {
		return nil
	}
	err := c.members[i].Halt()
	c.members[i] = nil
	return err
}

// StartMember starts member i again on its data and its URLs.
func (c *Cluster) StartMember(ctx context.Context, i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.members[i] != nil {
		return fmt.Errorf("etcdembed: member %s is running", c.Name(i))
	}
	m, err := Start(ctx, c.config(i))
	if err != nil {
		return err
	}
	c.members[i] = m
	return nil
}

// Endpoints are the client URLs of every member.
func (c *Cluster) Endpoints() []string {
	out := make([]string, len(c.urls))
	for i, u := range c.urls {
		out[i] = u.Client
	}
	return out
}

// Client is a new client of every member.
func (c *Cluster) Client() (*clientv3.Client, error) {
	return newClient(c.Endpoints())
}

// Stop stops every member; their data stays. It is etcdstore.Owner's
// Stop.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopAllLocked()
}

// stopAllLocked halts the members at once: one by one, each would wait
// up to a second for its peers' connections (embed's Etcd.Close), and a
// graceful stop of the leader would hand its leadership to a member
// that is stopping too, and wait for it in vain.
func (c *Cluster) stopAllLocked() error {
	// First every server, so that no member's close waits for a peer
	// that is still streaming to it; then the rest.
	var wg sync.WaitGroup
	for _, m := range c.members {
		if m != nil {
			wg.Go(m.hardStop)
		}
	}
	wg.Wait()
	errs := make([]error, len(c.members))
	for i, m := range c.members {
		if m != nil {
			wg.Go(func() { errs[i] = m.Halt() })
		}
	}
	wg.Wait()
	clear(c.members)
	return errors.Join(errs...)
}

// Restore is etcdstore.Owner's: it builds every member's new data
// directory from the snapshot first (so that a snapshot that does not
// read back leaves the cluster as it was), then stops the cluster, swaps
// the directories and starts it on the restored ones.
func (c *Cluster) Restore(ctx context.Context, r io.Reader) (*clientv3.Client, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("etcdembed: restore: reading the snapshot: %w", err)
	}
	tmp := filepath.Join(c.dir, restoreName)
	if err := os.RemoveAll(tmp); err != nil {
		return nil, fmt.Errorf("etcdembed: restore: %w", err)
	}
	defer os.RemoveAll(tmp)
	for i := range c.urls {
		if err := RestoreDir(bytes.NewReader(data), filepath.Join(tmp, c.Name(i)), c.Name(i), c.initialCluster(), token); err != nil {
			return nil, err
		}
	}
	if err := c.Stop(); err != nil {
		return nil, fmt.Errorf("etcdembed: restore: stopping the cluster: %w", err)
	}
	old := filepath.Join(c.dir, oldName)
	swap := func() error {
		if err := os.RemoveAll(old); err != nil {
			return err
		}
		if err := os.Mkdir(old, 0o700); err != nil {
			return err
		}
		for i := range c.urls {
			if err := os.Rename(c.Dir(i), filepath.Join(old, c.Name(i))); err != nil {
				return err
			}
		}
		for i := range c.urls {
			if err := os.Rename(filepath.Join(tmp, c.Name(i)), c.Dir(i)); err != nil {
				return err
			}
		}
		return syncDir(c.dir)
	}
	if err := swap(); err != nil {
		// Put back what moved, and run on the old data.
		err = fmt.Errorf("etcdembed: restore: %w", err)
		for i := range c.urls {
			if moved := filepath.Join(old, c.Name(i)); exists(moved) {
				os.RemoveAll(c.Dir(i))
				err = errors.Join(err, os.Rename(moved, c.Dir(i)))
			}
		}
		if serr := c.startAll(ctx); serr != nil {
			return nil, errors.Join(err, serr)
		}
		cli, cerr := c.Client()
		return cli, errors.Join(err, cerr)
	}
	if err := c.startAll(ctx); err != nil {
		return nil, fmt.Errorf("etcdembed: restore: starting on the restored data: %w", err)
	}
	if err := os.RemoveAll(old); err != nil {
		return nil, fmt.Errorf("etcdembed: restore: %w", err)
	}
	return c.Client()
}

// OpenCluster is a store suite constructor: a store on a cluster of n
// members kept in dir, which the store owns (its Close stops them).
func OpenCluster(n int) func(dir string) (storage.Store, error) {
	return func(dir string) (storage.Store, error) {
		c, err := StartCluster(context.Background(), dir, n)
		if err != nil {
			return nil, err
		}
		cli, err := c.Client()
		if err != nil {
			c.Stop()
			return nil, err
		}
		return etcdstore.New(cli, c), nil
	}
}

// Open opens the store kept in dir on an etcd member of its own, started
// on free loopback ports; the store's Close stops the member. It is the
// store suite's constructor for etcd.
func Open(dir string) (storage.Store, error) { return OpenCluster(1)(dir) }

// bootstrap makes the data directories of a new cluster of several
// members by restoring an empty store into each, as `etcdutl snapshot
// restore` makes a new cluster from a snapshot. Started as a new
// cluster instead, each member would first ask every peer whether the
// cluster exists, a second per peer (etcdserver/bootstrap.go,
// isMemberBootstrapped, with a timeout embed does not let one set).
func (c *Cluster) bootstrap(ctx context.Context) error {
	empty, err := emptySnapshot(ctx)
	if err != nil {
		return err
	}
	for i := range c.urls {
		if err := RestoreDir(bytes.NewReader(empty), c.Dir(i), c.Name(i), c.initialCluster(), token); err != nil {
			return err
		}
	}
	return nil
}

var empty struct {
	once sync.Once
	snap []byte
	err  error
}

// emptySnapshot is the snapshot of a new member's empty store, made once
// per process.
func emptySnapshot(ctx context.Context) ([]byte, error) {
	empty.once.Do(func() {
		dir, err := os.MkdirTemp("", "etcdembed-empty-")
		if err != nil {
			empty.err = fmt.Errorf("etcdembed: %w", err)
			return
		}
		defer os.RemoveAll(dir)
		s, err := Open(dir)
		if err != nil {
			empty.err = err
			return
		}
		var buf bytes.Buffer
		err = s.Snapshot(ctx, &buf)
		empty.err = errors.Join(err, s.Close())
		empty.snap = buf.Bytes()
	})
	return empty.snap, empty.err
}
