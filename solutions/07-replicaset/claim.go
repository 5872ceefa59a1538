package replicaset

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
)

// Claim decides which pods rs owns, adopts and releases.
func Claim(rs *api.ReplicaSet, pods []*api.Pod) replicas.Claim { panic("todo") }
