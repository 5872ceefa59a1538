package proxy

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/iptables"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// LoopOptions configure a Loop.
type LoopOptions struct {
	// Forwarder configures the forwarder the loop applies its rules to.
	Forwarder Options
	// Log receives what goes wrong (the learner's rules that do not
	// parse, addresses that cannot be listened on), each message once
	// until it changes; io.Discard when nil.
	Log io.Writer
}

// Loop is kube-proxy in a kata cluster: it keeps a Forwarder in step
// with the cluster's Services and EndpointSlices through the rules that
// exercise 14's Rules and PartialRules write. Upstream's proxier
// (pkg/proxy/iptables/proxier.go, syncProxyRules) writes its rules with
// iptables-restore and the kernel forwards by them; here the rules go
// into in-memory tables (package iptables) and the forwarder reads their
// iptables-save (Parse) and forwards by it, so that a request to a
// Service address goes where the learner's rules send it.
//
// As upstream since 1.28, a sync is partial when it can be: only the
// chains of the Services that changed since the last sync are rewritten
// over the tables the last sync left. The first sync is full (fresh
// tables and Rules), and so is a sync whose partial rules fail: it
// starts again from fresh tables at once (upstream sets needFullSync
// after a failed iptables-restore, for its next sync).
//
// One Loop serves the whole cluster: every kata node shares the
// machine's loopback, where the Service addresses live.
type Loop struct {
	c       client.Interface
	rules   servicenet.RulesFunc
	partial servicenet.PartialRulesFunc
	fwd     *Forwarder
	log     io.Writer

	// tables are the node's iptables as the last sync left them; nil
	// when the next sync must be full. Only the syncing goroutine uses
	// them.
	tables *iptables.Tables

	mu      sync.Mutex
	changed map[string]bool // Services ("ns/name") changed since the last sync began
	saved   string          // the tables' iptables-save after the last sync
	applied string          // the text the forwarder last got
	said    string          // the last trouble logged, not to say it twice
	stats   SyncStats
}

// SyncStats count a Loop's syncs, by kind.
type SyncStats struct {
	Full    int // fresh tables from Rules
	Partial int // PartialRules restored over the last sync's tables
	// FallBacks are the partial syncs that failed (PartialRules
	// panicked, or its text did not restore) and were done in full.
	FallBacks int
}

// NewLoop makes kube-proxy over the apiserver c, with rules and partial
// the learner's Rules and PartialRules.
func NewLoop(c client.Interface, rules servicenet.RulesFunc, partial servicenet.PartialRulesFunc, opts LoopOptions) *Loop {
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	return &Loop{c: c, rules: rules, partial: partial, fwd: New(opts.Forwarder), log: log, changed: map[string]bool{}}
}

// Rules is the node's iptables-save as the last sync left it ("" before
// the first that restored), as `kata proxy rules` prints it: the chains
// (built-in ones first, then the others sorted), then each chain's rules
// together.
func (l *Loop) Rules() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.saved
}

// Stats counts the syncs so far.
func (l *Loop) Stats() SyncStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

// Listening is what the forwarder listens on.
func (l *Loop) Listening() []string { return l.fwd.Listening() }

// Run watches Services and EndpointSlices and syncs on every change
// (bursts coalesce into one sync, as upstream's BoundedFrequencyRunner
// runs syncProxyRules once for many changes), until ctx ends; then it
// closes the forwarder and returns once every goroutine it started has
// ended.
func (l *Loop) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	svcs := informer.New(l.c, client.For[*api.Service](l.c).Kind(), "", informer.Options{})
	slices := informer.New(l.c, client.For[*api.EndpointSlice](l.c).Kind(), "", informer.Options{})
	kick := make(chan struct{}, 1)
	// changed notes the Services an event touches, then asks for a
	// sync. The informers run handlers after their caches hold the
	// change, and a sync takes the keys before it lists the caches: a
	// change a sync lists without its key is synced again next time,
	// never missed.
	changed := func(keys ...string) {
		l.mu.Lock()
		for _, k := range keys {
			if k != "" {
				l.changed[k] = true
			}
		}
		l.mu.Unlock()
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	svcs.AddEventHandler(informer.Handler{
		OnAdd:    func(o api.Object, _ bool) { changed(serviceKey(o)) },
		OnUpdate: func(old, o api.Object) { changed(serviceKey(old), serviceKey(o)) },
		OnDelete: func(o api.Object) { changed(serviceKey(o)) },
	})
	// A slice belongs to the Service its label names (upstream's
	// endpointSliceCacheKeys, pkg/proxy/endpointslicecache.go); an
	// update that moves a slice (one written by hand may be
	// relabelled) changes both Services.
	slices.AddEventHandler(informer.Handler{
		OnAdd:    func(o api.Object, _ bool) { changed(sliceKey(o)) },
		OnUpdate: func(old, o api.Object) { changed(sliceKey(old), sliceKey(o)) },
		OnDelete: func(o api.Object) { changed(sliceKey(o)) },
	})
	var wg sync.WaitGroup
	for _, inf := range []*informer.Informer{svcs, slices} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = inf.Run(ctx)
		}()
	}
	defer func() {
		cancel()
		wg.Wait()
		if err := l.fwd.Close(); err != nil {
			fmt.Fprintf(l.log, "kube-proxy: %v\n", err)
		}
	}()
	for _, inf := range []*informer.Informer{svcs, slices} {
		if err := inf.WaitForSync(ctx); err != nil {
			return nil // stopped before the caches filled
		}
	}
	for {
		l.sync(svcs, slices)
		select {
		case <-ctx.Done():
			return nil
		case <-kick:
		}
	}
}

// serviceKey is a Service's "ns/name".
func serviceKey(o api.Object) string {
	if s, ok := o.(*api.Service); ok {
		return s.Namespace + "/" + s.Name
	}
	return ""
}

// sliceKey is the "ns/name" of the Service an EndpointSlice belongs to,
// or "" for a slice of no Service.
func sliceKey(o api.Object) string {
	if s, ok := o.(*api.EndpointSlice); ok && s.Labels[api.LabelServiceName] != "" {
		return s.Namespace + "/" + s.Labels[api.LabelServiceName]
	}
	return ""
}

// sync renders the rules of what the caches hold, restores them and
// applies the tables to the forwarder: partially over the last sync's
// tables when there are some, in full otherwise or when the partial
// rules fail. Rules that fail, or tables that do not parse, leave the
// forwarder as it was, and say why; an address the forwarder could not
// listen on is tried again at the next change (upstream also resyncs
// every 30s; here nothing is timed).
func (l *Loop) sync(svcs, slices *informer.Informer) {
	l.mu.Lock()
	changed := make([]string, 0, len(l.changed))
	for k := range l.changed {
		changed = append(changed, k)
	}
	clear(l.changed)
	l.mu.Unlock()
	sort.Strings(changed)
	var ss []api.Service
	for _, o := range svcs.List() {
		ss = append(ss, *api.DeepCopy(o.(*api.Service)))
	}
	var es []api.EndpointSlice
	for _, o := range slices.List() {
		es = append(es, *api.DeepCopy(o.(*api.EndpointSlice)))
	}

	var partialErr error
	if l.tables != nil {
		if partialErr = l.syncPartial(ss, es, changed); partialErr == nil {
			l.count(func(s *SyncStats) { s.Partial++ })
		} else {
			// Restore left the tables as they were; a full sync
			// now mends whatever the partial rules got wrong, as
			// upstream's needFullSync does after a failed restore.
			l.tables = nil
			l.count(func(s *SyncStats) { s.FallBacks++ })
		}
	}
	if l.tables == nil {
		if err := l.syncFull(ss, es); err != nil {
			l.report(err)
			return
		}
		l.count(func(s *SyncStats) { s.Full++ })
	}

	text := l.tables.Save()
	l.mu.Lock()
	same := text == l.applied
	l.mu.Unlock()
	var err error
	parsed := false
	if !same {
		var t Table
		if t, err = Parse(text); err == nil {
			parsed = true
			// An address it could not listen on is not retried
			// until the text changes.
			err = l.fwd.Apply(t)
		}
	}
	// Rules() changes once the forwarder has what it says: a test that
	// sees a rule there may connect by it.
	l.mu.Lock()
	l.saved = text
	if parsed {
		l.applied = text
	}
	l.mu.Unlock()
	if same && partialErr == nil {
		return // nothing new to apply or to say
	}
	if err == nil && partialErr != nil {
		// Said as any other trouble, once until it changes: a
		// PartialRules that always fails is not logged at every sync.
		err = fmt.Errorf("synced in full instead of partially: %w", partialErr)
	}
	l.report(err)
}

// syncPartial restores the learner's PartialRules over l.tables, which
// stay as they were when it fails.
func (l *Loop) syncPartial(ss []api.Service, es []api.EndpointSlice, changed []string) (err error) {
	var text string
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("PartialRules panicked: %v", p)
			}
		}()
		text = l.partial(ss, es, changed, l.tables.Chains("nat"))
	}()
	if err != nil {
		return err
	}
	if err := l.tables.Restore(text); err != nil {
		return fmt.Errorf("PartialRules: %w", err)
	}
	return nil
}

// syncFull restores the learner's Rules into fresh tables, which become
// l.tables when they restore.
func (l *Loop) syncFull(ss []api.Service, es []api.EndpointSlice) (err error) {
	var text string
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("Rules panicked: %v", p)
			}
		}()
		text = l.rules(ss, es)
	}()
	if err != nil {
		return err
	}
	t := iptables.New()
	if err := t.Restore(text); err != nil {
		return fmt.Errorf("Rules: %w", err)
	}
	l.tables = t
	return nil
}

// count changes the stats under the lock.
func (l *Loop) count(f func(*SyncStats)) {
	l.mu.Lock()
	f(&l.stats)
	l.mu.Unlock()
}

// report logs err unless it said the same last time.
func (l *Loop) report(err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if msg == l.said {
		return
	}
	l.said = msg
	if msg == "" {
		fmt.Fprintf(l.log, "kube-proxy: rules applied; forwarding every Service\n")
		return
	}
	fmt.Fprintf(l.log, "kube-proxy: %s\n", msg)
}
