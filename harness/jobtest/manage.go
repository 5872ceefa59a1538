package jobtest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 01-05: what one sync of a Job that is not finishing writes, each
// case worked out by hand from the rules of jobs.PlanFunc and upstream's
// pkg/controller/job (job_controller.go syncJob and manageJob,
// indexed_job_utils.go, backoff_utils.go) and pkg/controller/
// controller_utils.go (GetPodFromTemplate, FilterActivePods,
// CountTerminatingPods, ActivePods):
//
//	01-new-pod      rule 9: the pod made from the template, NonIndexed
//	                and Indexed (manageJob, GetPodFromTemplate,
//	                addCompletionIndexEnvVariables, podGenerateNameWithIndex)
//	02-count        rules 1, 2 and 13: the counts, startTime,
//	                completedIndexes, a status that does not change, a
//	                finished Job (syncJob, isPodFailed, orderedIntervals)
//	03-parallelism  rules 5, 6 and 7 for a NonIndexed Job: wantActive,
//	                the pods deleted in ActivePods order, the cap of 500
//	04-indexed      rules 6 and 7 for an Indexed Job: the lowest free
//	                indexes, duplicated and invalid indexes
//	                (firstPendingIndexes, appendDuplicatedIndexPodsForRemoval)
//	05-backoff      rule 8: the pod failure back-off and a pod's finish
//	                time (newBackoffRecord, getRemainingTimeForFailuresCount,
//	                getFinishedTime)
//
// Every case keeps away from the rules of steps 06-10: no Job fails
// (failed never exceeds backoffLimit, no activeDeadlineSeconds, restart
// policy Never), none is in flight or being deleted, and a case that could
// complete its Job does not look at the conditions. Each case checks the
// creates, the deletes and RequeueAfter always, and the status fields it
// names.
//
// Upstream's manageJob deletes an Indexed Job's duplicated and invalid
// pods in every pass (activePodsForRemoval adds them whatever rmAtLeast
// is); rule 6 of the contract does so only when active > wantActive. The
// cases of step 04 have more active pods than wanted, where the two
// agree. The kata's last tie of ActivePods is taken to be by name in
// increasing order (pod-1 before pod-2).

// manageCase is one call of Plan: the rule that decides it, the upstream
// function that holds the rule, why, and what it wants.
type manageCase struct {
	rule     int
	upstream string
	why      string
	in       jobs.Input
	want     manageWant
}

// manageWant is what a case checks of a Plan.
type manageWant struct {
	// zero wants the zero Plan (rule 1); nothing else is looked at.
	zero bool
	// create is how many pods are created, each with generateName
	// "NAME-" and no completion index, unless indexes is set: then the
	// pods created have these indexes, in this order, each with
	// generateName "NAME-INDEX-".
	create  int
	indexes []int
	// pods, when set, are the pods created, compared whole (rule 9): name,
	// generateName, labels, annotations, finalizers, owner references and
	// spec.
	pods []api.Pod
	// delete are the names of the pods deleted, in this order unless
	// deleteAnyOrder; deleteCount, when above 0, checks only how many.
	delete         []string
	deleteAnyOrder bool
	deleteCount    int
	// requeue is the Plan's RequeueAfter (0: none).
	requeue time.Duration
	// status, when set, are the status fields to check, of the Plan's
	// status or, when it is nil (unchanged), of the Job's.
	status *manageStatus
	// statusNil wants Plan.Status nil: the status does not change.
	statusNil bool
}

// manageStatus are the status fields a case checks; nil is not checked.
type manageStatus struct {
	active, ready, terminating, succeeded, failed *int32
	completedIndexes                              *string
	startTime                                     *time.Time
}

// Upstream functions the cases name.
const (
	manageFromTemplate = "job_controller.go manageJob; controller_utils.go GetPodFromTemplate, NewControllerRef"
	manageIndexedPod   = "job_controller.go manageJob; indexed_job_utils.go addCompletionIndexEnvVariables, addCompletionIndexAnnotation, addCompletionIndexLabel, podGenerateNameWithIndex"
	manageCounting     = "job_controller.go syncJob, isPodFailed, countReadyPods; controller_utils.go FilterActivePods, CountTerminatingPods"
	manageStartTime    = "job_controller.go syncJob"
	manageSucceededIx  = "indexed_job_utils.go calculateSucceededIndexes, orderedIntervals.String"
	manageStatusWrite  = "job_controller.go syncJob (needsStatusUpdate), trackJobStatusAndRemoveFinalizers"
	manageFinishedJob  = "job_controller.go syncJob; job/util/utils.go IsJobFinished"
	manageWantActive   = "job_controller.go manageJob"
	manageRemoval      = "job_controller.go manageJob, activePodsForRemoval; controller_utils.go ActivePods"
	manageCap          = "job_controller.go manageJob, MaxPodCreateDeletePerSync"
	manageFirstPending = "job_controller.go manageJob; indexed_job_utils.go firstPendingIndexes"
	manageDuplicates   = "job_controller.go activePodsForRemoval; indexed_job_utils.go appendDuplicatedIndexPodsForRemoval, appendPodsWithSameIndexForRemovalAndRemaining"
	manageBackoff      = "job_controller.go manageJob; backoff_utils.go newBackoffRecord, getRemainingTimeForFailuresCount"
	manageFinishTime   = "backoff_utils.go getFinishedTime, getFinishTimeFromContainers, getFinishTimeFromPodReadyFalseCondition, getFinishTimeFromDeletionTimestamp"
)

// manageNow is the time of a case's sync unless it says otherwise.
var manageNow = at(10 * time.Minute)

// manageIn is what Plan is given: j and pods at now.
func manageIn(j api.Job, now time.Time, pods ...api.Pod) jobs.Input {
	return jobs.Input{Job: j, Pods: pods, Now: now}
}

// manageJob is Job name with completions and parallelism (-1: unset), as
// newJob makes it, started at t0.
func manageJob(name string, completions, parallelism int32) api.Job {
	return started(newJob(name, completions, parallelism), t0)
}

// manageWithLimit gives j a backoffLimit of n.
func manageWithLimit(j api.Job, n int32) api.Job {
	j.Spec.BackoffLimit = int32p(n)
	return j
}

// manageOnNode puts pod p on node (a Pending pod that is scheduled);
// node "" unschedules it.
func manageOnNode(p api.Pod, node string) api.Pod {
	p.Spec.NodeName = node
	return p
}

// manageCreatedAt gives pod p the creationTimestamp t.
func manageCreatedAt(p api.Pod, t time.Time) api.Pod {
	p.CreationTimestamp = api.NewTime(t)
	return p
}

// manageRestarts gives pod p's containers a running state with n
// restarts each.
func manageRestarts(p api.Pod, n int32) api.Pod {
	p.Status.ContainerStatuses = nil
	for _, c := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, api.ContainerStatus{
			Name: c.Name, RestartCount: n,
			State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(t0)}},
		})
	}
	return p
}

// manageNotReady gives pod p the condition Ready=False since t.
func manageNotReady(p api.Pod, t time.Time) api.Pod {
	p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: api.ConditionFalse, LastTransitionTime: api.NewTime(t)})
	return p
}

// manageIndexAnnotation gives pod p the completion index annotation v,
// which need not be a number.
func manageIndexAnnotation(p api.Pod, v string) api.Pod {
	p.Annotations = map[string]string{jobs.CompletionIndexAnnotation: v}
	return p
}

// manageFailedAt is pod name of j, Failed, finished at t.
func manageFailedAt(j api.Job, name string, t time.Time) api.Pod {
	return finishedAt(podOf(j, name, api.PodFailed, -1), t)
}

// manageSucceededAt is pod name of j, Succeeded, finished at t.
func manageSucceededAt(j api.Job, name string, t time.Time) api.Pod {
	return finishedAt(podOf(j, name, api.PodSucceeded, -1), t)
}

// manageCounts checks every count of the status.
func manageCounts(active, ready, terminating, succeeded, failed int32) *manageStatus {
	return &manageStatus{active: int32p(active), ready: int32p(ready), terminating: int32p(terminating), succeeded: int32p(succeeded), failed: int32p(failed)}
}

// manageActive checks status.active only.
func manageActive(n int32) *manageStatus { return &manageStatus{active: int32p(n)} }

// manageAfterDelete checks status.active, ready and terminating.
func manageAfterDelete(active, ready, terminating int32) *manageStatus {
	return &manageStatus{active: int32p(active), ready: int32p(ready), terminating: int32p(terminating)}
}

// withStart also checks status.startTime.
func (s *manageStatus) withStart(t time.Time) *manageStatus {
	s.startTime = &t
	return s
}

// withIndexes also checks status.completedIndexes.
func (s *manageStatus) withIndexes(v string) *manageStatus {
	s.completedIndexes = &v
	return s
}

// manageRun calls Plan on each case (callPlan checks that the input is
// unchanged) and checks what the case wants.
func manageRun(t *suite.T, impl Impl, cases []manageCase) {
	t.Helper()
	need(t, "Plan", impl.Plan)
	for _, c := range cases {
		got := callPlan(t, impl, c.in)
		if diffs := manageDiff(c.in, got, c.want); len(diffs) > 0 {
			t.Errorf("Plan(%s) = %s, want %s: rule %d (%s): %s\n  differs: %s",
				manageDescribeInput(c.in), manageDescribePlan(got), manageDescribeWant(c.in, c.want), c.rule, c.upstream, c.why, strings.Join(diffs, "; "))
		}
	}
}

// manageListed is how many pods or writes a failure message lists before
// it only counts them.
const manageListed = 12

// manageDescribeInput is describeInput, with only the first pods of a long
// list.
func manageDescribeInput(in jobs.Input) string {
	if len(in.Pods) <= manageListed {
		return describeInput(in)
	}
	var pods []string
	for _, p := range in.Pods[:3] {
		pods = append(pods, describePod(p))
	}
	return fmt.Sprintf("%s, pods [%s; ... %d pods in all], now %s", describeJob(in.Job), strings.Join(pods, "; "), len(in.Pods), since(in.Now))
}

// manageDescribePlan is describePlan, with only the first writes of a long
// list.
func manageDescribePlan(p jobs.Plan) string {
	if len(p.Create) <= manageListed && len(p.Delete) <= manageListed {
		return describePlan(p)
	}
	short := p
	if len(p.Create) > manageListed {
		short.Create = p.Create[:3]
	}
	if len(p.Delete) > manageListed {
		short.Delete = p.Delete[:3]
	}
	return fmt.Sprintf("%s (%d creates and %d deletes in all)", describePlan(short), len(p.Create), len(p.Delete))
}

// manageDescribeWant prints what a case checks.
func manageDescribeWant(in jobs.Input, w manageWant) string {
	if w.zero {
		return "nothing (the zero Plan)"
	}
	var parts []string
	switch {
	case w.pods != nil:
		var cs []string
		for _, p := range w.pods {
			cs = append(cs, manageDescribeCreated(p))
		}
		parts = append(parts, "create ["+strings.Join(cs, ", ")+"] (compared whole)")
	case w.indexes != nil:
		var cs []string
		for _, i := range w.indexes {
			cs = append(cs, fmt.Sprintf("%s-%d- index %d", in.Job.Name, i, i))
		}
		parts = append(parts, "create ["+strings.Join(cs, ", ")+"]")
	case w.create > manageListed:
		parts = append(parts, fmt.Sprintf("create %d pods %s-", w.create, in.Job.Name))
	case w.create > 0:
		parts = append(parts, "create ["+strings.Repeat(in.Job.Name+"-, ", w.create-1)+in.Job.Name+"-]")
	default:
		parts = append(parts, "no create")
	}
	switch {
	case w.deleteCount > 0:
		parts = append(parts, fmt.Sprintf("delete %d pods", w.deleteCount))
	case len(w.delete) > 0 && w.deleteAnyOrder:
		parts = append(parts, "delete ["+strings.Join(w.delete, " ")+"] in any order")
	case len(w.delete) > 0:
		parts = append(parts, "delete ["+strings.Join(w.delete, " ")+"]")
	default:
		parts = append(parts, "no delete")
	}
	if w.statusNil {
		parts = append(parts, "status nil (unchanged)")
	}
	if s := w.status; s != nil {
		parts = append(parts, "status {"+manageDescribeStatusWant(s)+"}")
	}
	if w.requeue > 0 {
		parts = append(parts, "requeue "+w.requeue.String())
	} else {
		parts = append(parts, "no requeue")
	}
	return strings.Join(parts, "; ")
}

// manageDescribeStatusWant prints the fields a case checks of a status.
func manageDescribeStatusWant(s *manageStatus) string {
	var fs []string
	add := func(name string, n *int32) {
		if n != nil {
			fs = append(fs, fmt.Sprintf("%s %d", name, *n))
		}
	}
	add("active", s.active)
	add("ready", s.ready)
	add("terminating", s.terminating)
	add("succeeded", s.succeeded)
	add("failed", s.failed)
	if s.startTime != nil {
		fs = append(fs, "startTime "+since(*s.startTime))
	}
	if s.completedIndexes != nil {
		fs = append(fs, fmt.Sprintf("completedIndexes %q", *s.completedIndexes))
	}
	return strings.Join(fs, ", ")
}

// manageDescribeCreated prints a pod to create: its generateName and
// index.
func manageDescribeCreated(p api.Pod) string {
	d := p.GenerateName
	if p.Name != "" {
		d = "name " + p.Name
	}
	if i, ok := p.Annotations[jobs.CompletionIndexAnnotation]; ok {
		d += " index " + i
	}
	return d
}

// manageDiff lists how got differs from what w wants.
func manageDiff(in jobs.Input, got jobs.Plan, w manageWant) []string {
	if w.zero {
		if !got.IsZero() {
			return []string{"want the zero Plan: no create, delete, status, event or requeue"}
		}
		return nil
	}
	var diffs []string
	diffs = append(diffs, manageDiffCreate(in, got, w)...)
	diffs = append(diffs, manageDiffDelete(got, w)...)
	if got.RequeueAfter != w.requeue {
		diffs = append(diffs, fmt.Sprintf("requeue %v, want %v", got.RequeueAfter, w.requeue))
	}
	if w.statusNil && got.Status != nil {
		diffs = append(diffs, "status written, want nil: it equals the Job's ("+describeStatus(in.Job.Status)+")")
	}
	if w.status != nil {
		diffs = append(diffs, manageDiffStatus(in, got, w.status)...)
	}
	return diffs
}

// manageDiffCreate lists how the pods created differ from what w wants.
func manageDiffCreate(in jobs.Input, got jobs.Plan, w manageWant) []string {
	name := in.Job.Name
	switch {
	case w.pods != nil:
		if len(got.Create) != len(w.pods) {
			return []string{fmt.Sprintf("created %s, want %d", managePods(len(got.Create)), len(w.pods))}
		}
		var diffs []string
		for i := range w.pods {
			diffs = append(diffs, manageDiffPod(i, got.Create[i], w.pods[i])...)
		}
		return diffs
	case w.indexes != nil:
		var gi []int
		var diffs []string
		for _, p := range got.Create {
			i := jobs.Index(&p)
			gi = append(gi, i)
			if want := fmt.Sprintf("%s-%d-", name, i); i >= 0 && p.GenerateName != want {
				diffs = append(diffs, fmt.Sprintf("the pod of index %d has generateName %q, want %q", i, p.GenerateName, want))
			}
		}
		if !slices.Equal(gi, w.indexes) {
			diffs = append([]string{fmt.Sprintf("created indexes %v, want %v (-1: no index annotation)", manageInts(gi), manageInts(w.indexes))}, diffs...)
		}
		return diffs
	default:
		if len(got.Create) != w.create {
			return []string{fmt.Sprintf("created %s, want %d", managePods(len(got.Create)), w.create)}
		}
		for _, p := range got.Create {
			if p.GenerateName != name+"-" || p.Name != "" {
				return []string{fmt.Sprintf("created a pod with name %q and generateName %q, want no name and generateName %q", p.Name, p.GenerateName, name+"-")}
			}
			if v, ok := p.Annotations[jobs.CompletionIndexAnnotation]; ok {
				return []string{fmt.Sprintf("created a pod of a NonIndexed Job with completion index %q, want none", v)}
			}
		}
		return nil
	}
}

// managePods is "1 pod" or "N pods".
func managePods(n int) string {
	if n == 1 {
		return "1 pod"
	}
	return fmt.Sprintf("%d pods", n)
}

// manageInts prints a list of indexes.
func manageInts(is []int) string {
	if len(is) == 0 {
		return "[]"
	}
	s := make([]string, len(is))
	for i, v := range is {
		s[i] = strconv.Itoa(v)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// manageDiffDelete lists how the pods deleted differ from what w wants.
func manageDiffDelete(got jobs.Plan, w manageWant) []string {
	if w.deleteCount > 0 {
		if len(got.Delete) != w.deleteCount {
			return []string{fmt.Sprintf("deleted %s, want %d", managePods(len(got.Delete)), w.deleteCount)}
		}
		return nil
	}
	g, d := got.Delete, w.delete
	if w.deleteAnyOrder {
		g, d = sorted(g), sorted(d)
	}
	if !slices.Equal(g, d) {
		order := ""
		if w.deleteAnyOrder {
			order = " in any order"
		}
		return []string{fmt.Sprintf("deleted [%s], want [%s]%s", strings.Join(got.Delete, " "), strings.Join(w.delete, " "), order)}
	}
	return nil
}

// manageDiffStatus lists how the status after the plan (the Plan's, or
// the Job's when the Plan's is nil) differs from what w wants.
func manageDiffStatus(in jobs.Input, got jobs.Plan, w *manageStatus) []string {
	s, which := got.Status, "status"
	if s == nil {
		s, which = &in.Job.Status, "status nil (the Job's)"
	}
	var diffs []string
	count := func(field string, got int32, want *int32) {
		if want != nil && got != *want {
			diffs = append(diffs, fmt.Sprintf("%s %s %d, want %d", which, field, got, *want))
		}
	}
	pointer := func(field string, got *int32, want *int32) {
		if want != nil && (got == nil || *got != *want) {
			diffs = append(diffs, fmt.Sprintf("%s %s %s, want %d (a pointer to it, not nil: rule 13 writes the count)", which, field, ptrString(got), *want))
		}
	}
	count("active", s.Active, w.active)
	pointer("ready", s.Ready, w.ready)
	pointer("terminating", s.Terminating, w.terminating)
	count("succeeded", s.Succeeded, w.succeeded)
	count("failed", s.Failed, w.failed)
	if w.completedIndexes != nil && s.CompletedIndexes != *w.completedIndexes {
		diffs = append(diffs, fmt.Sprintf("%s completedIndexes %q, want %q", which, s.CompletedIndexes, *w.completedIndexes))
	}
	if w.startTime != nil && (s.StartTime == nil || !s.StartTime.Time.Equal(*w.startTime)) {
		st := "nil"
		if s.StartTime != nil {
			st = since(s.StartTime.Time)
		}
		diffs = append(diffs, fmt.Sprintf("%s startTime %s, want %s", which, st, since(*w.startTime)))
	}
	return diffs
}

// manageDiffPod lists how the i-th pod created differs from want: its
// name, generateName, labels, annotations, finalizers, owner references
// and spec. An empty map or list is the same as none; an env var's
// fieldRef apiVersion "v1" is the same as none (the apiserver's default).
func manageDiffPod(i int, got, want api.Pod) []string {
	var diffs []string
	if got.Name != "" {
		diffs = append(diffs, fmt.Sprintf("pod %d has name %q, want none (the apiserver names it from generateName)", i, got.Name))
	}
	if got.GenerateName != want.GenerateName {
		diffs = append(diffs, fmt.Sprintf("pod %d has generateName %q, want %q", i, got.GenerateName, want.GenerateName))
	}
	gotSpec := api.DeepCopyValue(got.Spec)
	for _, cs := range [][]api.Container{gotSpec.InitContainers, gotSpec.Containers} {
		for ci := range cs {
			for ei := range cs[ci].Env {
				if f := cs[ci].Env[ei].ValueFrom; f != nil && f.FieldRef != nil && f.FieldRef.APIVersion == "v1" {
					f.FieldRef.APIVersion = ""
				}
			}
		}
	}
	fields := []struct {
		name      string
		got, want string
	}{
		{"labels", manageMapJSON(got.Labels), manageMapJSON(want.Labels)},
		{"annotations", manageMapJSON(got.Annotations), manageMapJSON(want.Annotations)},
		{"finalizers", manageListJSON(got.Finalizers), manageListJSON(want.Finalizers)},
		{"ownerReferences", manageListJSON(got.OwnerReferences), manageListJSON(want.OwnerReferences)},
		{"spec", snapshot(gotSpec), snapshot(want.Spec)},
	}
	for _, f := range fields {
		if f.got != f.want {
			diffs = append(diffs, fmt.Sprintf("pod %d's %s %s, want %s (%s)", i, f.name, f.got, f.want, suite.Diff(f.got, f.want)))
		}
	}
	return diffs
}

// manageMapJSON is m as JSON, {} when empty or nil.
func manageMapJSON(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	return snapshot(m)
}

// manageListJSON is l as JSON, [] when empty or nil.
func manageListJSON[T any](l []T) string {
	if len(l) == 0 {
		return "[]"
	}
	return snapshot(l)
}

// manageLabels are the labels newJob's template has for Job name: app and
// the four that jobs.WithDefaults adds.
func manageLabels(name string) map[string]string {
	return map[string]string{
		"app":                        name,
		api.LegacyJobNameLabel:       name,
		api.JobNameLabel:             name,
		api.LegacyControllerUIDLabel: "uid-" + name,
		api.ControllerUIDLabel:       "uid-" + name,
	}
}

// manageIndexEnv is the variable through which a container of an Indexed
// Job's pod reads its index.
func manageIndexEnv() api.EnvVar {
	return api.EnvVar{Name: jobs.CompletionIndexEnv, ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{
		FieldPath: "metadata.labels['" + jobs.CompletionIndexAnnotation + "']",
	}}}
}

func newPodStep(t *suite.T, impl Impl) {
	var cases []manageCase
	{
		j := newJob("pi", 1, 1)
		j.Spec.Template.Annotations = map[string]string{"team": "batch"}
		j.Spec.Template.Finalizers = []string{"example.com/audit"}
		j.Spec.Template.Spec.Containers[0].Command = []string{"perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"}
		want := api.Pod{
			ObjectMeta: api.ObjectMeta{
				GenerateName:    "pi-",
				Labels:          manageLabels("pi"),
				Annotations:     map[string]string{"team": "batch"},
				Finalizers:      []string{"example.com/audit"},
				OwnerReferences: []api.OwnerReference{controllerRef(j)},
			},
			Spec: api.PodSpec{
				RestartPolicy: api.RestartPolicyNever,
				Containers:    []api.Container{{Name: "main", Image: "busybox", Command: []string{"perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"}}},
			},
		}
		cases = append(cases, manageCase{9, manageFromTemplate,
			"a fresh Job of 1 completion creates one pod: no name, generateName \"pi-\", the template's labels (app and the four that WithDefaults adds), annotations, finalizers and spec, and one owner reference, to the Job: batch/v1 Job pi uid-pi, controller and blockOwnerDeletion true",
			manageIn(j, t0),
			manageWant{pods: []api.Pod{want}}})
	}
	{
		j := newJob("pi", 1, 1)
		j.Spec.Template.Name = "template-name"
		j.Spec.Template.GenerateName = "template-"
		j.Spec.Template.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "uid-cm"}}
		want := api.Pod{
			ObjectMeta: api.ObjectMeta{GenerateName: "pi-", Labels: manageLabels("pi"), OwnerReferences: []api.OwnerReference{controllerRef(j)}},
			Spec:       api.PodSpec{RestartPolicy: api.RestartPolicyNever, Containers: []api.Container{{Name: "main", Image: "busybox"}}},
		}
		cases = append(cases, manageCase{9, manageFromTemplate,
			"only the template's labels, annotations and finalizers are copied: its name and generateName are not (the pod's generateName is the Job's name + \"-\"), and the Job's owner reference is the pod's only one",
			manageIn(j, t0),
			manageWant{pods: []api.Pod{want}}})
	}
	{
		j := newJob("sum", 2, 2)
		j.Spec.Template.Spec.InitContainers = []api.Container{{Name: "setup", Image: "busybox"}}
		j.Spec.Template.Spec.Containers = []api.Container{
			{Name: "main", Image: "busybox"},
			{Name: "side", Image: "busybox", Env: []api.EnvVar{{Name: "MODE", Value: "side"}}},
		}
		pod := func() api.Pod {
			return api.Pod{
				ObjectMeta: api.ObjectMeta{GenerateName: "sum-", Labels: manageLabels("sum"), OwnerReferences: []api.OwnerReference{controllerRef(j)}},
				Spec: api.PodSpec{
					RestartPolicy:  api.RestartPolicyNever,
					InitContainers: []api.Container{{Name: "setup", Image: "busybox"}},
					Containers: []api.Container{
						{Name: "main", Image: "busybox"},
						{Name: "side", Image: "busybox", Env: []api.EnvVar{{Name: "MODE", Value: "side"}}},
					},
				},
			}
		}
		cases = append(cases, manageCase{9, manageFromTemplate,
			"a NonIndexed Job's pods (2 of them, parallelism 2) get no completion index: no index annotation or label, no hostname, no JOB_COMPLETION_INDEX in any container; the spec is the template's as it is",
			manageIn(j, t0),
			manageWant{pods: []api.Pod{pod(), pod()}}})
	}
	{
		j := indexed(newJob("pi", 3, 1))
		j.Spec.Template.Annotations = map[string]string{"team": "batch"}
		j.Spec.Template.Spec.InitContainers = []api.Container{{Name: "setup", Image: "busybox"}}
		j.Spec.Template.Spec.Containers = []api.Container{
			{Name: "main", Image: "busybox", Env: []api.EnvVar{{Name: "FOO", Value: "bar"}}},
			{Name: "side", Image: "busybox", Env: []api.EnvVar{{Name: jobs.CompletionIndexEnv, Value: "from-template"}}},
			{Name: "tail", Image: "busybox"},
		}
		labels := manageLabels("pi")
		labels[jobs.CompletionIndexAnnotation] = "2"
		want := api.Pod{
			ObjectMeta: api.ObjectMeta{
				GenerateName:    "pi-2-",
				Labels:          labels,
				Annotations:     map[string]string{"team": "batch", jobs.CompletionIndexAnnotation: "2"},
				OwnerReferences: []api.OwnerReference{controllerRef(j)},
			},
			Spec: api.PodSpec{
				RestartPolicy:  api.RestartPolicyNever,
				Hostname:       "pi-2",
				InitContainers: []api.Container{{Name: "setup", Image: "busybox", Env: []api.EnvVar{manageIndexEnv()}}},
				Containers: []api.Container{
					{Name: "main", Image: "busybox", Env: []api.EnvVar{{Name: "FOO", Value: "bar"}, manageIndexEnv()}},
					{Name: "side", Image: "busybox", Env: []api.EnvVar{{Name: jobs.CompletionIndexEnv, Value: "from-template"}}},
					{Name: "tail", Image: "busybox", Env: []api.EnvVar{manageIndexEnv()}},
				},
			},
		}
		cases = append(cases, manageCase{9, manageIndexedPod,
			"an Indexed Job's pod of index 2 (0 and 1 succeeded): the annotation and the label batch.kubernetes.io/job-completion-index \"2\" beside the template's, hostname \"pi-2\", generateName \"pi-2-\", and JOB_COMPLETION_INDEX from metadata.labels['batch.kubernetes.io/job-completion-index'] appended to the init container and to every container that lacks it (\"main\" after its FOO, \"tail\" too; \"side\" keeps its own, not a second one)",
			manageIn(j, manageNow,
				podOf(j, "pi-0-abcde", api.PodSucceeded, 0),
				podOf(j, "pi-1-fghij", api.PodSucceeded, 1)),
			manageWant{pods: []api.Pod{want}}})
	}
	{
		j := indexed(newJob("sq", 2, 2))
		pod := func(i int) api.Pod {
			labels := manageLabels("sq")
			labels[jobs.CompletionIndexAnnotation] = strconv.Itoa(i)
			return api.Pod{
				ObjectMeta: api.ObjectMeta{
					GenerateName:    fmt.Sprintf("sq-%d-", i),
					Labels:          labels,
					Annotations:     map[string]string{jobs.CompletionIndexAnnotation: strconv.Itoa(i)},
					OwnerReferences: []api.OwnerReference{controllerRef(j)},
				},
				Spec: api.PodSpec{
					RestartPolicy: api.RestartPolicyNever,
					Hostname:      fmt.Sprintf("sq-%d", i),
					Containers:    []api.Container{{Name: "main", Image: "busybox", Env: []api.EnvVar{manageIndexEnv()}}},
				},
			}
		}
		cases = append(cases, manageCase{9, manageIndexedPod,
			"a fresh Indexed Job of 2 completions, parallelism 2, with no template annotations: two pods, index 0 and index 1, each with its own index in its annotation (made for it), label, hostname, generateName and env; no map or list is shared between them",
			manageIn(j, t0),
			manageWant{pods: []api.Pod{pod(0), pod(1)}}})
	}
	manageRun(t, impl, cases)
}

// manageWithStatus gives j the status active, ready, terminating,
// succeeded and failed (ready and terminating nil for a negative number),
// started at t0.
func manageWithStatus(j api.Job, active, ready, terminating, succeeded, failed int32) api.Job {
	st := api.NewTime(t0)
	j.Status = api.JobStatus{StartTime: &st, Active: active, Succeeded: succeeded, Failed: failed}
	if ready >= 0 {
		j.Status.Ready = int32p(ready)
	}
	if terminating >= 0 {
		j.Status.Terminating = int32p(terminating)
	}
	return j
}

// manageWithCondition gives j the condition typ with status, since t0.
func manageWithCondition(j api.Job, typ api.JobConditionType, status api.ConditionStatus, reason, message string) api.Job {
	j.Status.Conditions = append(j.Status.Conditions, api.JobCondition{
		Type: typ, Status: status, Reason: reason, Message: message,
		LastProbeTime: api.NewTime(t0), LastTransitionTime: api.NewTime(t0),
	})
	return j
}

func countStep(t *suite.T, impl Impl) {
	// Every Job here has parallelism equal to its active pods and
	// completions enough that nothing is created or deleted (rules 5-7),
	// so that the status is the counts of the pods given.
	c10 := func(parallelism int32) api.Job { return manageJob("count", 10, parallelism) }
	var cases []manageCase
	{
		j := c10(3)
		cases = append(cases, manageCase{2, manageCounting,
			"a Pending pod (not on a node yet), a Running one and an Unknown one are all active; none is ready, terminating, succeeded or failed",
			manageIn(j, manageNow,
				podOf(j, "count-pending", api.PodPending, -1),
				podOf(j, "count-running", api.PodRunning, -1),
				podOf(j, "count-unknown", api.PodUnknown, -1)),
			manageWant{status: manageCounts(3, 0, 0, 0, 0)}})
	}
	{
		j := c10(3)
		cases = append(cases, manageCase{2, manageCounting,
			"ready counts the active pods whose Ready condition is True: 2 of 3 (the third is Ready=False)",
			manageIn(j, manageNow,
				ready(podOf(j, "count-a", api.PodRunning, -1), at(time.Minute)),
				ready(podOf(j, "count-b", api.PodRunning, -1), at(2*time.Minute)),
				manageNotReady(podOf(j, "count-c", api.PodRunning, -1), at(time.Minute))),
			manageWant{status: manageCounts(3, 2, 0, 0, 0)}})
	}
	{
		j := c10(2)
		cases = append(cases, manageCase{2, manageCounting,
			"a Running, Ready pod being deleted is terminating and failed (isPodFailed: deleted and not Succeeded), not active and not ready",
			manageIn(j, manageNow,
				ready(podOf(j, "count-a", api.PodRunning, -1), at(time.Minute)),
				podOf(j, "count-b", api.PodRunning, -1),
				deleting(ready(podOf(j, "count-gone", api.PodRunning, -1), at(time.Minute)), at(5*time.Minute))),
			manageWant{status: manageCounts(2, 1, 1, 0, 1)}})
	}
	{
		j := c10(1)
		cases = append(cases, manageCase{2, manageCounting,
			"a Pending pod being deleted is terminating and failed too",
			manageIn(j, manageNow,
				podOf(j, "count-a", api.PodRunning, -1),
				deleting(podOf(j, "count-gone", api.PodPending, -1), at(5*time.Minute))),
			manageWant{status: manageCounts(1, 0, 1, 0, 1)}})
	}
	{
		j := c10(1)
		cases = append(cases, manageCase{2, manageCounting,
			"a Succeeded pod being deleted is succeeded only: not terminating (it has finished) and not failed",
			manageIn(j, manageNow,
				podOf(j, "count-a", api.PodRunning, -1),
				deleting(manageSucceededAt(j, "count-done", at(time.Minute)), at(5*time.Minute))),
			manageWant{status: manageCounts(1, 0, 0, 1, 0)}})
	}
	{
		j := c10(1)
		cases = append(cases, manageCase{2, manageCounting,
			"a Failed pod being deleted is failed once, and not terminating (it has finished)",
			manageIn(j, manageNow,
				podOf(j, "count-a", api.PodRunning, -1),
				deleting(manageFailedAt(j, "count-bad", at(time.Minute)), at(5*time.Minute))),
			manageWant{status: manageCounts(1, 0, 0, 0, 1)}})
	}
	{
		j := c10(1)
		cases = append(cases, manageCase{2, manageCounting,
			"two Succeeded and three Failed pods beside a Running one: succeeded 2, failed 3, active 1",
			manageIn(j, manageNow,
				manageFailedAt(j, "count-f1", at(time.Minute)),
				manageSucceededAt(j, "count-s1", at(2*time.Minute)),
				podOf(j, "count-run", api.PodRunning, -1),
				manageFailedAt(j, "count-f2", at(3*time.Minute)),
				manageSucceededAt(j, "count-s2", at(4*time.Minute)),
				manageFailedAt(j, "count-f3", at(5*time.Minute))),
			manageWant{status: manageCounts(1, 0, 0, 2, 3)}})
	}
	{
		j := manageJob("count", 10, 0)
		cases = append(cases, manageCase{2, manageCounting,
			"a NonIndexed Job counts every Succeeded pod, whatever completion index it carries: two Succeeded pods of index 0 are 2, and it has no completedIndexes",
			manageIn(j, manageNow,
				finishedAt(podOf(j, "count-a", api.PodSucceeded, 0), at(time.Minute)),
				finishedAt(podOf(j, "count-b", api.PodSucceeded, 0), at(2*time.Minute))),
			manageWant{status: manageCounts(0, 0, 0, 2, 0).withIndexes("")}})
	}
	{
		j := newJob("count", 10, 0)
		cases = append(cases, manageCase{13, manageCounting + "; " + manageStartTime,
			"a fresh Job with no pods (parallelism 0) writes its status: startTime Now, and every count 0, ready and terminating as pointers to 0, not nil",
			manageIn(j, at(time.Minute)),
			manageWant{status: manageCounts(0, 0, 0, 0, 0).withStart(at(time.Minute))}})
	}
	{
		j := newJob("count", 10, 1)
		cases = append(cases, manageCase{2, manageStartTime,
			"a Job with no startTime gets Now, even when it has pods already",
			manageIn(j, manageNow, podOf(j, "count-a", api.PodRunning, -1)),
			manageWant{status: manageCounts(1, 0, 0, 0, 0).withStart(manageNow)}})
	}
	{
		j := started(newJob("count", 10, 1), at(5*time.Second))
		cases = append(cases, manageCase{2, manageStartTime,
			"a Job with a startTime (t0+5s) keeps it",
			manageIn(j, manageNow, podOf(j, "count-a", api.PodRunning, -1)),
			manageWant{status: manageCounts(1, 0, 0, 0, 0).withStart(at(5 * time.Second))}})
	}
	{
		j := indexed(manageJob("count", 6, 2))
		cases = append(cases, manageCase{2, manageSucceededIx,
			"an Indexed Job of 6 completions counts the distinct indexes below 6 of its Succeeded pods: 0 (twice), 2, 3, 4 are 4, written \"0,2-4\"; index 7 (out of range), a Succeeded pod with no index and a Failed pod of index 5 are not succeeded",
			manageIn(j, manageNow,
				finishedAt(podOf(j, "count-0a", api.PodSucceeded, 0), at(time.Minute)),
				finishedAt(podOf(j, "count-4", api.PodSucceeded, 4), at(time.Minute)),
				finishedAt(podOf(j, "count-0b", api.PodSucceeded, 0), at(2*time.Minute)),
				finishedAt(podOf(j, "count-7", api.PodSucceeded, 7), at(time.Minute)),
				finishedAt(podOf(j, "count-none", api.PodSucceeded, -1), at(time.Minute)),
				finishedAt(podOf(j, "count-5-bad", api.PodFailed, 5), at(time.Minute)),
				finishedAt(podOf(j, "count-2", api.PodSucceeded, 2), at(time.Minute)),
				finishedAt(podOf(j, "count-3", api.PodSucceeded, 3), at(time.Minute)),
				podOf(j, "count-1", api.PodRunning, 1),
				podOf(j, "count-5", api.PodRunning, 5)),
			manageWant{status: manageCounts(2, 0, 0, 4, 1).withIndexes("0,2-4")}})
	}
	{
		j := indexed(manageJob("count", 6, 4))
		cases = append(cases, manageCase{2, manageSucceededIx,
			"two consecutive indexes are written apart: 3 and 4 succeeded are \"3,4\", not \"3-4\"",
			manageIn(j, manageNow,
				podOf(j, "count-0", api.PodRunning, 0),
				podOf(j, "count-1", api.PodRunning, 1),
				podOf(j, "count-2", api.PodRunning, 2),
				finishedAt(podOf(j, "count-4", api.PodSucceeded, 4), at(time.Minute)),
				finishedAt(podOf(j, "count-3", api.PodSucceeded, 3), at(time.Minute)),
				podOf(j, "count-5", api.PodRunning, 5)),
			manageWant{status: manageCounts(4, 0, 0, 2, 0).withIndexes("3,4")}})
	}
	{
		j := indexed(manageJob("count", 10, 0))
		cases = append(cases, manageCase{2, manageSucceededIx,
			"indexes 1, 3, 4, 5, 7, 8 succeeded (given out of order) are written in order, a run of three or more as first-last: \"1,3-5,7,8\", succeeded 6",
			manageIn(j, manageNow,
				finishedAt(podOf(j, "count-8", api.PodSucceeded, 8), at(time.Minute)),
				finishedAt(podOf(j, "count-4", api.PodSucceeded, 4), at(time.Minute)),
				finishedAt(podOf(j, "count-1", api.PodSucceeded, 1), at(time.Minute)),
				finishedAt(podOf(j, "count-7", api.PodSucceeded, 7), at(time.Minute)),
				finishedAt(podOf(j, "count-5", api.PodSucceeded, 5), at(time.Minute)),
				finishedAt(podOf(j, "count-3", api.PodSucceeded, 3), at(time.Minute))),
			manageWant{status: manageCounts(0, 0, 0, 6, 0).withIndexes("1,3-5,7,8")}})
	}
	{
		j := manageWithStatus(c10(2), 2, 1, 0, 1, 1)
		cases = append(cases, manageCase{13, manageStatusWrite,
			"a Job whose status already says what its pods say (active 2, ready 1, terminating 0, succeeded 1, failed 1, startTime t0) gets Status nil",
			manageIn(j, manageNow,
				ready(podOf(j, "count-a", api.PodRunning, -1), at(time.Minute)),
				podOf(j, "count-b", api.PodRunning, -1),
				manageSucceededAt(j, "count-done", at(time.Minute)),
				manageFailedAt(j, "count-bad", at(time.Minute))),
			manageWant{statusNil: true}})
	}
	{
		j := manageWithStatus(c10(2), 2, -1, 0, 1, 1)
		cases = append(cases, manageCase{13, manageStatusWrite,
			"the same Job and pods, but its status has no ready count (nil): the status is written, with ready a pointer to 1",
			manageIn(j, manageNow,
				ready(podOf(j, "count-a", api.PodRunning, -1), at(time.Minute)),
				podOf(j, "count-b", api.PodRunning, -1),
				manageSucceededAt(j, "count-done", at(time.Minute)),
				manageFailedAt(j, "count-bad", at(time.Minute))),
			manageWant{status: manageCounts(2, 1, 0, 1, 1).withStart(t0)}})
	}
	{
		j := manageWithStatus(c10(2), 2, 1, -1, 1, 1)
		cases = append(cases, manageCase{13, manageStatusWrite,
			"the same, but its status has no terminating count (nil): the status is written, with terminating a pointer to 0 (0 is written, not left out)",
			manageIn(j, manageNow,
				ready(podOf(j, "count-a", api.PodRunning, -1), at(time.Minute)),
				podOf(j, "count-b", api.PodRunning, -1),
				manageSucceededAt(j, "count-done", at(time.Minute)),
				manageFailedAt(j, "count-bad", at(time.Minute))),
			manageWant{status: manageCounts(2, 1, 0, 1, 1).withStart(t0)}})
	}
	{
		j := manageWithStatus(c10(2), 2, 1, 0, 0, 0)
		cases = append(cases, manageCase{13, manageStatusWrite,
			"a status that says succeeded 0 where a pod has succeeded is written: succeeded 1",
			manageIn(j, manageNow,
				ready(podOf(j, "count-a", api.PodRunning, -1), at(time.Minute)),
				podOf(j, "count-b", api.PodRunning, -1),
				manageSucceededAt(j, "count-done", at(time.Minute))),
			manageWant{status: manageCounts(2, 1, 0, 1, 0)}})
	}
	{
		j := manageWithStatus(indexed(manageJob("count", 4, 1)), 1, 0, 0, 2, 0)
		j.Status.CompletedIndexes = "0,2"
		cases = append(cases, manageCase{13, manageStatusWrite,
			"an Indexed Job whose status already says active 1, succeeded 2, completedIndexes \"0,2\" (indexes 0 and 2 succeeded, 1 running) gets Status nil",
			manageIn(j, manageNow,
				finishedAt(podOf(j, "count-0", api.PodSucceeded, 0), at(time.Minute)),
				podOf(j, "count-1", api.PodRunning, 1),
				finishedAt(podOf(j, "count-2", api.PodSucceeded, 2), at(time.Minute))),
			manageWant{statusNil: true}})
	}
	{
		j := manageWithCondition(manageWithStatus(c10(1), 0, 0, 0, 1, 0), api.JobComplete, api.ConditionTrue, jobs.ReasonCompletionsReached, jobs.MessageCompletionsReached)
		cases = append(cases, manageCase{1, manageFinishedJob,
			"a Job with Complete True is finished: the zero Plan, though its status says active 0 and a pod is running and another failed",
			manageIn(j, manageNow,
				podOf(j, "count-a", api.PodRunning, -1),
				manageFailedAt(j, "count-bad", at(time.Minute))),
			manageWant{zero: true}})
	}
	{
		j := manageWithCondition(manageWithStatus(c10(2), 0, 0, 0, 0, 7), api.JobFailed, api.ConditionTrue, jobs.ReasonBackoffLimitExceeded, jobs.MessageBackoffLimitExceeded)
		j.Status.StartTime = nil
		cases = append(cases, manageCase{1, manageFinishedJob,
			"a Job with Failed True is finished: the zero Plan, though it has no startTime and wants 2 active pods of which none runs",
			manageIn(j, manageNow),
			manageWant{zero: true}})
	}
	{
		j := manageWithCondition(manageWithStatus(c10(1), 0, 0, 0, 0, 0), api.JobComplete, api.ConditionFalse, "", "")
		cases = append(cases, manageCase{1, manageFinishedJob + "; " + manageCounting,
			"a Complete condition that is False does not finish a Job: its pods are counted as usual (active 1)",
			manageIn(j, manageNow, podOf(j, "count-a", api.PodRunning, -1)),
			manageWant{status: manageCounts(1, 0, 0, 0, 0)}})
	}
	manageRun(t, impl, cases)
}

// manageOrderCase is a case of rule 6's ActivePods order: Job order, 10
// completions, parallelism 1, and two active pods, pod-1 and pod-2, of
// which one is deleted. So that an order that lacks the criterion the
// case is about cannot get it right by chance, the pod to delete is
// pod-2, given last, unless the names decide.
func manageOrderCase(why string, pod1, pod2 func(api.Pod) api.Pod, deleted string) manageCase {
	j := manageJob("order", 10, 1)
	p1 := pod1(podOf(j, "pod-1", api.PodRunning, -1))
	p2 := pod2(podOf(j, "pod-2", api.PodRunning, -1))
	return manageCase{6, manageRemoval, why, manageIn(j, manageNow, p1, p2),
		manageWant{delete: []string{deleted}, status: manageActive(1)}}
}

// manageAs returns a function that makes a pod of phase with the
// changes given, in order.
func manageAs(phase api.PodPhase, changes ...func(api.Pod) api.Pod) func(api.Pod) api.Pod {
	return func(p api.Pod) api.Pod {
		p.Status.Phase = phase
		for _, c := range changes {
			p = c(p)
		}
		return p
	}
}

func manageScheduled(p api.Pod) api.Pod   { return manageOnNode(p, "node-1") }
func manageUnscheduled(p api.Pod) api.Pod { return manageOnNode(p, "") }
func manageReadySince(d time.Duration) func(api.Pod) api.Pod {
	return func(p api.Pod) api.Pod { return ready(p, at(d)) }
}
func manageNotReadySince(d time.Duration) func(api.Pod) api.Pod {
	return func(p api.Pod) api.Pod { return manageNotReady(p, at(d)) }
}
func manageRestarted(n int32) func(api.Pod) api.Pod {
	return func(p api.Pod) api.Pod { return manageRestarts(p, n) }
}
func manageCreated(d time.Duration) func(api.Pod) api.Pod {
	return func(p api.Pod) api.Pod { return manageCreatedAt(p, at(d)) }
}

func parallelismStep(t *suite.T, impl Impl) {
	var cases []manageCase
	{
		j := manageJob("par", 5, 2)
		cases = append(cases, manageCase{7, manageWantActive,
			"5 completions, parallelism 2, no pods: 2 are created, and the status counts them active",
			manageIn(j, manageNow),
			manageWant{create: 2, status: manageActive(2)}})
	}
	{
		j := manageJob("par", 2, 3)
		cases = append(cases, manageCase{5, manageWantActive,
			"2 completions, parallelism 3, no pods: wantActive is at most the completions left, 2 pods are created",
			manageIn(j, manageNow),
			manageWant{create: 2, status: manageActive(2)}})
	}
	{
		j := manageJob("par", 3, 3)
		cases = append(cases, manageCase{5, manageWantActive,
			"3 completions, parallelism 3, 1 succeeded and 2 running: wantActive is 3 - 1 = 2, nothing is created",
			manageIn(j, manageNow,
				manageSucceededAt(j, "par-done", at(time.Minute)),
				podOf(j, "par-a", api.PodRunning, -1),
				podOf(j, "par-b", api.PodRunning, -1)),
			manageWant{}})
	}
	{
		j := manageJob("par", 5, 3)
		cases = append(cases, manageCase{7, manageWantActive,
			"5 completions, parallelism 3, 3 succeeded and 1 running: wantActive is min(5 - 3, 3) = 2, one pod is created",
			manageIn(j, manageNow,
				manageSucceededAt(j, "par-s1", at(time.Minute)),
				manageSucceededAt(j, "par-s2", at(time.Minute)),
				manageSucceededAt(j, "par-s3", at(time.Minute)),
				podOf(j, "par-a", api.PodRunning, -1)),
			manageWant{create: 1, status: manageActive(2)}})
	}
	{
		j := manageJob("par", 5, 4)
		cases = append(cases, manageCase{7, manageWantActive,
			"5 completions, parallelism 4, 1 failed and 1 running: a failed pod is no completion, wantActive is min(5 - 0, 4) = 4, 3 pods are created (its back-off ended long ago)",
			manageIn(j, manageNow,
				manageFailedAt(j, "par-bad", at(time.Minute)),
				podOf(j, "par-a", api.PodRunning, -1)),
			manageWant{create: 3, status: manageActive(4)}})
	}
	{
		j := manageJob("par", -1, 3)
		cases = append(cases, manageCase{5, manageWantActive,
			"no completions (a work queue), parallelism 3, no pods: wantActive is parallelism, 3 are created",
			manageIn(j, manageNow),
			manageWant{create: 3, status: manageActive(3)}})
	}
	{
		j := manageJob("par", -1, 3)
		cases = append(cases, manageCase{5, manageWantActive,
			"no completions, parallelism 3, 1 running and none succeeded: 2 more are created",
			manageIn(j, manageNow, podOf(j, "par-a", api.PodRunning, -1)),
			manageWant{create: 2, status: manageActive(3)}})
	}
	{
		j := manageJob("par", -1, 3)
		cases = append(cases, manageCase{5, manageWantActive,
			"no completions, parallelism 3, 1 succeeded and 1 running: once a pod has succeeded wantActive is the active count, no new pod is created, the running one finishes",
			manageIn(j, manageNow,
				manageSucceededAt(j, "par-done", at(time.Minute)),
				podOf(j, "par-a", api.PodRunning, -1)),
			manageWant{status: manageActive(1)}})
	}
	{
		j := manageJob("par", -1, 1)
		cases = append(cases, manageCase{5, manageWantActive,
			"no completions, parallelism 1, 1 succeeded and 2 running: wantActive is the active count, so the 2 above parallelism are not deleted either",
			manageIn(j, manageNow,
				manageSucceededAt(j, "par-done", at(time.Minute)),
				podOf(j, "par-a", api.PodRunning, -1),
				podOf(j, "par-b", api.PodRunning, -1)),
			manageWant{status: manageActive(2)}})
	}
	{
		j := manageJob("par", 5, 2)
		cases = append(cases, manageCase{6, manageWantActive + ", activePodsForRemoval",
			"5 completions, parallelism 2, 4 succeeded and 2 running: wantActive is min(5 - 4, 2) = 1, one running pod is deleted (the Pending one first)",
			manageIn(j, manageNow,
				manageSucceededAt(j, "par-s1", at(time.Minute)),
				manageSucceededAt(j, "par-s2", at(time.Minute)),
				manageSucceededAt(j, "par-s3", at(time.Minute)),
				manageSucceededAt(j, "par-s4", at(time.Minute)),
				podOf(j, "par-a", api.PodRunning, -1),
				podOf(j, "par-b", api.PodPending, -1)),
			manageWant{delete: []string{"par-b"}, status: manageAfterDelete(1, 0, 1)}})
	}
	{
		j := manageJob("par", 2, 2)
		cases = append(cases, manageCase{6, manageWantActive + ", activePodsForRemoval",
			"2 completions, 3 succeeded, 1 running: wantActive is 2 - 3 raised to 0, and the one running pod is deleted (not more: there is one)",
			manageIn(j, manageNow,
				manageSucceededAt(j, "par-s1", at(time.Minute)),
				manageSucceededAt(j, "par-s2", at(time.Minute)),
				manageSucceededAt(j, "par-s3", at(time.Minute)),
				podOf(j, "par-a", api.PodRunning, -1)),
			manageWant{delete: []string{"par-a"}, status: manageAfterDelete(0, 0, 1)}})
	}
	{
		j := manageJob("par", 10, 1)
		cases = append(cases, manageCase{6, manageRemoval,
			"parallelism lowered to 1 with 4 active pods: the 3 first in ActivePods order are deleted, in that order: w-2 (not on a node), w-4 (Unknown before Running), w-3 (Running, not ready before ready); w-1 stays. The status counts 1 active, 1 ready (w-4 was ready too) and 3 terminating",
			manageIn(j, manageNow,
				ready(podOf(j, "w-1", api.PodRunning, -1), at(time.Minute)),
				podOf(j, "w-3", api.PodRunning, -1),
				ready(podOf(j, "w-4", api.PodUnknown, -1), at(time.Minute)),
				podOf(j, "w-2", api.PodPending, -1)),
			manageWant{delete: []string{"w-2", "w-4", "w-3"}, status: manageAfterDelete(1, 1, 3)}})
	}
	pending, running, unknown := api.PodPending, api.PodRunning, api.PodUnknown
	cases = append(cases,
		manageOrderCase("ActivePods 1: a pod not on a node is deleted before one on a node (both Pending)",
			manageAs(pending, manageScheduled), manageAs(pending, manageUnscheduled), "pod-2"),
		manageOrderCase("ActivePods 1 over 2: a Running pod not on a node goes before a Pending one on a node",
			manageAs(pending, manageScheduled), manageAs(running, manageUnscheduled), "pod-2"),
		manageOrderCase("ActivePods 2: Pending before Running (both on a node)",
			manageAs(running), manageAs(pending, manageScheduled), "pod-2"),
		manageOrderCase("ActivePods 2: Unknown before Running",
			manageAs(running), manageAs(unknown), "pod-2"),
		manageOrderCase("ActivePods 2: Pending before Unknown",
			manageAs(unknown), manageAs(pending, manageScheduled), "pod-2"),
		manageOrderCase("ActivePods 3: not ready before ready (both Running)",
			manageAs(running, manageReadySince(time.Minute)), manageAs(running), "pod-2"),
		manageOrderCase("ActivePods 2 over 3: a Pending pod that is ready goes before a Running one that is not",
			manageAs(running), manageAs(pending, manageScheduled, manageReadySince(time.Minute)), "pod-2"),
		manageOrderCase("ActivePods 4: of two ready pods, the one ready for less time (since t0+2m, not t0+1m) goes first",
			manageAs(running, manageReadySince(time.Minute)), manageAs(running, manageReadySince(2*time.Minute)), "pod-2"),
		manageOrderCase("ActivePods 3 over 4: a pod that is not ready (Ready=False since t0+1m) goes before a ready one, however recent its Ready (t0+2m)",
			manageAs(running, manageReadySince(2*time.Minute)), manageAs(running, manageNotReadySince(time.Minute)), "pod-2"),
		manageOrderCase("ActivePods 5: more container restarts first (3, not 0)",
			manageAs(running, manageRestarted(0)), manageAs(running, manageRestarted(3)), "pod-2"),
		manageOrderCase("ActivePods 4 over 5: of two ready pods the one ready for less time goes first, though the other restarted more (3, not 0)",
			manageAs(running, manageRestarted(3), manageReadySince(time.Minute)), manageAs(running, manageRestarted(0), manageReadySince(2*time.Minute)), "pod-2"),
		manageOrderCase("ActivePods 6: the newer pod (created t0+1m, not t0) first; the names would have said pod-1",
			manageAs(running), manageAs(running, manageCreated(time.Minute)), "pod-2"),
		manageOrderCase("ActivePods 5 over 6: more restarts (2, created t0) first, though the other is newer (t0+1m)",
			manageAs(running, manageRestarted(0), manageCreated(time.Minute)), manageAs(running, manageRestarted(2)), "pod-2"),
		manageOrderCase("the kata's tie: two pods alike in all else go by name, pod-1 first",
			manageAs(running), manageAs(running), "pod-1"),
	)
	{
		j := manageJob("order", 10, 1)
		cases = append(cases, manageCase{6, manageRemoval,
			"the kata's tie, the pods given the other way round: still pod-1 first",
			manageIn(j, manageNow, podOf(j, "pod-2", api.PodRunning, -1), podOf(j, "pod-1", api.PodRunning, -1)),
			manageWant{delete: []string{"pod-1"}, status: manageActive(1)}})
	}
	{
		j := manageJob("cap", 600, 600)
		cases = append(cases, manageCase{7, manageCap,
			"600 completions, parallelism 600, no pods: one pass creates at most 500",
			manageIn(j, manageNow),
			manageWant{create: jobs.MaxPodCreateDeletePerSync, status: manageActive(jobs.MaxPodCreateDeletePerSync)}})
	}
	{
		j := manageJob("cap", 1000, 0)
		var pods []api.Pod
		for i := range 600 {
			pods = append(pods, podOf(j, fmt.Sprintf("cap-%03d", i), api.PodRunning, -1))
		}
		cases = append(cases, manageCase{6, manageCap,
			"600 running pods, parallelism lowered to 0: one pass deletes at most 500",
			manageIn(j, manageNow, pods...),
			manageWant{deleteCount: jobs.MaxPodCreateDeletePerSync, status: manageAfterDelete(100, 0, jobs.MaxPodCreateDeletePerSync)}})
	}
	manageRun(t, impl, cases)
}
func indexedStep(t *suite.T, impl Impl) {
	ix := func(completions, parallelism int32) api.Job {
		return indexed(manageJob("ix", completions, parallelism))
	}
	var cases []manageCase
	{
		j := ix(5, 3)
		cases = append(cases, manageCase{7, manageFirstPending,
			"5 completions, parallelism 3, no pods: indexes 0, 1, 2, in that order; the status counts 3 active",
			manageIn(j, manageNow),
			manageWant{indexes: []int{0, 1, 2}, status: manageActive(3)}})
	}
	{
		j := ix(5, 3)
		cases = append(cases, manageCase{7, manageFirstPending,
			"index 1 succeeded and index 0 running: wantActive is min(5 - 1, 3) = 3, and the lowest free indexes are 2 and 3",
			manageIn(j, manageNow,
				finishedAt(podOf(j, "ix-1", api.PodSucceeded, 1), at(time.Minute)),
				podOf(j, "ix-0", api.PodRunning, 0)),
			manageWant{indexes: []int{2, 3}, status: manageActive(3)}})
	}
	{
		j := ix(6, 4)
		cases = append(cases, manageCase{7, manageFirstPending,
			"6 completions, parallelism 4, indexes 0 and 2 running, 3 succeeded: the lowest free are 1 and 4 (a gap is filled first, a succeeded index skipped)",
			manageIn(j, manageNow,
				podOf(j, "ix-2", api.PodRunning, 2),
				finishedAt(podOf(j, "ix-3", api.PodSucceeded, 3), at(time.Minute)),
				podOf(j, "ix-0", api.PodRunning, 0)),
			manageWant{indexes: []int{1, 4}, status: manageActive(4)}})
	}
	{
		j := ix(3, 3)
		cases = append(cases, manageCase{7, manageFirstPending,
			"3 completions, index 0 running and 1 succeeded: wantActive is 2, and only index 2 is created (no index at or above completions)",
			manageIn(j, manageNow,
				podOf(j, "ix-0", api.PodRunning, 0),
				finishedAt(podOf(j, "ix-1", api.PodSucceeded, 1), at(time.Minute))),
			manageWant{indexes: []int{2}, status: manageActive(2)}})
	}
	{
		j := ix(3, 1)
		cases = append(cases, manageCase{7, manageFirstPending,
			"a failed pod's index is free: index 0 failed (its back-off over), so index 0 is created again",
			manageIn(j, manageNow, finishedAt(podOf(j, "ix-0", api.PodFailed, 0), at(time.Minute))),
			manageWant{indexes: []int{0}, status: manageActive(1)}})
	}
	{
		j := ix(3, 3)
		cases = append(cases, manageCase{7, manageFirstPending,
			"a Succeeded pod of index 5, out of range for 3 completions, holds no index and is no completion: 0, 1 and 2 are created",
			manageIn(j, manageNow, finishedAt(podOf(j, "ix-5", api.PodSucceeded, 5), at(time.Minute))),
			manageWant{indexes: []int{0, 1, 2}, status: manageActive(3)}})
	}
	{
		j := ix(3, 3)
		cases = append(cases, manageCase{7, manageFirstPending,
			"a pod being deleted holds no index: index 1's pod is terminating, so index 1 is created again (its back-off, from its deletion at t0+1m, over)",
			manageIn(j, manageNow,
				podOf(j, "ix-0", api.PodRunning, 0),
				deleting(podOf(j, "ix-1", api.PodRunning, 1), at(time.Minute)),
				podOf(j, "ix-2", api.PodRunning, 2)),
			manageWant{indexes: []int{1}, status: &manageStatus{active: int32p(3), terminating: int32p(1)}}})
	}
	{
		j := ix(5, 2)
		cases = append(cases, manageCase{6, manageDuplicates,
			"two active pods of index 2 and one of index 0, parallelism 2: one of index 2 is deleted, the one first in ActivePods order (dup-b, Pending), and nothing is created",
			manageIn(j, manageNow,
				ready(podOf(j, "dup-a", api.PodRunning, 2), at(time.Minute)),
				podOf(j, "zero", api.PodRunning, 0),
				podOf(j, "dup-b", api.PodPending, 2)),
			manageWant{delete: []string{"dup-b"}, status: manageAfterDelete(2, 1, 1)}})
	}
	{
		j := ix(5, 2)
		cases = append(cases, manageCase{6, manageDuplicates,
			"the pod deleted is a duplicate, not the first of all in ActivePods order: of dup-a (Running) and dup-b (Running, ready) of index 2, dup-a goes; zero, Pending and alone at index 0, stays",
			manageIn(j, manageNow,
				podOf(j, "dup-a", api.PodRunning, 2),
				podOf(j, "zero", api.PodPending, 0),
				ready(podOf(j, "dup-b", api.PodRunning, 2), at(time.Minute))),
			manageWant{delete: []string{"dup-a"}, status: manageAfterDelete(2, 1, 1)}})
	}
	{
		j := ix(5, 2)
		cases = append(cases, manageCase{6, manageDuplicates,
			"three active pods of index 2, parallelism 2: all but one are deleted (2, though only 1 is too many), the one last in ActivePods order (t-a, ready) stays; and the pass that deletes creates nothing, though 1 active is below 2",
			manageIn(j, manageNow,
				ready(podOf(j, "t-a", api.PodRunning, 2), at(time.Minute)),
				podOf(j, "t-b", api.PodRunning, 2),
				podOf(j, "t-c", api.PodPending, 2)),
			manageWant{delete: []string{"t-b", "t-c"}, deleteAnyOrder: true, status: manageAfterDelete(1, 1, 2)}})
	}
	{
		j := ix(5, 1)
		cases = append(cases, manageCase{6, manageDuplicates,
			"a pod of index 7, out of range for 5 completions, is deleted first, though ActivePods would pick zero (Pending, not on a node)",
			manageIn(j, manageNow,
				ready(podOf(j, "seven", api.PodRunning, 7), at(time.Minute)),
				podOf(j, "zero", api.PodPending, 0)),
			manageWant{delete: []string{"seven"}, status: manageAfterDelete(1, 0, 1)}})
	}
	{
		j := ix(5, 1)
		cases = append(cases, manageCase{6, manageDuplicates,
			"a pod with no completion index is deleted first, though ActivePods would pick zero",
			manageIn(j, manageNow,
				ready(podOf(j, "none", api.PodRunning, -1), at(time.Minute)),
				podOf(j, "zero", api.PodPending, 0)),
			manageWant{delete: []string{"none"}, status: manageAfterDelete(1, 0, 1)}})
	}
	{
		j := ix(5, 1)
		cases = append(cases, manageCase{6, manageDuplicates,
			"a pod whose index annotation is not a number (\"abc\") has no index: it is deleted first",
			manageIn(j, manageNow,
				manageIndexAnnotation(ready(podOf(j, "abc", api.PodRunning, -1), at(time.Minute)), "abc"),
				podOf(j, "zero", api.PodPending, 0)),
			manageWant{delete: []string{"abc"}, status: manageAfterDelete(1, 0, 1)}})
	}
	{
		j := ix(5, 3)
		cases = append(cases, manageCase{6, manageDuplicates,
			"indexes 0, 1, 7 and none, parallelism 3: both pods without a valid index are deleted, though only 1 is too many, and nothing is created",
			manageIn(j, manageNow,
				podOf(j, "seven", api.PodRunning, 7),
				podOf(j, "ix-0", api.PodRunning, 0),
				podOf(j, "none", api.PodRunning, -1),
				podOf(j, "ix-1", api.PodRunning, 1)),
			manageWant{delete: []string{"none", "seven"}, deleteAnyOrder: true, status: manageAfterDelete(2, 0, 2)}})
	}
	{
		j := ix(5, 3)
		cases = append(cases, manageCase{6, manageDuplicates,
			"two active pods of index 2, parallelism 3: only 2 are active, fewer than the 3 wanted, yet the duplicate goes (dup-b, first in ActivePods order) and nothing is created in that pass",
			manageIn(j, manageNow,
				ready(podOf(j, "dup-a", api.PodRunning, 2), at(time.Minute)),
				podOf(j, "dup-b", api.PodPending, 2)),
			manageWant{delete: []string{"dup-b"}, status: manageAfterDelete(1, 1, 1)}})
	}
	{
		j := ix(5, 3)
		cases = append(cases, manageCase{6, manageDuplicates,
			"a pod with no completion index beside index 0, parallelism 3: 2 active of 3 wanted, yet the pod with no index goes and nothing is created in that pass",
			manageIn(j, manageNow,
				podOf(j, "none", api.PodRunning, -1),
				podOf(j, "ix-0", api.PodRunning, 0)),
			manageWant{delete: []string{"none"}, status: manageAfterDelete(1, 0, 1)}})
	}
	{
		j := ix(5, 1)
		cases = append(cases, manageCase{6, manageRemoval,
			"parallelism lowered to 1 with indexes 0, 1 and 2 active, all valid and distinct: the others go in ActivePods order, ix-1 (not on a node) and ix-2 (not ready); ix-0 (ready) stays",
			manageIn(j, manageNow,
				ready(podOf(j, "ix-0", api.PodRunning, 0), at(time.Minute)),
				podOf(j, "ix-1", api.PodPending, 1),
				podOf(j, "ix-2", api.PodRunning, 2)),
			manageWant{delete: []string{"ix-1", "ix-2"}, deleteAnyOrder: true, status: manageAfterDelete(1, 1, 2)}})
	}
	manageRun(t, impl, cases)
}

// manageFinishedEach gives pod p's containers, in order, terminated
// states that finished at ts (a zero time: that container is still
// running).
func manageFinishedEach(p api.Pod, ts ...time.Time) api.Pod {
	p.Status.ContainerStatuses = nil
	for i, c := range p.Spec.Containers {
		st := api.ContainerStatus{Name: c.Name, State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(t0)}}}
		if i < len(ts) && !ts[i].IsZero() {
			st.State = api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: 1, StartedAt: api.NewTime(t0), FinishedAt: api.NewTime(ts[i])}}
		}
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, st)
	}
	return p
}

func backoffStep(t *suite.T, impl Impl) {
	// Job bo: 3 completions, parallelism 1, so that each case wants one
	// pod created unless it says otherwise.
	bo := func() api.Job { return manageJob("bo", 3, 1) }
	failures := func(j api.Job, n int, last time.Time) []api.Pod {
		var pods []api.Pod
		for i := range n {
			pods = append(pods, manageFailedAt(j, fmt.Sprintf("bo-f%d", i), last.Add(-time.Duration(n-1-i)*time.Second)))
		}
		return pods
	}
	var cases []manageCase
	{
		j := bo()
		cases = append(cases, manageCase{8, manageBackoff,
			"one failure, finished at t0; now t0+5s: the back-off is 10s from the failure, so nothing is created and the Job is synced again in 5s; the status counts 0 active",
			manageIn(j, at(5*time.Second), manageFailedAt(j, "bo-f", t0)),
			manageWant{requeue: 5 * time.Second, status: manageActive(0)}})
	}
	{
		j := bo()
		cases = append(cases, manageCase{8, manageBackoff,
			"one failure at t0; now t0+10s: the back-off is over (10s passed), the pod is created, no requeue",
			manageIn(j, at(10*time.Second), manageFailedAt(j, "bo-f", t0)),
			manageWant{create: 1, status: manageActive(1)}})
	}
	{
		j := bo()
		cases = append(cases, manageCase{8, manageBackoff,
			"two failures, the last at t0+20s (given first); now t0+25s: the back-off is 20s from the last failure, 15s left",
			manageIn(j, at(25*time.Second), manageFailedAt(j, "bo-f2", at(20*time.Second)), manageFailedAt(j, "bo-f1", t0)),
			manageWant{requeue: 15 * time.Second, status: manageActive(0)}})
	}
	{
		j := bo()
		cases = append(cases, manageCase{8, manageBackoff,
			"two failures, the last at t0+20s; now t0+40s: 20s passed, the pod is created",
			manageIn(j, at(40*time.Second), manageFailedAt(j, "bo-f1", t0), manageFailedAt(j, "bo-f2", at(20*time.Second))),
			manageWant{create: 1, status: manageActive(1)}})
	}
	{
		j := manageWithLimit(bo(), 10)
		last := at(time.Minute)
		cases = append(cases, manageCase{8, manageBackoff,
			"6 failures (backoffLimit 10), the last at t0+1m; now 20s later: 10s doubled 5 times is 320s, 300s left",
			manageIn(j, last.Add(20*time.Second), failures(j, 6, last)...),
			manageWant{requeue: 300 * time.Second, status: manageActive(0)}})
	}
	{
		j := manageWithLimit(bo(), 10)
		last := at(time.Minute)
		cases = append(cases, manageCase{8, manageBackoff,
			"7 failures (backoffLimit 10), the last at t0+1m; now 100s later: 10s doubled 6 times is 640s, capped at 600s (MaxPodFailureBackOff), 500s left",
			manageIn(j, last.Add(100*time.Second), failures(j, 7, last)...),
			manageWant{requeue: 500 * time.Second, status: manageActive(0)}})
	}
	{
		j := bo()
		cases = append(cases, manageCase{8, manageBackoff,
			"one failure at t0 and one pod running; now t0+5s: no pod is wanted (1 active of parallelism 1), so there is no back-off to wait for and no requeue",
			manageIn(j, at(5*time.Second), manageFailedAt(j, "bo-f", t0), podOf(j, "bo-run", api.PodRunning, -1)),
			manageWant{status: manageActive(1)}})
	}
	{
		j := bo()
		cases = append(cases, manageCase{8, manageBackoff,
			"failures at t0+1s and t0+2s, then a success at t0+5s; now t0+6s: no failure came after the last success, no back-off, the pod is created",
			manageIn(j, at(6*time.Second),
				manageFailedAt(j, "bo-f1", at(time.Second)),
				manageSucceededAt(j, "bo-ok", at(5*time.Second)),
				manageFailedAt(j, "bo-f2", at(2*time.Second))),
			manageWant{create: 1, status: manageActive(1)}})
	}
	{
		j := bo()
		cases = append(cases, manageCase{8, manageBackoff,
			"a success at t0+5s, failures at t0+3s and t0+8s; now t0+10s: only the failure after the success counts, 10s from t0+8s, 8s left",
			manageIn(j, at(10*time.Second),
				manageFailedAt(j, "bo-f2", at(8*time.Second)),
				manageSucceededAt(j, "bo-ok", at(5*time.Second)),
				manageFailedAt(j, "bo-f1", at(3*time.Second))),
			manageWant{requeue: 8 * time.Second, status: manageActive(0)}})
	}
	{
		j := bo()
		cases = append(cases, manageCase{8, manageBackoff,
			"a failure that finished at the same time as the last success (t0+5s) is not after it: no back-off; now t0+6s, the pod is created",
			manageIn(j, at(6*time.Second),
				manageFailedAt(j, "bo-f", at(5*time.Second)),
				manageSucceededAt(j, "bo-ok", at(5*time.Second))),
			manageWant{create: 1, status: manageActive(1)}})
	}
	two := func() api.Job {
		j := bo()
		j.Spec.Template.Spec.Containers = append(j.Spec.Template.Spec.Containers, api.Container{Name: "side", Image: "busybox"})
		return j
	}
	{
		j := two()
		cases = append(cases, manageCase{8, manageFinishTime,
			"a pod finished when the last of its containers did: t0+2s and t0+7s give t0+7s (given second); now t0+10s, 7s left",
			manageIn(j, at(10*time.Second), manageFinishedEach(podOf(j, "bo-f", api.PodFailed, -1), at(2*time.Second), at(7*time.Second))),
			manageWant{requeue: 7 * time.Second, status: manageActive(0)}})
	}
	{
		j := two()
		p := manageFinishedEach(podOf(j, "bo-f", api.PodFailed, -1), at(9*time.Second), time.Time{})
		p = manageNotReady(p, at(4*time.Second))
		cases = append(cases, manageCase{8, manageFinishTime,
			"a pod with a container not terminated (the other finished at t0+9s) finished when its Ready condition became False, t0+4s; now t0+6s, 8s left",
			manageIn(j, at(6*time.Second), p),
			manageWant{requeue: 8 * time.Second, status: manageActive(0)}})
	}
	{
		j := bo()
		p := manageFinishedEach(podOf(j, "bo-f", api.PodFailed, -1), at(6*time.Second))
		p = manageNotReady(p, at(2*time.Second))
		cases = append(cases, manageCase{8, manageFinishTime,
			"the containers' finish (t0+6s) comes before the Ready=False condition (t0+2s) when every container has terminated; now t0+8s, 8s left",
			manageIn(j, at(8*time.Second), p),
			manageWant{requeue: 8 * time.Second, status: manageActive(0)}})
	}
	{
		j := bo()
		p := manageNotReady(podOf(j, "bo-f", api.PodFailed, -1), at(2*time.Second))
		p = deleting(p, at(5*time.Second))
		cases = append(cases, manageCase{8, manageFinishTime,
			"Ready=False since t0+2s comes before the deletion (at t0+5s): the pod finished at t0+2s; now t0+6s, 6s left",
			manageIn(j, at(6*time.Second), p),
			manageWant{requeue: 6 * time.Second, status: manageActive(0)}})
	}
	{
		j := bo()
		p := ready(podOf(j, "bo-f", api.PodFailed, -1), at(4*time.Second))
		p = manageCreatedAt(p, at(time.Second))
		cases = append(cases, manageCase{8, manageFinishTime,
			"a Ready condition that is True is no finish time: the pod (created t0+1s, Ready=True since t0+4s) finished at its creation; now t0+5s, 6s left",
			manageIn(j, at(5*time.Second), p),
			manageWant{requeue: 6 * time.Second, status: manageActive(0)}})
	}
	{
		j := bo()
		cases = append(cases, manageCase{8, manageFinishTime,
			"a Running pod being deleted (a failure) with no terminated container and no Ready condition finished at its deletionTimestamp (t0+33s) minus its grace period (30s), t0+3s; now t0+5s, 8s left",
			manageIn(j, at(5*time.Second), deleting(podOf(j, "bo-f", api.PodRunning, -1), at(3*time.Second))),
			manageWant{requeue: 8 * time.Second, status: &manageStatus{active: int32p(0), terminating: int32p(1)}}})
	}
	{
		j := bo()
		p := manageCreatedAt(podOf(j, "bo-f", api.PodFailed, -1), at(2*time.Second))
		cases = append(cases, manageCase{8, manageFinishTime,
			"a Failed pod with no container state, no Ready condition and no deletion finished at its creation, t0+2s; now t0+5s, 7s left",
			manageIn(j, at(5*time.Second), p),
			manageWant{requeue: 7 * time.Second, status: manageActive(0)}})
	}
	manageRun(t, impl, cases)
}
