package kubelets

import (
	"context"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
)

// ---------------------------------------------------------------- the loop

// Names, labels and intervals of the loop, as upstream's.
const (
	// LeaseNamespace holds one Lease per node, named as the node
	// (pkg/kubelet/nodelease: the node lease controller).
	LeaseNamespace = "kube-node-lease"
	// LeaseDurationSeconds is the Lease's spec.leaseDurationSeconds
	// (the kubelet's nodeLeaseDurationSeconds, 40), and RenewInterval
	// a quarter of it (nodeLeaseRenewIntervalFraction 0.25).
	LeaseDurationSeconds int32 = 40
	RenewInterval              = 10 * time.Second
	// NodeStatusUpdateFrequency is how often the kubelet computes its
	// node's status, and NodeStatusReportFrequency how long it lets pass
	// without writing it when nothing changed (KubeletConfiguration
	// defaults: 10s and 5m).
	NodeStatusUpdateFrequency = 10 * time.Second
	NodeStatusReportFrequency = 5 * time.Minute
	// RelistPeriod is how often the loop asks the runtime what runs
	// (the PLEG's relist period, 1s) and syncs every pod again.
	RelistPeriod = time.Second
	// FileCheckFrequency is how often the static pod directory is read
	// again (KubeletConfiguration fileCheckFrequency, 20s).
	FileCheckFrequency = 20 * time.Second
	// OrphanGracePeriodSeconds is the timeout a container gets whose pod
	// the kubelet has no spec for (HandlePodCleanups kills such a running
	// pod with a grace period override of 1).
	OrphanGracePeriodSeconds int64 = 1

	// The labels the kubelet puts on sandboxes and containers so that it
	// finds them again (pkg/kubelet/types/labels.go).
	LabelPodName       = "io.kubernetes.pod.name"
	LabelPodNamespace  = "io.kubernetes.pod.namespace"
	LabelPodUID        = "io.kubernetes.pod.uid"
	LabelContainerName = "io.kubernetes.container.name"

	// The node's Ready condition while the kubelet runs
	// (pkg/kubelet/nodestatus/setters.go: ReadyCondition).
	ReasonKubeletReady  = "KubeletReady"
	MessageKubeletReady = "kubelet is posting ready status"

	// The annotations of a static pod (pkg/kubelet/types/pod_update.go):
	// where it came from, the hash that is its UID, and when the kubelet
	// first saw it. Its mirror pod carries api.MirrorPodAnnotationKey
	// with the same hash.
	ConfigSourceAnnotationKey = "kubernetes.io/config.source"
	ConfigHashAnnotationKey   = "kubernetes.io/config.hash"
	ConfigSeenAnnotationKey   = "kubernetes.io/config.seen"
	ConfigSourceFile          = "file"

	// ComponentName is the source of the kubelet's Events.
	ComponentName = "kubelet"
)

// The reasons of the kubelet's Events (pkg/kubelet/events/event.go).
const (
	EventPulling      = "Pulling"
	EventPulled       = "Pulled"
	EventFailed       = "Failed" // a pull, create or start that failed
	EventBackOff      = "BackOff"
	EventCreated      = "Created"
	EventStarted      = "Started"
	EventKilling      = "Killing"
	EventUnhealthy    = "Unhealthy"
	EventNodeReady    = "NodeReady"
	EventStartingNode = "Starting"
)

// Clock is the time the kubelet reads (the same two methods as
// informer.Clock and nodelifecycle.Clock).
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Options are what a kubelet is built from. NodeName and Runtime are
// required; a zero field of the others means its default.
type Options struct {
	// NodeName is the Node the kubelet registers and the pods it runs
	// (spec.nodeName).
	NodeName string
	// Capacity and Allocatable are the node's status.capacity and
	// status.allocatable ("cpu", "memory", "pods"); Allocatable defaults
	// to Capacity, Capacity to cpu 4, memory 8Gi, pods 110.
	Capacity    api.ResourceList
	Allocatable api.ResourceList
	// Labels are added to the node's own (kubernetes.io/hostname,
	// kubernetes.io/os, kubernetes.io/arch).
	Labels map[string]string
	// Address is the node's InternalIP and its pods' hostIP; 127.0.0.1
	// when empty.
	Address string
	// Runtime runs the containers.
	Runtime cri.Runtime
	// Machine is what the node's status.nodeInfo says of the machine;
	// zero: ReadMachineInfo's.
	Machine MachineInfo
	// StaticPodDir holds static pod manifests; empty: none.
	StaticPodDir string
	// RootDir holds the pods' volumes (RootDir/pods/UID/volumes/NAME);
	// empty: a pod with a volume other than emptyDir, configMap or
	// secret fails, and those need a RootDir too.
	RootDir string
	// Clock is the kubelet's time; the system clock when nil.
	Clock Clock
}

// WithDefaults returns o with each zero field its default.
func (o Options) WithDefaults() Options {
	if o.Capacity == nil {
		o.Capacity = api.ResourceList{
			"cpu":    api.MustParse("4"),
			"memory": api.MustParse("8Gi"),
			"pods":   api.MustParse("110"),
		}
	}
	if o.Allocatable == nil {
		o.Allocatable = o.Capacity
	}
	if o.Address == "" {
		o.Address = "127.0.0.1"
	}
	if o.Machine == (MachineInfo{}) {
		o.Machine = ReadMachineInfo()
	}
	return o
}

// Kubelet is a running kubelet. Its loop, as upstream's:
//
//  1. Registration: Run first creates its Node (NodeName): labels
//     kubernetes.io/hostname (NodeName), kubernetes.io/os and
//     kubernetes.io/arch (the Go runtime's), and Options.Labels;
//     status capacity and allocatable from Options; addresses
//     InternalIP (Address) and Hostname (NodeName); nodeInfo with
//     Options.Machine's machineID, systemUUID, bootID, kernelVersion
//     and osImage, operatingSystem and architecture (the Go runtime's),
//     kubeletVersion and kubeProxyVersion Version, and
//     containerRuntimeVersion "NAME://VERSION" from the RuntimeName and
//     RuntimeVersion of the runtime's Version, asked before the first
//     Create and then kept (a Version that fails holds nothing up: the
//     field stays empty, and Version is asked again each time the node
//     status is made, rule 3, until it answers); the Ready condition
//     True with ReasonKubeletReady and MessageKubeletReady, its
//     lastHeartbeatTime and lastTransitionTime now. A Node that exists
//     already is the kubelet's: its status is written as below. A
//     failure other than AlreadyExists is tried again on the clock
//     until it succeeds or ctx ends; nothing else starts before it
//     succeeds.
//  2. The Lease: LeaseNamespace/NodeName with spec.holderIdentity
//     NodeName, leaseDurationSeconds LeaseDurationSeconds, renewTime
//     now, and an ownerReference to the Node (apiVersion v1, kind Node,
//     its name and uid), created when missing, renewed (Update with a
//     new renewTime) every RenewInterval on the clock. A failed renewal
//     is tried again, at the latest at the next one.
//  3. Node status: every NodeStatusUpdateFrequency on the clock the
//     kubelet makes its node's status (rule 1's); it writes it with
//     UpdateStatus, lastHeartbeatTime now, when it differs from the
//     node's status in anything but the heartbeat, or when
//     NodeStatusReportFrequency has passed since its last write. A
//     condition keeps its lastTransitionTime while its status stays.
//  4. Pods: an informer on the pods whose spec.nodeName is NodeName,
//     with the static pods (rule 9); a mirror pod
//     (api.MirrorPodAnnotationKey) is never run itself. Each pod is
//     synced when it is added or changes, and every RelistPeriod on the
//     clock. A sync reads the runtime (ListPodSandbox and ListContainers
//     by LabelPodUID, then the status of each, newest first: a
//     RuntimePod), asks Actions (with the probes' failures, rule 6) and
//     carries them out in this order: Kill (StopContainer with
//     GracePeriod), KillPod, CreateSandbox (RunPodSandbox with the
//     pod's name, namespace, uid and Attempt, the labels above, the
//     pod's name as hostname), NextInit, then Start. Starting a
//     container: ImageStatus, then PullImage as imagePullPolicy says
//     (IfNotPresent: when absent; Always: every time; Never: never, an
//     absent image is ErrImageNeverPull; empty: the apiserver's
//     default, Always for a :latest or untagged image, else
//     IfNotPresent; images/image_manager.go shouldPullImage); then
//     CreateContainer (metadata name and attempt, the next after
//     the newest container's of that name; the image; command, args,
//     workingDir; env, rule 10; mounts, rule 10; log path
//     NAME/ATTEMPT.log; the labels above) and StartContainer, then its
//     postStart hook, waited for (exec, httpGet or sleep, as preStop's
//     in rule 8; a failure is a Warning FailedPostStartHook
//     "PostStartHook failed", the container killed and Waiting
//     PostStartHookError; kuberuntime_container.go startContainer). A failed
//     step makes the container Waiting (ErrImagePull, ErrImageNeverPull,
//     CreateContainerConfigError, CreateContainerError,
//     RunContainerError, with the error as message) and stops that
//     container's start; a container that ran before (restart) or whose
//     pull failed is started only outside its back-off (rule 5).
//  5. Back-off: crash loops and image pulls each have a Backoff per
//     container (pod namespace, name, uid, container name), moved with
//     BackoffNext at each restart or failed pull, asked with InBackoff
//     before it (a container's first restart and first pull are not
//     held: it has no entry yet, as in upstream's doBackOff, so a crash
//     loop restarts at once, then after 10s, 20s, 40s); inside it the
//     container is Waiting CrashLoopBackOff
//     ("back-off 10s restarting failed container=web
//     pod=web_default(UID)") or ImagePullBackOff ("Back-off pulling
//     image \"kata/missing:1.0\""), and nothing is called for it.
//  6. Probes: a container's startup, liveness and readiness probes each
//     have a ProbeWorker, made when the container (by its runtime id) is
//     first seen running. A probe runs when ProbeDue says so and
//     periodSeconds have passed on the clock since its previous run
//     (the first run at the first sync ProbeDue allows); exec runs
//     ExecSync with timeoutSeconds (exit 0: Success), httpGet asks
//     SCHEME://HOST:PORT/PATH within timeoutSeconds (host: the pod's IP
//     unless given; a port by number or by the name of one of the
//     container's ports; its httpHeaders, a Host header as the request's
//     host; User-Agent kube-probe/1.32 and Accept */* unless given;
//     redirects followed to the same host only; 200 to 399: Success,
//     prober/prober.go, probe/http), tcpSocket dials HOST:PORT within
//     timeoutSeconds (a connection: Success). ProbeNext moves the worker;
//     its Published result feeds StatusInput.Ready and Started
//     (readiness and startup) and, for a published liveness or startup
//     Failure, a ProbeFailure to Actions. Every failed run records an
//     Unhealthy Event ("Readiness probe failed: OUTPUT", as
//     prober/prober.go).
//  7. Status: after a sync, the pod's status is made from
//     ContainerStatuses (init and app), Phase and Conditions, with
//     podIP and podIPs from the newest Ready sandbox, hostIP and hostIPs
//     Address, and startTime when the kubelet first synced the pod; it
//     is written with UpdateStatus when it differs from the pod's. A
//     pod whose phase is Succeeded or Failed starts nothing again. The
//     kubelet never changes an object it read from its cache.
//  8. Termination: a pod with a deletionTimestamp has its preStop hook
//     run (exec through ExecSync, httpGet, or sleep on the clock; waited
//     for at most the grace period; a failure is a Warning
//     FailedPreStopHook "PreStopHook failed" and the stop goes on) and
//     each running container stopped with GracePeriod (with the seconds
//     the hook took), then its
//     sandbox; once nothing of it runs, its status is written and it is
//     deleted with grace period 0 and a UID precondition (a NotFound is
//     done). Its containers and sandboxes are then removed. A pod gone
//     from the API (and not static) whose sandbox still exists has its
//     containers stopped with OrphanGracePeriodSeconds, then everything
//     of it removed. Stop and Remove may be asked twice.
//  9. Static pods: at Run's start and every FileCheckFrequency, the
//     files *.yaml, *.yml and *.json of StaticPodDir are read, one Pod
//     each (a file that is not one is skipped, the others run). A static
//     pod is named NAME-NODENAME, in namespace default when it names
//     none, with spec.nodeName NodeName, its UID a hash of its file's
//     content (the kata's: md5, in hex), and ConfigSourceAnnotationKey
//     (file), ConfigHashAnnotationKey (the hash) and
//     ConfigSeenAnnotationKey. It runs as rule 4 says, without the
//     apiserver. Its mirror pod is created in the API (the pod with
//     api.MirrorPodAnnotationKey set to the hash and an ownerReference
//     to the Node, controller true, as pod/mirror_client.go) and made
//     again when deleted: a mirror being deleted gracefully is deleted
//     with grace 0 and created again, and the static pod runs on
//     throughout. The static pod's status is written to its mirror. A
//     mirror pod whose hash is no static pod's is deleted; a file
//     removed stops its pod and deletes its mirror.
//  10. Env and volumes: a container's env is its env list, in order,
//     then the variables of envFrom (configMapRef, secretRef, with
//     prefix) that env does not name, in any order (upstream reads
//     envFrom first and env wins a name both give); each env value
//     comes from value ($(VAR) expanded from envFrom's variables and
//     env's before it; $$ is $; an unknown $(VAR) stays as written),
//     fieldRef (metadata.name, metadata.namespace, metadata.uid,
//     spec.nodeName, spec.serviceAccountName, status.podIP,
//     status.hostIP), configMapKeyRef or secretKeyRef (read with Get;
//     missing and not optional: CreateContainerConfigError). An emptyDir,
//     configMap or secret volume is a directory RootDir/pods/UID/volumes/
//     NAME (a key per file), mounted at each volumeMount's mountPath.
//  11. Events: as upstream, with the reasons above, recorded through the
//     client with ComponentName as source: Pulling, Pulled, Failed,
//     BackOff, Created, Started, Killing, Unhealthy, ErrImageNeverPull,
//     FailedPostStartHook, FailedPreStopHook on the pod; Starting and
//     NodeReady on the node.
//  12. Run returns, every goroutine it started ended, when its context
//     ends. It leaves the containers running, as upstream's does (a
//     kubelet that starts again finds them in the runtime).
type Kubelet interface {
	// Run runs the kubelet until ctx ends, then returns once every
	// goroutine it started has ended. It returns an error only when it
	// cannot start (Options.NodeName empty, Runtime nil).
	Run(ctx context.Context) error
}

// NewFunc is New's type: a kubelet over the apiserver c, built from
// opts (their zero fields defaulted with Options.WithDefaults). New
// starts nothing; Run does.
type NewFunc func(c client.Interface, opts Options) Kubelet
