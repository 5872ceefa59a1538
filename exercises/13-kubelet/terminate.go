package kubelet

import (
	"context"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// Termination (rule 8): a pod being deleted (kubelet.go:
// SyncTerminatingPod, SyncTerminatedPod; status/status_manager.go:
// canBeDeleted and its final Delete), a pod gone whose sandbox is left
// (kubelet_pods.go: HandlePodCleanups, killing an orphan with a grace
// override of 1), and a static pod whose file is gone.

// terminate stops pod, which has a deletionTimestamp: its running
// containers (preStop first, each with its grace), then its sandboxes;
// once nothing of it runs, its status is written, it is deleted with
// grace 0 and its UID as precondition, and its containers and sandboxes
// are removed. It reports whether the pod is done with.
func (k *kubelet) terminate(ctx context.Context, w *podWorker, pod *api.Pod, rt kubelets.RuntimePod) bool {
	// TODO: killPod with the grace; readRuntime; still running: wait for the next sync; else writeStatus (terminal), Delete with grace 0 and a UID precondition (NotFound is done), then removeAll (task 15; rule 8).
	// Until task 15: nothing stopped or deleted, not done (syncWorker, task 11, calls this).
	return false
}

// running says whether any container or sandbox of rt runs.
func running(rt kubelets.RuntimePod) bool {
	// TODO: whether a container is running or a sandbox Ready (task 15).
	panic("not implemented: running")
}

// removeAll removes every container, then every sandbox of rt, and
// reports whether all went.
func (k *kubelet) removeAll(ctx context.Context, rt kubelets.RuntimePod) bool {
	// TODO: RemoveContainer each container, then RemovePodSandbox each sandbox (task 15; rule 8).
	panic("not implemented: removeAll")
}

// cleanupOrphan stops and removes what the runtime has of a pod the
// kubelet has no spec for: its running containers with
// OrphanGracePeriodSeconds, its sandboxes, then everything of it. It
// reports whether nothing is left.
func (k *kubelet) cleanupOrphan(ctx context.Context, rt kubelets.RuntimePod) bool {
	// TODO: nothing left: done; else stop the running containers with OrphanGracePeriodSeconds, the sandboxes, then removeAll (task 15; rule 8).
	// Until task 15: nothing stopped or removed, not done (syncWorker, task 11, calls this).
	return false
}

// stopStatic stops the static pod of w, whose file is gone, as a pod
// being deleted (its grace, preStop first), removes what the runtime
// has of it, and deletes its mirror pod (rule 9). It reports whether
// nothing is left.
func (k *kubelet) stopStatic(ctx context.Context, w *podWorker, rt kubelets.RuntimePod) bool {
	// TODO: killPod with w.staticPod's grace; once nothing runs delete its mirror and removeAll (task 16; rule 9).
	// Until task 16: nothing stopped or deleted, not done (syncWorker, task 11, calls this).
	return false
}
