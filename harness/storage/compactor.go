package storage

import (
	"context"
	"errors"
	"time"
)

// DefaultCompactionInterval is how often a running cluster compacts its
// store, the default of kube-apiserver's --etcd-compaction-interval
// (DefaultCompactInterval in
// staging/src/k8s.io/apiserver/pkg/storage/storagebackend/config.go).
const DefaultCompactionInterval = 5 * time.Minute

// Compactor compacts a Store periodically, as the apiserver does
// (staging/src/k8s.io/apiserver/pkg/storage/etcd3/compact.go): at every
// tick it compacts to the revision it saw at the previous tick, so the
// store keeps one interval of history for slow watchers and lists that
// continue, and forgets what is older. The first tick only records the
// revision ("we don't compact on bootstrap"); the first compaction comes
// at the second tick. A compaction that fails is reported and the loop
// goes on, as upstream logs it and tries again at the next tick.
//
// The apiserver also coordinates several apiservers through a
// compact_rev_key in etcd; a kata cluster has one apiserver, so there is
// none.
type Compactor struct {
	// Store is the store to compact.
	Store Store
	// Interval is the time between ticks; 0 disables compaction (Run
	// returns at once), as --etcd-compaction-interval=0 does.
	Interval time.Duration
	// After returns a channel that delivers once d has passed:
	// time.After when nil. Tests inject a fake clock here.
	After func(d time.Duration) <-chan time.Time
	// Report, when set, is called after every tick with the revision
	// compacted to (0 when nothing was compacted) and the error, if any.
	Report func(compacted int64, err error)
}

// Run compacts every Interval until ctx is done; it returns ctx's error,
// or nil at once when Interval is 0.
func (c *Compactor) Run(ctx context.Context) error {
	if c.Interval <= 0 {
		return nil
	}
	after := c.After
	if after == nil {
		after = time.After
	}
	var prev int64 // the revision seen at the previous tick
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-after(c.Interval):
		}
		compacted, cur, err := c.tick(ctx, prev)
		if cur > 0 {
			prev = cur
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if c.Report != nil {
			c.Report(compacted, err)
		}
	}
}

// tick compacts to prev, if there is something to compact, and returns
// the revision compacted to and the store's current revision.
func (c *Compactor) tick(ctx context.Context, prev int64) (compacted, cur int64, err error) {
	cur, err = CurrentRevision(ctx, c.Store)
	if err != nil {
		return 0, 0, err
	}
	if prev <= 0 {
		return 0, cur, nil
	}
	switch err := c.Store.Compact(ctx, prev); {
	case errors.Is(err, ErrCompacted):
		// Already compacted at or past prev (no write since the last
		// tick, or someone compacted by hand): nothing is left to do.
		return 0, cur, nil
	case err != nil:
		return 0, cur, err
	}
	return prev, cur, nil
}
