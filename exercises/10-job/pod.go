package job

import "github.com/kubekata/kubekata/harness/api"

// The pod a Job creates: rule 9 of jobs.PlanFunc. Upstream builds it in
// manageJob (pkg/controller/job/job_controller.go) from the template with
// GetPodFromTemplate (pkg/controller/controller_utils.go), and gives the
// pod of an Indexed Job its index with addCompletionIndexAnnotation,
// addCompletionIndexLabel, addCompletionIndexEnvVariables and
// podGenerateNameWithIndex (pkg/controller/job/indexed_job_utils.go).

// newPod is the pod j creates for completion index index, or for no
// index when index is negative (a NonIndexed Job): the template's labels,
// annotations, finalizers and spec, copied; generateName "NAME-" (an
// Indexed Job's "NAME-INDEX-"); one controller owner reference to j. The
// pod of an index also carries jobs.CompletionIndexAnnotation as an
// annotation and as a label, the hostname "NAME-INDEX", and
// jobs.CompletionIndexEnv in every container and init container. It
// shares no map or slice with j: j is the informer's cached object.
func newPod(j *api.Job, index int) api.Pod {
	// TODO: copy the template's metadata and spec into a new pod in j's namespace with generateName and the controller reference (api.NewControllerRef, blockOwnerDeletion true); for index ≥ 0 add the annotation, the label, the hostname, the index generateName and the env variable in each container (task 1).
	panic("not implemented: newPod")
}

// addCompletionIndexEnv gives container c the variable
// jobs.CompletionIndexEnv, read from the field
// metadata.labels['batch.kubernetes.io/job-completion-index'] (the
// downward API), unless c has a variable of that name already
// (addCompletionIndexEnvVariable).
func addCompletionIndexEnv(c *api.Container) {
	// TODO: return when c.Env has jobs.CompletionIndexEnv; else append it with valueFrom.fieldRef.fieldPath metadata.labels['<jobs.CompletionIndexAnnotation>'] (task 1).
	panic("not implemented: addCompletionIndexEnv")
}
