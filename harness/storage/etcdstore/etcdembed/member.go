// Package etcdembed runs etcd members inside the process
// (go.etcd.io/etcd/server/v3/embed), for the tests of etcdstore: a
// single member that a store owns (Open, the store suite's constructor
// for etcd), and clusters of several members kept in one directory,
// whose members a test stops and starts again (StartCluster,
// OpenCluster).
//
// It imports etcd's server, so only tests (and programs that want an
// etcd inside) may import it; nothing that cmd/kata, an exercise or a
// harness suite imports does.
//
// Responsibilities:
//
//  1. Start a member on loopback ports that were free a moment before
//     (asked of the kernel, then handed to etcd, which takes URLs, not
//     listeners; a first start that loses a port to another process is
//     tried again on new ones), wait until it is ready, and stop it:
//     Stop as etcd stops (a leader hands over its leadership), Halt as
//     if it died (EtcdServer.HardStop). Either way the member's
//     goroutines and listeners are gone when it returns.
//  2. Refuse, with storage.ErrCorrupt and without changing a byte, a data
//     directory whose files etcd cannot start on as they are (check.go):
//     a damaged bbolt file or write-ahead log, or a bbolt file ahead of
//     its log. etcd itself would panic, or repair the log in place.
//  3. Restore a snapshot into new data directories as `etcdutl snapshot
//     restore` does (etcdutl/snapshot/v3_snapshot.go), and swap them in
//     (restore.go); a new cluster of several members is made the same
//     way, from the snapshot of an empty store (cluster.go bootstrap).
//  4. Keep a cluster's URLs with its data (cluster.json): its members
//     keep their peers' URLs in their data, so a copy of the directory
//     starts on the same ones.
package etcdembed

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver"
	"go.uber.org/zap"
)

// startTimeout bounds a member's start, until it is ready to serve.
const startTimeout = 30 * time.Second

// MemberConfig says what a member is.
type MemberConfig struct {
	Name string // the member's name in its cluster
	Dir  string // its data directory
	// PeerURL and ClientURL are the member's URLs (http://127.0.0.1:PORT).
	PeerURL, ClientURL string
	// InitialCluster is etcd's --initial-cluster (name=peerURL,...); ""
	// is a cluster of this member alone.
	InitialCluster string
	// Token is etcd's --initial-cluster-token.
	Token string
	// Logger gets etcd's log; nil discards it.
	Logger *zap.Logger
	// TickMs and ElectionMs are etcd's --heartbeat-interval and
	// --election-timeout; 0 is etcd's defaults (100 and 1000).
	TickMs, ElectionMs uint
}

// Member is a running etcd member.
type Member struct {
	Config MemberConfig
	etcd   *embed.Etcd
}

// FreeURLs returns n loopback URLs whose ports were free when asked.
func FreeURLs(n int) ([]string, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	urls := make([]string, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("etcdembed: a free port: %w", err)
		}
		ls = append(ls, l)
		urls = append(urls, "http://"+l.Addr().String())
	}
	return urls, nil
}

// Start starts a member and waits until it is ready to serve clients.
func Start(ctx context.Context, c MemberConfig) (*Member, error) {
	cfg := embed.NewConfig()
	cfg.Name = c.Name
	cfg.Dir = c.Dir
	peer, err := url.Parse(c.PeerURL)
	if err != nil {
		return nil, fmt.Errorf("etcdembed: peer URL: %w", err)
	}
	client, err := url.Parse(c.ClientURL)
	if err != nil {
		return nil, fmt.Errorf("etcdembed: client URL: %w", err)
	}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.InitialCluster = c.InitialCluster
	if cfg.InitialCluster == "" {
		cfg.InitialCluster = c.Name + "=" + c.PeerURL
	}
	cfg.InitialClusterToken = c.Token
	cfg.ClusterState = embed.ClusterStateFlagNew // ignored once the directory has data
	lg := c.Logger
	if lg == nil {
		lg = zap.NewNop()
	}
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(lg)
	cfg.EnableGRPCGateway = false
	if c.TickMs != 0 {
		cfg.TickMs, cfg.ElectionMs = c.TickMs, c.ElectionMs
	}
	if err := checkDir(c.Dir); err != nil {
		return nil, err
	}
	e, err := startEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcdembed: start member %s in %s: %w", c.Name, c.Dir, err)
	}
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case <-e.Server.ReadyNotify():
		return &Member{Config: c, etcd: e}, nil
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("etcdembed: member %s: %w", c.Name, err)
	case <-timer.C:
		e.Close()
		return nil, fmt.Errorf("etcdembed: member %s not ready within %v", c.Name, startTimeout)
	case <-ctx.Done():
		e.Close()
		return nil, fmt.Errorf("etcdembed: member %s: %w", c.Name, ctx.Err())
	}
}

// startEtcd is embed.StartEtcd with etcd's panics (a data directory it
// cannot read) as errors.
func startEtcd(cfg *embed.Config) (e *embed.Etcd, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("etcd panicked: %v", r)
		}
	}()
	return embed.StartEtcd(cfg)
}

// Stop stops the member and waits for it; its data stays. A leader
// hands its leadership to a peer first (EtcdServer.Stop).
func (m *Member) Stop() error {
	m.etcd.Close()
	return nil
}

// Halt stops the member without a word to its peers, as if it died (its
// files are closed cleanly all the same; every write it acknowledged was
// already in its write-ahead log): EtcdServer.HardStop, then the rest of
// embed's Close, whose leadership handover then ends at once (the
// server's context is done).
func (m *Member) Halt() error {
	m.hardStop()
	m.etcd.Close()
	return nil
}

// hardStop stops the member's server: its raft node, its transport to
// its peers and its storage.
func (m *Member) hardStop() { m.etcd.Server.HardStop() }

// Client is a new client of the member alone.
func (m *Member) Client() (*clientv3.Client, error) {
	return newClient([]string{m.Config.ClientURL})
}

// Server is the member's etcd server (to ask who leads, for example).
func (m *Member) Server() *etcdserver.EtcdServer { return m.etcd.Server }

func newClient(endpoints []string) (*clientv3.Client, error) {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcdembed: client of %v: %w", endpoints, err)
	}
	return cli, nil
}

// inUse says whether err is a listener that lost its port.
func inUse(err error) bool {
	return err != nil && strings.Contains(err.Error(), "address already in use")
}

// memberDirs are the directories of etcd's data under a data directory.
func walDir(dir string) string  { return filepath.Join(dir, "member", "wal") }
func snapDir(dir string) string { return filepath.Join(dir, "member", "snap") }

// exists says whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}
