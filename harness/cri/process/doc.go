// Package process is a cri.Runtime whose containers are real OS
// processes: the one a running kata cluster uses (DESIGN rule 6). A
// container runs the kata's own binary (Options.Exe) with
// $KATA_IMAGE_PROGRAM naming the image's program, which
// images.Dispatch runs; there are no namespaces, cgroups or image
// layers, only what a process on the host can do without privileges.
//
// A Runtime has these responsibilities:
//
//  1. State. New(Options) keeps the runtime's files in Options.Dir:
//     DIR/sandboxes/ID/sandbox.json (for people, never read back),
//     DIR/containers/ID/rootfs (a container's root directory) and the
//     default log directory DIR/logs/NAMESPACE_NAME_UID/. The state
//     itself is in memory: a new Runtime starts empty. New takes a lock
//     on DIR/runtime.lock (a second runtime on the same DIR is an
//     error) and removes DIR/sandboxes and DIR/containers left by an
//     earlier runtime, whose processes are gone (see 9); logs stay, as
//     upstream leaves them to the kubelet.
//  2. Pod IPs. RunPodSandbox gives each sandbox an address of
//     Options.CIDR (default 127.244.0.0/16), round-robin from the last
//     one given, as CNI's host-local IPAM does
//     (containernetworking/plugins plugins/ipam/host-local/backend/allocator/allocator.go):
//     a crash-looping pod does not get a just-released address back at
//     once. As host-local (range.go) the network address, the first
//     host address (.1, the gateway there; here left for the node) and
//     the broadcast address are never given; other addresses ending in
//     .0 or .255 inside a /16 are ordinary host addresses and are
//     given. Two live sandboxes never share an address;
//     StopPodSandbox releases it. New binds the first address (TCP,
//     port 0) and fails if it cannot: on Linux all of 127.0.0.0/8 is on
//     lo, but on macOS only 127.0.0.1 is on lo0, and each pod address
//     needs an alias first, `sudo ifconfig lo0 alias 127.244.0.2 up`
//     (one per address), or a smaller CIDR to alias fewer.
//  3. Images. PullImage looks the image up in Options.Images (an
//     absent image is cri.ErrNotFound, wrapped) and marks it present,
//     by id with its tags; a tag pulled again moves to the id it names
//     now. ImageStatus answers nil for an image not pulled, by tag or
//     id; RemoveImage forgets the image with all its tags, as
//     containerd does. A container runs the entry it was pulled with.
//  4. Command. A container runs Exe with $KATA_IMAGE_PROGRAM set to
//     the image's program and the image's arguments; as in a pod spec,
//     ContainerConfig.Command replaces both (Command[0] is the program,
//     the rest its arguments) and Args replaces the arguments (after
//     Command[1:] when Command is set).
//  5. Environment. A container's environment is, in this order, PATH
//     (the runtime's), HOSTNAME (the sandbox's hostname, or the pod's
//     name), POD_NAME, POD_NAMESPACE, POD_UID, POD_IP, then
//     ContainerConfig.Envs, which win over the ones before them as
//     containerd's HOSTNAME and image variables lose to the config's
//     (containerd internal/cri/server/container_create_linux.go); then
//     $KATA_IMAGE_PROGRAM, which nothing overrides. The runtime's own
//     environment is not inherited.
//  6. Files. The working directory is rootfs, or rootfs/WorkingDir
//     when set (created). Each mount is a symbolic link
//     rootfs/ContainerPath -> HostPath (parents created); Readonly is
//     not enforced. The log file is LogDirectory/LogPath, or
//     LogDirectory/NAME/ATTEMPT.log (the kubelet's layout) when LogPath
//     is empty; ContainerStatus.LogPath is its absolute path.
//  7. Processes. A container is its own process group (and, on Linux,
//     dies with SIGKILL if the runtime's thread that started it dies:
//     Pdeathsig). When its first process exits, the rest of its group is
//     killed, as the kernel kills a PID namespace when its init exits;
//     on Linux the group is killed before the first process is reaped,
//     so that a recycled process id is never signalled. A process ends
//     CONTAINER_EXITED with its exit code, or 128+signal when a signal
//     killed it (137 for SIGKILL), and reason Completed (0), Error or
//     OOMKilled; a process that cannot start leaves the container
//     exited with 128 and reason StartError, as containerd
//     (internal/cri/server/container_start.go). The state turns
//     CONTAINER_EXITED only once its log is written out.
//  8. Logs. stdout and stderr go through pipes into the log file in
//     CRI's format (cri.LogLine), one line per line written; a line
//     over 16 KiB is cut into 16 KiB parts tagged P and a last part
//     tagged F, and output that ends without a newline is tagged P, as
//     containerd (internal/cri/io/logger.go, whose
//     max_container_log_line_size is 16 KiB by default).
//  9. Stopping. StopContainer sends SIGTERM to the group, waits for the
//     exit or the timeout, then sends SIGKILL and waits; a cancelled
//     context returns its error at once, but the group still gets
//     SIGKILL. Close kills every container and waits for every
//     goroutine and process the runtime started: nothing outlives it.
//  10. Memory. On Linux, a container with
//     Resources.MemoryLimitInBytes > 0 has its first process' resident
//     size (VmRSS in /proc/PID/status) read every 50 ms; over the limit,
//     its group is killed and it exits 137, OOMKilled. Elsewhere limits
//     are not enforced.
//  11. Exec. ExecSync runs cmd[0] (found in PATH) as a process in the
//     container's process group, with its environment (less
//     $KATA_IMAGE_PROGRAM) and working directory; its exit code is the
//     result; over the timeout (0: none) it is killed and the call
//     fails with cri.ErrTimeout. A container that is not running is an
//     error.
//  12. Names. As containerd, a sandbox's NAMESPACE/NAME/UID/ATTEMPT and
//     a container's NAME/ATTEMPT in its sandbox are reserved until
//     removed: creating a second one is an error.
//
// The runtime needs a Unix system (process groups and signals); on
// other systems New fails.
package process
