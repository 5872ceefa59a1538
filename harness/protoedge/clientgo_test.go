package protoedge_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubekata/kubekata/harness/protoedge"
)

// defaultClient is client-go as a user makes it: kubernetes.NewForConfig
// with nothing but the host set, so it sends protobuf bodies.
func defaultClient(t testing.TB, url string) *kubernetes.Clientset {
	t.Helper()
	return newClient(t, &rest.Config{Host: url})
}

// newClient makes a client from cfg and closes its idle connections when
// the test ends.
func newClient(t testing.TB, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("kubernetes.NewForConfig: %v", err)
	}
	t.Cleanup(func() {
		if tr, ok := cs.CoreV1().RESTClient().(*rest.RESTClient); ok && tr.Client != nil {
			tr.Client.CloseIdleConnections()
		}
	})
	return cs
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestClientGo: client-go with its default configuration against the
// reference apiserver behind the edge: typed create, get, list with a
// label selector, a stale update (409), delete, scale, bind, and the
// wire shows it spoke protobuf.
func TestClientGo(t *testing.T) {
	c := startCluster(t, true)
	cs := defaultClient(t, c.URL)
	ctx := ctxFor(t)
	cms := cs.CoreV1().ConfigMaps("default")

	// create
	web, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
		Data: map[string]string{"greeting": "hello"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("ConfigMaps.Create(web): %v", err)
	}
	if web.UID == "" || web.ResourceVersion == "" || web.CreationTimestamp.IsZero() || web.Data["greeting"] != "hello" {
		t.Errorf("ConfigMaps.Create(web) = uid %q rv %q created %v data %v; want a uid, a resourceVersion, a creationTimestamp and data greeting=hello",
			web.UID, web.ResourceVersion, web.CreationTimestamp, web.Data)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "db", Labels: map[string]string{"app": "db"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("ConfigMaps.Create(db): %v", err)
	}
	posts := c.Wire.find("POST /api/v1/namespaces/default/configmaps ")
	if len(posts) == 0 || !strings.Contains(posts[0], "Content-Type="+protoedge.MediaType+" ") ||
		!strings.Contains(posts[0], "Accept=application/vnd.kubernetes.protobuf,application/json") {
		t.Fatalf("client-go's create on the wire: %q; want Content-Type %s and Accept application/vnd.kubernetes.protobuf,application/json (else this test proves nothing about the edge)",
			posts, protoedge.MediaType)
	}

	// get
	got, err := cms.Get(ctx, "web", metav1.GetOptions{})
	if err != nil || got.UID != web.UID || got.Data["greeting"] != "hello" {
		t.Fatalf("ConfigMaps.Get(web) = uid %v data %v, %v; want uid %v data greeting=hello", got.GetUID(), got.Data, err, web.UID)
	}

	// list with a label selector
	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatalf("ConfigMaps.List(app=web): %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "web" || list.ResourceVersion == "" {
		t.Errorf("ConfigMaps.List(app=web) = %d items (%v), list rv %q; want only web and a resourceVersion", len(list.Items), names(list.Items), list.ResourceVersion)
	}

	// update, then update again from the stale copy: 409
	got.Data["greeting"] = "hi"
	updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || updated.ResourceVersion == got.ResourceVersion || updated.Data["greeting"] != "hi" {
		t.Fatalf("ConfigMaps.Update(web) = rv %v data %v, %v; want a new resourceVersion and greeting=hi", updated.GetResourceVersion(), updated.Data, err)
	}
	got.Data["greeting"] = "stale"
	_, err = cms.Update(ctx, got, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) {
		t.Fatalf("ConfigMaps.Update(web) at the stale resourceVersion %s: error %v, want a 409 Conflict", got.ResourceVersion, err)
	}
	// Upstream's message (k8s.io/apiserver/pkg/registry/generic/registry/store.go, OptimisticLockErrorMsg).
	if want := "the object has been modified; please apply your changes to the latest version and try again"; !strings.Contains(err.Error(), want) {
		t.Errorf("the stale update's error %q, want it to say %q", err, want)
	}
	if puts := c.Wire.find("PUT /api/v1/namespaces/default/configmaps/web "); len(puts) != 2 || !strings.Contains(puts[0], "Content-Type="+protoedge.MediaType+" ") {
		t.Errorf("client-go's updates on the wire: %q; want 2 PUTs with Content-Type %s", puts, protoedge.MediaType)
	}

	// delete, with a DeleteOptions body
	if err := cms.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("ConfigMaps.Delete(web): %v", err)
	}
	if dels := c.Wire.find("DELETE /api/v1/namespaces/default/configmaps/web "); len(dels) != 1 || !strings.Contains(dels[0], "Content-Type="+protoedge.MediaType+" ") {
		t.Errorf("client-go's delete on the wire: %q; want a DELETE with a protobuf DeleteOptions body", dels)
	}
	if _, err := cms.Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("ConfigMaps.Get(web) after Delete: error %v, want NotFound", err)
	}
	// The DeleteOptions body reaches the apiserver: a precondition that
	// does not hold is a 409, and foreground propagation leaves the object
	// with a deletionTimestamp and the foregroundDeletion finalizer until
	// the garbage collector is done (upstream's
	// k8s.io/apiserver/pkg/registry/generic/registry/store.go).
	db, err := cms.Get(ctx, "db", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("ConfigMaps.Get(db): %v", err)
	}
	err = cms.Delete(ctx, "db", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr(db.UID + "-other")}})
	if !apierrors.IsConflict(err) {
		t.Errorf("ConfigMaps.Delete(db) with a UID precondition that does not hold: error %v, want a 409 Conflict (the DeleteOptions body must reach the apiserver)", err)
	}
	if err := cms.Delete(ctx, "db", metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationForeground)}); err != nil {
		t.Fatalf("ConfigMaps.Delete(db, Foreground): %v", err)
	}
	if db, err = cms.Get(ctx, "db", metav1.GetOptions{}); err != nil || db.DeletionTimestamp == nil || !slices.Contains(db.Finalizers, metav1.FinalizerDeleteDependents) {
		t.Errorf("ConfigMaps.Get(db) after a foreground Delete = deletionTimestamp %v finalizers %q, %v; want a deletionTimestamp and %q",
			db.GetDeletionTimestamp(), db.GetFinalizers(), err, metav1.FinalizerDeleteDependents)
	}

	// Other groups and the subresources that take their own kinds.
	deploys := cs.AppsV1().Deployments("default")
	labels := map[string]string{"app": "api"}
	d, err := deploys.Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: "kata/http-echo"}}}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Deployments.Create(api): %v", err)
	}
	sc, err := deploys.UpdateScale(ctx, "api", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "default", ResourceVersion: d.ResourceVersion},
		Spec: autoscalingv1.ScaleSpec{Replicas: 4}}, metav1.UpdateOptions{})
	if err != nil || sc.Spec.Replicas != 4 {
		t.Fatalf("Deployments.UpdateScale(api, 4) = %v, %v; want replicas 4", sc, err)
	}
	if d, err = deploys.Get(ctx, "api", metav1.GetOptions{}); err != nil || *d.Spec.Replicas != 4 {
		t.Errorf("Deployments.Get(api) after UpdateScale(4): replicas %v, %v; want 4", d.Spec.Replicas, err)
	}
	pods := cs.CoreV1().Pods("default")
	if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "kata/sleep"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Pods.Create(p): %v", err)
	}
	if err := pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Pods.Bind(p, node-1): %v", err)
	}
	if p, err := pods.Get(ctx, "p", metav1.GetOptions{}); err != nil || p.Spec.NodeName != "node-1" {
		t.Errorf("Pods.Get(p) after Bind: nodeName %q, %v; want node-1", p.Spec.NodeName, err)
	}

	// A kind the kata does not serve: the edge's 415.
	_, err = cs.BatchV1().CronJobs("default").Create(ctx, &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly"}}, metav1.CreateOptions{})
	if !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("CronJobs.Create: error %v, want 415 UnsupportedMediaType (the kata serves no CronJob)", err)
	}
}

// TestClientGoAcceptsOnlyProtobuf: a client that accepts only protobuf
// gets JSON (the kata encodes nothing else) and client-go decodes it by
// its Content-Type; its writes still go through the edge.
func TestClientGoAcceptsOnlyProtobuf(t *testing.T) {
	c := startCluster(t, false)
	cs := newClient(t, &rest.Config{Host: c.URL, ContentConfig: rest.ContentConfig{
		AcceptContentTypes: protoedge.MediaType, ContentType: protoedge.MediaType}})
	ctx := ctxFor(t)
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, metav1.CreateOptions{})
	if err != nil || ns.Name != "team-a" || ns.UID == "" {
		t.Fatalf("Namespaces.Create(team-a) with Accept %s = %v, %v; want the namespace", protoedge.MediaType, ns, err)
	}
	if posts := c.Wire.find("POST /api/v1/namespaces Content-Type=" + protoedge.MediaType + " "); len(posts) != 1 || !strings.Contains(posts[0], " Accept="+protoedge.MediaType+" ") {
		t.Errorf("the create on the wire: %q; want one with Accept %s only", posts, protoedge.MediaType)
	}
	list, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 5 {
		t.Errorf("Namespaces.List with Accept %s = %d items, %v; want the 4 bootstrap namespaces and team-a", protoedge.MediaType, len(list.Items), err)
	}
}

// TestInformer: a shared informer from informers.NewSharedInformerFactory
// on the default client syncs, then sees an add, an update and a delete.
func TestInformer(t *testing.T) {
	c := startCluster(t, true)
	cs := defaultClient(t, c.URL)
	ctx := ctxFor(t)
	cms := cs.CoreV1().ConfigMaps("default")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("ConfigMaps.Create(before): %v", err)
	}

	var mu sync.Mutex
	var events []string
	changed := make(chan struct{}, 100)
	record := func(s string) {
		mu.Lock()
		events = append(events, s)
		mu.Unlock()
		changed <- struct{}{}
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf := factory.Core().V1().ConfigMaps().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { record("add " + obj.(*corev1.ConfigMap).Name) },
		UpdateFunc: func(old, obj any) {
			o, n := old.(*corev1.ConfigMap), obj.(*corev1.ConfigMap)
			if o.ResourceVersion != n.ResourceVersion {
				record(fmt.Sprintf("update %s %s", n.Name, n.Data["v"]))
			}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			record("delete " + obj.(*corev1.ConfigMap).Name)
		},
	}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	t.Cleanup(func() {
		close(stop)
		factory.Shutdown() // waits for the informer's goroutines
	})
	syncCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		t.Fatal("the ConfigMap informer did not sync within 10s")
	}
	waitFor := func(want string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			mu.Lock()
			seen := append([]string(nil), events...)
			mu.Unlock()
			for _, e := range seen {
				if e == want {
					return
				}
			}
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("the informer did not see %q within 10s; it saw %q", want, seen)
			}
		}
	}
	waitFor("add before")

	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "live"}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("ConfigMaps.Create(live): %v", err)
	}
	waitFor("add live")
	cm.Data["v"] = "2"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("ConfigMaps.Update(live): %v", err)
	}
	waitFor("update live 2")
	if err := cms.Delete(ctx, "live", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("ConfigMaps.Delete(live): %v", err)
	}
	waitFor("delete live")
	if got, ok, err := inf.GetStore().GetByKey("default/live"); ok || err != nil {
		t.Errorf("the informer's store after the delete: %v, %v, %v; want default/live gone", got, ok, err)
	}
	// client-go's informers list through a watch with sendInitialEvents
	// (WatchListClient) or list, then watch; either way there is a watch.
	if watches := c.Wire.find("GET /api/v1/configmaps "); !slices.ContainsFunc(watches, func(s string) bool { return strings.Contains(s, "watch=true") }) {
		t.Errorf("the informer on the wire: %q; want a watch", watches)
	}
}

func names(items []corev1.ConfigMap) []string {
	var out []string
	for _, i := range items {
		out = append(out, i.Name)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
