package etcdembed

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/storage/etcdstore"
)

// The layout of a store's directory: etcd's data directory, and the
// place a restore builds the next one in.
const (
	dataName    = "etcd"
	restoreName = "restore.tmp"
	oldName     = "restore.old"
	memberName  = "kata"
	clusterName = "kata"
)

// Open opens the store kept in dir on an etcd member of its own, started
// in dir/etcd on free loopback ports; the store's Close stops the member.
// It is the store suite's constructor for etcd.
func Open(dir string) (storage.Store, error) {
	o := &owned{dir: dir}
	if err := o.start(context.Background()); err != nil {
		return nil, err
	}
	cli, err := o.m.Client()
	if err != nil {
		o.m.Stop()
		return nil, err
	}
	return etcdstore.New(cli, o), nil
}

// owned is the member of a store: etcdstore.Owner.
type owned struct {
	dir string

	mu sync.Mutex
	m  *Member
}

// attempts is how often a start is tried on new ports when another
// process took one of them first.
const attempts = 5

// start starts the member on dir/etcd.
func (o *owned) start(ctx context.Context) error {
	var err error
	for range attempts {
		var urls []string
		if urls, err = FreeURLs(2); err != nil {
			return err
		}
		var m *Member
		m, err = Start(ctx, MemberConfig{Name: memberName, Dir: filepath.Join(o.dir, dataName), PeerURL: urls[0], ClientURL: urls[1], Token: clusterName})
		if err == nil {
			o.m = m
			return nil
		}
		if !inUse(err) {
			break
		}
	}
	return err
}

// Stop stops the member.
func (o *owned) Stop() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		return nil
	}
	err := o.m.Stop()
	o.m = nil
	return err
}

// Restore builds a data directory from the snapshot r, stops the member,
// swaps the directories and starts the member on the restored one.
func (o *owned) Restore(ctx context.Context, r io.Reader) (*clientv3.Client, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		return nil, fmt.Errorf("etcdembed: restore: %w", storage.ErrClosed)
	}
	return o.restore(ctx, r)
}
