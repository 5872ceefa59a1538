package admission

import (
	"context"
	"fmt"

	"github.com/kubekata/kubekata/harness/api"
)

// The validating policy deny-latest-tag, as a ValidatingAdmissionPolicy
// and its binding of the same name would enforce it
// (k8s.io/apiserver/pkg/admission/plugin/policy/validating): a pod, or
// the pod template of a workload, whose container image has the tag
// "latest" or none is refused, after the mutating plugins, on create
// and update. The kata hard-codes the policy instead of evaluating CEL.

// policyDenied is how upstream words a policy's refusal.
func policyDenied(a *attributes, policy, why string) *api.Status {
	return admissionForbidden(a, fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", policy, policy, why))
}

func (g *gate) denyLatestTag(_ context.Context, a *attributes) *api.Status {
	// TODO: when g.policies names deny-latest-tag, refuse a created or updated pod (or pod template) with a container or init container whose image has the tag latest or none.
	panic("not implemented: denyLatestTag")
}

// podSpecOf returns the pod spec an object runs: a pod's own, or a
// workload's template.
func podSpecOf(obj api.Object) *api.PodSpec {
	switch o := obj.(type) {
	case *api.Pod:
		return &o.Spec
	case *api.Deployment:
		return &o.Spec.Template.Spec
	case *api.ReplicaSet:
		return &o.Spec.Template.Spec
	case *api.Job:
		return &o.Spec.Template.Spec
	}
	return nil
}
