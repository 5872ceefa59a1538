package kubelet

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/kubelets"
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
	if k.opts.StaticPodDir == "" {
		k.mu.Lock()
		k.staticRead = true
		k.mu.Unlock()
		return
	}
	read := map[api.UID]*api.Pod{}
	entries, err := os.ReadDir(k.opts.StaticPodDir)
	if err != nil && !os.IsNotExist(err) {
		return // unreadable for now: keep what runs, read again later
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		if e.IsDir() || !isManifest(e.Name()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(k.opts.StaticPodDir, e.Name()))
		if err != nil {
			continue
		}
		if p := k.staticPod(data); p != nil {
			read[p.UID] = p
		}
	}
	k.mu.Lock()
	var poke []*api.Pod
	for uid, p := range k.static {
		if read[uid] == nil {
			poke = append(poke, p) // gone: its worker stops it
			delete(k.seen, uid)
		}
	}
	for uid, p := range read {
		if k.static[uid] == nil {
			poke = append(poke, p)
		}
	}
	k.static = read
	k.staticRead = true
	k.mu.Unlock()
	for _, p := range poke {
		k.poke(ctx, p.UID, p.Namespace, p.Name)
	}
}

func isManifest(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// staticPod is the static pod of a manifest's content, nil when it is not
// one Pod (config/common.go: applyDefaults, which hashes the pod; the
// kata hashes the file).
func (k *kubelet) staticPod(data []byte) *api.Pod {
	objs, err := api.Decode(data)
	if err != nil || len(objs) != 1 {
		return nil
	}
	p, ok := objs[0].(*api.Pod)
	if !ok || p.Name == "" {
		return nil
	}
	sum := md5.Sum(data)
	uid := api.UID(hex.EncodeToString(sum[:]))
	p = api.DeepCopy(p)
	p.UID = uid
	p.Name = p.Name + "-" + k.opts.NodeName
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	p.Spec.NodeName = k.opts.NodeName
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	k.mu.Lock()
	seen, ok := k.seen[uid]
	if !ok {
		seen = k.clock.Now().UTC().Format(time.RFC3339Nano)
		k.seen[uid] = seen
	}
	k.mu.Unlock()
	p.Annotations[kubelets.ConfigSourceAnnotationKey] = kubelets.ConfigSourceFile
	p.Annotations[kubelets.ConfigHashAnnotationKey] = string(uid)
	p.Annotations[kubelets.ConfigSeenAnnotationKey] = seen
	return p
}

// syncMirror makes sure the static pod has its mirror pod: one that is
// being deleted, or is of another hash, is deleted, and a missing one
// is created (SyncPod: "the mirror pod is semantically different from
// the static pod; remove it, it will be created again").
func (k *kubelet) syncMirror(ctx context.Context, pod *api.Pod) {
	m, ok := k.pods.Get(pod.Namespace, pod.Name)
	if ok && !isMirror(m) {
		return // a pod of the API holds the name: it is not ours to touch
	}
	if ok && (m.DeletionTimestamp != nil || m.Annotations[api.MirrorPodAnnotationKey] != string(pod.UID)) {
		k.deleteMirror(ctx, m)
		ok = false
	}
	if ok {
		return
	}
	k.createMirror(ctx, pod)
}

// createMirror creates pod's mirror pod: a copy of it with
// api.MirrorPodAnnotationKey its hash and the Node as its controller
// (mirror_client.go: CreateMirrorPod). AlreadyExists is done (a cache a
// moment behind).
func (k *kubelet) createMirror(ctx context.Context, pod *api.Pod) {
	m := api.DeepCopy(pod)
	m.UID = ""
	m.ResourceVersion = ""
	m.CreationTimestamp = api.Time{}
	m.Status = api.PodStatus{}
	m.Annotations[api.MirrorPodAnnotationKey] = string(pod.UID)
	controller := true
	m.OwnerReferences = []api.OwnerReference{{
		APIVersion: "v1", Kind: "Node", Name: k.node.Name, UID: k.node.UID, Controller: &controller,
	}}
	_, _ = k.c.Create(ctx, m) // a failure: the next sync tries again
}

// deleteMirror deletes mirror pod m with grace 0 and its UID as
// precondition (DeleteMirrorPod); NotFound and a Conflict (another pod
// has the name now) are done. It reports whether m is gone.
func (k *kubelet) deleteMirror(ctx context.Context, m *api.Pod) bool {
	zero := int64(0)
	uid := m.UID
	err := k.c.Delete(ctx, podKind, m.Namespace, m.Name, client.DeleteOptions{
		GracePeriodSeconds: &zero,
		Preconditions:      &api.Preconditions{UID: &uid},
	})
	return err == nil || client.IsNotFound(err) || client.IsConflict(err)
}

// mirrorChanged pokes the static pod of mirror pod m, or deletes m when
// its hash is no static pod's (HandlePodCleanups: deleteOrphanedMirrorPods).
func (k *kubelet) mirrorChanged(ctx context.Context, m *api.Pod) {
	hash := api.UID(m.Annotations[api.MirrorPodAnnotationKey])
	k.mu.Lock()
	sp := k.static[hash]
	_, working := k.workers[hash]
	read := k.staticRead
	k.mu.Unlock()
	if !read {
		return // the static pods are not read yet: the relist asks again
	}
	if sp != nil {
		k.poke(ctx, sp.UID, sp.Namespace, sp.Name)
		return
	}
	if working {
		return // its static pod is stopping: its worker deletes it
	}
	k.deleteMirror(ctx, m)
}

// mirrorDeleted pokes the static pod of a mirror pod deleted, so that it
// is created again.
func (k *kubelet) mirrorDeleted(ctx context.Context, m *api.Pod) {
	hash := api.UID(m.Annotations[api.MirrorPodAnnotationKey])
	k.mu.Lock()
	sp := k.static[hash]
	k.mu.Unlock()
	if sp != nil {
		k.poke(ctx, sp.UID, sp.Namespace, sp.Name)
	}
}
