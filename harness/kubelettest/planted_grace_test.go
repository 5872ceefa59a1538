package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

func init() { addBugs(graceBugs) }

// graceBugs break the rules of GracePeriod (1-5) and "changes nothing it
// is given" (grace.go).
var graceBugs = map[string]planted.Bug{
	// Rule 1: deletionGracePeriodSeconds is ignored.
	"grace-ignores-deletion": edit("grace.go",
		"case pod.DeletionGracePeriodSeconds != nil:",
		"case false && pod.DeletionGracePeriodSeconds != nil:", "09-grace-period"),
	// Rule 1: a deletion grace of 0 is taken as unset.
	"grace-deletion-zero-unset": edit("grace.go",
		"case pod.DeletionGracePeriodSeconds != nil:",
		"case pod.DeletionGracePeriodSeconds != nil && *pod.DeletionGracePeriodSeconds > 0:", "09-grace-period"),
	// Rule 1: a probe's grace wins over the deletion's.
	"grace-probe-before-deletion": edit("grace.go",
		"case pod.DeletionGracePeriodSeconds != nil:",
		"case pod.DeletionGracePeriodSeconds != nil && killingProbe(pod.Spec, container, reason) == nil:", "09-grace-period"),
	// Rule 2: the probe's grace is never used.
	"grace-ignores-probe": edit("grace.go",
		"p != nil && p.TerminationGracePeriodSeconds != nil {",
		"false && p != nil && p.TerminationGracePeriodSeconds != nil {", "09-grace-period"),
	// Rule 2: a liveness kill takes the startup probe's grace.
	"grace-liveness-reads-startup": edit("grace.go",
		"\t\t\t\treturn list[i].LivenessProbe\n",
		"\t\t\t\treturn list[i].StartupProbe\n", "09-grace-period"),
	// Rule 2: any kill, not only a probe's, takes the liveness probe's
	// grace.
	"grace-probe-for-any-reason": edit("grace.go",
		"\t\t\treturn nil\n\t\t}\n\t}\n\treturn nil",
		"\t\t\treturn list[i].LivenessProbe\n\t\t}\n\t}\n\treturn nil", "09-grace-period"),
	// Rule 2: initContainers are not looked at.
	"grace-skips-init-containers": edit("grace.go",
		"[][]api.Container{spec.Containers, spec.InitContainers}",
		"[][]api.Container{spec.Containers}", "09-grace-period"),
	// Rule 2: the first container's probe, whatever its name.
	"grace-first-container": edit("grace.go",
		"if list[i].Name != container {",
		"if i > 0 {", "09-grace-period"),
	// Rule 2: the probe's grace is used even when the pod sets none.
	"grace-probe-without-pod-grace": edit("grace.go",
		"case pod.Spec.TerminationGracePeriodSeconds != nil:",
		"case pod.Spec.TerminationGracePeriodSeconds != nil || killingProbe(pod.Spec, container, reason) != nil:", "09-grace-period"),
	// Rule 3: the pod's grace is ignored.
	"grace-ignores-pod-grace": edit("grace.go",
		"\t\treturn *pod.Spec.TerminationGracePeriodSeconds\n",
		"\t\treturn kubelets.MinimumGracePeriodSeconds\n", "09-grace-period"),
	// Rule 4: no grace set means the apiserver's default 30.
	"grace-unset-is-thirty": edit("grace.go",
		"\treturn kubelets.MinimumGracePeriodSeconds\n}",
		"\treturn kubelets.DefaultTerminationGracePeriodSeconds\n}", "09-grace-period"),
	// Rule 5: the preStop hook's time is not taken off.
	"grace-ignores-prestop": edit("grace.go",
		"max(grace-preStop, kubelets.MinimumGracePeriodSeconds)",
		"max(grace, kubelets.MinimumGracePeriodSeconds)", "09-grace-period"),
	// Rule 5: no minimum.
	"grace-no-minimum": edit("grace.go",
		"max(grace-preStop, kubelets.MinimumGracePeriodSeconds)",
		"grace-preStop", "09-grace-period"),
	// Rule 5: the minimum applied before the preStop hook's time is
	// taken off.
	"grace-minimum-before-prestop": edit("grace.go",
		"max(grace-preStop, kubelets.MinimumGracePeriodSeconds)",
		"max(grace, kubelets.MinimumGracePeriodSeconds)-preStop", "09-grace-period"),
	// Writes the answer into the pod's own terminationGracePeriodSeconds
	// (the pointer is shared with the caller).
	"grace-changes-its-input": edit("grace.go",
		"\tgrace := terminationGrace(pod, container, reason)\n",
		"\tgrace := terminationGrace(pod, container, reason)\n\tif g := pod.Spec.TerminationGracePeriodSeconds; g != nil {\n\t\t*g = grace\n\t}\n", "09-grace-period"),
}
