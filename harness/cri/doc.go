// Package cri is the container runtime contract the kubelet runs pods
// through, in the shape of Kubernetes' Container Runtime Interface
// (staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto): the
// kubelet never starts a process itself; it asks a runtime for a pod
// sandbox, pulls images and creates, starts, stops and removes
// containers, and reads their state back.
//
// A Runtime has these responsibilities:
//
//  1. Sandboxes. RunPodSandbox gives a pod its environment: an IP of
//     its own and a log directory. The sandbox is SANDBOX_READY until
//     StopPodSandbox, which stops its containers and releases the IP;
//     RemovePodSandbox forgets it and its containers. A sandbox's name
//     (the pod's namespace, name and uid, and the attempt) is taken
//     until the sandbox is removed: running the same attempt again is
//     an error, as it is a container's name (container, pod, attempt)
//     in its sandbox.
//  2. Images. PullImage makes NAME[:TAG] present (no tag means latest)
//     and returns its id; an image the registry lacks is ErrNotFound.
//     ImageStatus answers nil, not an error, for an absent image.
//  3. Containers. CreateContainer needs a Ready sandbox and a present
//     image and makes a container in CONTAINER_CREATED; StartContainer
//     runs it (CONTAINER_RUNNING); when its process ends it is
//     CONTAINER_EXITED with its exit code and a reason: Completed for
//     0, Error otherwise, OOMKilled when killed for its memory limit.
//  4. Stopping. StopContainer sends SIGTERM and, once the timeout has
//     passed, SIGKILL (exit code 137), and returns when the container
//     has exited. Stop, StopPodSandbox, RemoveContainer and
//     RemovePodSandbox are idempotent, as CRI requires: doing them
//     again is no error.
//  5. Reading. ContainerStatus and PodSandboxStatus report one object
//     (ErrNotFound for an unknown id); ListContainers and
//     ListPodSandbox filter by id, state, sandbox and labels, oldest
//     first. Results are copies: changing them changes nothing.
//  6. Exec. ExecSync runs a command in a running container and returns
//     its output and exit code (exec probes run through it).
//  7. Logs. Each container writes its stdout and stderr to its log
//     file in CRI's format, one line per line written (see LogLine).
//
// Two implementations live beside this package: harness/cri/fake,
// deterministic and instant, whose containers are scripted by the test
// that uses it, and harness/cri/process, whose containers are real OS
// processes running the images in harness/cri/images. harness/critest
// is the conformance suite both pass.
package cri
