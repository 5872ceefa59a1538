package kubelet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// The pods (rules 4, 5, 7): one worker per pod UID, as upstream's pod
// workers (pkg/kubelet/pod_workers.go), poked by the pod informer, the
// static pod files and the relist; each poke is one sync
// (kubelet.go: SyncPod; kuberuntime/kuberuntime_manager.go: SyncPod).

// podWorker is one pod's worker. poke wakes its goroutine; everything
// else is its goroutine's own.
type podWorker struct {
	uid             api.UID
	namespace, name string
	poke            chan struct{} // a buffer of 1: pokes coalesce

	// crash and pull are the crash-loop and image-pull back-off entries
	// by container name (rule 5: the pod's namespace, name and uid are
	// the worker's).
	crash, pull map[string]*kubelets.Backoff
	// waiting is why each container's last start failed (the reason
	// cache, kuberuntime_manager.go: reasonCache).
	waiting map[string]kubelets.Waiting
	// probes are the probe workers by container name and kind (rule 6).
	probes map[probeKey]*probeState
	// last is the status last generated (the status manager's), nil
	// before the first sync; startTime is when the kubelet first synced
	// the pod.
	last      *api.PodStatus
	startTime *api.Time
	// staticPod is the static pod's spec as last seen, so that its pod
	// is stopped with its grace once its file is gone (rule 9).
	staticPod *api.Pod
}

// poke wakes the worker of pod uid, starting one when there is none,
// unless Run is ending.
func (k *kubelet) poke(ctx context.Context, uid api.UID, namespace, name string) {
	// TODO: under k.mu, unless closing: start the worker of uid (counted in k.wg) when there is none; send on its poke channel without blocking, counting k.inflight when sent (task 11; rule 4).
	panic("not implemented: poke")
}

// runWorker syncs w's pod at each poke until the pod is done with (gone
// from everywhere) or ctx ends.
func (k *kubelet) runWorker(ctx context.Context, w *podWorker) {
	// TODO: until ctx ends: wait for a poke, syncWorker, then forget the worker and return once the pod is done with and no poke came since (task 11; rules 4, 12).
	panic("not implemented: runWorker")
}

// relist pokes every pod the kubelet knows of, once each: those of the
// API, the static ones, those the runtime has a sandbox of (orphans
// included) and those a worker is busy with; and it deletes the mirror
// pods of no static pod (rule 4's "every RelistPeriod"; pleg/generic.go:
// Relist; kubelet_pods.go: HandlePodCleanups).
func (k *kubelet) relist(ctx context.Context) {
	// TODO: poke once every pod you know: the API's (not mirrors: mirrorChanged), those the runtime has a sandbox of, the static ones and those with a worker (task 11; rules 4, 8).
	// Until task 11: no pod is synced (Run, task 10, calls this).
}

// podChanged is the pod informer's add and update handler: a pod is
// synced when it is added or its spec or metadata changed; a change of
// its status only (the kubelet's own writes) waits for the relist, as
// upstream's config source ignores status updates (config/config.go:
// checkAndUpdatePod).
func (k *kubelet) podChanged(ctx context.Context, old, p *api.Pod) {
	// TODO: ignore an update that changed only the status; a mirror pod: mirrorChanged; else poke the pod (task 11; rule 4).
	// Until task 11: no pod is synced (Run's informer handlers, task 10, call this).
}

// podDeleted is the pod informer's delete handler.
func (k *kubelet) podDeleted(ctx context.Context, p *api.Pod) {
	// TODO: a mirror pod: mirrorDeleted; else poke the pod (tasks 11, 16).
	// Until task 11: nothing (Run's informer handlers, task 10, call this).
}

// specChanged says whether cur differs from old in anything a sync reads
// but its status.
func specChanged(old, cur *api.Pod) bool {
	// TODO: whether spec, labels, annotations, deletionTimestamp, deletionGracePeriodSeconds or uid differ (task 11).
	panic("not implemented: specChanged")
}

func isMirror(p *api.Pod) bool {
	_, ok := p.Annotations[api.MirrorPodAnnotationKey]
	return ok
}

// podFor returns a copy of w's pod, from the static pods or the API
// cache, and whether it is static; nil when it is gone from both.
func (k *kubelet) podFor(w *podWorker) (*api.Pod, bool) {
	// TODO: a copy of the static pod of w.uid (remember it in w.staticPod), or of the cached API pod of that name and uid that is not a mirror; nil when neither (tasks 11, 16).
	panic("not implemented: podFor")
}

// syncWorker is one sync of w's pod, and reports whether the pod is done
// with: gone from the API and the static pods, and nothing of it left
// in the runtime.
func (k *kubelet) syncWorker(ctx context.Context, w *podWorker) bool {
	// TODO: podFor and readRuntime; no pod: stopStatic when it was static, else cleanupOrphan; a deletionTimestamp: terminate; else syncMirror when static, then sync (tasks 11, 15, 16).
	panic("not implemented: syncWorker")
}

// readRuntime reads what the runtime has of pod uid: its sandboxes and
// containers, each with its status, newest first (kuberuntime_manager.go:
// GetPodStatus). A sandbox or container removed while it is read is left
// out.
func (k *kubelet) readRuntime(ctx context.Context, uid api.UID) (kubelets.RuntimePod, error) {
	// TODO: ListPodSandbox and ListContainers by LabelPodUID, then PodSandboxStatus and ContainerStatus of each, newest first (the lists are oldest first); skip one NotFound meanwhile (task 11; rule 4).
	panic("not implemented: readRuntime")
}

// sync is one sync of a pod that runs (rules 4-7): the probes, Actions,
// its actions in order, then the status.
func (k *kubelet) sync(ctx context.Context, w *podWorker, pod *api.Pod, rt kubelets.RuntimePod) {
	// TODO: firstSync; runProbes; Actions on copies; execute; readRuntime again and writeStatus (tasks 11, 12, 14; rules 4, 6, 7).
	panic("not implemented: sync")
}

// firstSync keeps what the first sync of a pod learns: its status as
// the API has it (Previous), and its startTime.
func (k *kubelet) firstSync(w *podWorker, pod *api.Pod) {
	// TODO: set w.last to a copy of the pod's status and w.startTime to its startTime or now, the first time only (task 11; rule 7).
	panic("not implemented: firstSync")
}

// execute carries out acts in upstream's order (SyncPod): the kills,
// the pod's kill, the sandbox, the next init container, then the app
// containers. A pod in a terminal phase starts nothing again (rule 7).
func (k *kubelet) execute(ctx context.Context, w *podWorker, pod *api.Pod, rt kubelets.RuntimePod, acts kubelets.Actions) {
	// TODO: the Kills (killContainer), KillPod (killPod); then, unless the pod's last phase is Succeeded or Failed, the sandbox (createSandbox when asked), NextInit, then Start, each through startContainer (tasks 11, 12; rule 4).
	panic("not implemented: execute")
}

func terminalPhase(p api.PodPhase) bool { return p == api.PodSucceeded || p == api.PodFailed }

// podLabels are the labels the kubelet finds a pod's sandboxes by
// (pkg/kubelet/types/labels.go; kuberuntime_sandbox.go:
// generatePodSandboxConfig).
func podLabels(pod *api.Pod) map[string]string {
	// TODO: the labels LabelPodName, LabelPodNamespace and LabelPodUID of pod (task 11; rule 4).
	panic("not implemented: podLabels")
}

// sandboxConfig is the pod's sandbox config at attempt
// (generatePodSandboxConfig): its metadata, the pod's name as hostname,
// the labels.
func (k *kubelet) sandboxConfig(pod *api.Pod, attempt uint32) *cri.PodSandboxConfig {
	// TODO: metadata name, uid, namespace and attempt, the pod's name as hostname, podLabels (task 11; rule 4).
	panic("not implemented: sandboxConfig")
}

// createSandbox runs the pod's sandbox at attempt (createPodSandbox); a
// failure is a FailedCreatePodSandBox Event and the next sync tries
// again.
func (k *kubelet) createSandbox(ctx context.Context, pod *api.Pod, attempt uint32) (string, bool) {
	// TODO: RunPodSandbox; a failure: the Warning Event FailedCreatePodSandBox and false (task 11; rule 4).
	panic("not implemented: createSandbox")
}

// podIP is the pod's IP in sandbox sb: the sandbox's, or the node's for a
// hostNetwork pod.
func (k *kubelet) podIP(pod *api.Pod, sb *cri.PodSandboxStatus) string {
	// TODO: the node's Address for a hostNetwork pod, else the sandbox's IP (task 11; rule 7).
	panic("not implemented: podIP")
}

// formatPod is a pod as upstream's logs and Events name it
// (pkg/kubelet/util/format: Pod): name_namespace(uid).
func formatPod(pod *api.Pod) string {
	return fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID)
}

// newestNamedIn is the newest runtime container of name in rt, nil when
// none.
func newestNamedIn(rt kubelets.RuntimePod, name string) *cri.ContainerStatus {
	for i := range rt.Containers {
		if rt.Containers[i].Metadata.Name == name {
			return &rt.Containers[i]
		}
	}
	return nil
}

// startContainer starts container c of pod in sandbox sandboxID (rule 4;
// SyncPod's start: doBackOff, then kuberuntime_container.go:
// startContainer; images/image_manager.go: EnsureImageExists). rt is
// the runtime as the sync read it. A failed step is the container's
// Waiting reason and ends its start.
func (k *kubelet) startContainer(ctx context.Context, w *podWorker, pod *api.Pod, c api.Container, sandboxID string, sc *cri.PodSandboxConfig, podIP string, rt kubelets.RuntimePod) {
	// TODO: crash back-off (an exited newest container: InBackoff from its FinishedAt, CrashLoopBackOff and BackOff, else BackoffNext); ImageStatus, then as imagePullPolicy says (pullPolicy): Never and absent is ErrImageNeverPull, present and not Always is Pulled, else the pull back-off (ImagePullBackOff) then Pulling, PullImage (ErrImagePull, BackoffNext), Pulled; env and mounts (CreateContainerConfigError); CreateContainer with the next attempt, NAME/ATTEMPT.log and the labels (CreateContainerError), Created; StartContainer (RunContainerError), Started; postStart (hooks.go), which failed makes it Waiting PostStartHookError with its message and ends the start; clear its Waiting (tasks 11, 12, 13, 15, 17; rules 4, 5, 10, 11).
	panic("not implemented: startContainer")
}

// pullPolicy is c's imagePullPolicy, or the apiserver's default when it
// is empty (pkg/apis/core/v1/defaults.go: SetDefaults_Container).
func pullPolicy(c api.Container) api.PullPolicy {
	// TODO: c.ImagePullPolicy when set; else Always for a :latest or untagged image (cri.ParseImage), IfNotPresent for any other (task 13; rule 4).
	panic("not implemented: pullPolicy")
}

// setWaiting makes container name Waiting with reason and message, and
// reports whether that is new: a back-off's Event is recorded once per
// back-off, not at every sync (upstream records it at every sync and its
// EventCorrelator folds the repeats into one Event's count, which the
// kata's recorder does not).
func (k *kubelet) setWaiting(w *podWorker, name, reason, message string) bool {
	// TODO: set w.waiting[name] to reason and message; report whether it was not that already, so that a back-off's Event is recorded once per back-off (tasks 12, 13; rule 5).
	// Until task 12: no Waiting kept (startContainer, task 11, calls this).
	return false
}

// failStart makes the container Waiting with reason and message, and
// records upstream's Failed Event "Error: <reason or message>".
func (k *kubelet) failStart(w *podWorker, pod *api.Pod, name, reason, message string) {
	// TODO: set w.waiting[name] and record the Warning Event Failed "Error: ..." (tasks 12, 13, 17; rules 4, 11).
	panic("not implemented: failStart")
}

func copyBackoff(b *kubelets.Backoff) *kubelets.Backoff {
	if b == nil {
		return nil
	}
	c := *b
	return &c
}

// killContainer stops container id (name in pod) for reason, with
// message as its Killing Event ("Stopping container NAME" when empty):
// its preStop hook first (exec, httpGet or sleep: preStop in hooks.go,
// waited for the grace at most), then StopContainer with GracePeriod
// less the seconds the hook took on the clock, whether it passed or not
// (rule 8; kuberuntime_container.go: killContainer, executePreStopHook).
func (k *kubelet) killContainer(ctx context.Context, pod *api.Pod, id, name, reason, message string) {
	// TODO: the Killing Event (message, or "Stopping container NAME"); the container's preStop handler (exec, httpGet or sleep) through preStop with GracePeriod's grace, timed on the clock; StopContainer with GracePeriod less those seconds, even when the hook failed (tasks 14, 15; rule 8).
	// Until task 15: nothing is stopped (execute, task 11, calls this).
}

// containerSpec is the container of pod named name, in containers then
// initContainers (kubecontainer.GetContainerSpec).
func containerSpec(pod *api.Pod, name string) *api.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == name {
			return &pod.Spec.InitContainers[i]
		}
	}
	return nil
}

// killPod stops every running container of rt, all at once as upstream
// (killContainersWithSyncResult), each with its grace (or grace when
// set), then every Ready sandbox (killPodWithSyncResult).
func (k *kubelet) killPod(ctx context.Context, pod *api.Pod, rt kubelets.RuntimePod, grace *time.Duration) {
	// TODO: stop every running container of rt at once (killContainer, or StopContainer with grace when given) and wait for them; then StopPodSandbox every Ready sandbox (tasks 12, 15; rule 8).
	// Until task 15: nothing is stopped (execute, task 11, calls this at a pod's first sync).
}

// ---------------------------------------------------------------- status

// writeStatus makes the pod's status from rt (rule 7; kubelet_pods.go:
// generateAPIPodStatus) and writes it when it differs from the API's
// (status/status_manager.go: syncPod). terminal says the pod runs
// nothing more (Phase's terminal).
func (k *kubelet) writeStatus(ctx context.Context, w *podWorker, pod *api.Pod, rt kubelets.RuntimePod, terminal bool) {
	// TODO: firstSync; makeStatus; keep it in w.last; publish it (task 11; rule 7).
	panic("not implemented: writeStatus")
}

// makeStatus is the status of pod from rt and what w knows.
func (k *kubelet) makeStatus(w *podWorker, pod *api.Pod, rt kubelets.RuntimePod, terminal bool) api.PodStatus {
	// TODO: ContainerStatuses (init, app) with w's Waiting and probe results, Phase (a terminal last phase stays), Conditions over the last ones, hostIP(s) Address, podIP(s) from the newest Ready sandbox, startTime (task 11; rule 7).
	panic("not implemented: makeStatus")
}

// ownedAfterOthers is the conditions of api whose types the kubelet does
// not own, then those of own whose types it does.
func ownedAfterOthers(apiConds, own []api.PodCondition) []api.PodCondition {
	// TODO: the conditions of apiConds whose types are not kubelets.OwnedConditions, then those of own whose types are (task 11; rule 7).
	panic("not implemented: ownedAfterOthers")
}

func maps[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// publish writes st as the status of pod (of its mirror pod when pod is
// static) when the API's differs: read afresh, then UpdateStatus, as
// the status manager reads the pod before it patches.
func (k *kubelet) publish(ctx context.Context, pod *api.Pod, st api.PodStatus) {
	// TODO: compare with the cached pod (a static pod's mirror); when it differs, Get the pod afresh and UpdateStatus it with st; never change a cached object (tasks 11, 16; rule 7).
	panic("not implemented: publish")
}

// sameJSON says whether a and b are the same as the API sees them (a
// nil list and an empty one alike, times to the second), as upstream's
// status manager compares statuses (needsUpdate, isPodStatusByKubeletEqual).
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

func isStatic(pod *api.Pod) bool {
	return pod.Annotations[kubelets.ConfigSourceAnnotationKey] == kubelets.ConfigSourceFile
}

// trimID is a status's containerID without "kata://".
func trimID(containerID string) string {
	return strings.TrimPrefix(containerID, kubelets.RuntimeName+"://")
}
