// Package client is the contract every component uses to talk to the
// apiserver: the scheduler, the controllers and the kubelet get an
// Interface and never touch the store (seed 000: every component talks
// only to the apiserver).
//
// There are two implementations:
//
//   - HTTP (New) speaks Kubernetes' REST paths and JSON to an apiserver,
//     the learner's or the reference, or a real cluster;
//   - Fake (NewFake) keeps objects in an in-memory storage.Store, with the
//     same revisions, conflicts and watch semantics, for fast unit tests of
//     the components that use a client.
//
// Errors from the server are *api.Status values (as upstream's
// StatusError); IsNotFound, IsConflict, IsAlreadyExists, IsGone and
// IsInvalid test for the common ones.
//
// The untyped Interface works on api.Object and an api.Kind; For gives a
// typed view over one kind:
//
//	pods := client.For[*api.Pod](c)
//	pod, err := pods.Get(ctx, "default", "web")
package client

import (
	"context"
	"fmt"
	"reflect"

	"github.com/kubekata/kubekata/harness/api"
)

// Interface is the API client contract.
type Interface interface {
	// Get reads one object. A namespace is ignored for a cluster-scoped
	// kind.
	Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error)
	// List reads the objects of a kind in a namespace ("" for all
	// namespaces or for a cluster-scoped kind).
	List(ctx context.Context, kind api.Kind, namespace string, opts ListOptions) (*ObjectList, error)
	// Create stores a new object and returns it as the server stored it
	// (with uid, creationTimestamp and resourceVersion set).
	Create(ctx context.Context, obj api.Object) (api.Object, error)
	// Update replaces an object's spec and metadata. A resourceVersion in
	// obj must match the stored one, or the update fails with a Conflict.
	Update(ctx context.Context, obj api.Object) (api.Object, error)
	// UpdateStatus replaces an object's status through the status
	// subresource; spec changes in obj are ignored.
	UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error)
	// Delete deletes an object, or marks it for deletion when it has
	// finalizers or a grace period.
	Delete(ctx context.Context, kind api.Kind, namespace, name string, opts DeleteOptions) error
	// Watch streams the changes to a kind after opts.ResourceVersion, or
	// the current objects as ADDED events first when it is empty.
	Watch(ctx context.Context, kind api.Kind, namespace string, opts ListOptions) (Watcher, error)
	// Bind assigns a pod to a node through the pods/binding subresource.
	Bind(ctx context.Context, namespace, pod, node string) error
	// Finalize writes a namespace's spec.finalizers through the
	// namespaces/{name}/finalize subresource; the apiserver removes a
	// namespace being deleted once they and metadata.finalizers are empty.
	Finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error)
}

// ListOptions narrow a List or a Watch.
type ListOptions struct {
	// LabelSelector is a selector string such as "app=web,tier!=db".
	LabelSelector string
	// FieldSelector is a field selector string such as
	// "spec.nodeName=node-1".
	FieldSelector string
	// Limit caps the number of items of a List; Continue, from the
	// previous page's ObjectList.Continue, asks for the next page.
	Limit    int64
	Continue string
	// ResourceVersion is where a Watch starts (events after it).
	ResourceVersion string
	// AllowWatchBookmarks asks for BOOKMARK events.
	AllowWatchBookmarks bool
}

// DeleteOptions are the options of a Delete: preconditions, propagation
// policy and grace period, as upstream's DeleteOptions.
type DeleteOptions = api.DeleteOptions

// ObjectList is one page of a List.
type ObjectList struct {
	// ResourceVersion is the store revision the list was read at; a
	// Watch from it misses nothing.
	ResourceVersion string
	// Continue is set when there are more items to read.
	Continue string
	Items    []api.Object
}

// Event is one change seen by a Watch.
type Event struct {
	Type api.WatchEventType
	// Object is the object after the change (for DELETED, the last state
	// before it). For BOOKMARK only its resourceVersion is set. For ERROR
	// it is nil and Status says what went wrong.
	Object api.Object
	Status *api.Status
}

// Watcher is a running watch. ResultChan is closed when the watch ends:
// after Stop, when its context ends, or when the server closes it.
type Watcher interface {
	ResultChan() <-chan Event
	Stop()
}

// Typed is a view of an Interface over one kind, T being a pointer type
// such as *api.Pod.
type Typed[T api.Object] struct {
	c    Interface
	kind api.Kind
}

// For returns the typed view of c for T's kind. It panics if T is not a
// registered kind: that is a programming error, not a run-time one.
func For[T api.Object](c Interface) Typed[T] {
	var zero T
	var k api.Kind
	ok := false
	if t := reflect.TypeOf(zero); t != nil && t.Kind() == reflect.Pointer {
		// KindOf needs a non-nil value of the type.
		k, ok = api.KindOf(reflect.New(t.Elem()).Interface().(api.Object))
	}
	if !ok {
		panic(fmt.Sprintf("client: %T is not a registered kind", zero))
	}
	return Typed[T]{c: c, kind: k}
}

// Kind is the kind the view works on.
func (t Typed[T]) Kind() api.Kind { return t.kind }

// Get reads one object.
func (t Typed[T]) Get(ctx context.Context, namespace, name string) (T, error) {
	o, err := t.c.Get(ctx, t.kind, namespace, name)
	return as[T](o, err)
}

// List reads the objects of the kind; the ObjectList's ResourceVersion and
// Continue come back beside the items.
func (t Typed[T]) List(ctx context.Context, namespace string, opts ListOptions) ([]T, *ObjectList, error) {
	l, err := t.c.List(ctx, t.kind, namespace, opts)
	if err != nil {
		return nil, nil, err
	}
	items := make([]T, 0, len(l.Items))
	for _, o := range l.Items {
		v, ok := o.(T)
		if !ok {
			return nil, nil, fmt.Errorf("client: list item is %T, want %T", o, v)
		}
		items = append(items, v)
	}
	return items, l, nil
}

// Create stores a new object.
func (t Typed[T]) Create(ctx context.Context, obj T) (T, error) {
	o, err := t.c.Create(ctx, obj)
	return as[T](o, err)
}

// Update replaces an object.
func (t Typed[T]) Update(ctx context.Context, obj T) (T, error) {
	o, err := t.c.Update(ctx, obj)
	return as[T](o, err)
}

// UpdateStatus replaces an object's status.
func (t Typed[T]) UpdateStatus(ctx context.Context, obj T) (T, error) {
	o, err := t.c.UpdateStatus(ctx, obj)
	return as[T](o, err)
}

// Delete deletes an object.
func (t Typed[T]) Delete(ctx context.Context, namespace, name string, opts DeleteOptions) error {
	return t.c.Delete(ctx, t.kind, namespace, name, opts)
}

// Watch watches the kind.
func (t Typed[T]) Watch(ctx context.Context, namespace string, opts ListOptions) (Watcher, error) {
	return t.c.Watch(ctx, t.kind, namespace, opts)
}

func as[T api.Object](o api.Object, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	v, ok := o.(T)
	if !ok {
		return zero, fmt.Errorf("client: got %T, want %T", o, zero)
	}
	return v, nil
}
