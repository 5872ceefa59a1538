// Package replicaset is the reference ReplicaSet controller of exercise 07.
package replicaset

import "github.com/kubekata/kubekata/harness/api"

// NewPod returns the pod a ReplicaSet creates from its template.
func NewPod(rs *api.ReplicaSet) *api.Pod { panic("todo") }
