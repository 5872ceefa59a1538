package kubelet

import (
	"context"

	"github.com/kubekata/kubekata/harness/api"
)

// Static pods (rule 9): pods from manifest files in StaticPodDir
// (pkg/kubelet/config/file.go, common.go: applyDefaults), run without the
// apiserver, and their mirror pods, the API's read-only copies
// (pkg/kubelet/pod/mirror_client.go; kubelet.go: SyncPod's mirror pod
// part; HandlePodCleanups deletes the orphaned ones).

// readStaticPods reads StaticPodDir: one Pod per *.yaml, *.yml and
// *.json file (a file that is not one is skipped), named NAME-NODENAME,
// its UID the hash of the file. Pods new, changed (a new hash, so a new
// UID) or gone are poked.
func (k *kubelet) readStaticPods(ctx context.Context) {
	// TODO: read StaticPodDir's *.yaml, *.yml and *.json files (skip what is not one Pod); replace k.static under k.mu; poke the pods new and gone (task 16; rule 9).
	// Until task 16: no static pods (Run, task 10, calls this).
}

func isManifest(name string) bool {
	// TODO: whether name ends in .yaml, .yml or .json (task 16).
	panic("not implemented: isManifest")
}

// staticPod is the static pod of a manifest's content, nil when it is not
// one Pod (config/common.go: applyDefaults, which hashes the pod; the
// kata hashes the file).
func (k *kubelet) staticPod(data []byte) *api.Pod {
	// TODO: decode one Pod; name NAME-NODENAME, namespace default when none, spec.nodeName, UID the hash of data, the source, hash and seen annotations (task 16; rule 9).
	panic("not implemented: staticPod")
}

// syncMirror makes sure the static pod has its mirror pod: one that is
// being deleted, or is of another hash, is deleted, and a missing one
// is created (SyncPod: "the mirror pod is semantically different from
// the static pod; remove it, it will be created again").
func (k *kubelet) syncMirror(ctx context.Context, pod *api.Pod) {
	// TODO: leave a non-mirror pod of that name alone; delete a mirror being deleted or of another hash; create one when there is none (task 16; rule 9).
	// Until task 16: no mirror pod (syncWorker, task 11, calls this).
}

// createMirror creates pod's mirror pod: a copy of it with
// api.MirrorPodAnnotationKey its hash and the Node as its controller
// (mirror_client.go: CreateMirrorPod). AlreadyExists is done (a cache a
// moment behind).
func (k *kubelet) createMirror(ctx context.Context, pod *api.Pod) {
	// TODO: Create a copy of pod without uid, resourceVersion or status, with api.MirrorPodAnnotationKey its hash and the Node as controller owner (task 16; rule 9).
	panic("not implemented: createMirror")
}

// deleteMirror deletes mirror pod m with grace 0 and its UID as
// precondition (DeleteMirrorPod); NotFound and a Conflict (another pod
// has the name now) are done. It reports whether m is gone.
func (k *kubelet) deleteMirror(ctx context.Context, m *api.Pod) bool {
	// TODO: Delete with grace 0 and the mirror's UID as precondition; NotFound and Conflict are done (task 16; rule 9).
	panic("not implemented: deleteMirror")
}

// mirrorChanged pokes the static pod of mirror pod m, or deletes m when
// its hash is no static pod's (HandlePodCleanups: deleteOrphanedMirrorPods).
func (k *kubelet) mirrorChanged(ctx context.Context, m *api.Pod) {
	// TODO: before the static pods were read: nothing; a static pod's mirror: poke it; else (unless its worker still stops it) deleteMirror (task 16; rule 9).
	// Until task 16: nothing (relist and podChanged, task 11, call this).
}

// mirrorDeleted pokes the static pod of a mirror pod deleted, so that it
// is created again.
func (k *kubelet) mirrorDeleted(ctx context.Context, m *api.Pod) {
	// TODO: poke the static pod whose hash it had, so that its mirror is made again (task 16; rule 9).
	// Until task 16: nothing (podDeleted, task 11, calls this).
}
