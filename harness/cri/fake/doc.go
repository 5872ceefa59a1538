// Package fake is a deterministic, instant cri.Runtime for unit tests
// of the kubelet: nothing runs, every container is a record whose life
// the test scripts (Options.Behave, Exit), and every call is recorded
// (Calls) so that a test can assert on what the kubelet asked for.
//
// A Runtime has these responsibilities:
//
//  1. Determinism. Ids are "sandbox-1", "sandbox-2", ... and
//     "container-1", ... in call order; sandboxes get the IPs
//     10.244.0.2, 10.244.0.3, ... from a counter (an IP released by
//     StopPodSandbox is not handed out again), unless
//     Options.SandboxIP gives one (a suite that serves probes on
//     127.0.0.1 gives a pod that IP; "" is the counter's next, and the
//     counter moves only for the IPs it hands out); image ids are
//     "sha256:" and the hex SHA-256 of NAME:TAG; every time comes from
//     Options.Clock (nil: 2026-01-01T00:00:00Z, never moving). It
//     starts no goroutine: every change of state happens inside a call,
//     under one lock, so it is safe for concurrent use.
//  2. Images. The registry holds Options.Images and whatever Push adds.
//     PullImage of any other NAME:TAG fails with an error wrapping
//     cri.ErrNotFound (`fake: pull "kata/nope:1.0": not found`). An
//     ImageSpec may name an image by NAME[:TAG] or by its id, as the
//     kubelet passes the id to CreateContainer
//     (pkg/kubelet/kuberuntime/kuberuntime_container.go).
//  3. Sandboxes and containers follow harness/cri/doc.go 1–7: Create
//     needs a Ready sandbox and a present image; Start only from
//     Created; Stop, StopPodSandbox, RemoveContainer and
//     RemovePodSandbox are idempotent (an unknown id is no error);
//     lists are in creation order and every result is a deep copy. As
//     in containerd, a sandbox name (pod_namespace_uid_attempt) and a
//     container name (container_pod_namespace_uid_attempt, the
//     container's attempt) are reserved until removed: creating the
//     same attempt twice is an error (containerd
//     internal/cri/server/helpers.go makeSandboxName and
//     makeContainerName; sandbox_run.go and container_create.go reserve
//     them).
//  4. How a container ends, with the exit codes containerd reports: a
//     process killed by a signal exits 128+signal (containerd
//     pkg/sys/reaper/reaper_unix.go exitStatus), and the reason is
//     Completed for 0 and Error otherwise unless the runtime set one
//     (internal/cri/server/container_status.go toCRIContainerStatus):
//     - Behaviour.Exits: exited right after StartContainer, with
//     ExitCode (Completed or Error);
//     - Behaviour.OOM: exited right after start, 137, OOMKilled;
//     - Behaviour.StartError: StartContainer fails with it and the
//     container is exited with 128, reason StartError and the error
//     as message (internal/cri/server/container_start.go,
//     errorStartExitCode in helpers.go). Starting in a sandbox that is
//     not Ready, or failing to open the log file, ends the same way;
//     - StopContainer with timeout > 0: SIGTERM ends the process,
//     143 (128+15), Error; with Behaviour.IgnoreTerm it is SIGKILLed
//     when the timeout passes, 137, Error;
//     - StopContainer with timeout 0, StopPodSandbox, RemoveContainer
//     and RemovePodSandbox of a running container: SIGKILL at once,
//     137, Error (internal/cri/server/container_stop.go sends SIGKILL
//     without SIGTERM when the timeout is 0; container_remove.go and
//     sandbox_stop.go stop with timeout 0);
//     - Exit: the test ends a running container's process with a code
//     and a reason ("" is Completed or Error by code).
//     The fake does not wait: FinishedAt is the clock's time of the call
//     (a test that wants the grace period to pass moves its clock).
//  5. Logs. At start a container writes Behaviour.Logs (a zero Time is
//     the clock's now, an empty Stream is stdout). Log returns them, also
//     after the container is removed; when the sandbox has a
//     LogDirectory and the config a LogPath, StartContainer also creates
//     LogDirectory/LogPath (and its directories) and appends the lines
//     in CRI format (cri.LogLine.Format), as containerd opens the log
//     file at start. ContainerStatus.LogPath is that path, or "".
//  6. Exec. ExecSync in a running container answers Options.Exec (nil:
//     exit 0, no output); an unknown container is NotFound, one that is
//     not running is an error ("container is not running").
//  7. Scripting and inspection. Exit, Push and Fail (the next call of a
//     method fails with the given error once, before it changes
//     anything) script the runtime; Calls, ResetCalls, Running and Log
//     inspect it. Calls records every Runtime call, failed or not, in
//     order: ID is the id the call is about (the sandbox for
//     RunPodSandbox, which made it, and for CreateContainer, the image
//     as asked for image calls), Name the pod "namespace/name" or the
//     container name (the command, space-separated, for ExecSync), and
//     Timeout the timeout of StopContainer and ExecSync.
//  8. Version answers RuntimeName and RuntimeVersion ("fakeRuntime",
//     "0.1.0", upstream's fake runtime's), so that a kubelet that shows
//     another name made it up.
//
// Options.SandboxIP is called with the lock held and must not call the
// Runtime. Options.Behave and Options.Exec are called without the lock
// held, so they may call the Runtime; Behave is called once per CreateContainer
// that passes its checks, with a copy of the config, and decides that
// container's whole life.
package fake
