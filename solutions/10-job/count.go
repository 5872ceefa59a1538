package job

// Counting a Job's pods (rule 2 of jobs.PlanFunc) and assembling its
// status (rule 13).

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/jobs"
)

// counts are a Job's pods as one sync sees them (syncJob's jobCtx).
type counts struct {
	// active are the active pods, in the order of the input.
	active []*api.Pod
	// ready is how many active pods are Ready (countReadyPods).
	ready int32
	// terminating is how many pods are being deleted and not finished
	// (CountTerminatingPods).
	terminating int32
	// succeeded is the number of Succeeded pods, or for an Indexed Job
	// the number of distinct indexes below completions they hold.
	succeeded int32
	// failed is how many pods count as failed (isPodFailed).
	failed int32
	// succeededIndexes are those distinct indexes, in increasing order
	// (Indexed only).
	succeededIndexes []int
}

// count counts pods for a Job of the given shape. completions is the
// Job's spec.completions, read only when indexed.
func count(pods []api.Pod, indexed bool, completions int32) counts {
	var c counts
	seen := map[int]bool{}
	for i := range pods {
		p := &pods[i]
		switch {
		case activePod(p):
			c.active = append(c.active, p)
			if podReady(p) {
				c.ready++
			}
		case terminatingPod(p):
			c.terminating++
		}
		if failedPod(p) {
			c.failed++
		}
		if p.Status.Phase != api.PodSucceeded {
			continue
		}
		if !indexed {
			c.succeeded++
			continue
		}
		// An Indexed Job is done index by index: a second pod that
		// succeeded in an index, or one outside the range, adds nothing
		// (calculateSucceededIndexes, indexed_job_utils.go).
		if ix := jobs.Index(p); ix >= 0 && ix < int(completions) && !seen[ix] {
			seen[ix] = true
			c.succeededIndexes = append(c.succeededIndexes, ix)
		}
	}
	if indexed {
		slices.Sort(c.succeededIndexes)
		c.succeeded = int32(len(c.succeededIndexes))
	}
	return c
}

// formatIndexes writes increasing indexes as upstream's orderedIntervals
// String does (indexed_job_utils.go): runs of three or more as
// "first-last", the others one by one, comma separated: "1,3-5,7,8".
func formatIndexes(ixs []int) string {
	var b strings.Builder
	for i := 0; i < len(ixs); {
		j := i
		for j+1 < len(ixs) && ixs[j+1] == ixs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ixs[i]))
		switch {
		case j-i >= 2:
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(ixs[j]))
		case j-i == 1:
			b.WriteByte(',')
			b.WriteString(strconv.Itoa(ixs[j]))
		}
		i = j + 1
	}
	return b.String()
}

// findCondition is the condition of type t in list, or nil
// (findConditionByType, job_controller.go).
func findCondition(list []api.JobCondition, t api.JobConditionType) *api.JobCondition {
	for i := range list {
		if list[i].Type == t {
			return &list[i]
		}
	}
	return nil
}

// hasTrueCondition reports whether list holds a condition of type t
// with status True.
func hasTrueCondition(list []api.JobCondition, t api.JobConditionType) bool {
	c := findCondition(list, t)
	return c != nil && c.Status == api.ConditionTrue
}

// jobFinished is upstream's IsJobFinished (pkg/controller/job/util):
// a Complete or Failed condition True is the end of a Job.
func jobFinished(j *api.Job) bool {
	return hasTrueCondition(j.Status.Conditions, api.JobComplete) || hasTrueCondition(j.Status.Conditions, api.JobFailed)
}

// ensureCondition is upstream's ensureJobConditionStatus
// (job_controller.go): a condition of type t that differs in status,
// reason or message is replaced, with new times; a missing one is
// appended, after the others, unless its status is False (going from
// nothing to False says nothing). It reports whether list changed.
func ensureCondition(list []api.JobCondition, t api.JobConditionType, status api.ConditionStatus, reason, message string, now time.Time) ([]api.JobCondition, bool) {
	c := api.JobCondition{
		Type: t, Status: status, Reason: reason, Message: message,
		LastProbeTime: api.NewTime(now), LastTransitionTime: api.NewTime(now),
	}
	if old := findCondition(list, t); old != nil {
		if old.Status == status && old.Reason == reason && old.Message == message {
			return list, false
		}
		*old = c
		return list, true
	}
	if status == api.ConditionFalse {
		return list, false
	}
	return append(list, c), true
}

// sameStatus reports whether writing b over a would change nothing: the
// two are compared as the API stores them (JSON), so that a nil and an
// empty list of conditions, or two equal times in different zones, are
// the same.
func sameStatus(a, b *api.JobStatus) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// int32Ptr is a pointer to a copy of n.
func int32Ptr(n int32) *int32 { return &n }
