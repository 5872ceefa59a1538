package proxy

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
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
// exercise 14's Rules writes. Upstream's proxier (pkg/proxy/iptables/
// proxier.go, syncProxyRules) writes its rules with iptables-restore and
// the kernel forwards by them; here the forwarder reads the same text
// (Parse) and forwards by it, so that a request to a Service address
// goes where the learner's rules send it.
//
// One Loop serves the whole cluster: every kata node shares the
// machine's loopback, where the Service addresses live.
type Loop struct {
	c     client.Interface
	rules servicenet.RulesFunc
	fwd   *Forwarder
	log   io.Writer

	mu      sync.Mutex
	applied string // the rules last applied
	said    string // the last trouble logged, not to say it twice
}

// NewLoop makes kube-proxy over the apiserver c, with rules the
// learner's Rules.
func NewLoop(c client.Interface, rules servicenet.RulesFunc, opts LoopOptions) *Loop {
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	return &Loop{c: c, rules: rules, fwd: New(opts.Forwarder), log: log}
}

// Rules is the text the loop last applied ("" before its first sync): the
// node's iptables-save, as `kata proxy rules` prints it.
func (l *Loop) Rules() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.applied
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
	changed := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	h := informer.Handler{
		OnAdd:    func(api.Object, bool) { changed() },
		OnUpdate: func(api.Object, api.Object) { changed() },
		OnDelete: func(api.Object) { changed() },
	}
	svcs.AddEventHandler(h)
	slices.AddEventHandler(h)
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

// sync renders the rules of what the caches hold and applies them. Rules
// that do not parse leave the forwarder as it was, and say why; an
// address the forwarder could not listen on is tried again at the next
// change (upstream also resyncs every 30s; here nothing is timed).
func (l *Loop) sync(svcs, slices *informer.Informer) {
	var ss []api.Service
	for _, o := range svcs.List() {
		ss = append(ss, *api.DeepCopy(o.(*api.Service)))
	}
	var es []api.EndpointSlice
	for _, o := range slices.List() {
		es = append(es, *api.DeepCopy(o.(*api.EndpointSlice)))
	}
	text, err := l.render(ss, es)
	if err == nil {
		l.mu.Lock()
		same := text == l.applied
		l.mu.Unlock()
		if same {
			return
		}
		var t Table
		if t, err = Parse(text); err == nil {
			err = l.fwd.Apply(t)
			l.mu.Lock()
			l.applied = text
			l.mu.Unlock()
		}
	}
	l.report(err)
}

// render calls the learner's Rules; a panic is its error.
func (l *Loop) render(ss []api.Service, es []api.EndpointSlice) (text string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("Rules panicked: %v", p)
		}
	}()
	return l.rules(ss, es), nil
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
