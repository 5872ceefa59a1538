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

// ControllerManager runs controllers side by side, as
// kube-controller-manager runs its loops (cmd/kube-controller-manager/
// app/controllermanager.go, StartControllers: one goroutine each): the
// exercises 07 to 11 each add theirs to the list the cluster program
// makes. It is the Component of Parts.Controllers.
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
