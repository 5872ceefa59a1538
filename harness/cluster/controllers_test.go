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

// blocking runs until its context ends, and says so on stopped.
type blocking struct{ stopped chan<- string }

func (b blocking) Run(ctx context.Context) error {
	<-ctx.Done()
	b.stopped <- "blocking"
	return nil
}

// returning returns err at once.
type returning struct{ err error }

func (r returning) Run(context.Context) error { return r.err }

// The controller manager runs its controllers until its context ends
// and returns once all have; one that returns or panics on its own
// stops the others and is the manager's error, with its name; a nil
// controller is refused.
func TestControllerManager(t *testing.T) {
	run := func(m ControllerManager, ctx context.Context) error {
		done := make(chan error, 1)
		go func() { done <- m.Run(ctx) }()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatalf("ControllerManager.Run did not return within 10s")
			return nil
		}
	}

	stopped := make(chan string, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := ControllerManager{{"a", blocking{stopped}}, {"b", blocking{stopped}}}
	if err := run(m, ctx); err != nil {
		t.Errorf("Run after its context ended = %v, want nil", err)
	}
	if n := len(stopped); n != 2 {
		t.Errorf("Run returned with %d of its 2 controllers stopped, want both", n)
	}
	for len(stopped) > 0 {
		<-stopped
	}

	m = ControllerManager{{"a", blocking{stopped}}, {"replicaset-controller", returning{errors.New("boom")}}}
	if err := run(m, context.Background()); err == nil || err.Error() != "replicaset-controller: boom" {
		t.Errorf("Run with a controller that fails = %v, want \"replicaset-controller: boom\"", err)
	}
	if n := len(stopped); n != 1 {
		t.Errorf("after a controller failed, %d other controllers were stopped, want 1", n)
	}
	<-stopped

	m = ControllerManager{{"a", blocking{stopped}}, {"replicaset-controller", returning{nil}}}
	if err := run(m, context.Background()); err == nil || err.Error() != "replicaset-controller: returned while the cluster was running" {
		t.Errorf("Run with a controller that returns nil on its own = %v, want \"replicaset-controller: returned while the cluster was running\"", err)
	}
	<-stopped

	m = ControllerManager{{"a", blocking{stopped}}, {"replicaset-controller", panicking{}}}
	if err := run(m, context.Background()); err == nil || !strings.HasPrefix(err.Error(), "replicaset-controller: panicked: runtime error: index out of range") {
		t.Errorf("Run with a controller that panics = %v, want \"replicaset-controller: panicked: runtime error: index out of range...\"", err)
	}
	<-stopped

	var nilPtr *tinyReplicaSet
	for _, c := range []Component{nil, nilPtr} {
		m = ControllerManager{{"a", blocking{stopped}}, {"replicaset-controller", c}}
		if err := run(m, context.Background()); err == nil || err.Error() != "replicaset-controller: New returned a nil controller" {
			t.Errorf("Run with a nil controller (%T) = %v, want \"replicaset-controller: New returned a nil controller\"", c, err)
		}
		if n := len(stopped); n != 0 {
			t.Errorf("Run with a nil controller started the others (%d stopped), want none started", n)
		}
	}
}

// A controller manager whose New panics "not implemented" is a
// *NotDoneError naming where it comes from; a nil one is refused; one
// that fails stops the cluster with its name.
func TestRunControllersNotDoneNilOrFailing(t *testing.T) {
	fake := newFakeAPIServer(&events{})
	close(fake.ready)
	base := Parts{APIServer: func(storage.Store) http.Handler { return fake }, ControllersFrom: "exercises/07-replicaset"}

	p := base
	p.Controllers = func(client.Interface) Component { panic("not implemented: New") }
	err := Run(context.Background(), p, Options{DataDir: t.TempDir()})
	var nd *NotDoneError
	if !errors.As(err, &nd) || nd.From != "exercises/07-replicaset" || nd.What != "exercises/07-replicaset: New" || !nd.NotImplemented() {
		t.Errorf("Run with controllers whose New panics \"not implemented\" = %v, want a *NotDoneError from exercises/07-replicaset: New", err)
	}

	p = base
	p.Controllers = func(client.Interface) Component { var m ControllerManager; return m }
	err = Run(context.Background(), p, Options{DataDir: t.TempDir()})
	if err == nil || err.Error() != "cluster: exercises/07-replicaset: New returned a nil controller" {
		t.Errorf("Run with a nil controller manager = %v, want \"cluster: exercises/07-replicaset: New returned a nil controller\"", err)
	}

	p = base
	p.Controllers = func(client.Interface) Component {
		return ControllerManager{{"replicaset-controller", returning{errors.New("the cache never synced")}}}
	}
	err = Run(context.Background(), p, Options{DataDir: t.TempDir()})
	if err == nil || err.Error() != "cluster: the controllers: replicaset-controller: the cache never synced" {
		t.Errorf("Run with a controller that fails = %v, want \"cluster: the controllers: replicaset-controller: the cache never synced\"", err)
	}
}

// A controller's New that panics is a *NotDoneError naming that
// controller's exercise, not the first one's, when the manager is made
// with NewController.
func TestRunNewControllerNamesItsExercise(t *testing.T) {
	fake := newFakeAPIServer(&events{})
	close(fake.ready)
	p := Parts{APIServer: func(storage.Store) http.Handler { return fake }, ControllersFrom: "exercises/07-replicaset"}
	stopped := make(chan string, 1)
	p.Controllers = func(client.Interface) Component {
		return ControllerManager{
			NewController("replicaset-controller", "exercises/07-replicaset", func() Component { return blocking{stopped} }),
			NewController("garbage-collector-controller", "exercises/08-garbagecollector", func() Component { panic("not implemented: New") }),
		}
	}
	err := Run(context.Background(), p, Options{DataDir: t.TempDir()})
	var nd *NotDoneError
	if !errors.As(err, &nd) || nd.From != "exercises/08-garbagecollector" || nd.What != "exercises/08-garbagecollector: New" || !nd.NotImplemented() {
		t.Errorf("Run with a garbage collector whose New panics \"not implemented\" = %v, want a *NotDoneError from exercises/08-garbagecollector: New", err)
	}
}

// tinyReplicaSet makes the calls a ReplicaSet controller makes, and
// nothing more, so that the controller manager's wiring and identity
// are tested on their own (exercise 07's New is the real one): on every
// change of a ReplicaSet or a pod it adopts the matching orphans
// (update), creates pods with a controller reference (create) until a
// ReplicaSet owns spec.replicas, deletes the ones beyond it (delete),
// writes status.replicas (update replicasets/status) and an Event per
// pod it creates. Its selector is matchLabels only.
type tinyReplicaSet struct {
	c client.Interface

	mu   sync.Mutex
	errs []error
}

var rsKind, _ = api.KindOf(&api.ReplicaSet{})

func (r *tinyReplicaSet) fail(ctx context.Context, what string, err error) {
	if err == nil || ctx.Err() != nil || client.IsConflict(err) || client.IsNotFound(err) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Errorf("%s: %w", what, err))
}

func (r *tinyReplicaSet) errors() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

func (r *tinyReplicaSet) Run(ctx context.Context) error {
	changed := make(chan struct{}, 1)
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, k := range []api.Kind{rsKind, podKind} {
		w, err := r.c.Watch(ctx, k, "", client.ListOptions{})
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
			r.sync(ctx)
		}
	}
}

func matches(sel *api.LabelSelector, labels map[string]string) bool {
	if sel == nil || len(sel.MatchLabels) == 0 {
		return false
	}
	for k, v := range sel.MatchLabels {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func (r *tinyReplicaSet) sync(ctx context.Context) {
	rss, err := r.c.List(ctx, rsKind, "", client.ListOptions{})
	if err != nil {
		r.fail(ctx, "list replicasets", err)
		return
	}
	for _, o := range rss.Items {
		rs := o.(*api.ReplicaSet)
		pods, err := r.c.List(ctx, podKind, rs.Namespace, client.ListOptions{})
		if err != nil {
			r.fail(ctx, "list pods", err)
			return
		}
		var owned []*api.Pod
		for _, po := range pods.Items {
			pod := po.(*api.Pod)
			ref := api.GetControllerOf(pod)
			switch {
			case ref != nil && ref.UID == rs.UID:
				owned = append(owned, pod)
			case ref == nil && matches(rs.Spec.Selector, pod.Labels):
				pod = api.DeepCopy(pod)
				pod.OwnerReferences = append(pod.OwnerReferences, api.NewControllerRef(rs))
				if _, err := r.c.Update(ctx, pod); err != nil {
					r.fail(ctx, "update (adopt) pod "+pod.Name, err)
					continue
				}
				owned = append(owned, pod)
			}
		}
		want := 1
		if rs.Spec.Replicas != nil {
			want = int(*rs.Spec.Replicas)
		}
		for i := len(owned); i < want; i++ {
			pod := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: rs.Namespace, GenerateName: rs.Name + "-",
				Labels: rs.Spec.Template.Labels, OwnerReferences: []api.OwnerReference{api.NewControllerRef(rs)}},
				Spec: rs.Spec.Template.Spec}
			created, err := r.c.Create(ctx, pod)
			if err != nil {
				r.fail(ctx, "create pod", err)
				continue
			}
			name := created.GetObjectMeta().Name
			ev := &api.Event{
				ObjectMeta:     api.ObjectMeta{Name: fmt.Sprintf("%s.%x", rs.Name, time.Now().UnixNano()), Namespace: rs.Namespace},
				InvolvedObject: api.ObjectReference{Kind: "ReplicaSet", APIVersion: "apps/v1", Namespace: rs.Namespace, Name: rs.Name, UID: rs.UID},
				Reason:         "SuccessfulCreate", Message: "Created pod: " + name, Type: api.EventTypeNormal, Count: 1,
				Source: api.EventSource{Component: "replicaset-controller"},
			}
			if _, err := r.c.Create(ctx, ev); err != nil {
				r.fail(ctx, "create event", err)
			}
		}
		for i := want; i < len(owned); i++ {
			r.fail(ctx, "delete pod "+owned[i].Name, r.c.Delete(ctx, podKind, rs.Namespace, owned[i].Name, client.DeleteOptions{}))
		}
		if rs.Status.Replicas != int32(want) {
			rs = api.DeepCopy(rs)
			rs.Status.Replicas = int32(want)
			if _, err := r.c.UpdateStatus(ctx, rs); err != nil {
				r.fail(ctx, "update status of replicaset "+rs.Name, err)
			}
		}
	}
}

// The controller manager runs as kube-controller-manager in a cluster
// with the pipeline, and upstream's bootstrap policy
// (system:controller:replicaset-controller in plugin/pkg/auth/
// authorizer/rbac/bootstrappolicy/controller_policy.go, which the kata's
// system:kube-controller-manager carries) lets a ReplicaSet controller
// do its job: watch ReplicaSets and pods, create, adopt (update) and
// delete pods, write a ReplicaSet's status and create Events; but not
// create what is not a controller's. The audit log names it for each
// call.
func TestRunGatedControllersAsKubeControllerManager(t *testing.T) {
	rsc := &tinyReplicaSet{}
	parts := gatedParts
	parts.Controllers = func(c client.Interface) Component {
		rsc.c = c
		return ControllerManager{{Name: "replicaset-controller", Component: rsc}}
	}
	parts.ControllersFrom = "harness/cluster (a test's controller)"
	dir := t.TempDir()
	out := newLines()
	stop, done := runInBackground(t, parts, Options{DataDir: dir, Stdout: out})
	out.waitLine(t, "export KUBECONFIG=", done)
	a := creds(t, dir, "admin")
	admin := client.New(a.URL, a.Client)
	ctx := context.Background()

	// An orphan that matches, then a ReplicaSet of 2: the orphan is
	// adopted and one pod created; scaled to 1, one is deleted.
	orphan := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "orphan", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{SchedulerName: "nobody", Containers: []api.Container{{Name: "web", Image: "kata/http-echo:v1"}}}}
	if _, err := admin.Create(ctx, orphan); err != nil {
		t.Fatalf("admin: Create(pod orphan) = %v", err)
	}
	two := int32(2)
	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ReplicaSetSpec{Replicas: &two, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: orphan.Spec}}}
	if _, err := admin.Create(ctx, rs); err != nil {
		t.Fatalf("admin: Create(replicaset web) = %v", err)
	}
	countPods := func(want int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		var got []string
		for time.Now().Before(deadline) {
			l, err := admin.List(ctx, podKind, "default", client.ListOptions{LabelSelector: "app=web"})
			if err != nil {
				t.Fatalf("admin: List(pods) = %v", err)
			}
			got = got[:0]
			for _, o := range l.Items {
				if ref := api.GetControllerOf(o); ref != nil && ref.Name == "web" {
					got = append(got, o.GetObjectMeta().Name)
				}
			}
			if len(got) == want {
				return
			}
			select {
			case err := <-done:
				t.Fatalf("the cluster stopped: %v", err)
			case <-time.After(20 * time.Millisecond):
			}
		}
		t.Fatalf("pods controlled by replicaset web: %v after 30s, want %d", got, want)
	}
	countPods(2)
	// The controller writes the ReplicaSet's status meanwhile: a Conflict
	// means read again and write again, as kubectl scale would.
	one := int32(1)
	for try := 1; ; try++ {
		o, err := admin.Get(ctx, rsKind, "default", "web")
		if err != nil {
			t.Fatalf("admin: Get(replicaset web) = %v", err)
		}
		scaled := api.DeepCopy(o.(*api.ReplicaSet))
		scaled.Spec.Replicas = &one
		_, err = admin.Update(ctx, scaled)
		if err == nil {
			break
		}
		if client.CodeOf(err) != http.StatusConflict || try == 10 {
			t.Fatalf("admin: Update(replicaset web, replicas 1), try %d = %v", try, err)
		}
	}
	countPods(1)

	// What the controller manager may not do.
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "x", Namespace: "default"}}
	if _, err := rsc.c.Create(ctx, cm); client.CodeOf(err) != http.StatusForbidden {
		t.Errorf("kube-controller-manager: Create(configmap x) = %v, want 403 Forbidden", err)
	}

	if err := stop(); err != nil {
		t.Fatalf("stopping the cluster: %v", err)
	}
	for _, err := range rsc.errors() {
		t.Errorf("the controller, as kube-controller-manager: %v", err)
	}
	want := map[string]bool{"list replicasets": false, "watch replicasets": false, "list pods": false, "watch pods": false,
		"create pods": false, "update pods": false, "delete pods": false, "update replicasets/status": false, "create events": false}
	for _, e := range readAudit(t, dir) {
		if e.User.Username != pipeline.KubeControllerManagerUser || e.ObjectRef == nil || e.ResponseStatus == nil {
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
			t.Errorf("the audit log has no allowed %q by %s", what, pipeline.KubeControllerManagerUser)
		}
	}
}
