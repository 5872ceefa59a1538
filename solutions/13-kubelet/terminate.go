package kubelet

import (
	"context"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
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
	k.firstSync(w, pod)
	k.killPod(ctx, pod, rt, nil)
	after, err := k.readRuntime(ctx, w.uid)
	if err != nil || running(after) {
		return false // the next sync tries again
	}
	k.writeStatus(ctx, w, pod, after, true)
	zero := int64(0)
	uid := pod.UID
	err = k.c.Delete(ctx, podKind, pod.Namespace, pod.Name, client.DeleteOptions{
		GracePeriodSeconds: &zero,
		Preconditions:      &api.Preconditions{UID: &uid},
	})
	if err != nil && !client.IsNotFound(err) && !client.IsConflict(err) {
		return false // a Conflict: the name is another pod's now, this one is gone
	}
	return k.removeAll(ctx, after)
}

// running says whether any container or sandbox of rt runs.
func running(rt kubelets.RuntimePod) bool {
	for _, c := range rt.Containers {
		if c.State == cri.ContainerRunning {
			return true
		}
	}
	for _, s := range rt.Sandboxes {
		if s.State == cri.SandboxReady {
			return true
		}
	}
	return false
}

// removeAll removes every container, then every sandbox of rt, and
// reports whether all went.
func (k *kubelet) removeAll(ctx context.Context, rt kubelets.RuntimePod) bool {
	ok := true
	for _, c := range rt.Containers {
		if k.opts.Runtime.RemoveContainer(ctx, c.ID) != nil {
			ok = false
		}
	}
	for _, s := range rt.Sandboxes {
		if k.opts.Runtime.RemovePodSandbox(ctx, s.ID) != nil {
			ok = false
		}
	}
	return ok
}

// cleanupOrphan stops and removes what the runtime has of a pod the
// kubelet has no spec for: its running containers with
// OrphanGracePeriodSeconds, its sandboxes, then everything of it. It
// reports whether nothing is left.
func (k *kubelet) cleanupOrphan(ctx context.Context, rt kubelets.RuntimePod) bool {
	if len(rt.Sandboxes) == 0 && len(rt.Containers) == 0 {
		return true
	}
	grace := time.Duration(kubelets.OrphanGracePeriodSeconds) * time.Second
	k.killPod(ctx, nil, rt, &grace)
	return k.removeAll(ctx, rt)
}

// stopStatic stops the static pod of w, whose file is gone, as a pod
// being deleted (its grace, preStop first), removes what the runtime
// has of it, and deletes its mirror pod (rule 9). It reports whether
// nothing is left.
func (k *kubelet) stopStatic(ctx context.Context, w *podWorker, rt kubelets.RuntimePod) bool {
	pod := api.DeepCopy(w.staticPod)
	k.killPod(ctx, pod, rt, nil)
	after, err := k.readRuntime(ctx, w.uid)
	if err != nil || running(after) {
		return false
	}
	if m, ok := k.pods.Get(pod.Namespace, pod.Name); ok && m.Annotations[api.MirrorPodAnnotationKey] == string(pod.UID) {
		if !k.deleteMirror(ctx, m) {
			return false
		}
	}
	return k.removeAll(ctx, after)
}
