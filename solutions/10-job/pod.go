package job

// The pods of a Job: what state one is in (rule 2 of jobs.PlanFunc), the
// pod a Job creates (rule 9), and the order in which surplus pods go
// (rule 6).

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/jobs"
)

// maxGeneratedNameLength is the longest prefix the apiserver keeps of a
// generateName before it appends five random characters
// (k8s.io/apiserver/pkg/storage/names: MaxGeneratedNameLength, 63 − 5).
const maxGeneratedNameLength = 58

// indexEnvFieldPath is where the JOB_COMPLETION_INDEX variable reads
// the index from: the pod's label, as upstream does since PodIndexLabel
// went GA (indexed_job_utils.go addCompletionIndexEnvVariable).
const indexEnvFieldPath = "metadata.labels['" + jobs.CompletionIndexAnnotation + "']"

// activePod is upstream's IsPodActive behind FilterActivePods
// (pkg/controller/controller_utils.go): a pod that has finished, or is
// going away, will not run the Job's work to the end.
func activePod(p *api.Pod) bool {
	return p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed && p.DeletionTimestamp == nil
}

// terminatingPod is upstream's IsPodTerminating behind
// CountTerminatingPods (controller_utils.go): being deleted but still
// running, so its replacement would run beside it.
func terminatingPod(p *api.Pod) bool {
	return p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed && p.DeletionTimestamp != nil
}

// failedPod is upstream's isPodFailed (job_controller.go) without a
// podReplacementPolicy: a pod deleted before it succeeded counts as
// failed, since an orphaned or evicted pod may never reach phase Failed.
func failedPod(p *api.Pod) bool {
	if p.Status.Phase == api.PodFailed {
		return true
	}
	return p.DeletionTimestamp != nil && p.Status.Phase != api.PodSucceeded
}

// readyCondition is the pod's Ready condition, or nil (upstream's
// GetPodCondition for PodReady, pkg/api/v1/pod).
func readyCondition(p *api.Pod) *api.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == api.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// podReady is upstream's IsPodReady: a Ready condition True.
func podReady(p *api.Pod) bool {
	c := readyCondition(p)
	return c != nil && c.Status == api.ConditionTrue
}

// newPod is the pod j creates for completion index index (-1 for none):
// upstream's GetPodFromTemplate with the Job as controller
// (controller_utils.go), and for an Indexed Job what manageJob adds
// (job_controller.go: addCompletionIndexAnnotation,
// addCompletionIndexLabel, the hostname, podGenerateNameWithIndex;
// indexed_job_utils.go addCompletionIndexEnvVariables). It shares no map,
// slice or pointer with j. The kata puts no job-tracking finalizer on it
// (see the contract's package doc).
func newPod(j *api.Job, index int) api.Pod {
	t := &j.Spec.Template
	yes := true
	p := api.Pod{
		ObjectMeta: api.ObjectMeta{
			Namespace:    j.Namespace,
			GenerateName: generateName(j.Name, index),
			Labels:       maps.Clone(t.Labels),
			Annotations:  maps.Clone(t.Annotations),
			Finalizers:   slices.Clone(t.Finalizers),
			OwnerReferences: []api.OwnerReference{{
				APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID,
				Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		},
		Spec: api.DeepCopyValue(t.Spec),
	}
	if index < 0 {
		return p
	}
	ix := strconv.Itoa(index)
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations[jobs.CompletionIndexAnnotation] = ix
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels[jobs.CompletionIndexAnnotation] = ix
	// A stable hostname per index lets the pods of an Indexed Job find
	// each other through a headless Service.
	p.Spec.Hostname = j.Name + "-" + ix
	for i := range p.Spec.InitContainers {
		addIndexEnv(&p.Spec.InitContainers[i])
	}
	for i := range p.Spec.Containers {
		addIndexEnv(&p.Spec.Containers[i])
	}
	return p
}

// generateName is upstream's prefix for the pods of Job name: getPodsPrefix
// ("NAME-") without an index, podGenerateNameWithIndex ("NAME-INDEX-")
// with one, the Job's name cut so that the index survives the
// apiserver's truncation.
func generateName(name string, index int) string {
	if index < 0 {
		return name + "-"
	}
	suffix := "-" + strconv.Itoa(index) + "-"
	if len(name)+len(suffix) > maxGeneratedNameLength && len(suffix) < maxGeneratedNameLength {
		name = name[:maxGeneratedNameLength-len(suffix)]
	}
	return name + suffix
}

// addIndexEnv gives c the JOB_COMPLETION_INDEX variable unless it sets
// one itself (upstream's addCompletionIndexEnvVariable).
func addIndexEnv(c *api.Container) {
	for _, e := range c.Env {
		if e.Name == jobs.CompletionIndexEnv {
			return
		}
	}
	c.Env = append(c.Env, api.EnvVar{
		Name:      jobs.CompletionIndexEnv,
		ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: indexEnvFieldPath}},
	})
}

// phaseRank orders the phases of active pods from cheapest to lose
// (controller_utils.go podPhaseToOrdinal): Pending < Unknown < Running.
var phaseRank = map[api.PodPhase]int{api.PodPending: 0, api.PodUnknown: 1, api.PodRunning: 2}

// deleteBefore is upstream's ActivePods.Less (controller_utils.go): it
// reports whether a should be deleted before b, the pod that has cost
// the least and done the least going first. The kata breaks the last tie
// by name, so that a plan is the same every time.
func deleteBefore(a, b *api.Pod) bool {
	// 1. Not on a node before on one: it has cost nothing yet.
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	// 2. Pending < Unknown < Running.
	if ra, rb := phaseRank[a.Status.Phase], phaseRank[b.Status.Phase]; ra != rb {
		return ra < rb
	}
	// 3. Not ready before ready.
	readyA, readyB := podReady(a), podReady(b)
	if readyA != readyB {
		return !readyA
	}
	// 4. Of two ready pods, the one ready for less time first.
	if readyA {
		ta, tb := readyCondition(a).LastTransitionTime.Time, readyCondition(b).LastTransitionTime.Time
		if !ta.Equal(tb) {
			return afterOrZero(ta, tb)
		}
	}
	// 5. More restarts first: it is the less healthy.
	if ra, rb := maxRestarts(a), maxRestarts(b); ra != rb {
		return ra > rb
	}
	// 6. Newer first (an unset creation time counts as the newest).
	if ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time; !ta.Equal(tb) {
		return afterOrZero(ta, tb)
	}
	return a.Name < b.Name
}

// afterOrZero is upstream's: whether t1 is after t2, a zero time being
// after every other.
func afterOrZero(t1, t2 time.Time) bool {
	if t1.IsZero() || t2.IsZero() {
		return t1.IsZero()
	}
	return t1.After(t2)
}

// maxRestarts is upstream's maxContainerRestarts: the most restarts of
// one of the pod's (app) containers.
func maxRestarts(p *api.Pod) int32 {
	var n int32
	for _, c := range p.Status.ContainerStatuses {
		n = max(n, c.RestartCount)
	}
	return n
}

// sortForDeletion sorts pods in upstream's ActivePods order.
func sortForDeletion(pods []*api.Pod) {
	slices.SortFunc(pods, func(a, b *api.Pod) int {
		switch {
		case deleteBefore(a, b):
			return -1
		case deleteBefore(b, a):
			return 1
		}
		return 0
	})
}
