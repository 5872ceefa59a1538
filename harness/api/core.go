package api

// The core ("" group, version v1) kinds: Pod, Node, Namespace, Service,
// ServiceAccount, ConfigMap, Secret, Event and Binding, with the shapes of
// k8s.io/api/core/v1 that this curriculum uses. Fields a component here
// never reads but that common manifests carry (securityContext, projected
// volumes, ...) are kept as raw JSON so that they survive a round trip.

import "encoding/json"

// ---------------------------------------------------------------- Pod

// Pod is a group of containers scheduled onto one node.
type Pod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PodSpec   `json:"spec,omitempty"`
	Status     PodStatus `json:"status,omitempty"`
}

// PodSpec is the desired state of a pod.
type PodSpec struct {
	Volumes                       []Volume                   `json:"volumes,omitempty"`
	InitContainers                []Container                `json:"initContainers,omitempty"`
	Containers                    []Container                `json:"containers"`
	RestartPolicy                 RestartPolicy              `json:"restartPolicy,omitempty"`
	TerminationGracePeriodSeconds *int64                     `json:"terminationGracePeriodSeconds,omitempty"`
	ActiveDeadlineSeconds         *int64                     `json:"activeDeadlineSeconds,omitempty"`
	DNSPolicy                     DNSPolicy                  `json:"dnsPolicy,omitempty"`
	NodeSelector                  map[string]string          `json:"nodeSelector,omitempty"`
	ServiceAccountName            string                     `json:"serviceAccountName,omitempty"`
	DeprecatedServiceAccount      string                     `json:"serviceAccount,omitempty"`
	AutomountServiceAccountToken  *bool                      `json:"automountServiceAccountToken,omitempty"`
	NodeName                      string                     `json:"nodeName,omitempty"`
	HostNetwork                   bool                       `json:"hostNetwork,omitempty"`
	HostPID                       bool                       `json:"hostPID,omitempty"`
	HostIPC                       bool                       `json:"hostIPC,omitempty"`
	ShareProcessNamespace         *bool                      `json:"shareProcessNamespace,omitempty"`
	SecurityContext               json.RawMessage            `json:"securityContext,omitempty"`
	ImagePullSecrets              []LocalObjectReference     `json:"imagePullSecrets,omitempty"`
	Hostname                      string                     `json:"hostname,omitempty"`
	Subdomain                     string                     `json:"subdomain,omitempty"`
	Affinity                      *Affinity                  `json:"affinity,omitempty"`
	SchedulerName                 string                     `json:"schedulerName,omitempty"`
	Tolerations                   []Toleration               `json:"tolerations,omitempty"`
	HostAliases                   json.RawMessage            `json:"hostAliases,omitempty"`
	PriorityClassName             string                     `json:"priorityClassName,omitempty"`
	Priority                      *int32                     `json:"priority,omitempty"`
	DNSConfig                     json.RawMessage            `json:"dnsConfig,omitempty"`
	ReadinessGates                []PodReadinessGate         `json:"readinessGates,omitempty"`
	RuntimeClassName              *string                    `json:"runtimeClassName,omitempty"`
	EnableServiceLinks            *bool                      `json:"enableServiceLinks,omitempty"`
	PreemptionPolicy              *string                    `json:"preemptionPolicy,omitempty"`
	Overhead                      ResourceList               `json:"overhead,omitempty"`
	TopologySpreadConstraints     []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	SchedulingGates               []PodSchedulingGate        `json:"schedulingGates,omitempty"`
	SetHostnameAsFQDN             *bool                      `json:"setHostnameAsFQDN,omitempty"`
	HostUsers                     *bool                      `json:"hostUsers,omitempty"`
	// Resources are pod-level requests and limits (newer clusters).
	Resources *ResourceRequirements `json:"resources,omitempty"`
	// Kept opaque: nothing here interprets them.
	EphemeralContainers json.RawMessage `json:"ephemeralContainers,omitempty"`
	OS                  json.RawMessage `json:"os,omitempty"`
	ResourceClaims      json.RawMessage `json:"resourceClaims,omitempty"`
}

// PodSchedulingGate holds a pod back from scheduling while it is present.
type PodSchedulingGate struct {
	Name string `json:"name"`
}

// Container is one process (image, command, args) in a pod.
type Container struct {
	Name                     string                   `json:"name"`
	Image                    string                   `json:"image,omitempty"`
	Command                  []string                 `json:"command,omitempty"`
	Args                     []string                 `json:"args,omitempty"`
	WorkingDir               string                   `json:"workingDir,omitempty"`
	Ports                    []ContainerPort          `json:"ports,omitempty"`
	EnvFrom                  []EnvFromSource          `json:"envFrom,omitempty"`
	Env                      []EnvVar                 `json:"env,omitempty"`
	Resources                ResourceRequirements     `json:"resources,omitempty"`
	RestartPolicy            *ContainerRestartPolicy  `json:"restartPolicy,omitempty"`
	VolumeMounts             []VolumeMount            `json:"volumeMounts,omitempty"`
	LivenessProbe            *Probe                   `json:"livenessProbe,omitempty"`
	ReadinessProbe           *Probe                   `json:"readinessProbe,omitempty"`
	StartupProbe             *Probe                   `json:"startupProbe,omitempty"`
	Lifecycle                *Lifecycle               `json:"lifecycle,omitempty"`
	TerminationMessagePath   string                   `json:"terminationMessagePath,omitempty"`
	TerminationMessagePolicy TerminationMessagePolicy `json:"terminationMessagePolicy,omitempty"`
	ImagePullPolicy          PullPolicy               `json:"imagePullPolicy,omitempty"`
	SecurityContext          json.RawMessage          `json:"securityContext,omitempty"`
	Stdin                    bool                     `json:"stdin,omitempty"`
	StdinOnce                bool                     `json:"stdinOnce,omitempty"`
	TTY                      bool                     `json:"tty,omitempty"`
	// Kept opaque: nothing here interprets them.
	ResizePolicy       json.RawMessage `json:"resizePolicy,omitempty"`
	RestartPolicyRules json.RawMessage `json:"restartPolicyRules,omitempty"`
}

// ContainerPort is a port a container listens on.
type ContainerPort struct {
	Name          string   `json:"name,omitempty"`
	HostPort      int32    `json:"hostPort,omitempty"`
	ContainerPort int32    `json:"containerPort"`
	Protocol      Protocol `json:"protocol,omitempty"`
	HostIP        string   `json:"hostIP,omitempty"`
}

// EnvVar is one environment variable, given literally or taken from a field,
// a resource, a ConfigMap key or a Secret key.
type EnvVar struct {
	Name      string        `json:"name"`
	Value     string        `json:"value,omitempty"`
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource says where an EnvVar's value comes from.
type EnvVarSource struct {
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
	ConfigMapKeyRef  *ConfigMapKeySelector  `json:"configMapKeyRef,omitempty"`
	SecretKeyRef     *SecretKeySelector     `json:"secretKeyRef,omitempty"`
}

// ObjectFieldSelector selects a field of the pod, such as metadata.name.
type ObjectFieldSelector struct {
	APIVersion string `json:"apiVersion,omitempty"`
	FieldPath  string `json:"fieldPath"`
}

// ResourceFieldSelector selects a container's resource request or limit.
type ResourceFieldSelector struct {
	ContainerName string   `json:"containerName,omitempty"`
	Resource      string   `json:"resource"`
	Divisor       Quantity `json:"divisor,omitempty"`
}

// ConfigMapKeySelector selects one key of a ConfigMap.
type ConfigMapKeySelector struct {
	LocalObjectReference `json:",inline"`
	Key                  string `json:"key"`
	Optional             *bool  `json:"optional,omitempty"`
}

// SecretKeySelector selects one key of a Secret.
type SecretKeySelector struct {
	LocalObjectReference `json:",inline"`
	Key                  string `json:"key"`
	Optional             *bool  `json:"optional,omitempty"`
}

// EnvFromSource imports every key of a ConfigMap or Secret.
type EnvFromSource struct {
	Prefix       string              `json:"prefix,omitempty"`
	ConfigMapRef *ConfigMapEnvSource `json:"configMapRef,omitempty"`
	SecretRef    *SecretEnvSource    `json:"secretRef,omitempty"`
}

// ConfigMapEnvSource names the ConfigMap of an EnvFromSource.
type ConfigMapEnvSource struct {
	LocalObjectReference `json:",inline"`
	Optional             *bool `json:"optional,omitempty"`
}

// SecretEnvSource names the Secret of an EnvFromSource.
type SecretEnvSource struct {
	LocalObjectReference `json:",inline"`
	Optional             *bool `json:"optional,omitempty"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	Name string `json:"name,omitempty"`
}

// ResourceRequirements are a container's requests (what the scheduler
// reserves) and limits (what the runtime enforces).
type ResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}

// Probe is a liveness, readiness or startup check.
type Probe struct {
	ProbeHandler                  `json:",inline"`
	InitialDelaySeconds           int32  `json:"initialDelaySeconds,omitempty"`
	TimeoutSeconds                int32  `json:"timeoutSeconds,omitempty"`
	PeriodSeconds                 int32  `json:"periodSeconds,omitempty"`
	SuccessThreshold              int32  `json:"successThreshold,omitempty"`
	FailureThreshold              int32  `json:"failureThreshold,omitempty"`
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
}

// ProbeHandler is the action of a probe; exactly one member is set.
type ProbeHandler struct {
	Exec      *ExecAction      `json:"exec,omitempty"`
	HTTPGet   *HTTPGetAction   `json:"httpGet,omitempty"`
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty"`
	GRPC      *GRPCAction      `json:"grpc,omitempty"`
}

// ExecAction runs a command in the container; exit 0 is success.
type ExecAction struct {
	Command []string `json:"command,omitempty"`
}

// HTTPGetAction sends GET; a status in [200, 400) is success.
type HTTPGetAction struct {
	Path        string       `json:"path,omitempty"`
	Port        IntOrString  `json:"port"`
	Host        string       `json:"host,omitempty"`
	Scheme      URIScheme    `json:"scheme,omitempty"`
	HTTPHeaders []HTTPHeader `json:"httpHeaders,omitempty"`
}

// HTTPHeader is one header of an HTTPGetAction.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// URIScheme is HTTP or HTTPS.
type URIScheme string

const (
	URISchemeHTTP  URIScheme = "HTTP"
	URISchemeHTTPS URIScheme = "HTTPS"
)

// TCPSocketAction opens a TCP connection; connecting is success.
type TCPSocketAction struct {
	Port IntOrString `json:"port"`
	Host string      `json:"host,omitempty"`
}

// GRPCAction calls the gRPC health service.
type GRPCAction struct {
	Port    int32   `json:"port"`
	Service *string `json:"service,omitempty"`
}

// Lifecycle holds the hooks run after start and before stop.
type Lifecycle struct {
	PostStart *LifecycleHandler `json:"postStart,omitempty"`
	PreStop   *LifecycleHandler `json:"preStop,omitempty"`
}

// LifecycleHandler is the action of a lifecycle hook.
type LifecycleHandler struct {
	Exec      *ExecAction      `json:"exec,omitempty"`
	HTTPGet   *HTTPGetAction   `json:"httpGet,omitempty"`
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty"`
	Sleep     *SleepAction     `json:"sleep,omitempty"`
}

// SleepAction sleeps for a number of seconds.
type SleepAction struct {
	Seconds int64 `json:"seconds"`
}

// VolumeMount mounts a pod volume into a container.
type VolumeMount struct {
	Name             string  `json:"name"`
	ReadOnly         bool    `json:"readOnly,omitempty"`
	MountPath        string  `json:"mountPath"`
	SubPath          string  `json:"subPath,omitempty"`
	MountPropagation *string `json:"mountPropagation,omitempty"`
	SubPathExpr      string  `json:"subPathExpr,omitempty"`
}

// Volume is a named volume of a pod. Only the common sources are typed;
// the others are kept as raw JSON.
type Volume struct {
	Name         string `json:"name"`
	VolumeSource `json:",inline"`
}

// VolumeSource is where a volume's contents come from; one member is set.
type VolumeSource struct {
	HostPath              *HostPathVolumeSource              `json:"hostPath,omitempty"`
	EmptyDir              *EmptyDirVolumeSource              `json:"emptyDir,omitempty"`
	Secret                *SecretVolumeSource                `json:"secret,omitempty"`
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
	ConfigMap             *ConfigMapVolumeSource             `json:"configMap,omitempty"`
	DownwardAPI           json.RawMessage                    `json:"downwardAPI,omitempty"`
	Projected             json.RawMessage                    `json:"projected,omitempty"`
	NFS                   json.RawMessage                    `json:"nfs,omitempty"`
	CSI                   json.RawMessage                    `json:"csi,omitempty"`
	Ephemeral             json.RawMessage                    `json:"ephemeral,omitempty"`
	Image                 json.RawMessage                    `json:"image,omitempty"`
}

// HostPathVolumeSource mounts a path of the node.
type HostPathVolumeSource struct {
	Path string  `json:"path"`
	Type *string `json:"type,omitempty"`
}

// EmptyDirVolumeSource is a scratch directory that lives as long as the pod.
type EmptyDirVolumeSource struct {
	Medium    string    `json:"medium,omitempty"`
	SizeLimit *Quantity `json:"sizeLimit,omitempty"`
}

// SecretVolumeSource projects a Secret's keys as files.
type SecretVolumeSource struct {
	SecretName  string      `json:"secretName,omitempty"`
	Items       []KeyToPath `json:"items,omitempty"`
	DefaultMode *int32      `json:"defaultMode,omitempty"`
	Optional    *bool       `json:"optional,omitempty"`
}

// ConfigMapVolumeSource projects a ConfigMap's keys as files.
type ConfigMapVolumeSource struct {
	LocalObjectReference `json:",inline"`
	Items                []KeyToPath `json:"items,omitempty"`
	DefaultMode          *int32      `json:"defaultMode,omitempty"`
	Optional             *bool       `json:"optional,omitempty"`
}

// KeyToPath maps one key to a file path.
type KeyToPath struct {
	Key  string `json:"key"`
	Path string `json:"path"`
	Mode *int32 `json:"mode,omitempty"`
}

// PersistentVolumeClaimVolumeSource mounts a claimed persistent volume.
type PersistentVolumeClaimVolumeSource struct {
	ClaimName string `json:"claimName"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// Affinity holds a pod's scheduling constraints.
type Affinity struct {
	NodeAffinity    *NodeAffinity    `json:"nodeAffinity,omitempty"`
	PodAffinity     *PodAffinity     `json:"podAffinity,omitempty"`
	PodAntiAffinity *PodAntiAffinity `json:"podAntiAffinity,omitempty"`
}

// NodeAffinity constrains which nodes a pod may run on (required) or
// prefers (preferred, weighted).
type NodeAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  *NodeSelector             `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// NodeSelector matches a node if any of its terms matches (terms are ORed).
type NodeSelector struct {
	NodeSelectorTerms []NodeSelectorTerm `json:"nodeSelectorTerms"`
}

// NodeSelectorTerm matches if all its requirements match (ANDed).
type NodeSelectorTerm struct {
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions,omitempty"`
	MatchFields      []NodeSelectorRequirement `json:"matchFields,omitempty"`
}

// NodeSelectorRequirement relates a node label (or field) to values.
type NodeSelectorRequirement struct {
	Key      string               `json:"key"`
	Operator NodeSelectorOperator `json:"operator"`
	Values   []string             `json:"values,omitempty"`
}

// NodeSelectorOperator is the relation of a NodeSelectorRequirement.
type NodeSelectorOperator string

const (
	NodeSelectorOpIn           NodeSelectorOperator = "In"
	NodeSelectorOpNotIn        NodeSelectorOperator = "NotIn"
	NodeSelectorOpExists       NodeSelectorOperator = "Exists"
	NodeSelectorOpDoesNotExist NodeSelectorOperator = "DoesNotExist"
	NodeSelectorOpGt           NodeSelectorOperator = "Gt"
	NodeSelectorOpLt           NodeSelectorOperator = "Lt"
)

// PreferredSchedulingTerm is a weighted (1-100) preference for nodes.
type PreferredSchedulingTerm struct {
	Weight     int32            `json:"weight"`
	Preference NodeSelectorTerm `json:"preference"`
}

// PodAffinity attracts a pod to nodes running matching pods.
type PodAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAntiAffinity repels a pod from nodes running matching pods.
type PodAntiAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAffinityTerm selects pods within a topology domain.
type PodAffinityTerm struct {
	LabelSelector     *LabelSelector `json:"labelSelector,omitempty"`
	Namespaces        []string       `json:"namespaces,omitempty"`
	TopologyKey       string         `json:"topologyKey"`
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty"`
	MatchLabelKeys    []string       `json:"matchLabelKeys,omitempty"`
	MismatchLabelKeys []string       `json:"mismatchLabelKeys,omitempty"`
}

// WeightedPodAffinityTerm is a weighted (1-100) PodAffinityTerm.
type WeightedPodAffinityTerm struct {
	Weight          int32           `json:"weight"`
	PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm"`
}

// TopologySpreadConstraint spreads matching pods across topology domains.
type TopologySpreadConstraint struct {
	MaxSkew            int32                         `json:"maxSkew"`
	TopologyKey        string                        `json:"topologyKey"`
	WhenUnsatisfiable  UnsatisfiableConstraintAction `json:"whenUnsatisfiable"`
	LabelSelector      *LabelSelector                `json:"labelSelector,omitempty"`
	MinDomains         *int32                        `json:"minDomains,omitempty"`
	NodeAffinityPolicy *string                       `json:"nodeAffinityPolicy,omitempty"`
	NodeTaintsPolicy   *string                       `json:"nodeTaintsPolicy,omitempty"`
	MatchLabelKeys     []string                      `json:"matchLabelKeys,omitempty"`
}

// UnsatisfiableConstraintAction is what to do when a spread constraint
// cannot be met.
type UnsatisfiableConstraintAction string

const (
	DoNotSchedule  UnsatisfiableConstraintAction = "DoNotSchedule"
	ScheduleAnyway UnsatisfiableConstraintAction = "ScheduleAnyway"
)

// Toleration lets a pod schedule onto (or stay on) a node with a
// matching taint.
type Toleration struct {
	Key               string             `json:"key,omitempty"`
	Operator          TolerationOperator `json:"operator,omitempty"`
	Value             string             `json:"value,omitempty"`
	Effect            TaintEffect        `json:"effect,omitempty"`
	TolerationSeconds *int64             `json:"tolerationSeconds,omitempty"`
}

// TolerationOperator is Exists or Equal (the default).
type TolerationOperator string

const (
	TolerationOpExists TolerationOperator = "Exists"
	TolerationOpEqual  TolerationOperator = "Equal"
)

// PodReadinessGate adds a condition type the pod must have to be Ready.
type PodReadinessGate struct {
	ConditionType PodConditionType `json:"conditionType"`
}

// RestartPolicy says when the kubelet restarts a pod's containers.
type RestartPolicy string

const (
	RestartPolicyAlways    RestartPolicy = "Always"
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	RestartPolicyNever     RestartPolicy = "Never"
)

// ContainerRestartPolicy is set only on sidecar init containers (Always).
type ContainerRestartPolicy string

const ContainerRestartPolicyAlways ContainerRestartPolicy = "Always"

// DNSPolicy says how a pod's DNS is configured.
type DNSPolicy string

const (
	DNSClusterFirstWithHostNet DNSPolicy = "ClusterFirstWithHostNet"
	DNSClusterFirst            DNSPolicy = "ClusterFirst"
	DNSDefault                 DNSPolicy = "Default"
	DNSNone                    DNSPolicy = "None"
)

// PullPolicy says when the kubelet pulls a container's image.
type PullPolicy string

const (
	PullAlways       PullPolicy = "Always"
	PullNever        PullPolicy = "Never"
	PullIfNotPresent PullPolicy = "IfNotPresent"
)

// TerminationMessagePolicy says where a container's termination message
// comes from.
type TerminationMessagePolicy string

const (
	TerminationMessageReadFile              TerminationMessagePolicy = "File"
	TerminationMessageFallbackToLogsOnError TerminationMessagePolicy = "FallbackToLogsOnError"
)

// Protocol is a network protocol.
type Protocol string

const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// PodStatus is the observed state of a pod, written by the kubelet (and
// by the scheduler for PodScheduled).
type PodStatus struct {
	Phase                      PodPhase          `json:"phase,omitempty"`
	Conditions                 []PodCondition    `json:"conditions,omitempty"`
	Message                    string            `json:"message,omitempty"`
	Reason                     string            `json:"reason,omitempty"`
	NominatedNodeName          string            `json:"nominatedNodeName,omitempty"`
	HostIP                     string            `json:"hostIP,omitempty"`
	HostIPs                    []HostIP          `json:"hostIPs,omitempty"`
	PodIP                      string            `json:"podIP,omitempty"`
	PodIPs                     []PodIP           `json:"podIPs,omitempty"`
	StartTime                  *Time             `json:"startTime,omitempty"`
	InitContainerStatuses      []ContainerStatus `json:"initContainerStatuses,omitempty"`
	ContainerStatuses          []ContainerStatus `json:"containerStatuses,omitempty"`
	QOSClass                   PodQOSClass       `json:"qosClass,omitempty"`
	ObservedGeneration         int64             `json:"observedGeneration,omitempty"`
	EphemeralContainerStatuses []ContainerStatus `json:"ephemeralContainerStatuses,omitempty"`
	Resize                     string            `json:"resize,omitempty"`
	ResourceClaimStatuses      json.RawMessage   `json:"resourceClaimStatuses,omitempty"`
}

// PodIP is one of a pod's IP addresses.
type PodIP struct {
	IP string `json:"ip"`
}

// HostIP is one of the IP addresses of a pod's node.
type HostIP struct {
	IP string `json:"ip"`
}

// PodPhase is the coarse lifecycle phase of a pod.
type PodPhase string

const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// PodQOSClass is a pod's quality-of-service class.
type PodQOSClass string

const (
	PodQOSGuaranteed PodQOSClass = "Guaranteed"
	PodQOSBurstable  PodQOSClass = "Burstable"
	PodQOSBestEffort PodQOSClass = "BestEffort"
)

// PodCondition is one condition of a pod.
type PodCondition struct {
	Type               PodConditionType `json:"type"`
	ObservedGeneration int64            `json:"observedGeneration,omitempty"`
	Status             ConditionStatus  `json:"status"`
	LastProbeTime      Time             `json:"lastProbeTime,omitempty"`
	LastTransitionTime Time             `json:"lastTransitionTime,omitempty"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
}

// PodConditionType is the type of a PodCondition.
type PodConditionType string

const (
	PodScheduled              PodConditionType = "PodScheduled"
	PodReady                  PodConditionType = "Ready"
	PodInitialized            PodConditionType = "Initialized"
	ContainersReady           PodConditionType = "ContainersReady"
	DisruptionTarget          PodConditionType = "DisruptionTarget"
	PodReadyToStartContainers PodConditionType = "PodReadyToStartContainers"
)

// Reasons of pod conditions and statuses used by the scheduler and kubelet.
const (
	PodReasonUnschedulable                = "Unschedulable"
	PodReasonSchedulingGated              = "SchedulingGated"
	PodReasonSchedulerError               = "SchedulerError"
	PodReasonTerminationByKubelet         = "TerminationByKubelet"
	PodReasonPreemptionByScheduler        = "PreemptionByScheduler"
	PodReasonDeletionByTaintManager       = "DeletionByTaintManager"
	PodReasonDeletionByPodGC              = "DeletionByPodGC"
	PodReasonEvictionByEvictionAPI        = "EvictionByEvictionAPI"
	PodReasonUnexpectedAdmissionError     = "UnexpectedAdmissionError"
	PodReasonDeadlineExceeded             = "DeadlineExceeded"
	PodReasonEvicted                      = "Evicted"
	PodReasonNodeLost                     = "NodeLost"
	PodReasonContainersNotReady           = "ContainersNotReady"
	PodReasonContainersNotInitialized     = "ContainersNotInitialized"
	PodReasonPodCompleted                 = "PodCompleted"
	ContainerReasonContainerCreating      = "ContainerCreating"
	ContainerReasonPodInitializing        = "PodInitializing"
	ContainerReasonErrImagePull           = "ErrImagePull"
	ContainerReasonImagePullBackOff       = "ImagePullBackOff"
	ContainerReasonCrashLoopBackOff       = "CrashLoopBackOff"
	ContainerReasonCompleted              = "Completed"
	ContainerReasonError                  = "Error"
	ContainerReasonOOMKilled              = "OOMKilled"
	ContainerReasonCreateContainerError   = "CreateContainerError"
	ContainerReasonRunContainerError      = "RunContainerError"
	ContainerReasonInvalidImageName       = "InvalidImageName"
	ContainerReasonErrImageNeverPull      = "ErrImageNeverPull"
	ContainerReasonContainerStatusUnknown = "ContainerStatusUnknown"
)

// ContainerStatus is the observed state of one container.
type ContainerStatus struct {
	Name                 string                `json:"name"`
	State                ContainerState        `json:"state,omitempty"`
	LastTerminationState ContainerState        `json:"lastState,omitempty"`
	Ready                bool                  `json:"ready"`
	RestartCount         int32                 `json:"restartCount"`
	Image                string                `json:"image"`
	ImageID              string                `json:"imageID"`
	ContainerID          string                `json:"containerID,omitempty"`
	Started              *bool                 `json:"started,omitempty"`
	AllocatedResources   ResourceList          `json:"allocatedResources,omitempty"`
	Resources            *ResourceRequirements `json:"resources,omitempty"`
	VolumeMounts         []VolumeMountStatus   `json:"volumeMounts,omitempty"`
	StopSignal           *string               `json:"stopSignal,omitempty"`
	// Kept opaque: nothing here interprets them.
	User                     json.RawMessage `json:"user,omitempty"`
	AllocatedResourcesStatus json.RawMessage `json:"allocatedResourcesStatus,omitempty"`
}

// VolumeMountStatus is a volume mount as the runtime reports it.
type VolumeMountStatus struct {
	Name              string  `json:"name"`
	MountPath         string  `json:"mountPath"`
	ReadOnly          bool    `json:"readOnly,omitempty"`
	RecursiveReadOnly *string `json:"recursiveReadOnly,omitempty"`
}

// ContainerState is exactly one of waiting, running or terminated.
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty"`
	Running    *ContainerStateRunning    `json:"running,omitempty"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
}

// ContainerStateWaiting: not running yet (ContainerCreating,
// ImagePullBackOff, CrashLoopBackOff, ...).
type ContainerStateWaiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerStateRunning: running since StartedAt.
type ContainerStateRunning struct {
	StartedAt Time `json:"startedAt,omitempty"`
}

// ContainerStateTerminated: exited with ExitCode.
type ContainerStateTerminated struct {
	ExitCode    int32  `json:"exitCode"`
	Signal      int32  `json:"signal,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Message     string `json:"message,omitempty"`
	StartedAt   Time   `json:"startedAt,omitempty"`
	FinishedAt  Time   `json:"finishedAt,omitempty"`
	ContainerID string `json:"containerID,omitempty"`
}

// PodTemplateSpec is the pod a controller stamps out.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PodSpec `json:"spec,omitempty"`
}

// ---------------------------------------------------------------- Node

// Node is a machine that runs pods.
type Node struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       NodeSpec   `json:"spec,omitempty"`
	Status     NodeStatus `json:"status,omitempty"`
}

// NodeSpec is the desired state of a node.
type NodeSpec struct {
	PodCIDR       string   `json:"podCIDR,omitempty"`
	PodCIDRs      []string `json:"podCIDRs,omitempty"`
	ProviderID    string   `json:"providerID,omitempty"`
	Unschedulable bool     `json:"unschedulable,omitempty"`
	Taints        []Taint  `json:"taints,omitempty"`
	// Deprecated upstream; kept so that old objects decode.
	ConfigSource       json.RawMessage `json:"configSource,omitempty"`
	DoNotUseExternalID string          `json:"externalID,omitempty"`
}

// Taint repels pods that do not tolerate it.
type Taint struct {
	Key       string      `json:"key"`
	Value     string      `json:"value,omitempty"`
	Effect    TaintEffect `json:"effect"`
	TimeAdded *Time       `json:"timeAdded,omitempty"`
}

// TaintEffect is what a taint does to pods that do not tolerate it.
type TaintEffect string

const (
	TaintEffectNoSchedule       TaintEffect = "NoSchedule"
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	TaintEffectNoExecute        TaintEffect = "NoExecute"
)

// Well-known taints set by the node lifecycle controller and the kubelet.
const (
	TaintNodeNotReady           = "node.kubernetes.io/not-ready"
	TaintNodeUnreachable        = "node.kubernetes.io/unreachable"
	TaintNodeUnschedulable      = "node.kubernetes.io/unschedulable"
	TaintNodeMemoryPressure     = "node.kubernetes.io/memory-pressure"
	TaintNodeDiskPressure       = "node.kubernetes.io/disk-pressure"
	TaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
	TaintNodePIDPressure        = "node.kubernetes.io/pid-pressure"
	TaintNodeOutOfService       = "node.kubernetes.io/out-of-service"
)

// Well-known labels.
const (
	LabelHostname       = "kubernetes.io/hostname"
	LabelOSStable       = "kubernetes.io/os"
	LabelArchStable     = "kubernetes.io/arch"
	LabelTopologyZone   = "topology.kubernetes.io/zone"
	LabelTopologyRegion = "topology.kubernetes.io/region"
	LabelMetadataName   = "kubernetes.io/metadata.name"
)

// Well-known annotations.
const (
	// MirrorPodAnnotationKey marks the API copy of a static pod.
	MirrorPodAnnotationKey = "kubernetes.io/config.mirror"
	// LastAppliedConfigAnnotation is what kubectl apply records.
	LastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
	// RestartedAtAnnotation is what kubectl rollout restart sets on a
	// pod template.
	RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"
)

// NodeStatus is the observed state of a node, written by its kubelet.
type NodeStatus struct {
	Capacity        ResourceList        `json:"capacity,omitempty"`
	Allocatable     ResourceList        `json:"allocatable,omitempty"`
	Phase           string              `json:"phase,omitempty"`
	Conditions      []NodeCondition     `json:"conditions,omitempty"`
	Addresses       []NodeAddress       `json:"addresses,omitempty"`
	DaemonEndpoints NodeDaemonEndpoints `json:"daemonEndpoints,omitempty"`
	NodeInfo        NodeSystemInfo      `json:"nodeInfo,omitempty"`
	Images          []ContainerImage    `json:"images,omitempty"`
	VolumesInUse    []string            `json:"volumesInUse,omitempty"`
	// Kept opaque: nothing here interprets them.
	VolumesAttached json.RawMessage `json:"volumesAttached,omitempty"`
	Config          json.RawMessage `json:"config,omitempty"`
	RuntimeHandlers json.RawMessage `json:"runtimeHandlers,omitempty"`
	Features        json.RawMessage `json:"features,omitempty"`
}

// NodeCondition is one condition of a node.
type NodeCondition struct {
	Type               NodeConditionType `json:"type"`
	Status             ConditionStatus   `json:"status"`
	LastHeartbeatTime  Time              `json:"lastHeartbeatTime,omitempty"`
	LastTransitionTime Time              `json:"lastTransitionTime,omitempty"`
	Reason             string            `json:"reason,omitempty"`
	Message            string            `json:"message,omitempty"`
}

// NodeConditionType is the type of a NodeCondition.
type NodeConditionType string

const (
	NodeReady              NodeConditionType = "Ready"
	NodeMemoryPressure     NodeConditionType = "MemoryPressure"
	NodeDiskPressure       NodeConditionType = "DiskPressure"
	NodePIDPressure        NodeConditionType = "PIDPressure"
	NodeNetworkUnavailable NodeConditionType = "NetworkUnavailable"
)

// NodeAddress is one address of a node.
type NodeAddress struct {
	Type    NodeAddressType `json:"type"`
	Address string          `json:"address"`
}

// NodeAddressType is the kind of a NodeAddress.
type NodeAddressType string

const (
	NodeHostName    NodeAddressType = "Hostname"
	NodeInternalIP  NodeAddressType = "InternalIP"
	NodeExternalIP  NodeAddressType = "ExternalIP"
	NodeInternalDNS NodeAddressType = "InternalDNS"
	NodeExternalDNS NodeAddressType = "ExternalDNS"
)

// NodeDaemonEndpoints lists the ports of the daemons on a node.
type NodeDaemonEndpoints struct {
	KubeletEndpoint DaemonEndpoint `json:"kubeletEndpoint,omitempty"`
}

// DaemonEndpoint is one daemon's port (upstream capitalises "Port").
type DaemonEndpoint struct {
	Port int32 `json:"Port"`
}

// NodeSystemInfo describes a node's software.
type NodeSystemInfo struct {
	MachineID               string `json:"machineID"`
	SystemUUID              string `json:"systemUUID"`
	BootID                  string `json:"bootID"`
	KernelVersion           string `json:"kernelVersion"`
	OSImage                 string `json:"osImage"`
	ContainerRuntimeVersion string `json:"containerRuntimeVersion"`
	KubeletVersion          string `json:"kubeletVersion"`
	KubeProxyVersion        string `json:"kubeProxyVersion"`
	OperatingSystem         string `json:"operatingSystem"`
	Architecture            string `json:"architecture"`
	// Swap is kept opaque.
	Swap json.RawMessage `json:"swap,omitempty"`
}

// ContainerImage is an image present on a node.
type ContainerImage struct {
	Names     []string `json:"names"`
	SizeBytes int64    `json:"sizeBytes,omitempty"`
}

// ---------------------------------------------------------------- Namespace

// Namespace scopes names; deleting one deletes everything in it.
type Namespace struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       NamespaceSpec   `json:"spec,omitempty"`
	Status     NamespaceStatus `json:"status,omitempty"`
}

// NamespaceSpec holds the finalizers that must run before a namespace goes.
type NamespaceSpec struct {
	Finalizers []FinalizerName `json:"finalizers,omitempty"`
}

// FinalizerName is a namespace finalizer.
type FinalizerName string

// FinalizerKubernetes is the namespace controller's finalizer.
const FinalizerKubernetes FinalizerName = "kubernetes"

// NamespaceStatus is the observed state of a namespace.
type NamespaceStatus struct {
	Phase      NamespacePhase       `json:"phase,omitempty"`
	Conditions []NamespaceCondition `json:"conditions,omitempty"`
}

// NamespacePhase is Active or Terminating.
type NamespacePhase string

const (
	NamespaceActive      NamespacePhase = "Active"
	NamespaceTerminating NamespacePhase = "Terminating"
)

// NamespaceCondition is one condition of a namespace.
type NamespaceCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastTransitionTime Time            `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// Well-known namespaces.
const (
	NamespaceDefault   = "default"
	NamespaceSystem    = "kube-system"
	NamespacePublic    = "kube-public"
	NamespaceNodeLease = "kube-node-lease"
	NamespaceAll       = ""
)

// ---------------------------------------------------------------- Service

// Service is a stable virtual IP and port in front of a set of pods.
type Service struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       ServiceSpec   `json:"spec,omitempty"`
	Status     ServiceStatus `json:"status,omitempty"`
}

// ServiceSpec is the desired state of a service.
type ServiceSpec struct {
	Ports                         []ServicePort          `json:"ports,omitempty"`
	Selector                      map[string]string      `json:"selector,omitempty"`
	ClusterIP                     string                 `json:"clusterIP,omitempty"`
	ClusterIPs                    []string               `json:"clusterIPs,omitempty"`
	Type                          ServiceType            `json:"type,omitempty"`
	ExternalIPs                   []string               `json:"externalIPs,omitempty"`
	SessionAffinity               ServiceAffinity        `json:"sessionAffinity,omitempty"`
	LoadBalancerIP                string                 `json:"loadBalancerIP,omitempty"`
	LoadBalancerSourceRanges      []string               `json:"loadBalancerSourceRanges,omitempty"`
	ExternalName                  string                 `json:"externalName,omitempty"`
	ExternalTrafficPolicy         string                 `json:"externalTrafficPolicy,omitempty"`
	HealthCheckNodePort           int32                  `json:"healthCheckNodePort,omitempty"`
	PublishNotReadyAddresses      bool                   `json:"publishNotReadyAddresses,omitempty"`
	SessionAffinityConfig         *SessionAffinityConfig `json:"sessionAffinityConfig,omitempty"`
	IPFamilies                    []IPFamily             `json:"ipFamilies,omitempty"`
	IPFamilyPolicy                *string                `json:"ipFamilyPolicy,omitempty"`
	AllocateLoadBalancerNodePorts *bool                  `json:"allocateLoadBalancerNodePorts,omitempty"`
	LoadBalancerClass             *string                `json:"loadBalancerClass,omitempty"`
	InternalTrafficPolicy         *string                `json:"internalTrafficPolicy,omitempty"`
	TrafficDistribution           *string                `json:"trafficDistribution,omitempty"`
}

// ServicePort maps a service port to a target port on the pods.
type ServicePort struct {
	Name        string      `json:"name,omitempty"`
	Protocol    Protocol    `json:"protocol,omitempty"`
	AppProtocol *string     `json:"appProtocol,omitempty"`
	Port        int32       `json:"port"`
	TargetPort  IntOrString `json:"targetPort,omitempty"`
	NodePort    int32       `json:"nodePort,omitempty"`
}

// ServiceType is how a service is exposed.
type ServiceType string

const (
	ServiceTypeClusterIP    ServiceType = "ClusterIP"
	ServiceTypeNodePort     ServiceType = "NodePort"
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
	ServiceTypeExternalName ServiceType = "ExternalName"
)

// ClusterIPNone is the clusterIP of a headless service.
const ClusterIPNone = "None"

// ServiceAffinity is ClientIP or None.
type ServiceAffinity string

const (
	ServiceAffinityClientIP ServiceAffinity = "ClientIP"
	ServiceAffinityNone     ServiceAffinity = "None"
)

// SessionAffinityConfig configures ClientIP affinity.
type SessionAffinityConfig struct {
	ClientIP *ClientIPConfig `json:"clientIP,omitempty"`
}

// ClientIPConfig holds the affinity timeout (default 10800s).
type ClientIPConfig struct {
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
}

// IPFamily is IPv4 or IPv6.
type IPFamily string

const (
	IPv4Protocol IPFamily = "IPv4"
	IPv6Protocol IPFamily = "IPv6"
)

// ServiceStatus is the observed state of a service.
type ServiceStatus struct {
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitempty"`
	Conditions   []Condition        `json:"conditions,omitempty"`
}

// LoadBalancerStatus lists a load balancer's ingress points.
type LoadBalancerStatus struct {
	Ingress []LoadBalancerIngress `json:"ingress,omitempty"`
}

// LoadBalancerIngress is one ingress point.
type LoadBalancerIngress struct {
	IP       string `json:"ip,omitempty"`
	Hostname string `json:"hostname,omitempty"`
}

// ---------------------------------------------------------------- ServiceAccount, ConfigMap, Secret

// ServiceAccount is an identity for processes in pods.
type ServiceAccount struct {
	TypeMeta                     `json:",inline"`
	ObjectMeta                   `json:"metadata,omitempty"`
	Secrets                      []ObjectReference      `json:"secrets,omitempty"`
	ImagePullSecrets             []LocalObjectReference `json:"imagePullSecrets,omitempty"`
	AutomountServiceAccountToken *bool                  `json:"automountServiceAccountToken,omitempty"`
}

// ConfigMap holds configuration as key-value pairs.
type ConfigMap struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Immutable  *bool             `json:"immutable,omitempty"`
	Data       map[string]string `json:"data,omitempty"`
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
}

// Secret holds sensitive data. Data values are bytes, base64 in JSON;
// StringData is a write-only convenience merged into Data on write.
type Secret struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Immutable  *bool             `json:"immutable,omitempty"`
	Data       map[string][]byte `json:"data,omitempty"`
	StringData map[string]string `json:"stringData,omitempty"`
	Type       SecretType        `json:"type,omitempty"`
}

// SecretType is the kind of data a secret holds.
type SecretType string

const (
	SecretTypeOpaque              SecretType = "Opaque"
	SecretTypeServiceAccountToken SecretType = "kubernetes.io/service-account-token"
	SecretTypeDockercfg           SecretType = "kubernetes.io/dockercfg"
	SecretTypeDockerConfigJSON    SecretType = "kubernetes.io/dockerconfigjson"
	SecretTypeBasicAuth           SecretType = "kubernetes.io/basic-auth"
	SecretTypeSSHAuth             SecretType = "kubernetes.io/ssh-auth"
	SecretTypeTLS                 SecretType = "kubernetes.io/tls"
	SecretTypeBootstrapToken      SecretType = "bootstrap.kubernetes.io/token"
)

// ---------------------------------------------------------------- Event, Binding

// ObjectReference points at any object.
type ObjectReference struct {
	Kind            string `json:"kind,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             UID    `json:"uid,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	FieldPath       string `json:"fieldPath,omitempty"`
}

// Event (core/v1) reports something that happened to an object, such as
// Scheduled, Pulled, BackOff or FailedScheduling.
type Event struct {
	TypeMeta            `json:",inline"`
	ObjectMeta          `json:"metadata"`
	InvolvedObject      ObjectReference  `json:"involvedObject"`
	Reason              string           `json:"reason,omitempty"`
	Message             string           `json:"message,omitempty"`
	Source              EventSource      `json:"source,omitempty"`
	FirstTimestamp      Time             `json:"firstTimestamp,omitempty"`
	LastTimestamp       Time             `json:"lastTimestamp,omitempty"`
	Count               int32            `json:"count,omitempty"`
	Type                string           `json:"type,omitempty"`
	EventTime           MicroTime        `json:"eventTime,omitempty"`
	Series              *EventSeries     `json:"series,omitempty"`
	Action              string           `json:"action,omitempty"`
	Related             *ObjectReference `json:"related,omitempty"`
	ReportingController string           `json:"reportingComponent"`
	ReportingInstance   string           `json:"reportingInstance"`
}

// EventSource names the component that reported an event.
type EventSource struct {
	Component string `json:"component,omitempty"`
	Host      string `json:"host,omitempty"`
}

// EventSeries counts repeats of an event.
type EventSeries struct {
	Count            int32     `json:"count,omitempty"`
	LastObservedTime MicroTime `json:"lastObservedTime,omitempty"`
}

// Event types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)

// Binding binds a pod to a node: the scheduler POSTs it to the pod's
// binding subresource.
type Binding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Target     ObjectReference `json:"target"`
}
