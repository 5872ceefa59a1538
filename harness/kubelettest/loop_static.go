package kubelettest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 16: static pods (rule 9). Manifests in StaticPodDir run as
// NAME-NODENAME (namespace default unless the file names one), their
// UID the hash of the file, without the apiserver
// (pkg/kubelet/config/file.go: the *.yaml, *.yml and *.json of the
// directory; config/common.go: applyDefaults, the name, namespace, UID
// and the config.hash, config.source and config.seen annotations). Each
// has a mirror pod in the API: a copy with kubernetes.io/config.mirror
// set to the hash and an ownerReference to the Node
// (pkg/kubelet/pod/mirror_client.go: CreateMirrorPod), never run itself,
// created again when deleted, its status the static pod's (kubelet.go:
// SyncPod's mirror part, which deletes a mirror being deleted and
// creates it again); a mirror of no static pod is deleted, and a file
// removed stops its pod and deletes its mirror (kubelet_pods.go:
// HandlePodCleanups, deleteOrphanedMirrorPods).

// staticWeb is the manifest of a pod named web with no namespace.
const staticWeb = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
spec:
  containers:
  - name: web
    image: kata/sleep:1.0
`

// staticAPI is a manifest in JSON of a pod in kube-system.
const staticAPI = `{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "api", "namespace": "kube-system"},
 "spec": {"containers": [{"name": "api", "image": "kata/sleep:1.0"}]}}
`

// staticNotes is a Pod in a file that is no manifest (*.txt).
const staticNotes = `apiVersion: v1
kind: Pod
metadata:
  name: notes
spec:
  containers:
  - name: notes
    image: kata/sleep:1.0
`

// staticSandboxes are the RunPodSandbox calls of pod "namespace/name".
func staticSandboxes(e *loopEnv, pod string) []envRTCall {
	return envRTOnly(e.rts.calls(pod), "RunPodSandbox")
}

// staticGet reads pod namespace/name from the fake; nil when none.
func staticGet(e *loopEnv, namespace, name string) *api.Pod {
	e.t.Helper()
	p, err := client.For[*api.Pod](e.fake).Get(e.ctx, namespace, name)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		e.t.Fatalf("kubelettest: reading pod %s/%s from the fake: %v", namespace, name, err)
	}
	return p
}

// staticDescribeMirror prints what makes a pod a mirror pod.
func staticDescribeMirror(p *api.Pod) string {
	if p == nil {
		return "no pod"
	}
	var owners []string
	for _, o := range p.OwnerReferences {
		owners = append(owners, fmt.Sprintf("%s %s %s uid %s", o.APIVersion, o.Kind, o.Name, o.UID))
	}
	return fmt.Sprintf("uid %s, annotations %v, ownerReferences [%s], spec.nodeName %q, deletionTimestamp %v, phase %q",
		p.UID, p.Annotations, strings.Join(owners, "; "), p.Spec.NodeName, p.DeletionTimestamp != nil, p.Status.Phase)
}

// staticIsMirror says what is wrong with p as the mirror pod of the
// static pod whose hash is hash on node ("" when nothing).
func staticIsMirror(p *api.Pod, hash string, node *api.Node) string {
	switch {
	case p == nil:
		return "no mirror pod"
	case p.DeletionTimestamp != nil:
		return "the mirror pod is being deleted"
	case p.Annotations[api.MirrorPodAnnotationKey] != hash:
		return fmt.Sprintf("annotation %s %q, want %q (the static pod's hash)", api.MirrorPodAnnotationKey, p.Annotations[api.MirrorPodAnnotationKey], hash)
	case p.Annotations[kubelets.ConfigHashAnnotationKey] != hash:
		return fmt.Sprintf("annotation %s %q, want %q", kubelets.ConfigHashAnnotationKey, p.Annotations[kubelets.ConfigHashAnnotationKey], hash)
	case p.Annotations[kubelets.ConfigSourceAnnotationKey] != kubelets.ConfigSourceFile:
		return fmt.Sprintf("annotation %s %q, want %q", kubelets.ConfigSourceAnnotationKey, p.Annotations[kubelets.ConfigSourceAnnotationKey], kubelets.ConfigSourceFile)
	case p.Annotations[kubelets.ConfigSeenAnnotationKey] == "":
		return fmt.Sprintf("no annotation %s", kubelets.ConfigSeenAnnotationKey)
	case len(p.OwnerReferences) != 1 || p.OwnerReferences[0].APIVersion != "v1" || p.OwnerReferences[0].Kind != "Node" ||
		p.OwnerReferences[0].Name != node.Name || p.OwnerReferences[0].UID != node.UID:
		return fmt.Sprintf("ownerReferences %v, want one to the Node: apiVersion v1, kind Node, name %s, uid %s", p.OwnerReferences, node.Name, node.UID)
	case p.Spec.NodeName != node.Name:
		return fmt.Sprintf("spec.nodeName %q, want %q", p.Spec.NodeName, node.Name)
	}
	return ""
}

func staticPodsStep(t *suite.T, impl Impl) {
	e := newEnv(t, impl, fake.Options{})
	defer e.finish()
	dir := e.opts.StaticPodDir
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatalf("kubelettest: writing %s: %v", name, err)
		}
	}
	write("web.yaml", staticWeb)
	write("api.json", staticAPI)
	write("broken.yaml", "apiVersion: v1\nkind: Pod\nmetadata: [this is not\n")
	write("notes.txt", staticNotes)
	webName, apiName := "web-"+envNode, "api-"+envNode
	webKey, apiKey := envNamespace+"/"+webName, "kube-system/"+apiName

	// The apiserver refuses web's mirror pod at first: the static pod
	// runs without it.
	e.spy.fail("create", "pods", envNamespace, webName, -1)
	e.start()
	node, err := client.For[*api.Node](e.fake).Get(e.ctx, "", envNode)
	if err != nil {
		t.Fatalf("kubelettest: reading node %s from the fake: %v", envNode, err)
	}

	// ---- both manifests run, as NAME-NODENAME, without the apiserver.
	var webHash, apiHash string
	e.waitFor(fmt.Sprintf("the static pods of %s (web.yaml, api.json) to run: RunPodSandbox of %s and %s, then their containers, though the apiserver refuses web's mirror pod (rule 9)", dir, webKey, apiKey), func() (bool, string) {
		web, api := staticSandboxes(e, webKey), staticSandboxes(e, apiKey)
		if len(web) == 0 || len(api) == 0 {
			return false, "the runtime calls: " + envDescribeRT(envRTOnly(e.rts.calls(""), "RunPodSandbox", "CreateContainer", "StartContainer"))
		}
		webHash, apiHash = web[0].Sandbox.Metadata.UID, api[0].Sandbox.Metadata.UID
		running := 0
		for _, c := range envRTOnly(e.rts.calls(""), "StartContainer") {
			if c.Err == nil && (c.Pod == webKey || c.Pod == apiKey) {
				running++
			}
		}
		return running >= 2, "the runtime calls: " + envDescribeRT(envRTOnly(e.rts.calls(""), "RunPodSandbox", "CreateContainer", "StartContainer"))
	})
	if webHash == "" || apiHash == "" || webHash == apiHash {
		t.Errorf("static pods web and api: sandbox uids %q and %q, want each its file's hash, not empty and not the same (rule 9)", webHash, apiHash)
	}
	for _, c := range envRTOnly(e.rts.calls(""), "RunPodSandbox") {
		if m := c.Sandbox.Metadata; m.Name == "notes-"+envNode || m.Name == "notes" || strings.HasPrefix(m.Name, "broken") {
			t.Errorf("%s, want no pod from notes.txt (not *.yaml, *.yml or *.json) nor from broken.yaml (not a Pod) (rule 9; config/file.go)", c)
		}
	}

	// ---- the mirror pods: api's at once, web's once the apiserver
	// takes it.
	e.waitFor(fmt.Sprintf("the mirror pod of static pod api (hash %s) in the API as kube-system/%s (rule 9; mirror_client.go)", apiHash, apiName), func() (bool, string) {
		p := staticGet(e, "kube-system", apiName)
		why := staticIsMirror(p, apiHash, node)
		return why == "", why + "; " + staticDescribeMirror(p)
	})
	if p := staticGet(e, envNamespace, webName); p != nil {
		t.Fatalf("kubelettest: the fake holds pod %s, whose creation the suite refuses", webKey)
	}
	e.spy.heal()
	var mirror *api.Pod
	e.waitFor(fmt.Sprintf("the mirror pod of static pod web (hash %s) in the API as %s, once the apiserver takes it (rule 9)", webHash, webKey), func() (bool, string) {
		mirror = staticGet(e, envNamespace, webName)
		why := staticIsMirror(mirror, webHash, node)
		return why == "", why + "; " + staticDescribeMirror(mirror)
	})
	if got := mirror.Labels["app"]; got != "web" {
		t.Errorf("mirror pod %s: labels %v, want the static pod's, app=web (rule 9: the mirror is a copy of the static pod)", webKey, mirror.Labels)
	}
	e.waitPod(webName, "the static pod's status written to its mirror pod: phase Running, container web running (rules 7, 9)", func(p *api.Pod) (bool, string) {
		s := envStatusOf(p.Status.ContainerStatuses, "web")
		return p.Status.Phase == api.PodRunning && s != nil && s.State.Running != nil, ""
	})

	// ---- the mirror is never run itself.
	webRunning := func() []string {
		var ids []string
		for _, c := range e.containers(api.UID(webHash)) {
			if c.State == "CONTAINER_RUNNING" {
				ids = append(ids, c.ID)
			}
		}
		return ids
	}
	before := webRunning()
	checkOne := func(when string) {
		t.Helper()
		for _, c := range staticSandboxes(e, webKey) {
			if c.Sandbox.Metadata.UID != webHash {
				t.Errorf("%s: %s with uid %s, want only the static pod's sandbox (uid %s): a mirror pod (annotation %s) is never run itself (rules 4, 9)", when, c, c.Sandbox.Metadata.UID, webHash, api.MirrorPodAnnotationKey)
				return
			}
		}
		if n := len(staticSandboxes(e, webKey)); n != 1 {
			t.Errorf("%s: RunPodSandbox of %s %d times (%s), want once: the static pod keeps its sandbox (rules 4, 9)", when, webKey, n, envDescribeRT(staticSandboxes(e, webKey)))
		}
		if got := webRunning(); len(got) != 1 || len(before) != 1 || got[0] != before[0] {
			t.Errorf("%s: static pod web's running containers %v, want %v still: its mirror pod's life is not the static pod's (rule 9)", when, got, before)
		}
	}
	e.advance(3 * kubelets.RelistPeriod)
	checkOne("its mirror pod in the API for " + (3 * kubelets.RelistPeriod).String())

	// ---- a mirror deleted comes back, as a mirror.
	pods := client.For[*api.Pod](e.fake)
	zero := int64(0)
	for _, del := range []struct {
		how  string
		opts client.DeleteOptions
	}{
		{"deleted with grace 0 (kubectl delete --force --grace-period=0)", client.DeleteOptions{GracePeriodSeconds: &zero}},
		{"deleted as kubectl does, with a grace (it has a deletionTimestamp until the kubelet deletes it)", client.DeleteOptions{}},
	} {
		old := staticGet(e, envNamespace, webName)
		if old == nil {
			t.Fatalf("mirror pod %s gone before the suite deleted it; the kubelet's Deletes: %s", webKey, envDescribeAPICalls(e.spy.callsOf("delete", "pods", webName)))
		}
		if err := pods.Delete(e.ctx, envNamespace, webName, del.opts); err != nil {
			t.Fatalf("kubelettest: deleting pod %s in the fake: %v", webKey, err)
		}
		e.waitFor(fmt.Sprintf("mirror pod %s (uid %s) %s: a new mirror pod in its place, with annotation %s %s (rule 9)", webKey, old.UID, del.how, api.MirrorPodAnnotationKey, webHash), func() (bool, string) {
			p := staticGet(e, envNamespace, webName)
			if p != nil && p.UID == old.UID {
				return false, "the old mirror pod: " + staticDescribeMirror(p)
			}
			why := staticIsMirror(p, webHash, node)
			return why == "", why + "; " + staticDescribeMirror(p)
		})
		e.advance(2 * kubelets.RelistPeriod)
		checkOne("its mirror pod " + del.how)
	}

	// ---- a mirror pod of no static pod is deleted, never run.
	ghost := e.pod("ghost-"+envNode, envContainer("ghost", "kata/sleep:1.0"))
	ghost.Annotations = map[string]string{api.MirrorPodAnnotationKey: "0123456789abcdef", kubelets.ConfigSourceAnnotationKey: kubelets.ConfigSourceFile}
	ghost = e.create(ghost)
	e.waitFor(fmt.Sprintf("pod %s, a mirror pod (annotation %s) whose hash is no static pod's, to be deleted (rule 9; deleteOrphanedMirrorPods)", ghost.Name, api.MirrorPodAnnotationKey), func() (bool, string) {
		p := e.getPod(ghost.Name)
		return p == nil, staticDescribeMirror(p)
	})
	if sbs := staticSandboxes(e, envNamespace+"/"+ghost.Name); len(sbs) > 0 {
		t.Errorf("mirror pod %s of no static pod: %s, want it never run (rules 4, 9)", ghost.Name, envDescribeRT(sbs))
	}

	// ---- web.yaml removed: its pod stops, its mirror goes; api stays.
	if err := os.Remove(filepath.Join(dir, "web.yaml")); err != nil {
		t.Fatalf("kubelettest: removing web.yaml: %v", err)
	}
	removed := e.now()
	e.waitFor(fmt.Sprintf("web.yaml removed at %s: static pod web's container stopped and its mirror pod %s deleted, at the next read of the directory (FileCheckFrequency %v, rule 9)", envSince(removed), webKey, kubelets.FileCheckFrequency), func() (bool, string) {
		running, p := webRunning(), staticGet(e, envNamespace, webName)
		return len(running) == 0 && p == nil, fmt.Sprintf("running containers %v; the mirror pod: %s", running, staticDescribeMirror(p))
	})
	if took := e.now().Sub(removed); took > kubelets.FileCheckFrequency+3*kubelets.RelistPeriod {
		t.Errorf("web.yaml removed at %s: its pod stopped and its mirror deleted only by %s, want within FileCheckFrequency (%v) and a sync (rule 9)", envSince(removed), envSince(e.now()), kubelets.FileCheckFrequency)
	}
	e.advance(3 * kubelets.RelistPeriod)
	if p := staticGet(e, envNamespace, webName); p != nil {
		t.Errorf("web.yaml removed, its mirror pod deleted: %s is back (%s), want it gone for good (rule 9)", webKey, staticDescribeMirror(p))
	}
	if n := len(staticSandboxes(e, webKey)); n != 1 {
		t.Errorf("web.yaml removed: RunPodSandbox of %s %d times, want once: a removed file's pod does not run again (rule 9)", webKey, n)
	}
	if p := staticGet(e, "kube-system", apiName); staticIsMirror(p, apiHash, node) != "" {
		t.Errorf("web.yaml removed, api.json kept: mirror pod kube-system/%s: %s, want it kept (rule 9)", apiName, staticDescribeMirror(p))
	}
}
