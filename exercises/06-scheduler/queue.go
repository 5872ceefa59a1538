package scheduler

import (
	"github.com/kubekata/kubekata/harness/framework"
)

// NewQueue returns an empty scheduling queue.
func NewQueue() framework.Queue {
	// TODO: return an empty queue with an active queue, a back-off queue and an unschedulable set (tasks 13-14).
	panic("not implemented: NewQueue")
}
