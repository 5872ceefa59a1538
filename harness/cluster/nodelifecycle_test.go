package cluster

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
	"github.com/kubekata/kubekata/harness/pipeline"
	lifecycle "github.com/kubekata/kubekata/solutions/11-nodelifecycle"
)

// The controller manager as the cluster program wires it with exercise
// 11 (program.Wiring.NodeLifecycle): the reference node lifecycle and
// taint eviction controllers (one New), through NewController, run as
// kube-controller-manager in a cluster with the pipeline, with a
// monitor period of 200ms and a grace of 1s. There is no kubelet: the
// test plays two and renews their Leases in kube-node-lease. Node n2
// stops renewing: it turns Ready Unknown (NodeStatusUnknown,
// tryUpdateNodeHealth in upstream's
// pkg/controller/nodelifecycle/node_lifecycle_controller.go) and gets
// the unreachable NoExecute taint (doNoExecuteTaintingPass); its pod
// that tolerates the taint for 0s is deleted with a DisruptionTarget
// condition and an Event (pkg/controller/tainteviction/taint_eviction.go),
// the one with admission's default 300s stays, and n1, renewed, stays
// Ready and untainted. Once n2 renews again and posts Ready True its
// taint goes (markNodeAsReachable). Every call of the controllers is
// allowed by the bootstrap policy that the kata's
// system:kube-controller-manager carries (system:controller:node-controller
// and the list and watch of every informer).
func TestRunNodeLifecycleEvictsFromAnUnreachableNode(t *testing.T) {
	parts := gatedParts
	parts.Controllers = func(c client.Interface) Component {
		return ControllerManager{
			NewController(nodelifecycle.ControllerName+" and "+nodelifecycle.TaintEvictionName, "solutions/11-nodelifecycle", func() Component {
				return lifecycle.New(c, nodelifecycle.Options{MonitorPeriod: 200 * time.Millisecond, GracePeriod: time.Second})
			}),
		}
	}
	parts.ControllersFrom = "solutions/11-nodelifecycle"
	dir := t.TempDir()
	out := newLines()
	stop, done := runInBackground(t, parts, Options{DataDir: dir, Stdout: out})
	out.waitLine(t, "export KUBECONFIG=", done)
	a := creds(t, dir, "admin")
	admin := client.New(a.URL, a.Client)
	nodes := client.For[*api.Node](admin)
	leases := client.For[*api.Lease](admin)
	pods := client.For[*api.Pod](admin)
	ctx := context.Background()

	// post plays a kubelet posting its node Ready True, heartbeat now.
	post := func(name string) {
		t.Helper()
		n, err := nodes.Get(ctx, "", name)
		if err != nil {
			t.Fatalf("admin: Get(node %s) = %v", name, err)
		}
		now := api.NewTime(time.Now())
		n.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue, Reason: "KubeletReady",
			Message: "kubelet is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now}}
		if _, err := nodes.UpdateStatus(ctx, n); err != nil {
			t.Fatalf("admin: UpdateStatus(node %s Ready True) = %v", name, err)
		}
	}
	// renew sets the renewTime of node name's Lease to now, creating it.
	renew := func(name string) error {
		now := api.NewMicroTime(time.Now())
		l, err := leases.Get(ctx, api.NamespaceNodeLease, name)
		if client.IsNotFound(err) {
			holder := name
			_, err = leases.Create(ctx, &api.Lease{ObjectMeta: api.ObjectMeta{Name: name, Namespace: api.NamespaceNodeLease},
				Spec: api.LeaseSpec{HolderIdentity: &holder, RenewTime: &now}})
			return err
		}
		if err != nil {
			return err
		}
		l.Spec.RenewTime = &now
		_, err = leases.Update(ctx, l)
		return err
	}
	// renewing renews node name's Lease every 200ms until the returned
	// stop is called (and has waited for the goroutine).
	renewing := func(name string) (stop func()) {
		t.Helper()
		if err := renew(name); err != nil {
			t.Fatalf("admin: renewing the Lease of %s: %v", name, err)
		}
		rctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-rctx.Done():
					return
				case <-tick.C:
					_ = renew(name) // a failure: the next tick tries again
				}
			}
		}()
		var once sync.Once
		end := func() { once.Do(func() { cancel(); wg.Wait() }) }
		t.Cleanup(end)
		return end
	}
	// describe says what node name's Ready condition and NoExecute
	// taints are.
	describe := func(name string) (ready, reason string, taints []string) {
		t.Helper()
		n, err := nodes.Get(ctx, "", name)
		if err != nil {
			t.Fatalf("admin: Get(node %s) = %v", name, err)
		}
		for _, c := range n.Status.Conditions {
			if c.Type == api.NodeReady {
				ready, reason = string(c.Status), c.Reason
			}
		}
		for _, tn := range n.Spec.Taints {
			taints = append(taints, tn.Key+":"+string(tn.Effect))
		}
		return ready, reason, taints
	}
	// waitFor checks cond every 20ms for 30s, failing with what it last
	// said; the cluster stopping fails at once.
	waitFor := func(what string, cond func() (bool, string)) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			ok, last := cond()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not after 30s; last: %s", what, last)
			}
			select {
			case err := <-done:
				t.Fatalf("%s: the cluster stopped: %v", what, err)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}

	for _, name := range []string{"n1", "n2"} {
		if _, err := nodes.Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil {
			t.Fatalf("admin: Create(node %s) = %v", name, err)
		}
		post(name)
	}
	renewing("n1")
	stopN2 := renewing("n2")
	zero := int64(0)
	tolerate := func(secs *int64) []api.Toleration {
		return []api.Toleration{{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: secs}}
	}
	for _, p := range []*api.Pod{
		{ObjectMeta: api.ObjectMeta{Name: "doomed", Namespace: "default"}, Spec: api.PodSpec{NodeName: "n2", TerminationGracePeriodSeconds: &zero,
			Tolerations: tolerate(&zero), Containers: []api.Container{{Name: "app", Image: "kata/sleep"}}}},
		{ObjectMeta: api.ObjectMeta{Name: "lingering", Namespace: "default"}, Spec: api.PodSpec{NodeName: "n2", TerminationGracePeriodSeconds: &zero,
			Containers: []api.Container{{Name: "app", Image: "kata/sleep"}}}},
		{ObjectMeta: api.ObjectMeta{Name: "elsewhere", Namespace: "default"}, Spec: api.PodSpec{NodeName: "n1", TerminationGracePeriodSeconds: &zero,
			Tolerations: tolerate(&zero), Containers: []api.Container{{Name: "app", Image: "kata/sleep"}}}},
	} {
		if _, err := pods.Create(ctx, p); err != nil {
			t.Fatalf("admin: Create(pod %s) = %v", p.Name, err)
		}
	}
	// Both renewed: both Ready, untainted.
	waitFor("n1 and n2, renewed, Ready True", func() (bool, string) {
		r1, _, t1 := describe("n1")
		r2, _, t2 := describe("n2")
		return r1 == "True" && r2 == "True" && len(t1) == 0 && len(t2) == 0, fmt.Sprintf("n1 %s %v, n2 %s %v", r1, t1, r2, t2)
	})

	stopN2()
	unreachable := api.TaintNodeUnreachable + ":" + string(api.TaintEffectNoExecute)
	waitFor("n2, unrenewed for the 1s grace, Ready Unknown and tainted unreachable", func() (bool, string) {
		r, reason, taints := describe("n2")
		return r == "Unknown" && reason == nodelifecycle.ReasonNodeStatusUnknown && slices.Equal(taints, []string{unreachable}),
			fmt.Sprintf("n2 Ready %s (%s), taints %v", r, reason, taints)
	})
	waitFor("pod doomed (tolerates it 0s) gone", func() (bool, string) {
		_, err := pods.Get(ctx, "default", "doomed")
		return client.IsNotFound(err), fmt.Sprintf("Get(pod doomed) = %v", err)
	})
	for _, name := range []string{"lingering", "elsewhere"} {
		p, err := pods.Get(ctx, "default", name)
		if err != nil || p.DeletionTimestamp != nil {
			t.Errorf("pod %s (on n2 with admission's 300s, or on n1) after the eviction: Get = %v, deletionTimestamp %v; want it there, not deleted", name, err, p)
		}
	}
	if r, _, taints := describe("n1"); r != "True" || len(taints) != 0 {
		t.Errorf("n1, renewed, is Ready %s with taints %v; want True and none", r, taints)
	}

	// n2 comes back: the taint goes.
	renewing("n2")
	post("n2")
	waitFor("n2, renewed and Ready True again, untainted", func() (bool, string) {
		r, _, taints := describe("n2")
		return r == "True" && len(taints) == 0, fmt.Sprintf("n2 Ready %s, taints %v", r, taints)
	})

	// The controllers said what they did (the Events are written
	// apart from the work, so they may come a little later).
	for _, want := range []string{
		nodelifecycle.TaintEvictionName + " doomed Normal " + nodelifecycle.ReasonTaintManagerEviction + " " + nodelifecycle.MessageMarkingForDeletion + "default/doomed",
		nodelifecycle.TaintEvictionName + " lingering Normal " + nodelifecycle.ReasonTaintManagerEviction + " " + nodelifecycle.MessageCancellingDeletion + "default/lingering",
	} {
		waitFor("the Event "+want, func() (bool, string) {
			evs, _, err := client.For[*api.Event](admin).List(ctx, "default", client.ListOptions{})
			if err != nil {
				return false, err.Error()
			}
			var said []string
			for _, e := range evs {
				said = append(said, fmt.Sprintf("%s %s %s %s %s", e.Source.Component, e.InvolvedObject.Name, e.Type, e.Reason, e.Message))
			}
			return slices.Contains(said, want), fmt.Sprintf("the Events: %q", said)
		})
	}

	if err := stop(); err != nil {
		t.Fatalf("stopping the cluster: %v", err)
	}
	// The controllers read and wrote as kube-controller-manager, never
	// refused.
	seen := map[string]bool{"update nodes/status": false, "update nodes": false, "update pods/status": false,
		"delete pods": false, "create events": false, "watch leases": false}
	for _, e := range readAudit(t, dir) {
		if e.User.Username != pipeline.KubeControllerManagerUser || e.ObjectRef == nil || e.ResponseStatus == nil {
			continue
		}
		what := e.Verb + " " + e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			what += "/" + e.ObjectRef.Subresource
		}
		if e.ResponseStatus.Code == 403 {
			t.Errorf("the audit log has %q by %s refused: 403", what, pipeline.KubeControllerManagerUser)
		}
		if _, ok := seen[what]; ok && e.ResponseStatus.Code < 300 {
			seen[what] = true
		}
	}
	for what, ok := range seen {
		if !ok {
			t.Errorf("the audit log has no allowed %q by %s", what, pipeline.KubeControllerManagerUser)
		}
	}
}

// serve takes kube-controller-manager's --node-monitor-period and
// --node-monitor-grace-period into Parts.NodeLifecycle before the
// controllers are made; a cluster without it warns that it ignores them.
func TestServeNodeMonitorFlags(t *testing.T) {
	var opts nodelifecycle.Options
	got := make(chan nodelifecycle.Options, 1)
	p := referenceParts
	p.NodeLifecycle = &opts
	p.Controllers = func(client.Interface) Component {
		got <- opts
		return idle{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- main(ctx, p, []string{"serve", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0",
			"--node-monitor-period", "500ms", "--node-monitor-grace-period", "2s"}, &stdout, &stderr)
	}()
	select {
	case o := <-got:
		if o.MonitorPeriod != 500*time.Millisecond || o.GracePeriod != 2*time.Second {
			t.Errorf("serve --node-monitor-period 500ms --node-monitor-grace-period 2s made the controllers with %+v; want MonitorPeriod 500ms, GracePeriod 2s", o)
		}
	case c := <-code:
		t.Fatalf("serve --node-monitor-period 500ms --node-monitor-grace-period 2s exited %d before making the controllers; stderr:\n%s", c, stderr.String())
	case <-time.After(time.Minute):
		t.Fatal("serve made no controllers within a minute")
	}
	cancel()
	if c := <-code; c != 0 {
		t.Errorf("serve after its context ended: exit %d, want 0; stderr:\n%s", c, stderr.String())
	}

	// Without the node lifecycle controller: a warning, and it serves.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	out := newLines()
	var stderr2 bytes.Buffer
	code2 := make(chan int, 1)
	exited := make(chan error)
	go func() {
		code2 <- main(ctx2, referenceParts, []string{"serve", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0",
			"--node-monitor-grace-period", "2s"}, out, &stderr2)
		close(exited)
	}()
	out.waitLine(t, "export KUBECONFIG=", exited)
	cancel2()
	if c := <-code2; c != 0 {
		t.Errorf("serve --node-monitor-grace-period 2s without the controller, after its context ended: exit %d, want 0; stderr:\n%s", c, stderr2.String())
	}
	if want := "ignored: this cluster runs no node lifecycle controller (exercise 11)"; !strings.Contains(stderr2.String(), want) {
		t.Errorf("serve --node-monitor-grace-period 2s without the controller: stderr %q, want a warning that says %q", stderr2.String(), want)
	}
}

// idle is a component that runs until it is stopped.
type idle struct{}

func (idle) Run(ctx context.Context) error {
	<-ctx.Done()
	return nil
}
