package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
)

// Fake is an Interface over an in-memory storage.Store, for unit tests of
// the components that use a client (scheduler, controllers, kubelet). It
// keeps the semantics those components rely on: resourceVersion is the
// store's mod_revision, stale updates conflict, an update that changes
// nothing writes nothing (no new resourceVersion, no watch event; it is
// still recorded in Actions), creates of an existing name fail, status
// and spec are updated separately, finalizers hold a
// delete, selectors and paging filter lists, watches start from a
// resourceVersion. It skips what belongs to the apiserver exercise:
// validation, admission, Table and discovery.
type Fake struct {
	store storage.Store
	// Now is the clock for creationTimestamp and deletionTimestamp.
	Now func() time.Time

	mu sync.Mutex
	// Actions records every call, as "create pods default/web", for tests
	// that check what a component did.
	actions []string
}

var _ Interface = (*Fake)(nil)

// NewFake returns an empty fake.
func NewFake() *Fake {
	return &Fake{store: storage.NewMemory(), Now: time.Now}
}

// Store is the fake's store, for tests that want to look inside or to
// compact it.
func (f *Fake) Store() storage.Store { return f.store }

// Actions returns the calls made so far.
func (f *Fake) Actions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.actions...)
}

func (f *Fake) record(verb string, kind api.Kind, namespace, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	what := name
	if namespace != "" {
		what = namespace + "/" + name
	}
	f.actions = append(f.actions, fmt.Sprintf("%s %s %s", verb, kind.Resource, what))
}

func fakeKey(kind api.Kind, namespace, name string) string {
	if kind.Namespaced {
		return "/registry/" + kind.Resource + "/" + namespace + "/" + name
	}
	return "/registry/" + kind.Resource + "/" + name
}

func fakePrefix(kind api.Kind, namespace string) string {
	if kind.Namespaced && namespace != "" {
		return "/registry/" + kind.Resource + "/" + namespace + "/"
	}
	return "/registry/" + kind.Resource + "/"
}

func fakeLoad(kind api.Kind, kv storage.KeyValue) (api.Object, error) {
	obj := kind.New()
	if err := json.Unmarshal(kv.Value, obj); err != nil {
		return nil, fmt.Errorf("client: fake: decoding %s: %w", kv.Key, err)
	}
	fillTypeMeta(kind, obj)
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	return obj, nil
}

// fakeEncode encodes an object the fake owns (a copy it made or loaded)
// without its resourceVersion: the store's revision is the version.
func fakeEncode(obj api.Object) ([]byte, error) {
	m := obj.GetObjectMeta()
	rv := m.ResourceVersion
	m.ResourceVersion = ""
	data, err := json.Marshal(obj)
	m.ResourceVersion = rv
	return data, err
}

func (f *Fake) storeErr(kind api.Kind, name string, err error) error {
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return NewNotFound(kind, name)
	case errors.Is(err, storage.ErrExists):
		return NewAlreadyExists(kind, name)
	case errors.Is(err, storage.ErrConflict):
		return NewConflict(kind, name, ConflictMessage)
	case errors.Is(err, storage.ErrCompacted):
		return NewExpired(err.Error())
	}
	return err
}

func (f *Fake) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	f.record("get", kind, namespace, name)
	kv, err := f.store.Get(ctx, fakeKey(kind, namespace, name))
	if err != nil {
		return nil, f.storeErr(kind, name, err)
	}
	return fakeLoad(kind, kv)
}

func (f *Fake) List(ctx context.Context, kind api.Kind, namespace string, opts ListOptions) (*ObjectList, error) {
	f.record("list", kind, namespace, "")
	match, err := fakeMatcher(opts)
	if err != nil {
		return nil, err
	}
	pre := fakePrefix(kind, namespace)
	var rev int64
	start := ""
	if opts.Continue != "" {
		r, s, ok := parseFakeContinue(opts.Continue)
		if !ok {
			return nil, NewBadRequest("continue key is not valid")
		}
		rev, start = r, s
	}
	resp, err := f.store.Range(ctx, storage.RangeRequest{Prefix: pre, Start: start, Revision: rev})
	if err != nil {
		return nil, f.storeErr(kind, "", err)
	}
	out := &ObjectList{ResourceVersion: strconv.FormatInt(resp.Revision, 10)}
	for i, kv := range resp.KVs {
		obj, err := fakeLoad(kind, kv)
		if err != nil {
			return nil, err
		}
		if !match(obj) {
			continue
		}
		out.Items = append(out.Items, obj)
		if opts.Limit > 0 && int64(len(out.Items)) == opts.Limit && i < len(resp.KVs)-1 {
			out.Continue = fmt.Sprintf("%d/%s", resp.Revision, kv.Key+"\x00")
			break
		}
	}
	return out, nil
}

func parseFakeContinue(s string) (int64, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			rev, err := strconv.ParseInt(s[:i], 10, 64)
			return rev, s[i+1:], err == nil
		}
	}
	return 0, "", false
}

// fakeMatcher applies label and field selectors. Field values are read
// from the object's JSON by path (spec.nodeName, status.phase, ...).
func fakeMatcher(opts ListOptions) (func(api.Object) bool, error) {
	ls, err := ParseSelector(opts.LabelSelector)
	if err != nil {
		return nil, NewBadRequest(err.Error())
	}
	fs, err := ParseFieldSelector(opts.FieldSelector)
	if err != nil {
		return nil, NewBadRequest(err.Error())
	}
	return func(obj api.Object) bool {
		if !ls.MatchesLabels(obj.GetObjectMeta().Labels) {
			return false
		}
		if fs.Empty() {
			return true
		}
		data, _ := json.Marshal(obj)
		var doc map[string]any
		_ = json.Unmarshal(data, &doc)
		return fs.Matches(func(path string) (string, bool) { return jsonField(doc, path), true })
	}, nil
}

func jsonField(doc map[string]any, path string) string {
	var cur any = doc
	start := 0
	for i := 0; i <= len(path); i++ {
		if i == len(path) || path[i] == '.' {
			m, ok := cur.(map[string]any)
			if !ok {
				return ""
			}
			cur = m[path[start:i]]
			start = i + 1
		}
	}
	switch v := cur.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

func fakeUID() api.UID {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return api.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:]))
}

func (f *Fake) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	kind, err := kindOf(obj)
	if err != nil {
		return nil, err
	}
	obj = api.DeepCopy(obj)
	fillTypeMeta(kind, obj)
	m := obj.GetObjectMeta()
	if !kind.Namespaced {
		m.Namespace = ""
	} else if m.Namespace == "" {
		m.Namespace = "default"
	}
	generated := m.Name == "" && m.GenerateName != ""
	if generated {
		m.Name = m.GenerateName + nameSuffix()
	}
	f.record("create", kind, m.Namespace, m.Name)
	if m.ResourceVersion != "" {
		// As the apiserver's store (k8s.io/apiserver/pkg/storage/etcd3/store.go).
		return nil, &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
			Code: http.StatusInternalServerError, Message: "resourceVersion should not be set on objects to be created"}
	}
	if m.Name == "" {
		return nil, &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
			Code: http.StatusUnprocessableEntity, Reason: api.StatusReasonInvalid,
			Message: fmt.Sprintf("%s %q is invalid: metadata.name: Required value: name or generateName is required", kind.Kind, "")}
	}
	if ns, ok := obj.(*api.Namespace); ok {
		// As the apiserver's namespace strategy (PrepareForCreate in
		// pkg/registry/core/namespace/strategy.go): a new namespace is
		// Active and held by the namespace controller's finalizer.
		ns.Status = api.NamespaceStatus{Phase: api.NamespaceActive}
		if !slices.Contains(ns.Spec.Finalizers, api.FinalizerKubernetes) {
			ns.Spec.Finalizers = append(ns.Spec.Finalizers, api.FinalizerKubernetes)
		}
	}
	m.UID = fakeUID()
	m.CreationTimestamp = api.NewTime(f.Now().Truncate(time.Second))
	m.DeletionTimestamp = nil
	m.Generation = 0
	if reflect.ValueOf(obj).Elem().FieldByName("Spec").IsValid() {
		// generation counts spec changes; kinds without a spec have none.
		m.Generation = 1
	}
	data, err := fakeEncode(obj)
	if err != nil {
		return nil, err
	}
	kv, err := storage.Create(ctx, f.store, fakeKey(kind, m.Namespace, m.Name), data)
	// A generated name that is taken is generated again, up to 8 tries in
	// all, as the apiserver does (maxNameGenerationCreateAttempts,
	// k8s.io/apiserver/pkg/registry/generic/registry/store.go): 27^5
	// suffixes collide for one in a hundred among 600 pods of one prefix.
	for try := 1; generated && errors.Is(err, storage.ErrExists) && try < maxNameGenerationCreateAttempts; try++ {
		m.Name = m.GenerateName + nameSuffix()
		if data, err = fakeEncode(obj); err != nil {
			return nil, err
		}
		kv, err = storage.Create(ctx, f.store, fakeKey(kind, m.Namespace, m.Name), data)
	}
	if err != nil {
		return nil, f.storeErr(kind, m.Name, err)
	}
	m.ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	return obj, nil
}

// maxNameGenerationCreateAttempts is how often a create with a
// generateName is tried, each time with a new name (upstream's).
const maxNameGenerationCreateAttempts = 8

// nameSuffix is upstream's generateName suffix: 5 characters from an
// alphabet without vowels and look-alikes
// (k8s.io/apiserver/pkg/storage/names/generate.go).
var nameSuffix = func() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var b [5]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

func (f *Fake) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return f.update(ctx, obj, "")
}

func (f *Fake) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return f.update(ctx, obj, "status")
}

// Finalize is an update through namespaces/{name}/finalize: only
// spec.finalizers (and the metadata an update may change) are taken.
func (f *Fake) Finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	out, err := f.update(ctx, ns, "finalize")
	if err != nil {
		return nil, err
	}
	return out.(*api.Namespace), nil
}

// update writes obj through the main resource (sub ""), the status
// subresource or, for a namespace, the finalize subresource.
func (f *Fake) update(ctx context.Context, obj api.Object, sub string) (api.Object, error) {
	kind, err := kindOf(obj)
	if err != nil {
		return nil, err
	}
	if sub == "finalize" && kind.Resource != "namespaces" {
		return nil, NewNotFound(kind, obj.GetObjectMeta().Name)
	}
	status := sub == "status"
	m := obj.GetObjectMeta()
	verb := "update"
	switch sub {
	case "status":
		verb = "update-status"
	case "finalize":
		verb = "finalize"
	}
	f.record(verb, kind, m.Namespace, m.Name)
	k := fakeKey(kind, m.Namespace, m.Name)
	for {
		kv, err := f.store.Get(ctx, k)
		if err != nil {
			return nil, f.storeErr(kind, m.Name, err)
		}
		old, err := fakeLoad(kind, kv)
		if err != nil {
			return nil, err
		}
		om := old.GetObjectMeta()
		if m.ResourceVersion != "" && m.ResourceVersion != om.ResourceVersion {
			return nil, NewConflict(kind, m.Name, ConflictMessage)
		}
		next, err := mergeForUpdate(kind, old, obj, status)
		if err != nil {
			return nil, err
		}
		held := false
		if ns, ok := next.(*api.Namespace); ok {
			// The namespace strategies: an update of the namespace keeps
			// its spec.finalizers, which only finalize may change; the
			// namespace goes only once they are empty too
			// (ShouldDeleteNamespaceDuringUpdate).
			if sub == "" {
				ns.Spec.Finalizers = old.(*api.Namespace).Spec.Finalizers
			}
			held = len(ns.Spec.Finalizers) > 0
		}
		nm := next.GetObjectMeta()
		if !held && nm.DeletionTimestamp != nil && len(nm.Finalizers) == 0 && (nm.DeletionGracePeriodSeconds == nil || *nm.DeletionGracePeriodSeconds == 0) {
			_, _, err := storage.CompareAndDelete(ctx, f.store, k, kv.ModRevision)
			if errors.Is(err, storage.ErrConflict) && m.ResourceVersion == "" {
				continue
			}
			if err != nil {
				return nil, f.storeErr(kind, m.Name, err)
			}
			return next, nil
		}
		data, err := fakeEncode(next)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(data, kv.Value) {
			// Nothing changed: no write, no new resourceVersion, no
			// event for the watchers, as the apiserver does
			// (GuaranteedUpdate in k8s.io/apiserver's
			// storage/etcd3/store.go).
			nm.ResourceVersion = om.ResourceVersion
			return next, nil
		}
		nkv, err := storage.CompareAndSwap(ctx, f.store, k, data, kv.ModRevision)
		if errors.Is(err, storage.ErrConflict) && m.ResourceVersion == "" {
			continue
		}
		if err != nil {
			return nil, f.storeErr(kind, m.Name, err)
		}
		nm.ResourceVersion = strconv.FormatInt(nkv.ModRevision, 10)
		return next, nil
	}
}

// mergeForUpdate keeps the server-owned metadata, and applies only the
// status (UpdateStatus) or everything but the status (Update). old is the
// fake's own fresh copy of the stored object; obj is the caller's and is
// not changed. The result goes through JSON (what the apiserver stores)
// so that it is returned as it will be read back.
func mergeForUpdate(kind api.Kind, old, obj api.Object, status bool) (api.Object, error) {
	var next api.Object
	if status {
		// A write to the status subresource takes the new status and the
		// new metadata, but keeps the stored spec, as the apiserver's
		// status strategies do; they also keep a pod's ownerReferences
		// and the labels of a Deployment or ReplicaSet
		// (pkg/registry/core/pod/strategy.go, pkg/registry/apps/*/
		// strategy.go, PrepareForUpdate). The server-owned metadata is
		// kept below for both doors.
		next = api.DeepCopy(obj)
		if sp := reflect.ValueOf(old).Elem().FieldByName("Spec"); sp.IsValid() {
			reflect.ValueOf(next).Elem().FieldByName("Spec").Set(reflect.ValueOf(api.DeepCopyValue(sp.Interface())))
		}
		om, nm := old.GetObjectMeta(), next.GetObjectMeta()
		switch kind.Resource {
		case "pods":
			nm.OwnerReferences = om.OwnerReferences
		case "deployments", "replicasets":
			nm.Labels = om.Labels
		}
	} else {
		next = api.DeepCopy(obj)
		if kind.HasSubresource("status") {
			if st := reflect.ValueOf(old).Elem().FieldByName("Status"); st.IsValid() {
				reflect.ValueOf(next).Elem().FieldByName("Status").Set(st)
			}
		}
	}
	fillTypeMeta(kind, next)
	o, n := old.GetObjectMeta(), next.GetObjectMeta()
	generation := o.Generation
	if !status {
		// generation counts spec changes, compared as the apiserver
		// stores them (JSON: a nil and an empty list are the same).
		if oldSpec := reflect.ValueOf(old).Elem().FieldByName("Spec"); oldSpec.IsValid() {
			os, _ := json.Marshal(oldSpec.Interface())
			ns, _ := json.Marshal(reflect.ValueOf(obj).Elem().FieldByName("Spec").Interface())
			if string(os) != string(ns) {
				generation++
			}
		}
	}
	uid, created, namespace := o.UID, o.CreationTimestamp, o.Namespace
	deletion, grace := o.DeletionTimestamp, o.DeletionGracePeriodSeconds
	n.UID, n.CreationTimestamp, n.Namespace = uid, created, namespace
	n.DeletionTimestamp, n.DeletionGracePeriodSeconds = deletion, grace
	n.Generation = generation
	data, err := json.Marshal(next)
	if err != nil {
		return nil, err
	}
	out := kind.New()
	if err := json.Unmarshal(data, out); err != nil {
		return nil, err
	}
	fillTypeMeta(kind, out)
	return out, nil
}

func (f *Fake) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts DeleteOptions) error {
	f.record("delete", kind, namespace, name)
	k := fakeKey(kind, namespace, name)
	for {
		kv, err := f.store.Get(ctx, k)
		if err != nil {
			return f.storeErr(kind, name, err)
		}
		obj, err := fakeLoad(kind, kv)
		if err != nil {
			return err
		}
		m := obj.GetObjectMeta()
		if pc := opts.Preconditions; pc != nil {
			if pc.UID != nil && *pc.UID != m.UID {
				return NewConflict(kind, name, fmt.Sprintf("Precondition failed: UID in precondition: %s, UID in object meta: %s", *pc.UID, m.UID))
			}
			if pc.ResourceVersion != nil && *pc.ResourceVersion != m.ResourceVersion {
				return NewConflict(kind, name, fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s", *pc.ResourceVersion, m.ResourceVersion))
			}
		}
		if p := opts.PropagationPolicy; p != nil {
			switch *p {
			case api.DeletePropagationForeground:
				m.Finalizers = appendOnce(m.Finalizers, api.FinalizerDeleteDependents)
			case api.DeletePropagationOrphan:
				m.Finalizers = appendOnce(m.Finalizers, api.FinalizerOrphanDependents)
			}
		}
		if ns, ok := obj.(*api.Namespace); ok {
			// A namespace is deleted in two steps (Delete in
			// pkg/registry/core/namespace/storage/storage.go): the first
			// DELETE marks it Terminating; later ones do nothing while
			// spec.finalizers holds it, and delete it as any object
			// once they are empty.
			if m.DeletionTimestamp == nil {
				t := api.NewTime(f.Now().Truncate(time.Second))
				m.DeletionTimestamp = &t
				ns.Status.Phase = api.NamespaceTerminating
				data, err := fakeEncode(obj)
				if err != nil {
					return err
				}
				_, err = storage.CompareAndSwap(ctx, f.store, k, data, kv.ModRevision)
				if errors.Is(err, storage.ErrConflict) {
					continue
				}
				if err != nil {
					return f.storeErr(kind, name, err)
				}
				return nil
			}
			if len(ns.Spec.Finalizers) > 0 {
				return nil
			}
		}
		grace := int64(0)
		if pod, ok := obj.(*api.Pod); ok && pod.Spec.NodeName != "" && pod.Status.Phase != api.PodSucceeded && pod.Status.Phase != api.PodFailed {
			grace = 30
			if pod.Spec.TerminationGracePeriodSeconds != nil {
				grace = *pod.Spec.TerminationGracePeriodSeconds
			}
			if opts.GracePeriodSeconds != nil {
				grace = max(*opts.GracePeriodSeconds, 0)
			}
		}
		if len(m.Finalizers) == 0 && grace == 0 {
			_, _, err := storage.CompareAndDelete(ctx, f.store, k, kv.ModRevision)
			if errors.Is(err, storage.ErrConflict) {
				continue
			}
			if err != nil {
				return f.storeErr(kind, name, err)
			}
			return nil
		}
		if m.DeletionTimestamp != nil && (m.DeletionGracePeriodSeconds == nil || *m.DeletionGracePeriodSeconds <= grace) {
			return nil // already being deleted
		}
		t := api.NewTime(f.Now().Truncate(time.Second).Add(time.Duration(grace) * time.Second))
		m.DeletionTimestamp = &t
		m.DeletionGracePeriodSeconds = &grace
		data, err := fakeEncode(obj)
		if err != nil {
			return err
		}
		_, err = storage.CompareAndSwap(ctx, f.store, k, data, kv.ModRevision)
		if errors.Is(err, storage.ErrConflict) {
			continue
		}
		if err != nil {
			return f.storeErr(kind, name, err)
		}
		return nil
	}
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func (f *Fake) Bind(ctx context.Context, namespace, pod, node string) error {
	podKind, _ := api.LookupResource("", "v1", "pods")
	f.record("bind", podKind, namespace, pod)
	k := fakeKey(podKind, namespace, pod)
	for {
		kv, err := f.store.Get(ctx, k)
		if err != nil {
			return f.storeErr(podKind, pod, err)
		}
		obj, err := fakeLoad(podKind, kv)
		if err != nil {
			return err
		}
		p := obj.(*api.Pod)
		if p.Spec.NodeName != "" {
			return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
				Code: http.StatusConflict, Reason: api.StatusReasonConflict,
				Message: fmt.Sprintf("Operation cannot be fulfilled on pods/binding %q: pod %s is already assigned to node %q", pod, pod, p.Spec.NodeName)}
		}
		p.Spec.NodeName = node
		cond := api.PodCondition{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(f.Now().Truncate(time.Second))}
		replaced := false
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == api.PodScheduled {
				p.Status.Conditions[i] = cond
				replaced = true
			}
		}
		if !replaced {
			p.Status.Conditions = append(p.Status.Conditions, cond)
		}
		data, err := fakeEncode(p)
		if err != nil {
			return err
		}
		_, err = storage.CompareAndSwap(ctx, f.store, k, data, kv.ModRevision)
		if errors.Is(err, storage.ErrConflict) {
			continue
		}
		if err != nil {
			return f.storeErr(podKind, pod, err)
		}
		return nil
	}
}

func (f *Fake) Watch(ctx context.Context, kind api.Kind, namespace string, opts ListOptions) (Watcher, error) {
	f.record("watch", kind, namespace, "")
	match, err := fakeMatcher(opts)
	if err != nil {
		return nil, err
	}
	pre := fakePrefix(kind, namespace)
	var initial []api.Object
	var from int64
	if opts.ResourceVersion == "" || opts.ResourceVersion == "0" {
		resp, err := f.store.Range(ctx, storage.RangeRequest{Prefix: pre})
		if err != nil {
			return nil, f.storeErr(kind, "", err)
		}
		for _, kv := range resp.KVs {
			obj, err := fakeLoad(kind, kv)
			if err != nil {
				return nil, err
			}
			if match(obj) {
				initial = append(initial, obj)
			}
		}
		from = resp.Revision + 1
	} else {
		rv, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
		if err != nil {
			return nil, NewBadRequest(fmt.Sprintf("resourceVersion: invalid value %q", opts.ResourceVersion))
		}
		from = rv + 1
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &fakeWatcher{ch: make(chan Event), cancel: cancel, done: make(chan struct{})}
	sw, err := f.store.Watch(ctx, pre, from)
	if err != nil {
		if !errors.Is(err, storage.ErrCompacted) {
			cancel()
			return nil, f.storeErr(kind, "", err)
		}
		// As the real apiserver: the watch opens, and its first event
		// is an ERROR with 410 Expired.
		go func() {
			defer close(w.done)
			defer close(w.ch)
			select {
			case w.ch <- Event{Type: api.WatchError, Status: NewExpired(fmt.Sprintf("too old resource version: %d (%v)", from-1, err))}:
			case <-ctx.Done():
			}
		}()
		return w, nil
	}
	go func() {
		defer close(w.done)
		defer close(w.ch)
		send := func(ev Event) bool {
			select {
			case w.ch <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for _, obj := range initial {
			if !send(Event{Type: api.WatchAdded, Object: obj}) {
				return
			}
		}
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-sw.Events():
				if !ok {
					return
				}
				var prev api.Object
				if ev.PrevKV != nil {
					if p, err := fakeLoad(kind, *ev.PrevKV); err == nil && match(p) {
						prev = p
					}
				}
				var out Event
				if ev.Type == storage.EventDelete {
					if prev == nil {
						continue
					}
					prev.GetObjectMeta().ResourceVersion = strconv.FormatInt(ev.KV.ModRevision, 10)
					out = Event{Type: api.WatchDeleted, Object: prev}
				} else {
					cur, err := fakeLoad(kind, ev.KV)
					if err != nil {
						continue
					}
					switch {
					case match(cur) && prev != nil:
						out = Event{Type: api.WatchModified, Object: cur}
					case match(cur):
						out = Event{Type: api.WatchAdded, Object: cur}
					case prev != nil:
						out = Event{Type: api.WatchDeleted, Object: cur}
					default:
						continue
					}
				}
				if !send(out) {
					return
				}
			}
		}
	}()
	return w, nil
}

type fakeWatcher struct {
	ch     chan Event
	cancel context.CancelFunc
	once   sync.Once
	done   chan struct{}
}

func (w *fakeWatcher) ResultChan() <-chan Event { return w.ch }

func (w *fakeWatcher) Stop() {
	w.once.Do(w.cancel)
	<-w.done
}
