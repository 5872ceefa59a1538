package kubelets

import (
	"github.com/kubekata/kubekata/harness/api"
)

// PhaseFunc is the pod's phase from the statuses of its init and app
// containers (init first; a container's status is found by its name, and
// a status whose name the spec does not list counts for nothing);
// terminal says the pod will run nothing more (its workers are done).
// It is upstream's getPhase (pkg/kubelet/kubelet_pods.go), without the
// branches for sidecars (restartable init containers), which the kata
// does not have.
//
//  1. An init container is failed when its state is terminated with an
//     exit code other than 0, or waiting after a last termination
//     (lastState.terminated) with an exit code other than 0; it is done
//     when that exit code is 0; it is pending otherwise: no status,
//     running, waiting with no last termination, or no state at all.
//  2. Any init container failed and restartPolicy Never: Failed, whatever
//     the app containers say.
//  3. An app container is unknown when it has no status or its status no
//     state; running when running; stopped when terminated (and
//     succeeded too when it exited 0) or waiting after a last termination
//     (stopped, never succeeded: it is about to run again); waiting when
//     waiting with no last termination.
//  4. Pending when any app container is waiting, or when an init
//     container is pending and no app container is running or terminated
//     (an app container that started shows that the pod was initialized
//     once: upstream's HasAnyRegularContainerStarted).
//  5. Running when at least one app container is running and none is
//     unknown.
//  6. When none is running, at least one stopped and none unknown: a
//     terminal pod is Succeeded if every stopped one succeeded, else
//     Failed, whatever its restartPolicy; otherwise restartPolicy Always
//     (or none: the apiserver defaults it to Always) is Running (they are
//     being restarted); every stopped one succeeded is Succeeded; Never
//     is Failed; OnFailure is Running.
//  7. Anything else is Pending (an app container unknown, no statuses).
//
// Where the kata simplifies on purpose: rule 6 gives static pods a
// terminal phase too (upstream does not yet, TODO #116484), and an
// unset restartPolicy counts as Always (upstream never sees one unset).
type PhaseFunc func(pod api.Pod, statuses []api.ContainerStatus, terminal bool) api.PodPhase
