package kubelet

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
)

var benchT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// benchPod is a pod of one init container and three app containers, one
// of them crash-looping, as a kubelet syncs it again and again: its
// sandbox, the init container's run, and two runs of each app container
// (the newest and the one before it), newest first.
func benchPod() (api.Pod, kubelets.RuntimePod) {
	grace := int64(30)
	pod := api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-web"},
		Spec: api.PodSpec{
			InitContainers:                []api.Container{{Name: "setup", Image: "kata/sleep:1.0"}},
			RestartPolicy:                 api.RestartPolicyAlways,
			TerminationGracePeriodSeconds: &grace,
		},
	}
	rt := kubelets.RuntimePod{Sandboxes: []cri.PodSandboxStatus{{ID: "sb-0", State: cri.SandboxReady, IP: "127.244.0.2", CreatedAt: benchT0}}}
	at := benchT0.Add(time.Second)
	rt.Containers = append(rt.Containers, cri.ContainerStatus{ID: "c-setup", Metadata: cri.ContainerMetadata{Name: "setup"},
		State: cri.ContainerExited, CreatedAt: at, StartedAt: at, FinishedAt: at, Reason: cri.ReasonCompleted,
		Image: cri.ImageSpec{Image: "kata/sleep:1.0"}, ImageRef: "sha256:sleep"})
	var newest []cri.ContainerStatus
	for i, name := range []string{"web", "sidecar", "crasher"} {
		pod.Spec.Containers = append(pod.Spec.Containers, api.Container{Name: name, Image: "kata/http-echo:2.0",
			ReadinessProbe: &api.Probe{ProbeHandler: api.ProbeHandler{Exec: &api.ExecAction{Command: []string{"cat", "ready"}}}}})
		for attempt := 1; attempt >= 0; attempt-- {
			c := cri.ContainerStatus{ID: fmt.Sprintf("c-%s-%d", name, attempt), Metadata: cri.ContainerMetadata{Name: name, Attempt: uint32(attempt)},
				CreatedAt: at.Add(time.Duration(10*attempt+i) * time.Second), Image: cri.ImageSpec{Image: "kata/http-echo:2.0"}, ImageRef: "sha256:echo"}
			c.StartedAt = c.CreatedAt
			switch {
			case attempt == 0 || name == "crasher":
				c.State, c.ExitCode, c.Reason, c.FinishedAt = cri.ContainerExited, 1, cri.ReasonError, c.StartedAt.Add(time.Second)
			default:
				c.State = cri.ContainerRunning
			}
			newest = append(newest, c)
		}
	}
	// Newest first: the attempt-1 runs, then the attempt-0 runs, then
	// the init container.
	for _, attempt := range []int{1, 0} {
		for _, c := range newest {
			if int(c.Metadata.Attempt) == attempt {
				rt.Containers = append([]cri.ContainerStatus{c}, rt.Containers...)
			}
		}
	}
	return pod, rt
}

// benchSync is the pure part of one sync of benchPod: the plan, the
// back-off check of the crash-looping container, and the status (both
// container lists, the phase and the conditions).
func benchSync(pod api.Pod, rt kubelets.RuntimePod, entry *kubelets.Backoff, previous api.PodStatus, now time.Time) api.PodStatus {
	_ = Actions(pod, rt, nil)
	_ = InBackoff(entry, benchT0.Add(20*time.Second), now)
	in := kubelets.StatusInput{Pod: pod, Runtime: rt, Previous: previous,
		Waiting: map[string]kubelets.Waiting{"crasher": {Reason: api.ContainerReasonCrashLoopBackOff, Message: "back-off 20s restarting failed container=crasher pod=web_default(uid-web)"}},
		Ready:   map[string]bool{"c-web-1": true, "c-sidecar-1": true}}
	st := api.PodStatus{
		InitContainerStatuses: ContainerStatuses(in, true),
		ContainerStatuses:     ContainerStatuses(in, false),
	}
	all := append(append([]api.ContainerStatus{}, st.InitContainerStatuses...), st.ContainerStatuses...)
	st.Phase = Phase(pod, all, false)
	st.Conditions = Conditions(pod, all, st.Phase, previous.Conditions, now)
	return st
}

// BenchmarkSync is the pure part of one sync of a pod of four containers
// in the steady state: the status comes out as the previous one.
func BenchmarkSync(b *testing.B) {
	pod, rt := benchPod()
	entry := &kubelets.Backoff{Delay: 20 * time.Second, LastUpdate: benchT0.Add(20 * time.Second)}
	now := benchT0.Add(time.Minute)
	previous := benchSync(pod, rt, entry, api.PodStatus{}, now)
	if again := benchSync(pod, rt, entry, previous, now); !reflect.DeepEqual(again, previous) {
		b.Fatalf("the second sync's status = %+v, want the first's %+v (the steady state)", again, previous)
	}
	if previous.Phase != api.PodRunning {
		b.Fatalf("the sync's phase = %s, want Running", previous.Phase)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = benchSync(pod, rt, entry, previous, now)
	}
}

// BenchmarkSyncBaseline is BenchmarkSync's baseline: a deep copy of the
// pod and of what the runtime said, the least a sync does that reads its
// pod from a cache and the runtime's state fresh, before it decides
// anything.
func BenchmarkSyncBaseline(b *testing.B) {
	pod, rt := benchPod()
	b.ReportAllocs()
	for b.Loop() {
		_ = api.DeepCopyValue(pod)
		_ = api.DeepCopyValue(rt)
	}
}
