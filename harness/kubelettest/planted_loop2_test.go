package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of steps 14-17: each breaks one rule of the loop
// (kubelets.Kubelet's rules 6, 8, 9 and 10) in the reference's source
// (solutions/13-kubelet: prober.go, pods.go, terminate.go, static.go,
// env.go), and must fail exactly the steps it lists.

func init() { addLoopBugs(loop2Bugs) }

// The reference's files the bugs edit.
const (
	loop2Prober = "prober.go"
	loop2Pods   = "pods.go"
	loop2Term   = "terminate.go"
	loop2Static = "static.go"
	loop2Env    = "env.go"
)

// loop2Bugs are the planted bugs of steps 14-17.
var loop2Bugs = map[string]planted.Bug{
	// Rule 6: readiness ignored: every container with a readiness
	// probe is ready, whatever the probe says.
	"readiness-ignored": edit(loop2Prober,
		"ready[ps.containerID] = ps.worker.Published == kubelets.Success",
		"ready[ps.containerID] = true",
		"14-probes"),
	// Rule 6: a published liveness failure is not handed to Actions:
	// the container is never killed nor restarted.
	"liveness-not-restarting": edit(loop2Prober,
		"if ps.worker.Published == kubelets.Failure && (p.kind == kubelets.Liveness || p.kind == kubelets.Startup) {",
		"if ps.worker.Published == kubelets.Failure && p.kind == kubelets.Startup {",
		"14-probes"),
	// Rule 6: liveness runs without asking ProbeDue: it does not
	// wait for the startup probe.
	"liveness-not-held-by-startup": edit(loop2Prober,
		"if ps.worker.OnHold || !k.fn.probeDue(kind, *api.DeepCopyValue(&probe), api.DeepCopyValue(st), now) {",
		"if ps.worker.OnHold || (kind != kubelets.Liveness && !k.fn.probeDue(kind, *api.DeepCopyValue(&probe), api.DeepCopyValue(st), now)) {",
		"14-probes"),
	// Rule 6: periodSeconds ignored: a probe runs at every sync.
	"probe-period-ignored": edit(loop2Prober,
		"if !ps.lastRun.IsZero() && now.Sub(ps.lastRun) < period {",
		"if _ = period; false {",
		"14-probes"),
	// Rule 6: an exec probe runs with no timeout.
	"probe-timeout-ignored": edit(loop2Prober,
		"res, err := k.opts.Runtime.ExecSync(ctx, containerID, slices.Clone(probe.Exec.Command), timeout)",
		"res, err := k.opts.Runtime.ExecSync(ctx, containerID, slices.Clone(probe.Exec.Command), 0*timeout)",
		"14-probes"),
	// Rule 6: no Unhealthy Event for a failed probe.
	"probe-unhealthy-not-recorded": edit(loop2Prober,
		"\tif result == kubelets.Failure {\n\t\tk.recorder.Event(",
		"\tif false {\n\t\tk.recorder.Event(",
		"14-probes"),
	// Rules 6 and 8: a liveness kill forgets its reason: the
	// probe's own grace is not used.
	"liveness-kill-without-reason": edit(loop2Pods,
		"k.killContainer(ctx, pod, kill.ContainerID, kill.Name, kill.Reason, kill.Message)",
		"k.killContainer(ctx, pod, kill.ContainerID, kill.Name, \"\", kill.Message)",
		"14-probes"),
	// Rule 8: the grace period ignored: SIGKILL at once.
	"grace-ignored-zero": edit(loop2Pods,
		"_ = k.opts.Runtime.StopContainer(ctx, id, time.Duration(grace)*time.Second)",
		"_ = k.opts.Runtime.StopContainer(ctx, id, 0*time.Duration(grace))",
		"14-probes", "15-terminate"),
	// Rule 8: the grace period fixed at upstream's default 30s.
	"grace-ignored-thirty": edit(loop2Pods,
		"_ = k.opts.Runtime.StopContainer(ctx, id, time.Duration(grace)*time.Second)",
		"_ = k.opts.Runtime.StopContainer(ctx, id, 30*time.Second+0*time.Duration(grace))",
		"14-probes", "15-terminate"),
	// Rule 8: the preStop hook is never run.
	"prestop-skipped": edit(loop2Pods,
		"if spec := containerSpec(pod, name); spec != nil && spec.Lifecycle != nil",
		"if spec := containerSpec(pod, name); false && spec != nil && spec.Lifecycle != nil",
		"15-terminate"),
	// Rule 8: the seconds the preStop hook took are not taken off
	// the grace.
	"prestop-time-not-deducted": edit(loop2Pods,
		"preStop = int64(k.clock.Now().Sub(start).Seconds())",
		"preStop = int64(0 * k.clock.Now().Sub(start).Seconds())",
		"15-terminate"),
	// Rule 8: the pod is deleted though a container still runs.
	"deleted-before-stopped": edit(loop2Term,
		"\tif err != nil || running(after) {\n\t\treturn false // the next sync tries again\n\t}\n\tk.writeStatus(",
		"\tif err != nil {\n\t\treturn false\n\t}\n\tk.writeStatus(",
		"15-terminate"),
	// Rule 8: the final Delete without the UID precondition.
	"delete-without-uid": edit(loop2Term,
		"\terr = k.c.Delete(ctx, podKind, pod.Namespace, pod.Name, client.DeleteOptions{\n\t\tGracePeriodSeconds: &zero,\n\t\tPreconditions:      &api.Preconditions{UID: &uid},\n\t})",
		"\t_ = uid\n\terr = k.c.Delete(ctx, podKind, pod.Namespace, pod.Name, client.DeleteOptions{\n\t\tGracePeriodSeconds: &zero,\n\t})",
		"15-terminate"),
	// Rule 8: the final Delete with no grace: the apiserver keeps
	// the pod, being deleted, for good.
	"delete-without-grace-zero": edit(loop2Term,
		"\terr = k.c.Delete(ctx, podKind, pod.Namespace, pod.Name, client.DeleteOptions{\n\t\tGracePeriodSeconds: &zero,\n",
		"\t_ = zero\n\terr = k.c.Delete(ctx, podKind, pod.Namespace, pod.Name, client.DeleteOptions{\n",
		"15-terminate"),
	// Rule 8: an orphan's containers are stopped with the default
	// grace, not OrphanGracePeriodSeconds.
	"orphan-grace-thirty": edit(loop2Term,
		"grace := time.Duration(kubelets.OrphanGracePeriodSeconds) * time.Second",
		"grace := 30 * time.Second",
		"15-terminate"),
	// Rule 9: the mirror pod is created without
	// kubernetes.io/config.mirror: it is a pod of the API like any
	// other, and the kubelet runs it as a second pod.
	"mirror-without-annotation": edit(loop2Static,
		"\tm.Annotations[api.MirrorPodAnnotationKey] = string(pod.UID)\n",
		"",
		"16-static-pods"),
	// Rule 9: the mirror pod has no ownerReference to the Node.
	"mirror-without-owner": edit(loop2Static,
		"\tm.OwnerReferences = []api.OwnerReference{{",
		"\tm.OwnerReferences = nil\n\t_ = []api.OwnerReference{{",
		"16-static-pods"),
	// Rules 4 and 9: a mirror pod is run as a pod of its own.
	"mirror-run-as-pod": {Edits: []planted.Edit{
		{File: loop2Pods, Old: "\tif isMirror(p) {\n\t\tk.mirrorChanged(ctx, p)\n\t\treturn\n\t}", New: "\tif isMirror(p) {\n\t\tk.mirrorChanged(ctx, p)\n\t}"},
		{File: loop2Pods, Old: "ok && p.UID == w.uid && !isMirror(p) {", New: "ok && p.UID == w.uid {"},
	}, Fails: []string{"16-static-pods"}},
	// Rule 9: a mirror pod being deleted (a graceful delete) is left
	// as it is: it is never deleted nor created again.
	"mirror-deletion-ignored": edit(loop2Static,
		"if ok && (m.DeletionTimestamp != nil || m.Annotations[api.MirrorPodAnnotationKey] != string(pod.UID)) {",
		"if ok && m.Annotations[api.MirrorPodAnnotationKey] != string(pod.UID) {",
		"16-static-pods"),
	// Rule 9: a mirror pod of no static pod is kept.
	"orphan-mirror-kept": edit(loop2Static,
		"\t\treturn // its static pod is stopping: its worker deletes it\n\t}\n\tk.deleteMirror(ctx, m)",
		"\t\treturn // its static pod is stopping: its worker deletes it\n\t}",
		"16-static-pods"),
	// Rule 9: a file removed is not noticed: its pod runs on.
	"static-removal-ignored": edit(loop2Static,
		"\t\tif read[uid] == nil {\n",
		"\t\tif read[uid] == nil {\n\t\t\tread[uid] = p\n\t\t\tcontinue\n",
		"16-static-pods"),
	// Rule 9: a static pod keeps its manifest's name.
	"static-name-without-node": edit(loop2Static,
		"p.Name = p.Name + \"-\" + k.opts.NodeName",
		"p.Name = p.Name",
		"16-static-pods"),
	// Rule 9: the static pod's status is never written to its
	// mirror pod.
	"static-status-not-mirrored": edit(loop2Pods,
		"\t\ttarget = m\n",
		"\t\treturn\n",
		"16-static-pods"),
	// Rule 10: fieldRef metadata.uid gives the pod's name.
	"fieldref-uid-is-name": edit(loop2Env,
		"\tcase \"metadata.uid\":\n\t\treturn string(pod.UID), nil",
		"\tcase \"metadata.uid\":\n\t\treturn pod.Name, nil",
		"17-env-volumes"),
	// Rule 10: fieldRef status.hostIP gives the pod's IP.
	"fieldref-hostip-is-podip": edit(loop2Env,
		"\tcase \"status.hostIP\":\n\t\treturn k.opts.Address, nil",
		"\tcase \"status.hostIP\":\n\t\treturn podIP, nil",
		"17-env-volumes"),
	// Rule 10: an optional configMapKeyRef whose ConfigMap is
	// missing is taken as required: CreateContainerConfigError.
	"optional-configmap-required": edit(loop2Env,
		"\t\t\tcm, err := k.configMap(ctx, pod.Namespace, ref.Name)\n\t\t\tif err != nil {\n\t\t\t\tif client.IsNotFound(err) && isTrue(ref.Optional) {",
		"\t\t\tcm, err := k.configMap(ctx, pod.Namespace, ref.Name)\n\t\t\tif err != nil {\n\t\t\t\tif false && isTrue(ref.Optional) {",
		"17-env-volumes"),
	// Rule 10: a missing key is left out, optional or not.
	"missing-key-not-an-error": edit(loop2Env,
		"\t\t\tv, ok := cm.Data[ref.Key]\n\t\t\tif !ok {\n\t\t\t\tif isTrue(ref.Optional) {",
		"\t\t\tv, ok := cm.Data[ref.Key]\n\t\t\tif !ok {\n\t\t\t\tif true {",
		"17-env-volumes"),
	// Rule 10: $(VAR) is never expanded.
	"env-not-expanded": edit(loop2Env,
		"value = expand(value, vars)",
		"value = expand(value, nil)",
		"17-env-volumes"),
	// Rule 10: envFrom's variables come first, the env list's
	// after, and a name both give is there twice.
	"envfrom-first": edit(loop2Env,
		"\tfor _, kv := range from {\n\t\tif !hasEnv(env, kv.Key) {\n\t\t\tenv = append(env, kv)\n\t\t}\n\t}\n\treturn env, nil",
		"\treturn append(from, env...), nil",
		"17-env-volumes"),
	// Rule 10: a configMap volume's files are not written.
	"configmap-volume-empty": edit(loop2Env,
		"files = project(cm.Data, v.ConfigMap.Items)",
		"files = project(cm.Data, []api.KeyToPath{{Key: \"-\", Path: \"-\"}})",
		"17-env-volumes"),
	// Rule 10: a mount's container path is the host's.
	"mount-path-wrong": edit(loop2Env,
		"cri.Mount{ContainerPath: m.MountPath, HostPath: host",
		"cri.Mount{ContainerPath: host, HostPath: host",
		"17-env-volumes"),
}
