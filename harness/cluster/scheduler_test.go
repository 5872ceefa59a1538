package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
)

// tinyScheduler makes the calls a scheduler makes, and nothing more: it
// watches pods and nodes, and on every change binds each pending pod to
// the first node with an Event Scheduled, or, with no node, writes the
// pod's PodScheduled=False condition with an Event FailedScheduling. It
// is the test's stand-in for exercise 06's New, so that the wiring and
// the scheduler's identity are tested on their own.
type tinyScheduler struct {
	c client.Interface
	// clients receives c once Run starts, for the test to act as the
	// scheduler too.
	clients chan<- client.Interface

	mu   sync.Mutex
	errs []error
}

func (s *tinyScheduler) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, err)
}

func (s *tinyScheduler) errors() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]error(nil), s.errs...)
}

var (
	podKind, _  = api.KindOf(&api.Pod{})
	nodeKind, _ = api.KindOf(&api.Node{})
)

func (s *tinyScheduler) Run(ctx context.Context) error {
	s.clients <- s.c
	changed := make(chan struct{}, 1)
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, k := range []api.Kind{podKind, nodeKind} {
		w, err := s.c.Watch(ctx, k, "", client.ListOptions{})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("watching %s: %w", k.Resource, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.Stop()
			for range w.ResultChan() {
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		}()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
			s.schedule(ctx)
		}
	}
}

func (s *tinyScheduler) schedule(ctx context.Context) {
	nodes, err := s.c.List(ctx, nodeKind, "", client.ListOptions{})
	if err != nil {
		if ctx.Err() == nil {
			s.fail(fmt.Errorf("list nodes: %w", err))
		}
		return
	}
	pods, err := s.c.List(ctx, podKind, "", client.ListOptions{FieldSelector: "spec.nodeName="})
	if err != nil {
		if ctx.Err() == nil {
			s.fail(fmt.Errorf("list pods: %w", err))
		}
		return
	}
	for _, o := range pods.Items {
		pod := o.(*api.Pod)
		if pod.Spec.NodeName != "" {
			continue
		}
		var reason, typ, msg string
		if len(nodes.Items) == 0 {
			if isUnschedulable(pod) {
				continue
			}
			pod = api.DeepCopy(pod)
			pod.Status.Conditions = append(pod.Status.Conditions, api.PodCondition{Type: api.PodScheduled,
				Status: api.ConditionFalse, Reason: api.PodReasonUnschedulable, Message: "0/0 nodes are available"})
			if _, err := s.c.UpdateStatus(ctx, pod); err != nil {
				if !client.IsConflict(err) && ctx.Err() == nil {
					s.fail(fmt.Errorf("update status of %s: %w", pod.Name, err))
				}
				continue
			}
			reason, typ, msg = "FailedScheduling", api.EventTypeWarning, "0/0 nodes are available"
		} else {
			node := nodes.Items[0].GetObjectMeta().Name
			if err := s.c.Bind(ctx, pod.Namespace, pod.Name, node); err != nil {
				if !client.IsConflict(err) && ctx.Err() == nil {
					s.fail(fmt.Errorf("bind %s to %s: %w", pod.Name, node, err))
				}
				continue
			}
			reason, typ, msg = "Scheduled", api.EventTypeNormal, fmt.Sprintf("Successfully assigned %s/%s to %s", pod.Namespace, pod.Name, node)
		}
		ev := &api.Event{
			ObjectMeta:     api.ObjectMeta{Name: fmt.Sprintf("%s.%x", pod.Name, time.Now().UnixNano()), Namespace: pod.Namespace},
			InvolvedObject: api.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
			Reason:         reason, Message: msg, Type: typ, Count: 1,
			Source:              api.EventSource{Component: "default-scheduler"},
			ReportingController: "default-scheduler",
		}
		if _, err := s.c.Create(ctx, ev); err != nil && ctx.Err() == nil {
			s.fail(fmt.Errorf("create event %s: %w", reason, err))
		}
	}
}

func isUnschedulable(pod *api.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == api.PodScheduled && c.Status == api.ConditionFalse {
			return true
		}
	}
	return false
}

// waitPod polls pod default/name as c until ok says yes, for 30s.
func waitPod(t *testing.T, c client.Interface, name, what string, ok func(*api.Pod) bool) *api.Pod {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		o, err := c.Get(ctx, podKind, "default", name)
		if err == nil {
			pod := o.(*api.Pod)
			if ok(pod) {
				return pod
			}
			last = fmt.Sprintf("nodeName %q, conditions %+v", pod.Spec.NodeName, pod.Status.Conditions)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			t.Fatalf("pod default/%s: not %s within 30s; last: %s", name, what, last)
		case <-tick.C:
		}
	}
}

func condition(pod *api.Pod, typ api.PodConditionType) (api.PodCondition, bool) {
	for _, c := range pod.Status.Conditions {
		if c.Type == typ {
			return c, true
		}
	}
	return api.PodCondition{}, false
}

// The scheduler runs as kube-scheduler in a cluster with the pipeline,
// and upstream's bootstrap policy (system:kube-scheduler,
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go) lets it do
// its job: watch pods and nodes, write a pod's status, bind it through
// pods/binding and create Events; but not update a pod itself nor write
// what is not a scheduler's. The audit log names it for each call.
func TestRunGatedSchedulerBindsAsKubeScheduler(t *testing.T) {
	clients := make(chan client.Interface, 1)
	sched := &tinyScheduler{clients: clients}
	parts := gatedParts
	parts.Scheduler = func(c client.Interface) Component { sched.c = c; return sched }
	parts.SchedulerFrom = "harness/cluster (a test's scheduler)"
	dir := t.TempDir()
	out := newLines()
	stop, done := runInBackground(t, parts, Options{DataDir: dir, Stdout: out})
	out.waitLine(t, "export KUBECONFIG=", done)
	var asScheduler client.Interface
	select {
	case asScheduler = <-clients:
	case <-time.After(time.Minute):
		t.Fatal("the scheduler did not start within a minute")
	}
	a := creds(t, dir, "admin")
	admin := client.New(a.URL, a.Client)
	ctx := context.Background()

	// No node: the pod stays pending, and says why.
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "kata/http-echo:v1"}}}}
	if _, err := admin.Create(ctx, pod); err != nil {
		t.Fatalf("admin: Create(pod web) = %v", err)
	}
	waitPod(t, admin, "web", "PodScheduled=False", func(p *api.Pod) bool {
		c, ok := condition(p, api.PodScheduled)
		return ok && c.Status == api.ConditionFalse && c.Reason == api.PodReasonUnschedulable
	})

	// A node: bound to it, and the apiserver says PodScheduled=True.
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}}
	if _, err := admin.Create(ctx, node); err != nil {
		t.Fatalf("admin: Create(node node-1) = %v", err)
	}
	waitPod(t, admin, "web", "bound to node-1", func(p *api.Pod) bool {
		c, ok := condition(p, api.PodScheduled)
		return p.Spec.NodeName == "node-1" && ok && c.Status == api.ConditionTrue
	})

	// What the scheduler may not do.
	o, err := asScheduler.Get(ctx, podKind, "default", "web")
	if err != nil {
		t.Fatalf("kube-scheduler: Get(pod web) = %v, want allowed", err)
	}
	p := api.DeepCopy(o.(*api.Pod))
	p.Labels = map[string]string{"moved": "by-the-scheduler"}
	if _, err := asScheduler.Update(ctx, p); client.CodeOf(err) != http.StatusForbidden {
		t.Errorf("kube-scheduler: Update(pod web) = %v, want 403 Forbidden (a scheduler binds; it does not update pods)", err)
	}
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "x", Namespace: "default"}}
	if _, err := asScheduler.Create(ctx, cm); client.CodeOf(err) != http.StatusForbidden {
		t.Errorf("kube-scheduler: Create(configmap x) = %v, want 403 Forbidden", err)
	}

	if err := stop(); err != nil {
		t.Fatalf("stopping the cluster: %v", err)
	}
	for _, err := range sched.errors() {
		t.Errorf("the scheduler, as kube-scheduler: %v", err)
	}
	want := map[string]bool{"list pods": false, "watch pods": false, "list nodes": false, "watch nodes": false,
		"update pods/status": false, "create pods/binding": false, "create events": false}
	for _, e := range readAudit(t, dir) {
		if e.User.Username != pipeline.KubeSchedulerUser || e.ObjectRef == nil || e.ResponseStatus == nil {
			continue
		}
		what := e.Verb + " " + e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			what += "/" + e.ObjectRef.Subresource
		}
		if _, ok := want[what]; ok && e.ResponseStatus.Code < 300 {
			want[what] = true
		}
	}
	for what, seen := range want {
		if !seen {
			t.Errorf("the audit log has no allowed %q by %s", what, pipeline.KubeSchedulerUser)
		}
	}
}

// A scheduler's New that panics "not implemented" is a *NotDoneError
// naming where it comes from; one that returns nil is refused; a Run
// that panics stops the cluster with its message instead of crashing
// it.
func TestRunSchedulerNotDoneNilOrPanicking(t *testing.T) {
	fake := newFakeAPIServer(&events{})
	close(fake.ready)
	base := Parts{APIServer: func(storage.Store) http.Handler { return fake }, SchedulerFrom: "exercises/06-scheduler"}

	p := base
	p.Scheduler = func(client.Interface) Component { panic("not implemented") }
	err := Run(context.Background(), p, Options{DataDir: t.TempDir()})
	var nd *NotDoneError
	if !errors.As(err, &nd) || nd.From != "exercises/06-scheduler" || nd.What != "exercises/06-scheduler: New" || !nd.NotImplemented() {
		t.Errorf("Run with a scheduler whose New panics \"not implemented\" = %v, want a *NotDoneError from exercises/06-scheduler: New", err)
	}

	p = base
	p.Scheduler = func(client.Interface) Component { var s *tinyScheduler; return s }
	err = Run(context.Background(), p, Options{DataDir: t.TempDir()})
	if err == nil || err.Error() != "cluster: exercises/06-scheduler: New returned a nil scheduler" {
		t.Errorf("Run with a scheduler whose New returns a nil *T = %v, want \"cluster: exercises/06-scheduler: New returned a nil scheduler\"", err)
	}

	p = base
	p.Scheduler = func(client.Interface) Component { return panicking{} }
	err = Run(context.Background(), p, Options{DataDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "cluster: the scheduler: panicked: runtime error: index out of range") {
		t.Errorf("Run with a scheduler whose Run panics = %v, want \"cluster: the scheduler: panicked: runtime error: index out of range...\"", err)
	}
}

type panicking struct{}

func (panicking) Run(context.Context) error {
	var s []int
	_ = s[len(s)] // index out of range
	return nil
}
