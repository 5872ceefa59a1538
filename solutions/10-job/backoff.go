package job

// The pod failure back-off (rule 8 of jobs.PlanFunc): after a failure the
// Job waits before it replaces the pod, longer after each failure since
// the last success (upstream's backoff_utils.go).

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/jobs"
)

// backoffLeft is how long the Job whose pods are pods must still wait
// before it creates a pod at now; 0 when it need not.
//
// Upstream keeps a record per Job (failuresAfterLastSuccess,
// lastFailureTime) that newBackoffRecord updates from the pods each sync
// finds newly finished; the kata, which counts the pods it sees, works
// the same record out from all of them at once.
func backoffLeft(pods []api.Pod, now time.Time) time.Duration {
	var lastSuccess time.Time
	succeeded := false
	for i := range pods {
		if p := &pods[i]; p.Status.Phase == api.PodSucceeded {
			if t := finishedTime(p); !succeeded || t.After(lastSuccess) {
				lastSuccess = t
			}
			succeeded = true
		}
	}
	// A failure counts when it came strictly after the last success
	// (newBackoffRecord: !failedTime.After(lastSuccessTime) stops).
	var n int
	var lastFailure time.Time
	for i := range pods {
		p := &pods[i]
		if !failedPod(p) {
			continue
		}
		t := finishedTime(p)
		if succeeded && !t.After(lastSuccess) {
			continue
		}
		n++
		if n == 1 || t.After(lastFailure) {
			lastFailure = t
		}
	}
	return remainingBackoff(n, lastFailure, now)
}

// remainingBackoff is upstream's getRemainingTimeForFailuresCount: n
// failures wait PodFailureBackOff doubled n−1 times, at most
// MaxPodFailureBackOff, from the last one.
func remainingBackoff(n int, lastFailure, now time.Time) time.Duration {
	if n == 0 {
		return 0
	}
	d := jobs.PodFailureBackOff
	for i := 1; i < n; i++ {
		d *= 2
		if d >= jobs.MaxPodFailureBackOff {
			d = jobs.MaxPodFailureBackOff
			break
		}
	}
	elapsed := now.Sub(lastFailure)
	if d < elapsed {
		return 0
	}
	return d - elapsed
}

// finishedTime is when pod p finished, upstream's getFinishedTime
// (backoff_utils.go), in order of trust: the latest finishedAt of its
// containers when every one has terminated; else the time its Ready
// condition turned False (the kubelet flips it as the pod ends); else
// when its deletion began (deletionTimestamp minus the grace period,
// for pods the kubelet never reported, deleted by the pod GC); else its
// creation.
func finishedTime(p *api.Pod) time.Time {
	if t, ok := containersFinished(p); ok {
		return t
	}
	if c := readyCondition(p); c != nil && c.Status == api.ConditionFalse && !c.LastTransitionTime.IsZero() {
		return c.LastTransitionTime.Time
	}
	if p.DeletionTimestamp != nil {
		var grace int64
		if p.DeletionGracePeriodSeconds != nil {
			grace = *p.DeletionGracePeriodSeconds
		}
		return p.DeletionTimestamp.Add(-time.Duration(grace) * time.Second)
	}
	return p.CreationTimestamp.Time
}

// containersFinished is upstream's getFinishTimeFromContainers: the
// latest finishedAt of p's containers, when each has one.
func containersFinished(p *api.Pod) (time.Time, bool) {
	var last time.Time
	found := false
	for _, cs := range p.Status.ContainerStatuses {
		term := cs.State.Terminated
		if term == nil || term.FinishedAt.IsZero() {
			return time.Time{}, false
		}
		if !found || term.FinishedAt.After(last) {
			last = term.FinishedAt.Time
			found = true
		}
	}
	return last, found
}
