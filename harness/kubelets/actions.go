package kubelets

import "github.com/kubekata/kubekata/harness/api"

// Kill is a container to kill: the runtime's id of it (its newest
// container's cri.ContainerStatus.ID, without "kata://"), its name in the
// spec, and upstream's reason ("LivenessProbe", "StartupProbe" or
// "Unknown") and message ("Container web failed liveness probe, will be
// restarted").
type Kill struct {
	ContainerID string `json:"containerID"`
	Name        string `json:"name"`
	Reason      string `json:"reason"`
	Message     string `json:"message"`
}

// Actions is one sync's plan for a pod (kuberuntime_manager.go:
// podActions). KillPod stops every container and the sandbox;
// CreateSandbox makes a new one with Attempt (SandboxID is the newest,
// "" when none); NextInit names the init container to start next ("":
// none); Start lists the app containers to start by index in
// pod.spec.containers, in spec order; Kill the containers to kill first,
// in spec order. An empty Start or Kill is the same as none.
type Actions struct {
	KillPod       bool   `json:"killPod,omitempty"`
	CreateSandbox bool   `json:"createSandbox,omitempty"`
	SandboxID     string `json:"sandboxID,omitempty"`
	Attempt       uint32 `json:"attempt,omitempty"`
	NextInit      string `json:"nextInit,omitempty"`
	Start         []int  `json:"start"`
	Kill          []Kill `json:"kill,omitempty"`
}

// ProbeFailure says that the liveness or startup probe of a running
// container has failed (the prober's results manager holds Failure for
// it). ContainerID is the runtime's id (cri.ContainerStatus.ID).
type ProbeFailure struct {
	ContainerID string    `json:"containerID"`
	Probe       ProbeKind `json:"probe"`
}

// The kill reasons (kuberuntime_manager.go: containerKillReason).
const (
	KillReasonLiveness = "LivenessProbe"
	KillReasonStartup  = "StartupProbe"
	KillReasonUnknown  = "Unknown"
)

// ActionsFunc is one sync's plan for pod, from what the runtime has of it
// (rt, each list newest first) and the liveness and startup probes that
// failed: upstream's computePodActions
// (pkg/kubelet/kuberuntime/kuberuntime_manager.go) on its path without
// sidecars (!handleRestartableInitContainers), with
// findNextInitContainerToRun and isInitContainerFailed
// (kuberuntime_container.go). It asks the implementation's own
// SandboxChanged and ShouldRestart. A container's state below is the
// state of its newest container, the first in rt.Containers whose
// Metadata.Name is its name (as ShouldRestart reads it; upstream's
// FindContainerStatusByName): running, exited (with its exit code),
// created (never started), unknown, or none at all.
//
// Rule 1. The sandbox first. SandboxID and Attempt are always what
// SandboxChanged answers. When it says Create, the pod is killed
// (KillPod) and a new sandbox is made (CreateSandbox): everything starts
// over, rules 2 and 3 say what comes with it, and rules 4 to 7 are not
// asked.
//
// Rule 2. A pod that ran and must not run again gets no new sandbox: when
// the restartPolicy is Never, Attempt is above 0 and rt.Containers lists
// any container (init or app), CreateSandbox is false and the plan stops
// there: the pod is only killed. At attempt 0, or when no container was
// ever made, the sandbox is made (it is retried).
//
// Rule 3. The containers that come with a new sandbox are every app
// container, by index in spec order, except, under restartPolicy
// OnFailure, those that succeeded: not running, exit code 0 (upstream's
// containerSucceeded). When none is left and initialization is done (as
// rule 4 says), CreateSandbox is false: the pod is only killed. Else, when
// the pod has init containers, NextInit is the first of them and Start
// is empty (initialization runs again from the start); else Start is
// those containers.
//
// Rule 4. Initialization, when the sandbox stays. It is done when the pod
// has no init containers, or when an app container is running (the init
// containers' records may have been removed since). Else the init
// containers are read from the last to the first:
//
//   - the first that failed (exited with a non-zero code, or unknown)
//     decides: under restartPolicy Never, KillPod; else NextInit is its
//     name, and when it is unknown it is killed first, a Kill with reason
//     "Unknown" and message
//     "Init container is in \"unknown\" state, try killing it before restart";
//   - else the first that is running or exited decides: running, wait
//     (nothing to do); exited (with 0), done when it is the last init
//     container, else NextInit is the one after it. One created but never
//     started, or with no container, is passed over;
//   - else NextInit is the first init container.
//
// Until initialization is done, no app container is looked at: Start
// stays empty and rule 7 does not apply.
//
// Rule 5. Once initialized, each app container that is not running (none,
// created, exited or unknown) is started, its index appended to Start,
// when ShouldRestart says so; one that is unknown is also killed first, a
// Kill with reason "Unknown" and message
// "Container is in \"unknown\" state, try killing it before restart".
//
// Rule 6. A running app container is killed when failures lists its id
// with Probe liveness: reason "LivenessProbe", message
// "Container <name> failed liveness probe"; else when it lists it with
// Probe startup: reason "StartupProbe", message
// "Container <name> failed startup probe". Unless the restartPolicy is
// Never, the message ends in ", will be restarted" and its index is
// appended to Start. A failure listed for another id (an older container
// of the same name) or for readiness kills nothing. Any other running
// container is kept.
//
// Rule 7. When no app container is kept running and none is to start,
// KillPod: the pod is done, its sandbox goes (rule 6's kills stay
// listed).
//
// Start and Kill follow the spec's order, as rules 5 and 6 meet the app
// containers (upstream keeps the kills in a map, in no order). The
// unknown state prints as upstream's kubecontainer state does, "unknown".
//
// Where the kata simplifies on purpose: a running container whose spec
// changed is not restarted (the package doc says why); an init container
// fails by its exit code or unknown state only (upstream's
// isInitContainerFailed also reads reason OOMKilled).
type ActionsFunc func(pod api.Pod, rt RuntimePod, failures []ProbeFailure) Actions
