package kubelets

import (
	"github.com/kubekata/kubekata/harness/api"
)

// ShouldRestartFunc says whether the container named container of pod,
// not running as far as the spec goes, must be started (again), as
// upstream's ShouldContainerBeRestarted (pkg/kubelet/container/helpers.go),
// which computePodActions asks for every container it does not find
// running. The first rule that applies decides:
//
// Rule 1. The pod is being deleted (deletionTimestamp set): false,
// whatever its containers are; the kubelet only stops them now.
//
// Rule 2. The runtime has no container of that name (never created, or
// all removed): true.
//
// The newest container of that name decides the rules below: the first
// in rt.Containers (newest first) whose Metadata.Name is container, as
// upstream's FindContainerStatusByName; older ones of the same name (the
// earlier runs) count for nothing here.
//
// Rule 3. The newest is running (CONTAINER_RUNNING): false.
//
// Rule 4. The newest is created but was never started
// (CONTAINER_CREATED), or in an unknown state (CONTAINER_UNKNOWN): true,
// whatever the restartPolicy.
//
// Rule 5. The newest exited and the pod's restartPolicy is Never: false.
//
// Rule 6. The newest exited and the restartPolicy is OnFailure: true
// only when its exit code is not 0.
//
// Rule 7. The newest exited and the restartPolicy is Always (or empty,
// which the apiserver defaults to Always): true, whatever its exit code.
//
// Where the kata simplifies on purpose: a container's own restartPolicy
// (sidecars) and restart rules are not read; only the pod's counts.
type ShouldRestartFunc func(pod api.Pod, container string, rt RuntimePod) bool
