package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Controller is one reconciler of the controller manager: upstream's
// name for it ("replicaset-controller", replicas.ControllerName) and
// its running loop.
type Controller struct {
	Name string
	Component
}

// NewController is the controller name made by newFn, an exercise's
// New, from dir ("exercises/08-garbagecollector"). A panic in newFn (a
// stub's "not implemented") is that exercise's: it goes on as a
// *NotDoneError naming dir, so that a cluster whose manager runs several
// controllers says which one is not done.
func NewController(name, dir string, newFn func() Component) Controller {
	c, err := call(dir, "New", func() (Component, error) { return newFn(), nil })
	if err != nil {
		panic(err) // Run's call passes a *NotDoneError on as it is
	}
	return Controller{Name: name, Component: c}
}

// NamespaceControllerName names the one entry of exercise 12's New, which
// runs two of kube-controller-manager's loops: upstream's
// names.NamespaceController and names.ServiceAccountController
// (cmd/kube-controller-manager/names/controller_names.go).
const NamespaceControllerName = "namespace-controller and serviceaccount-controller"

// ControllerManager runs controllers side by side, as
// kube-controller-manager runs its loops (cmd/kube-controller-manager/
// app/controllermanager.go, StartControllers: one goroutine each): the
// exercises 07 to 12 each add theirs to the list the cluster program
// makes (07's ReplicaSet controller, 08's garbage collector, 09's
// Deployment controller, which rolls a Deployment out through
// ReplicaSets that 07's controller fills with pods, 10's Job controller
// with the TTL-after-finished controller, one entry since one New starts
// both, whose TTL deletion in the foreground needs 08 to take a Job's
// pods, and 11's node lifecycle controller with the taint eviction
// controller, one entry too, made with the options of Parts.NodeLifecycle,
// whose pods evicted from an unreachable node 07 replaces, and 12's
// namespace controller with the ServiceAccount controller, one entry
// too, NamespaceControllerName, which empties a deleted namespace of
// every kind and gives each namespace its default ServiceAccount). It is
// the Component of Parts.Controllers.
type ControllerManager []Controller

// Run starts every controller and returns once each has returned. A
// controller that returns or panics while ctx is still running has
// failed: the others are stopped and Run returns that failure, naming
// the controller, so that the cluster stops in order. A nil controller
// is refused before any starts.
func (m ControllerManager) Run(ctx context.Context) error {
	for _, c := range m {
		if isNil(c.Component) {
			return fmt.Errorf("%s: New returned a nil controller", c.Name)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for _, c := range m {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := runComponent(ctx, c.Component)
			if ctx.Err() != nil {
				return // stopped, as asked
			}
			if err == nil {
				err = errors.New("returned while the cluster was running")
			}
			once.Do(func() {
				first = fmt.Errorf("%s: %w", c.Name, err)
				cancel()
			})
		}()
	}
	wg.Wait()
	return first
}
