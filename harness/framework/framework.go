package framework

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// Code is what a plugin says about a pod on a node, as upstream's
// framework.Code (pkg/scheduler/framework/interface.go).
type Code int

// The codes, in upstream's order and with its names.
const (
	// Success: the pod fits (a nil *Status means the same).
	Success Code = iota
	// Error: something went wrong that is not the pod's or the node's
	// fault (a bug, a missing object).
	Error
	// Unschedulable: the pod does not fit now, and evicting pods from
	// the node could change that (for example Insufficient cpu).
	Unschedulable
	// UnschedulableAndUnresolvable: the pod does not fit, and no
	// eviction can change that (a node selector, a taint, a node name).
	UnschedulableAndUnresolvable
	// Wait, Skip and Pending are upstream's too; the kata's plugins use
	// Skip only (a scoring plugin with nothing to say about a pod).
	Wait
	Skip
	Pending
)

var codeNames = []string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"}

// String is the code's upstream name.
func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "Code(" + strconv.Itoa(int(c)) + ")"
}

// Status is a plugin's verdict, as upstream's *framework.Status: a nil
// Status is Success. Reasons are what the node lacks, one per cause
// (NodeResourcesFit says "Insufficient cpu" and "Insufficient memory"
// separately); FitError counts them one by one.
type Status struct {
	Code    Code     `json:"code"`
	Reasons []string `json:"reasons,omitempty"`
	// Plugin is the name of the plugin that failed ("NodeAffinity").
	Plugin string `json:"plugin,omitempty"`
}

// NewStatus returns a status with code and reasons.
func NewStatus(code Code, reasons ...string) *Status {
	return &Status{Code: code, Reasons: reasons}
}

// WithPlugin sets the name of the plugin that said it, and returns s.
func (s *Status) WithPlugin(plugin string) *Status {
	s.Plugin = plugin
	return s
}

// IsSuccess says whether the pod fits: s is nil or its code is Success.
func (s *Status) IsSuccess() bool { return s == nil || s.Code == Success }

// Message is the reasons joined with ", ", as upstream's.
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.Reasons, ", ")
}

// The node scores of a scoring plugin after NormalizeScore, and the
// weighted totals, are between MinNodeScore and MaxNodeScore times the
// weight (upstream's framework.MaxNodeScore).
const (
	MinNodeScore int64 = 0
	MaxNodeScore int64 = 100
)

// Resource is an amount of the resources a node offers and pods request,
// as upstream's framework.Resource: cpu in millicores, memory and
// ephemeral storage in bytes, and a number of pods.
type Resource struct {
	MilliCPU         int64 `json:"milliCPU,omitempty"`
	Memory           int64 `json:"memory,omitempty"`
	EphemeralStorage int64 `json:"ephemeralStorage,omitempty"`
	// AllowedPodNumber is the number of pods a node allows (its
	// allocatable "pods"); 0 in a pod's requests.
	AllowedPodNumber int64 `json:"allowedPodNumber,omitempty"`
}

// HostPort is a host port a pod on the node uses: IP "0.0.0.0" when the
// container names none, protocol "TCP" when it names none (upstream's
// HostPortInfo, pkg/scheduler/framework/types.go).
type HostPort struct {
	IP       string `json:"ip"`
	Protocol string `json:"protocol"`
	Port     int32  `json:"port"`
}

// NodeInfo is a node and the pods bound to it, with what they use, as
// upstream's NodeInfo: what every plugin reads. The scheduler keeps one
// per node, current with every pod bound or assumed.
type NodeInfo struct {
	Node *api.Node `json:"node"`
	// Pods are the pods bound (or assumed) to the node.
	Pods []*api.Pod `json:"pods,omitempty"`
	// Requested is the sum of the pods' requests (each pod's as upstream
	// counts it: containers, init containers and overhead), what
	// NodeResourcesFit filters against.
	Requested Resource `json:"requested"`
	// NonZeroRequested is the same sum where a container that requests no
	// cpu or no memory counts upstream's defaults for it (100m, 200Mi):
	// what scoring reads, so that pods without requests still spread.
	NonZeroRequested Resource `json:"nonZeroRequested"`
	// Allocatable is the node's status.allocatable.
	Allocatable Resource `json:"allocatable"`
	// UsedPorts are the host ports the pods use.
	UsedPorts []HostPort `json:"usedPorts,omitempty"`
}

// Name is the node's name, "" for a NodeInfo without a node.
func (n *NodeInfo) Name() string {
	if n == nil || n.Node == nil {
		return ""
	}
	return n.Node.Name
}

// PluginScore is one scoring plugin's score on a node, after
// NormalizeScore and multiplied by the plugin's weight.
type PluginScore struct {
	Name  string `json:"name"`
	Score int64  `json:"score"`
}

// NodePluginScores are a node's weighted scores, plugin by plugin in the
// order the plugins run, and their sum (upstream's NodePluginScores).
type NodePluginScores struct {
	Name       string        `json:"name"`
	Scores     []PluginScore `json:"scores"`
	TotalScore int64         `json:"totalScore"`
}

// ScheduleOptions are what one decision reads beside the pod and the
// nodes.
type ScheduleOptions struct {
	// PercentageOfNodesToScore is upstream's option: 0 is adaptive
	// (upstream's default).
	PercentageOfNodesToScore int32 `json:"percentageOfNodesToScore,omitempty"`
	// NextStartNodeIndex is where the search for feasible nodes starts
	// in the node list: the previous result's NextStartNodeIndex, 0 at
	// first.
	NextStartNodeIndex int `json:"nextStartNodeIndex,omitempty"`
	// Seed seeds the random source that breaks ties between nodes with
	// the same total score, so that a decision is a pure function of its
	// inputs.
	Seed uint64 `json:"seed,omitempty"`
}

// ScheduleResult is the outcome of a decision that found a node
// (upstream's ScheduleResult).
type ScheduleResult struct {
	// SuggestedHost is the chosen node's name.
	SuggestedHost string `json:"suggestedHost"`
	// EvaluatedNodes is how many nodes were filtered, FeasibleNodes how
	// many of them fit.
	EvaluatedNodes int `json:"evaluatedNodes"`
	FeasibleNodes  int `json:"feasibleNodes"`
	// NextStartNodeIndex is where the next decision starts its search.
	NextStartNodeIndex int `json:"nextStartNodeIndex"`
}

// Diagnosis says why no node fits: each node's failing status, and what
// the preemption step said (upstream's Diagnosis).
type Diagnosis struct {
	// NodeToStatus is the failing status of each node that was filtered.
	NodeToStatus map[string]*Status `json:"nodeToStatus"`
	// PostFilterMsg is the preemption step's message, "preemption: ...".
	PostFilterMsg string `json:"postFilterMsg,omitempty"`
}

// FitError is the error of a decision that found no node (upstream's
// FitError). Message is the error's text, upstream's FitError.Error():
// the scheduler builds it (it is the exercise's), and the pod's
// PodScheduled condition and FailedScheduling event carry it.
type FitError struct {
	// Pod is the pod's namespace/name.
	Pod         string    `json:"pod"`
	NumAllNodes int       `json:"numAllNodes"`
	Diagnosis   Diagnosis `json:"diagnosis"`
	Message     string    `json:"message"`
}

// Error is the message.
func (e *FitError) Error() string { return e.Message }

// QueuedPodInfo is a pod in the scheduling queue, as upstream's
// QueuedPodInfo.
type QueuedPodInfo struct {
	Pod *api.Pod `json:"pod"`
	// Timestamp is when the pod was last added to the queue (by Add, or
	// by AddUnschedulable after a failed attempt).
	Timestamp time.Time `json:"timestamp"`
	// InitialAttemptTimestamp is when it was first popped; zero until
	// then.
	InitialAttemptTimestamp time.Time `json:"initialAttemptTimestamp,omitzero"`
	// Attempts is how many times it was popped.
	Attempts int `json:"attempts"`
	// UnschedulablePlugins are the plugins that rejected it in its last
	// attempt.
	UnschedulablePlugins []string `json:"unschedulablePlugins,omitempty"`
}

// ClusterEvent is a change in the cluster that may make a pod that did
// not fit fit now (upstream's framework.ClusterEvent, reduced to the
// kinds the kata's plugins care about).
type ClusterEvent string

// The events the scheduler's loop reports to the queue.
const (
	// NodeAdd: a node was added.
	NodeAdd ClusterEvent = "NodeAdd"
	// NodeUpdate: a node changed (labels, taints, allocatable,
	// unschedulable).
	NodeUpdate ClusterEvent = "NodeUpdate"
	// AssignedPodDelete: a pod bound to a node was deleted, freeing room.
	AssignedPodDelete ClusterEvent = "AssignedPodDelete"
	// UnschedulableTimeout: a pod waited in the unschedulable set for
	// the longest time allowed; the queue raises it itself.
	UnschedulableTimeout ClusterEvent = "UnschedulableTimeout"
)

// Upstream's defaults for the queue (pkg/scheduler/apis/config/v1
// defaults and pkg/scheduler/internal/queue/scheduling_queue.go).
const (
	DefaultPodInitialBackoff                 = 1 * time.Second
	DefaultPodMaxBackoff                     = 10 * time.Second
	DefaultPodMaxInUnschedulablePodsDuration = 5 * time.Minute
)

// Queue is the scheduling queue (upstream's PriorityQueue,
// pkg/scheduler/internal/queue/scheduling_queue.go): an active queue of
// pods to try, ordered by priority (higher first) then by Timestamp
// (older first); a back-off queue of pods that failed and wait out their
// back-off; and an unschedulable set of pods that failed and wait for a
// change in the cluster. Every call that depends on time is given the
// time (now) by its caller, which owns the clock; a Queue never reads a
// clock and never blocks. It is not safe for concurrent use.
type Queue interface {
	// Add adds a new pod to the active queue.
	Add(pod *api.Pod, now time.Time)
	// Update replaces a queued pod's object where it is; a pod in the
	// unschedulable set moves out as a cluster change would move it.
	Update(pod *api.Pod, now time.Time)
	// Delete removes a pod from the queue, wherever it is.
	Delete(pod *api.Pod)
	// Pop first moves to the active queue the pods whose back-off ended
	// by now and those that waited in the unschedulable set for
	// DefaultPodMaxInUnschedulablePodsDuration, then takes the active
	// queue's head, counting an attempt and a scheduling cycle. ok is
	// false when the active queue is empty.
	Pop(now time.Time) (info QueuedPodInfo, ok bool)
	// SchedulingCycle is the number of pods popped so far: the cycle of
	// the last Pop.
	SchedulingCycle() int64
	// AddUnschedulable takes back a pod whose attempt in the scheduling
	// cycle cycle failed: it waits in the back-off queue if a cluster
	// event came since that cycle began, else in the unschedulable set.
	AddUnschedulable(info QueuedPodInfo, cycle int64, now time.Time)
	// MoveAll reports a cluster event: every pod in the unschedulable
	// set moves to the back-off queue, or to the active queue if its
	// back-off already ended.
	MoveAll(event ClusterEvent, now time.Time)
	// Len counts the pods in each part of the queue.
	Len() (active, backoff, unschedulable int)
}

// DefaultSchedulerName is the name pods ask for by default
// (spec.schedulerName) and the name the scheduler reports as.
const DefaultSchedulerName = "default-scheduler"

// Options are what the scheduler's loop is built from.
type Options struct {
	// SchedulerName is the spec.schedulerName of the pods it schedules
	// and the component its events name. Empty: DefaultSchedulerName.
	SchedulerName string `json:"schedulerName,omitempty"`
	// PercentageOfNodesToScore is upstream's option; 0 is adaptive.
	PercentageOfNodesToScore int32 `json:"percentageOfNodesToScore,omitempty"`
	// Seed seeds the random source that breaks ties.
	Seed uint64 `json:"seed,omitempty"`
}

// Scheduler is the running scheduler: Run schedules until ctx is done,
// then returns nil or ctx's error; any other return is a failure.
type Scheduler interface {
	Run(ctx context.Context) error
}
