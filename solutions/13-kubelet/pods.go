package kubelet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/events"
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
	if uid == "" {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed || ctx.Err() != nil {
		return
	}
	w := k.workers[uid]
	if w == nil {
		w = &podWorker{
			uid: uid, namespace: namespace, name: name,
			poke:    make(chan struct{}, 1),
			crash:   map[string]*kubelets.Backoff{},
			pull:    map[string]*kubelets.Backoff{},
			waiting: map[string]kubelets.Waiting{},
			probes:  map[probeKey]*probeState{},
		}
		k.workers[uid] = w
		k.wg.Add(1)
		go k.runWorker(ctx, w)
	}
	select {
	case w.poke <- struct{}{}:
		k.inflight.Add(1)
	default: // one is pending already: pokes coalesce
	}
}

// runWorker syncs w's pod at each poke until the pod is done with (gone
// from everywhere) or ctx ends.
func (k *kubelet) runWorker(ctx context.Context, w *podWorker) {
	defer k.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.poke:
		}
		done := k.syncWorker(ctx, w)
		k.mu.Lock()
		k.inflight.Add(-1)
		if done && len(w.poke) == 0 { // no poke since: nothing left to do
			delete(k.workers, w.uid)
			k.mu.Unlock()
			return
		}
		k.mu.Unlock()
	}
}

// relist pokes every pod the kubelet knows of, once each: those of the
// API, the static ones, those the runtime has a sandbox of (orphans
// included) and those a worker is busy with; and it deletes the mirror
// pods of no static pod (rule 4's "every RelistPeriod"; pleg/generic.go:
// Relist; kubelet_pods.go: HandlePodCleanups).
func (k *kubelet) relist(ctx context.Context) {
	type ref struct{ namespace, name string }
	all := map[api.UID]ref{}
	for _, p := range k.pods.List() {
		if isMirror(p) {
			k.mirrorChanged(ctx, p)
			continue
		}
		all[p.UID] = ref{p.Namespace, p.Name}
	}
	if sandboxes, err := k.opts.Runtime.ListPodSandbox(ctx, nil); err == nil {
		for _, s := range sandboxes {
			uid := api.UID(s.Labels[kubelets.LabelPodUID])
			if uid == "" {
				uid = api.UID(s.Metadata.UID)
			}
			if _, ok := all[uid]; !ok {
				all[uid] = ref{s.Metadata.Namespace, s.Metadata.Name}
			}
		}
	}
	k.mu.Lock()
	for uid, p := range k.static {
		all[uid] = ref{p.Namespace, p.Name}
	}
	for uid, w := range k.workers {
		if _, ok := all[uid]; !ok {
			all[uid] = ref{w.namespace, w.name}
		}
	}
	k.mu.Unlock()
	for uid, r := range all {
		k.poke(ctx, uid, r.namespace, r.name)
	}
}

// podChanged is the pod informer's add and update handler: a pod is
// synced when it is added or its spec or metadata changed; a change of
// its status only (the kubelet's own writes) waits for the relist, as
// upstream's config source ignores status updates (config/config.go:
// checkAndUpdatePod).
func (k *kubelet) podChanged(ctx context.Context, old, p *api.Pod) {
	if old != nil && !specChanged(old, p) {
		return
	}
	if isMirror(p) {
		k.mirrorChanged(ctx, p)
		return
	}
	k.poke(ctx, p.UID, p.Namespace, p.Name)
}

// podDeleted is the pod informer's delete handler.
func (k *kubelet) podDeleted(ctx context.Context, p *api.Pod) {
	if isMirror(p) {
		k.mirrorDeleted(ctx, p)
		return
	}
	k.poke(ctx, p.UID, p.Namespace, p.Name)
}

// specChanged says whether cur differs from old in anything a sync reads
// but its status.
func specChanged(old, cur *api.Pod) bool {
	return !reflect.DeepEqual(old.Spec, cur.Spec) ||
		!reflect.DeepEqual(old.Labels, cur.Labels) ||
		!reflect.DeepEqual(old.Annotations, cur.Annotations) ||
		!reflect.DeepEqual(old.DeletionTimestamp, cur.DeletionTimestamp) ||
		!reflect.DeepEqual(old.DeletionGracePeriodSeconds, cur.DeletionGracePeriodSeconds) ||
		old.UID != cur.UID
}

func isMirror(p *api.Pod) bool {
	_, ok := p.Annotations[api.MirrorPodAnnotationKey]
	return ok
}

// podFor returns a copy of w's pod, from the static pods or the API
// cache, and whether it is static; nil when it is gone from both.
func (k *kubelet) podFor(w *podWorker) (*api.Pod, bool) {
	k.mu.Lock()
	sp := k.static[w.uid]
	k.mu.Unlock()
	if sp != nil {
		w.staticPod = sp
		return api.DeepCopy(sp), true
	}
	if p, ok := k.pods.Get(w.namespace, w.name); ok && p.UID == w.uid && !isMirror(p) {
		return api.DeepCopy(p), false
	}
	return nil, false
}

// syncWorker is one sync of w's pod, and reports whether the pod is done
// with: gone from the API and the static pods, and nothing of it left
// in the runtime.
func (k *kubelet) syncWorker(ctx context.Context, w *podWorker) bool {
	pod, static := k.podFor(w)
	rt, err := k.readRuntime(ctx, w.uid)
	if err != nil {
		return false // the runtime did not answer: the next relist tries again
	}
	switch {
	case pod == nil && w.staticPod != nil:
		return k.stopStatic(ctx, w, rt) // its file is gone (rule 9)
	case pod == nil:
		return k.cleanupOrphan(ctx, rt) // rule 8's orphans
	case pod.DeletionTimestamp != nil:
		return k.terminate(ctx, w, pod, rt) // rule 8
	}
	if static {
		k.syncMirror(ctx, pod)
	}
	k.sync(ctx, w, pod, rt)
	return false
}

// readRuntime reads what the runtime has of pod uid: its sandboxes and
// containers, each with its status, newest first (kuberuntime_manager.go:
// GetPodStatus). A sandbox or container removed while it is read is left
// out.
func (k *kubelet) readRuntime(ctx context.Context, uid api.UID) (kubelets.RuntimePod, error) {
	rs := k.opts.Runtime
	sel := map[string]string{kubelets.LabelPodUID: string(uid)}
	var rt kubelets.RuntimePod
	sandboxes, err := rs.ListPodSandbox(ctx, &cri.PodSandboxFilter{LabelSelector: sel})
	if err != nil {
		return rt, fmt.Errorf("kubelet: listing the sandboxes of pod %s: %w", uid, err)
	}
	for _, s := range slices.Backward(sandboxes) { // listed oldest first
		st, err := rs.PodSandboxStatus(ctx, s.ID)
		if cri.IsNotFound(err) {
			continue
		}
		if err != nil {
			return rt, fmt.Errorf("kubelet: reading sandbox %s: %w", s.ID, err)
		}
		rt.Sandboxes = append(rt.Sandboxes, *st)
	}
	containers, err := rs.ListContainers(ctx, &cri.ContainerFilter{LabelSelector: sel})
	if err != nil {
		return rt, fmt.Errorf("kubelet: listing the containers of pod %s: %w", uid, err)
	}
	for _, c := range slices.Backward(containers) {
		st, err := rs.ContainerStatus(ctx, c.ID)
		if cri.IsNotFound(err) {
			continue
		}
		if err != nil {
			return rt, fmt.Errorf("kubelet: reading container %s: %w", c.ID, err)
		}
		rt.Containers = append(rt.Containers, *st)
	}
	return rt, nil
}

// sync is one sync of a pod that runs (rules 4-7): the probes, Actions,
// its actions in order, then the status.
func (k *kubelet) sync(ctx context.Context, w *podWorker, pod *api.Pod, rt kubelets.RuntimePod) {
	k.firstSync(w, pod)
	failures := k.runProbes(ctx, w, pod, rt)
	acts := k.fn.actions(*api.DeepCopy(pod), api.DeepCopyValue(rt), api.DeepCopyValue(failures))
	k.execute(ctx, w, pod, rt, acts)
	if after, err := k.readRuntime(ctx, w.uid); err == nil {
		k.writeStatus(ctx, w, pod, after, false)
	}
}

// firstSync keeps what the first sync of a pod learns: its status as
// the API has it (Previous), and its startTime.
func (k *kubelet) firstSync(w *podWorker, pod *api.Pod) {
	if w.last == nil {
		st := api.DeepCopyValue(pod.Status)
		w.last = &st
	}
	if w.startTime == nil {
		if pod.Status.StartTime != nil {
			t := *pod.Status.StartTime
			w.startTime = &t
		} else {
			t := api.NewTime(k.clock.Now())
			w.startTime = &t
		}
	}
}

// execute carries out acts in upstream's order (SyncPod): the kills,
// the pod's kill, the sandbox, the next init container, then the app
// containers. A pod in a terminal phase starts nothing again (rule 7).
func (k *kubelet) execute(ctx context.Context, w *podWorker, pod *api.Pod, rt kubelets.RuntimePod, acts kubelets.Actions) {
	for _, kill := range acts.Kill {
		k.killContainer(ctx, pod, kill.ContainerID, kill.Name, kill.Reason, kill.Message)
	}
	if acts.KillPod {
		k.killPod(ctx, pod, rt, nil)
	}
	if terminalPhase(w.last.Phase) {
		return
	}
	sandboxID := acts.SandboxID
	if acts.CreateSandbox {
		id, ok := k.createSandbox(ctx, pod, acts.Attempt)
		if !ok {
			return
		}
		sandboxID = id
	}
	if sandboxID == "" || (acts.NextInit == "" && len(acts.Start) == 0) {
		return
	}
	sb, err := k.opts.Runtime.PodSandboxStatus(ctx, sandboxID)
	if err != nil {
		return
	}
	sc := k.sandboxConfig(pod, sb.Metadata.Attempt)
	podIP := k.podIP(pod, sb)
	if acts.NextInit != "" {
		for i := range pod.Spec.InitContainers {
			if c := pod.Spec.InitContainers[i]; c.Name == acts.NextInit {
				k.startContainer(ctx, w, pod, c, sandboxID, sc, podIP, rt)
			}
		}
	}
	for _, i := range acts.Start {
		if i >= 0 && i < len(pod.Spec.Containers) {
			k.startContainer(ctx, w, pod, pod.Spec.Containers[i], sandboxID, sc, podIP, rt)
		}
	}
}

func terminalPhase(p api.PodPhase) bool { return p == api.PodSucceeded || p == api.PodFailed }

// podLabels are the labels the kubelet finds a pod's sandboxes by
// (pkg/kubelet/types/labels.go; kuberuntime_sandbox.go:
// generatePodSandboxConfig).
func podLabels(pod *api.Pod) map[string]string {
	return map[string]string{
		kubelets.LabelPodName:      pod.Name,
		kubelets.LabelPodNamespace: pod.Namespace,
		kubelets.LabelPodUID:       string(pod.UID),
	}
}

// sandboxConfig is the pod's sandbox config at attempt
// (generatePodSandboxConfig): its metadata, the pod's name as hostname,
// the labels.
func (k *kubelet) sandboxConfig(pod *api.Pod, attempt uint32) *cri.PodSandboxConfig {
	return &cri.PodSandboxConfig{
		Metadata: cri.PodSandboxMetadata{Name: pod.Name, UID: string(pod.UID), Namespace: pod.Namespace, Attempt: attempt},
		Hostname: pod.Name,
		Labels:   podLabels(pod),
	}
}

// createSandbox runs the pod's sandbox at attempt (createPodSandbox); a
// failure is a FailedCreatePodSandBox Event and the next sync tries
// again.
func (k *kubelet) createSandbox(ctx context.Context, pod *api.Pod, attempt uint32) (string, bool) {
	id, err := k.opts.Runtime.RunPodSandbox(ctx, k.sandboxConfig(pod, attempt))
	if err != nil {
		k.recorder.Event(pod, events.EventTypeWarning, "FailedCreatePodSandBox", "",
			fmt.Sprintf("Failed to create pod sandbox: %v", err))
		return "", false
	}
	return id, true
}

// podIP is the pod's IP in sandbox sb: the sandbox's, or the node's for a
// hostNetwork pod.
func (k *kubelet) podIP(pod *api.Pod, sb *cri.PodSandboxStatus) string {
	if pod.Spec.HostNetwork {
		return k.opts.Address
	}
	if sb == nil {
		return ""
	}
	return sb.IP
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
	rs := k.opts.Runtime
	now := k.clock.Now()
	newest := newestNamedIn(rt, c.Name)

	// The crash-loop back-off (doBackOff): only a container that exited
	// is held back, from its FinishedAt.
	if newest != nil && newest.State == cri.ContainerExited {
		entry := w.crash[c.Name]
		if k.fn.inBackoff(copyBackoff(entry), newest.FinishedAt, now) {
			msg := fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", entry.Delay, c.Name, formatPod(pod))
			if k.setWaiting(w, c.Name, api.ContainerReasonCrashLoopBackOff, msg) {
				k.recorder.Event(pod, events.EventTypeWarning, kubelets.EventBackOff, "",
					fmt.Sprintf("Back-off restarting failed container %s in pod %s", c.Name, formatPod(pod)))
			}
			return
		}
		next := k.fn.backoffNext(copyBackoff(entry), newest.FinishedAt, now)
		w.crash[c.Name] = &next
	}

	// The image (images/image_manager.go: EnsureImageExists): is it
	// present, does the pull policy want a pull, is a pull in back-off.
	image := cri.ImageSpec{Image: c.Image}
	present, err := rs.ImageStatus(ctx, image)
	if err != nil {
		k.failStart(w, pod, c.Name, "ImageInspectError", fmt.Sprintf("Failed to inspect image %q: %v", c.Image, err))
		return
	}
	imageRef := ""
	switch policy := pullPolicy(c); {
	case policy == api.PullNever && present == nil:
		// Never pulls: an absent image stays absent until someone puts
		// it on the node (shouldPullImage, ErrImageNeverPull).
		msg := fmt.Sprintf("Container image %q is not present with pull policy of Never", c.Image)
		if k.setWaiting(w, c.Name, api.ContainerReasonErrImageNeverPull, msg) {
			k.recorder.Event(pod, events.EventTypeWarning, api.ContainerReasonErrImageNeverPull, "", msg)
		}
		return
	case present != nil && policy != api.PullAlways:
		imageRef = present.ID
		k.recorder.Event(pod, events.EventTypeNormal, kubelets.EventPulled, "",
			fmt.Sprintf("Container image %q already present on machine", c.Image))
	default:
		// Absent under IfNotPresent, or Always (pulled at every start:
		// the tag may point at a new image), through its back-off.
		if entry := w.pull[c.Name]; entry != nil && k.fn.inBackoff(copyBackoff(entry), entry.LastUpdate, now) {
			msg := fmt.Sprintf("Back-off pulling image %q", c.Image)
			if k.setWaiting(w, c.Name, api.ContainerReasonImagePullBackOff, msg) {
				k.recorder.Event(pod, events.EventTypeNormal, kubelets.EventBackOff, "", msg)
			}
			return
		}
		k.recorder.Event(pod, events.EventTypeNormal, kubelets.EventPulling, "", fmt.Sprintf("Pulling image %q", c.Image))
		start := k.clock.Now()
		ref, err := rs.PullImage(ctx, image)
		if err != nil {
			k.recorder.Event(pod, events.EventTypeWarning, kubelets.EventFailed, "",
				fmt.Sprintf("Failed to pull image %q: %v", c.Image, err))
			next := k.fn.backoffNext(copyBackoff(w.pull[c.Name]), k.clock.Now(), k.clock.Now())
			w.pull[c.Name] = &next
			k.failStart(w, pod, c.Name, api.ContainerReasonErrImagePull, err.Error())
			return
		}
		delete(w.pull, c.Name)
		imageRef = ref
		k.recorder.Event(pod, events.EventTypeNormal, kubelets.EventPulled, "",
			fmt.Sprintf("Successfully pulled image %q in %v", c.Image, k.clock.Now().Sub(start)))
	}

	// The container's config (generateContainerConfig): env and mounts.
	env, err := k.makeEnv(ctx, pod, c, podIP)
	if err != nil {
		k.failStart(w, pod, c.Name, "CreateContainerConfigError", err.Error())
		return
	}
	mounts, err := k.makeMounts(ctx, pod, c)
	if err != nil {
		k.failStart(w, pod, c.Name, "CreateContainerConfigError", err.Error())
		return
	}
	attempt := uint32(0)
	if newest != nil {
		attempt = newest.Metadata.Attempt + 1
	}
	labels := podLabels(pod)
	labels[kubelets.LabelContainerName] = c.Name
	cfg := &cri.ContainerConfig{
		Metadata:   cri.ContainerMetadata{Name: c.Name, Attempt: attempt},
		Image:      cri.ImageSpec{Image: imageRef},
		Command:    slices.Clone(c.Command),
		Args:       slices.Clone(c.Args),
		WorkingDir: c.WorkingDir,
		Envs:       env,
		Mounts:     mounts,
		LogPath:    fmt.Sprintf("%s/%d.log", c.Name, attempt),
		Labels:     labels,
	}
	id, err := rs.CreateContainer(ctx, sandboxID, cfg, sc)
	if err != nil {
		k.failStart(w, pod, c.Name, api.ContainerReasonCreateContainerError, err.Error())
		return
	}
	k.recorder.Event(pod, events.EventTypeNormal, kubelets.EventCreated, "", fmt.Sprintf("Created container: %s", c.Name))
	if err := rs.StartContainer(ctx, id); err != nil {
		k.failStart(w, pod, c.Name, api.ContainerReasonRunContainerError, err.Error())
		return
	}
	k.recorder.Event(pod, events.EventTypeNormal, kubelets.EventStarted, "", fmt.Sprintf("Started container %s", c.Name))
	// Its postStart hook, which the sync waits for (hooks.go): failed,
	// the container was killed and waits PostStartHookError.
	if msg, failed := k.postStart(ctx, pod, c, id, podIP); failed {
		w.waiting[c.Name] = kubelets.Waiting{Reason: reasonPostStartHookError, Message: msg}
		return
	}
	delete(w.waiting, c.Name)
}

// pullPolicy is c's imagePullPolicy, or the apiserver's default when it
// is empty (pkg/apis/core/v1/defaults.go: SetDefaults_Container): Always
// for a :latest or untagged image, else IfNotPresent. Upstream's kubelet
// never sees it empty; the kata's may, from a client that defaults
// nothing.
func pullPolicy(c api.Container) api.PullPolicy {
	if c.ImagePullPolicy != "" {
		return c.ImagePullPolicy
	}
	if _, tag, err := cri.ParseImage(c.Image); err == nil && tag == "latest" {
		return api.PullAlways
	}
	return api.PullIfNotPresent
}

// setWaiting makes container name Waiting with reason and message, and
// reports whether that is new: a back-off's Event is recorded once per
// back-off, not at every sync (upstream records it at every sync and its
// EventCorrelator folds the repeats into one Event's count, which the
// kata's recorder does not).
func (k *kubelet) setWaiting(w *podWorker, name, reason, message string) bool {
	want := kubelets.Waiting{Reason: reason, Message: message}
	if w.waiting[name] == want {
		return false
	}
	w.waiting[name] = want
	return true
}

// failStart makes the container Waiting with reason and message, and
// records upstream's Failed Event "Error: <reason or message>".
func (k *kubelet) failStart(w *podWorker, pod *api.Pod, name, reason, message string) {
	w.waiting[name] = kubelets.Waiting{Reason: reason, Message: message}
	what := message
	if reason == api.ContainerReasonErrImagePull {
		what = reason // startContainer records the pull's sentinel error
	}
	k.recorder.Event(pod, events.EventTypeWarning, kubelets.EventFailed, "", "Error: "+what)
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
	if message == "" {
		message = fmt.Sprintf("Stopping container %s", name)
	}
	k.recorder.Event(pod, events.EventTypeNormal, kubelets.EventKilling, "", message)
	var preStop int64
	if spec := containerSpec(pod, name); spec != nil && spec.Lifecycle != nil && spec.Lifecycle.PreStop != nil {
		grace := k.fn.gracePeriod(*api.DeepCopy(pod), name, reason, 0)
		start := k.clock.Now()
		_ = k.preStop(ctx, pod, *spec, id, grace) // a failure stops nothing: the stop goes on
		preStop = int64(k.clock.Now().Sub(start).Seconds())
	}
	grace := k.fn.gracePeriod(*api.DeepCopy(pod), name, reason, preStop)
	_ = k.opts.Runtime.StopContainer(ctx, id, time.Duration(grace)*time.Second) // a failure: the next sync sees it running
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
	done := make(chan struct{})
	n := 0
	for _, c := range rt.Containers {
		if c.State != cri.ContainerRunning {
			continue
		}
		n++
		go func() {
			defer func() { done <- struct{}{} }()
			if grace != nil {
				_ = k.opts.Runtime.StopContainer(ctx, c.ID, *grace)
				return
			}
			k.killContainer(ctx, pod, c.ID, c.Metadata.Name, "", "")
		}()
	}
	for range n {
		<-done
	}
	for _, s := range rt.Sandboxes {
		if s.State == cri.SandboxReady {
			_ = k.opts.Runtime.StopPodSandbox(ctx, s.ID)
		}
	}
}

// ---------------------------------------------------------------- status

// writeStatus makes the pod's status from rt (rule 7; kubelet_pods.go:
// generateAPIPodStatus) and writes it when it differs from the API's
// (status/status_manager.go: syncPod). terminal says the pod runs
// nothing more (Phase's terminal).
func (k *kubelet) writeStatus(ctx context.Context, w *podWorker, pod *api.Pod, rt kubelets.RuntimePod, terminal bool) {
	k.firstSync(w, pod)
	st := k.makeStatus(w, pod, rt, terminal)
	w.last = &st
	k.publish(ctx, pod, st)
}

// makeStatus is the status of pod from rt and what w knows.
func (k *kubelet) makeStatus(w *podWorker, pod *api.Pod, rt kubelets.RuntimePod, terminal bool) api.PodStatus {
	in := kubelets.StatusInput{
		Pod:      *api.DeepCopy(pod),
		Runtime:  api.DeepCopyValue(rt),
		Previous: api.DeepCopyValue(*w.last),
		Waiting:  maps(w.waiting),
	}
	in.Ready, in.Started = k.probeResults(w)
	init := k.fn.containerStatuses(in, true)
	app := k.fn.containerStatuses(in, false)
	all := append(slices.Clone(init), app...)
	phase := k.fn.phase(*api.DeepCopy(pod), api.DeepCopyValue(all), terminal)
	if terminalPhase(w.last.Phase) {
		phase = w.last.Phase // a terminal phase never changes (status_manager.go)
	}
	// What the kubelet does not own is the API's as it is now (others'
	// condition types, nominatedNodeName...); its own conditions keep
	// their times from its last status (status_manager.go:
	// mergePodStatus, updateLastTransitionTime).
	previous := ownedAfterOthers(pod.Status.Conditions, w.last.Conditions)
	st := api.DeepCopyValue(pod.Status)
	st.Phase = phase
	st.Conditions = k.fn.conditions(*api.DeepCopy(pod), api.DeepCopyValue(all), phase, previous, k.clock.Now())
	st.PodIP, st.PodIPs = w.last.PodIP, api.DeepCopyValue(w.last.PodIPs)
	st.InitContainerStatuses = init
	st.ContainerStatuses = app
	st.HostIP = k.opts.Address
	st.HostIPs = []api.HostIP{{IP: k.opts.Address}}
	st.StartTime = w.startTime
	// podIP from the newest Ready sandbox; with none Ready the pod
	// keeps the IPs it had (a choice of the kata's: a finished pod
	// still shows where it ran).
	for i := range rt.Sandboxes {
		if sb := &rt.Sandboxes[i]; sb.State == cri.SandboxReady {
			if ip := k.podIP(pod, sb); ip != "" {
				st.PodIP = ip
				st.PodIPs = []api.PodIP{{IP: ip}}
			}
			break
		}
	}
	return st
}

// ownedAfterOthers is the conditions of api whose types the kubelet does
// not own, then those of own whose types it does.
func ownedAfterOthers(apiConds, own []api.PodCondition) []api.PodCondition {
	var out []api.PodCondition
	for _, c := range apiConds {
		if !slices.Contains(kubelets.OwnedConditions, c.Type) {
			out = append(out, api.DeepCopyValue(c))
		}
	}
	for _, c := range own {
		if slices.Contains(kubelets.OwnedConditions, c.Type) {
			out = append(out, api.DeepCopyValue(c))
		}
	}
	return out
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
	target := pod
	if isStatic(pod) {
		m, ok := k.pods.Get(pod.Namespace, pod.Name)
		if !ok || m.Annotations[api.MirrorPodAnnotationKey] != string(pod.UID) {
			return // no mirror yet: the next sync writes it
		}
		target = m
	} else if cached, ok := k.pods.Get(pod.Namespace, pod.Name); ok && cached.UID == pod.UID {
		target = cached
	}
	if sameJSON(target.Status, st) {
		return
	}
	got, err := k.c.Get(ctx, podKind, target.Namespace, target.Name)
	if err != nil {
		return
	}
	fresh, ok := got.(*api.Pod)
	if !ok || fresh.UID != target.UID || sameJSON(fresh.Status, st) {
		return
	}
	fresh.Status = st // fresh is the client's own copy
	_, _ = k.c.UpdateStatus(ctx, fresh)
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
