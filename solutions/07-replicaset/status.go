package replicaset

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// Status is the status rs should have.
func Status(rs *api.ReplicaSet, pods []*api.Pod, manageErr error, now time.Time) api.ReplicaSetStatus {
	panic("todo")
}
