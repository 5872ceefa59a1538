package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kubekata/kubekata/harness/api"
)

// renew-lease plays the part of a kubelet's heartbeat until the kata has
// one: the kubelet renews its node's Lease in kube-node-lease every 10s
// (a quarter of its 40s duration; upstream's
// pkg/kubelet/nodelease/controller.go and
// staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go,
// which creates the Lease when it is missing), and the node lifecycle
// controller takes a renewal as a sign of life.

// leaseDurationSeconds is the kubelet's --node-lease-duration-seconds
// default.
const leaseDurationSeconds = 40

// renewer renews one node's Lease in the background.
type renewer struct {
	node   string
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	renewals int
	lastErr  error
}

// stop ends the renewals and waits for the goroutine.
func (r *renewer) stop() {
	r.cancel()
	<-r.done
}

// summary says how many renewals there were, and the last failure since
// the last success.
func (r *renewer) summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := fmt.Sprintf("stopped renewing lease %s/%s after %d renewals", api.NamespaceNodeLease, r.node, r.renewals)
	if r.lastErr != nil {
		s += fmt.Sprintf(" (the last one failed: %v)", r.lastErr)
	}
	return s
}

// renew-lease NODE EVERY creates the Lease of node NODE in
// kube-node-lease, or renews it (renewTime now, holderIdentity NODE), at
// once, and then every EVERY in the background, as the cluster's user
// the commands act as, until renew-lease --stop NODE or the end of the
// scenario. A renewal that fails (the cluster restarting) is tried again
// at the next tick. renew-lease --stop NODE stops it and says how many
// renewals there were.
func cmdRenewLease(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "renew-lease")
	const usage = "usage: renew-lease NODE EVERY | renew-lease --stop NODE"
	st := stateOf(ts)
	if len(args) == 2 && args[0] == "--stop" {
		r := st.renewers[args[1]]
		if r == nil {
			ts.Fatalf("renew-lease --stop %s: no renew-lease %s is running", args[1], args[1])
		}
		r.stop()
		delete(st.renewers, args[1])
		fmt.Fprintln(ts.Stdout(), r.summary())
		return
	}
	if len(args) != 2 || args[0] == "" || args[0][0] == '-' {
		ts.Fatalf("%s", usage)
	}
	node := args[0]
	every, err := time.ParseDuration(args[1])
	if err != nil || every <= 0 {
		ts.Fatalf("%s", usage)
	}
	if st.renewers[node] != nil {
		ts.Fatalf("renew-lease %s: already renewing it (renew-lease --stop %s first)", node, node)
	}
	k := st.running(ts, "renew-lease")
	ctx, cancel := requestContext()
	err = k.renewLease(ctx, node, time.Now())
	cancel()
	if err != nil {
		ts.Fatalf("renew-lease %s: %v", node, err)
	}
	fmt.Fprintf(ts.Stdout(), "renewing lease %s/%s every %v\n", api.NamespaceNodeLease, node, every)

	rctx, rcancel := context.WithCancel(context.Background())
	r := &renewer{node: node, cancel: rcancel, done: make(chan struct{}), renewals: 1}
	go func() {
		defer close(r.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-rctx.Done():
				return
			case now := <-tick.C:
				ctx, cancel := context.WithTimeout(rctx, requestTimeout)
				err := k.renewLease(ctx, node, now)
				cancel()
				if err != nil && rctx.Err() != nil {
					return // stopped mid-renewal: not a failure
				}
				r.mu.Lock()
				if err == nil {
					r.renewals++
				}
				r.lastErr = err
				r.mu.Unlock()
			}
		}
	}()
	if st.renewers == nil {
		st.renewers = map[string]*renewer{}
	}
	st.renewers[node] = r
	// No renewal outlives its scenario.
	ts.Defer(func() {
		r.stop()
		if st.renewers[node] == r {
			delete(st.renewers, node)
		}
	})
}

// renewLease sets the renewTime of node's Lease to now, creating the
// Lease when it is missing; a conflict (someone else wrote it) is read
// and tried again once.
func (k *kube) renewLease(ctx context.Context, node string, now time.Time) error {
	kind, ok := api.ResolveResource("leases")
	if !ok {
		return fmt.Errorf("scenario: the kata has no leases")
	}
	r := ref{kind: kind, namespace: api.NamespaceNodeLease, name: node}
	renew := api.NewMicroTime(now)
	for try := 0; ; try++ {
		obj, err := k.get(ctx, r, "")
		if isNotFound(err) {
			holder, secs := node, int32(leaseDurationSeconds)
			lease := api.Lease{
				TypeMeta:   api.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
				ObjectMeta: api.ObjectMeta{Name: node, Namespace: api.NamespaceNodeLease},
				Spec:       api.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &renew},
			}
			body, err := json.Marshal(lease)
			if err != nil {
				return fmt.Errorf("scenario: %w", err)
			}
			_, err = k.send(ctx, http.MethodPost, ref{kind: kind, namespace: api.NamespaceNodeLease}.path(), nil, "application/json", body)
			if err == nil || try > 0 || !isConflict(err) {
				return err
			}
			continue // created meanwhile
		}
		if err != nil {
			return err
		}
		spec, _ := obj["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			obj["spec"] = spec
		}
		spec["renewTime"] = now.UTC().Format(api.RFC3339Micro)
		if spec["holderIdentity"] == nil {
			spec["holderIdentity"] = node
		}
		body, err := json.Marshal(obj)
		if err != nil {
			return fmt.Errorf("scenario: %w", err)
		}
		_, err = k.send(ctx, http.MethodPut, r.path(), nil, "application/json", body)
		if err == nil || try > 0 || !isConflict(err) {
			return err
		}
	}
}

// isConflict says whether err is a 409 (a stale resourceVersion, or an
// object that already exists).
func isConflict(err error) bool {
	se, ok := err.(*statusError)
	return ok && se.code == http.StatusConflict
}
