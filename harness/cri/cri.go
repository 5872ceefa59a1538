package cri

import (
	"context"
	"errors"
	"time"
)

// Runtime is a container runtime as the kubelet sees it: CRI's
// RuntimeService and ImageService in one (upstream's
// k8s.io/cri-api/pkg/apis/services.go, whose methods follow
// staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto). Every
// argument and result is plain data, so that a remote client and server
// for it are mechanical (DESIGN rule 9), as CRI itself is gRPC.
type Runtime interface {
	RuntimeService
	ImageService
}

// RuntimeService runs pod sandboxes and their containers.
type RuntimeService interface {
	// Version names the runtime and its version (api.proto: Version).
	// The kubelet asks it when it registers and shows the answer as its
	// Node's status.nodeInfo.containerRuntimeVersion, RuntimeName://
	// RuntimeVersion (pkg/kubelet/nodestatus/setters.go: VersionInfo),
	// the same name that prefixes its containers' ids ("containerd://").
	Version(ctx context.Context) (*VersionResponse, error)

	// RunPodSandbox creates and starts a pod sandbox, the pod's shared
	// environment (its IP, its log directory), and returns its id. The
	// sandbox is Ready until it is stopped.
	RunPodSandbox(ctx context.Context, config *PodSandboxConfig) (string, error)
	// StopPodSandbox stops every container of the sandbox (as
	// StopContainer with timeout 0 does) and releases its IP; the
	// sandbox stays, NotReady, until removed. It is idempotent: a
	// stopped or removed sandbox is no error.
	StopPodSandbox(ctx context.Context, podSandboxID string) error
	// RemovePodSandbox stops the sandbox if it runs, removes its
	// containers and forgets it. A removed sandbox is no error.
	RemovePodSandbox(ctx context.Context, podSandboxID string) error
	// PodSandboxStatus reports one sandbox; an unknown id is NotFound.
	PodSandboxStatus(ctx context.Context, podSandboxID string) (*PodSandboxStatus, error)
	// ListPodSandbox lists the sandboxes that match filter (nil: all),
	// oldest first.
	ListPodSandbox(ctx context.Context, filter *PodSandboxFilter) ([]*PodSandbox, error)

	// CreateContainer creates a container in a Ready sandbox from a
	// pulled image and returns its id; the container is Created, not
	// running. An image not present is NotFound; a sandbox not Ready is
	// an error (containerd refuses it only at StartContainer; the kata
	// refuses it at once).
	CreateContainer(ctx context.Context, podSandboxID string, config *ContainerConfig, sandboxConfig *PodSandboxConfig) (string, error)
	// StartContainer starts a Created container; it is an error for a
	// container in any other state. A start that fails leaves the
	// container CONTAINER_EXITED with exit code 128, reason StartError
	// and the error as its message, as containerd does.
	StartContainer(ctx context.Context, containerID string) error
	// StopContainer stops a running container: SIGTERM, then SIGKILL
	// once timeout has passed (timeout 0: SIGKILL at once). It returns
	// when the container has exited. Stopping a container that is not
	// running, or unknown (removed already, or never made), is no
	// error (api.proto; cri-tools' validate/idempotence.go checks it).
	StopContainer(ctx context.Context, containerID string, timeout time.Duration) error
	// RemoveContainer removes a container, killing it first if it
	// runs. A removed container is no error.
	RemoveContainer(ctx context.Context, containerID string) error
	// ListContainers lists the containers that match filter (nil: all),
	// oldest first.
	ListContainers(ctx context.Context, filter *ContainerFilter) ([]*Container, error)
	// ContainerStatus reports one container; an unknown id is NotFound.
	ContainerStatus(ctx context.Context, containerID string) (*ContainerStatus, error)
	// ExecSync runs cmd in a running container (its environment, its
	// working directory) and returns what it wrote and its exit code; a
	// command still running after timeout is killed and the call fails
	// with ErrTimeout. An exit code other than 0 is a result, not an
	// error.
	ExecSync(ctx context.Context, containerID string, cmd []string, timeout time.Duration) (*ExecResult, error)
}

// ImageService pulls and lists images.
type ImageService interface {
	// PullImage makes an image present and returns its reference (its
	// id). An image the registry does not have is NotFound.
	PullImage(ctx context.Context, image ImageSpec) (string, error)
	// ImageStatus reports an image that is present, or nil and no
	// error when it is not (as upstream: absence is not an error).
	ImageStatus(ctx context.Context, image ImageSpec) (*Image, error)
	// ListImages lists the images that are present, by id.
	ListImages(ctx context.Context) ([]*Image, error)
	// RemoveImage removes a present image; an absent one is no error.
	RemoveImage(ctx context.Context, image ImageSpec) error
}

// Errors a Runtime returns, wrapped with what was asked for; test them
// with errors.Is.
var (
	// ErrNotFound: the sandbox, container or image does not exist (CRI's
	// gRPC NotFound).
	ErrNotFound = errors.New("cri: not found")
	// ErrTimeout: ExecSync's command outlived its timeout.
	ErrTimeout = errors.New("cri: timed out")
)

// IsNotFound reports whether err is, or wraps, ErrNotFound.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// ---------------------------------------------------------------- version

// VersionResponse is what Version answers (api.proto: VersionResponse).
// RuntimeName and RuntimeVersion name the runtime ("containerd",
// "1.7.22"; CRI wants the version semver-compatible); Version is the
// kubelet runtime API the runtime speaks and RuntimeAPIVersion the CRI
// version (KubeletAPIVersion and CRIVersion, as containerd answers).
type VersionResponse struct {
	Version           string `json:"version"`
	RuntimeName       string `json:"runtimeName"`
	RuntimeVersion    string `json:"runtimeVersion"`
	RuntimeAPIVersion string `json:"runtimeApiVersion"`
}

// The API versions a runtime answers in its VersionResponse:
// KubeletAPIVersion is the kubelet runtime API version upstream's
// kubelet sends and expects (pkg/kubelet/kuberuntime/
// kuberuntime_manager.go: kubeRuntimeAPIVersion), CRIVersion the
// version of CRI the runtime serves (runtime/v1).
const (
	KubeletAPIVersion = "0.1.0"
	CRIVersion        = "v1"
)

// ---------------------------------------------------------------- sandboxes

// PodSandboxMetadata names the pod a sandbox is for. Attempt counts the
// sandboxes made for the same pod, from 0.
type PodSandboxMetadata struct {
	Name      string `json:"name"`
	UID       string `json:"uid"`
	Namespace string `json:"namespace"`
	Attempt   uint32 `json:"attempt,omitempty"`
}

// PodSandboxConfig is what RunPodSandbox needs.
type PodSandboxConfig struct {
	Metadata PodSandboxMetadata `json:"metadata"`
	Hostname string             `json:"hostname,omitempty"`
	// LogDirectory is where the containers' logs go, one file per
	// container attempt at LogDirectory/ContainerConfig.LogPath. Empty:
	// the runtime picks one under its own directory.
	LogDirectory string            `json:"logDirectory,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
}

// PodSandboxState is SANDBOX_READY or SANDBOX_NOTREADY.
type PodSandboxState string

// The sandbox states, as CRI names them.
const (
	SandboxReady    PodSandboxState = "SANDBOX_READY"
	SandboxNotReady PodSandboxState = "SANDBOX_NOTREADY"
)

// PodSandbox is a sandbox as ListPodSandbox lists it.
type PodSandbox struct {
	ID        string             `json:"id"`
	Metadata  PodSandboxMetadata `json:"metadata"`
	State     PodSandboxState    `json:"state"`
	CreatedAt time.Time          `json:"createdAt"`
	Labels    map[string]string  `json:"labels,omitempty"`
}

// PodSandboxStatus is a sandbox as PodSandboxStatus reports it. IP is
// the pod's IP while the sandbox is Ready (empty once stopped).
type PodSandboxStatus struct {
	ID          string             `json:"id"`
	Metadata    PodSandboxMetadata `json:"metadata"`
	State       PodSandboxState    `json:"state"`
	CreatedAt   time.Time          `json:"createdAt"`
	IP          string             `json:"ip,omitempty"`
	Labels      map[string]string  `json:"labels,omitempty"`
	Annotations map[string]string  `json:"annotations,omitempty"`
}

// PodSandboxFilter selects sandboxes: every field set must match.
type PodSandboxFilter struct {
	ID            string            `json:"id,omitempty"`
	State         PodSandboxState   `json:"state,omitempty"`
	LabelSelector map[string]string `json:"labelSelector,omitempty"`
}

// ---------------------------------------------------------------- containers

// ContainerMetadata names a container in its pod. Attempt counts the
// containers made for the same name in the same sandbox, from 0 (the
// kubelet's restartCount).
type ContainerMetadata struct {
	Name    string `json:"name"`
	Attempt uint32 `json:"attempt,omitempty"`
}

// ImageSpec names an image, "NAME[:TAG]" (no tag: latest), or an
// image's id (the kubelet creates containers by the id PullImage
// returned). A container's status reports the NAME:TAG.
type ImageSpec struct {
	Image string `json:"image"`
}

// KeyValue is one environment variable.
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Mount makes a host directory or file appear in the container. A
// process runtime has no mount namespace: the container sees HostPath
// at ContainerPath relative to its root directory (see the runtime's
// doc for how).
type Mount struct {
	ContainerPath string `json:"containerPath"`
	HostPath      string `json:"hostPath"`
	Readonly      bool   `json:"readonly,omitempty"`
}

// Resources are the limits a runtime enforces. MemoryLimitInBytes 0 is
// no limit; a container over its limit is killed and reported
// OOMKilled.
type Resources struct {
	MemoryLimitInBytes int64 `json:"memoryLimitInBytes,omitempty"`
}

// ContainerConfig is what CreateContainer needs. Command replaces the
// image's entrypoint and Args its arguments, as in a pod spec (upstream
// calls them command and args in CRI too).
type ContainerConfig struct {
	Metadata   ContainerMetadata `json:"metadata"`
	Image      ImageSpec         `json:"image"`
	Command    []string          `json:"command,omitempty"`
	Args       []string          `json:"args,omitempty"`
	WorkingDir string            `json:"workingDir,omitempty"`
	Envs       []KeyValue        `json:"envs,omitempty"`
	Mounts     []Mount           `json:"mounts,omitempty"`
	// LogPath is the container's log file relative to the sandbox's
	// LogDirectory; upstream's kubelet uses CONTAINER/ATTEMPT.log.
	LogPath     string            `json:"logPath,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Resources   Resources         `json:"resources,omitempty"`
}

// ContainerState is CRI's container state.
type ContainerState string

// The container states, as CRI names them.
const (
	ContainerCreated ContainerState = "CONTAINER_CREATED"
	ContainerRunning ContainerState = "CONTAINER_RUNNING"
	ContainerExited  ContainerState = "CONTAINER_EXITED"
	ContainerUnknown ContainerState = "CONTAINER_UNKNOWN"
)

// Container is a container as ListContainers lists it.
type Container struct {
	ID           string            `json:"id"`
	PodSandboxID string            `json:"podSandboxId"`
	Metadata     ContainerMetadata `json:"metadata"`
	Image        ImageSpec         `json:"image"`
	ImageRef     string            `json:"imageRef"`
	State        ContainerState    `json:"state"`
	CreatedAt    time.Time         `json:"createdAt"`
	Labels       map[string]string `json:"labels,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
}

// The reasons a runtime gives an exited container, as containerd and
// CRI-O give them (the kubelet copies them into the pod's
// containerStatuses[].state.terminated.reason).
const (
	ReasonCompleted = "Completed" // exit code 0
	ReasonError     = "Error"     // any other exit
	ReasonOOMKilled = "OOMKilled" // killed for going over its memory limit
	// ReasonStartError: StartContainer failed (exit code 128,
	// containerd's errorStartExitCode).
	ReasonStartError = "StartError"
)

// ContainerStatus is a container as ContainerStatus reports it. The
// times are zero until they happen; ExitCode, Reason and FinishedAt
// mean something once State is CONTAINER_EXITED. A container killed
// by a signal exits with 128+signal (137 for SIGKILL), as a shell
// reports it and as the kubelet shows it.
type ContainerStatus struct {
	ID          string            `json:"id"`
	Metadata    ContainerMetadata `json:"metadata"`
	State       ContainerState    `json:"state"`
	CreatedAt   time.Time         `json:"createdAt"`
	StartedAt   time.Time         `json:"startedAt,omitempty"`
	FinishedAt  time.Time         `json:"finishedAt,omitempty"`
	ExitCode    int32             `json:"exitCode"`
	Image       ImageSpec         `json:"image"`
	ImageRef    string            `json:"imageRef"`
	Reason      string            `json:"reason,omitempty"`
	Message     string            `json:"message,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	// LogPath is the absolute path of the container's log file.
	LogPath string `json:"logPath,omitempty"`
}

// ContainerFilter selects containers: every field set must match.
type ContainerFilter struct {
	ID            string            `json:"id,omitempty"`
	State         ContainerState    `json:"state,omitempty"`
	PodSandboxID  string            `json:"podSandboxId,omitempty"`
	LabelSelector map[string]string `json:"labelSelector,omitempty"`
}

// ExecResult is what ExecSync's command wrote and how it exited.
type ExecResult struct {
	Stdout   []byte `json:"stdout,omitempty"`
	Stderr   []byte `json:"stderr,omitempty"`
	ExitCode int32  `json:"exitCode"`
}

// ---------------------------------------------------------------- images

// Image is a present image. ID is its reference ("sha256:..."), the
// same for every tag of the same content; RepoTags are the NAME:TAG
// that name it.
type Image struct {
	ID       string   `json:"id"`
	RepoTags []string `json:"repoTags"`
	Size     uint64   `json:"size,omitempty"`
}
