package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

func init() { addBugs(phaseBugs) }

// phaseBugs break the rules of Phase (phase.go), each failing 06-phase
// only: no other step calls Phase.
var phaseBugs = map[string]planted.Bug{
	// Rule 1: an init container running is done.
	"phase-init-running-is-done": edit("phase.go",
		"case !ok, s.State.Running != nil:\n\t\t\tpendingInit++", "case !ok:\n\t\t\tpendingInit++\n\t\tcase s.State.Running != nil:", "06-phase"),
	// Rule 1: an init container with no status is done.
	"phase-init-missing-is-done": edit("phase.go",
		"case !ok, s.State.Running != nil:\n\t\t\tpendingInit++", "case !ok:\n\t\tcase s.State.Running != nil:\n\t\t\tpendingInit++", "06-phase"),
	// Rule 1: an init container waiting with no last run is done.
	"phase-init-waiting-is-done": edit("phase.go",
		"\t\tdefault:\n\t\t\tpendingInit++", "\t\tcase s.State.Waiting != nil:\n\t\tdefault:\n\t\t\tpendingInit++", "06-phase"),
	// Rule 1: an init container whose status has no state is done.
	"phase-init-no-state-is-done": edit("phase.go",
		"\t\tdefault:\n\t\t\tpendingInit++", "\t\tcase s.State.Waiting == nil:\n\t\tdefault:\n\t\t\tpendingInit++", "06-phase"),
	// Rule 1: an init container's last run is not looked at: waiting to
	// run again is pending, whatever its last exit code.
	"phase-init-last-run-ignored": edit("phase.go",
		"case s.State.Waiting != nil && s.LastTerminationState.Terminated != nil:\n\t\t\t// Waiting", "case false:\n\t\t\t// Waiting", "06-phase"),
	// Rule 1: an init container that exited 0 counts as failed.
	"phase-init-exit-code-ignored": edit("phase.go",
		"if s.State.Terminated.ExitCode != 0 {\n\t\t\t\tfailedInit++", "if s.State.Terminated.ExitCode >= 0 {\n\t\t\t\tfailedInit++", "06-phase"),
	// Rule 2: a failed init container fails the pod whatever its
	// restartPolicy.
	"phase-init-failure-any-policy": edit("phase.go",
		"if failedInit > 0 && spec.RestartPolicy == api.RestartPolicyNever {", "if failedInit > 0 {", "06-phase"),
	// Rule 2: a failed init container fails the pod only when no app
	// container waits (after rule 4 instead of before it).
	"phase-init-failure-after-waiting": edit("phase.go",
		"if failedInit > 0 && spec.RestartPolicy == api.RestartPolicyNever {", "if failedInit > 0 && spec.RestartPolicy == api.RestartPolicyNever && waiting == 0 {", "06-phase"),
	// Rule 3: a crash-looping app container (waiting after a last run)
	// counts as waiting, not stopped.
	"phase-backoff-is-waiting": edit("phase.go",
		"case s.State.Waiting != nil && s.LastTerminationState.Terminated != nil:\n\t\t\tstopped++", "case false:\n\t\t\tstopped++", "06-phase"),
	// Rule 3: an app container waiting after a last run that exited 0
	// counts as succeeded.
	"phase-backoff-succeeds": edit("phase.go",
		"stopped++ // about to run again: stopped, never succeeded", "stopped++\n\t\t\tif s.LastTerminationState.Terminated.ExitCode == 0 {\n\t\t\t\tsucceeded++\n\t\t\t}", "06-phase"),
	// Rule 3: an app container with no status counts for nothing.
	"phase-missing-app-ignored": edit("phase.go",
		"case !ok:\n\t\t\tunknown++", "case !ok:", "06-phase"),
	// Rule 3: an app container whose status has no state counts as
	// stopped.
	"phase-no-state-is-stopped": edit("phase.go",
		"\t\tdefault:\n\t\t\tunknown++", "\t\tdefault:\n\t\t\tstopped++", "06-phase"),
	// Rule 3: every exit counts as a success.
	"phase-exit-code-ignored": edit("phase.go",
		"if s.State.Terminated.ExitCode == 0 {\n\t\t\t\tsucceeded++", "if s.State.Terminated.ExitCode >= 0 {\n\t\t\t\tsucceeded++", "06-phase"),
	// Rule 4: a pending init container makes the pod Pending even when
	// an app container started.
	"phase-started-ignored": edit("phase.go",
		"case pendingInit > 0 && !started, waiting > 0:", "case pendingInit > 0 && (!started || true), waiting > 0:", "06-phase"),
	// Rule 4: a crash-looping app container counts as started.
	"phase-started-includes-backoff": edit("phase.go",
		"stopped++ // about to run again: stopped, never succeeded", "stopped++\n\t\t\tstarted = true", "06-phase"),
	// Rule 4: a running app container wins over a waiting one (rule 5
	// before rule 4).
	"phase-running-before-waiting": edit("phase.go",
		"case pendingInit > 0 && !started, waiting > 0:", "case pendingInit > 0 && !started, waiting > 0 && running == 0:", "06-phase"),
	// Rule 5: Running though an app container is unknown.
	"phase-running-with-unknown": edit("phase.go",
		"case running > 0 && unknown == 0: // Rule 5", "case running > 0: // Rule 5", "06-phase"),
	// Rule 6: terminal is not looked at.
	"phase-terminal-ignored": edit("phase.go",
		"\t\tif terminal {", "\t\tif false {", "06-phase"),
	// Rule 6: terminal decides before a running container does.
	"phase-terminal-before-running": edit("phase.go",
		"\tswitch {\n\tcase pendingInit > 0", "\tif terminal && stopped > 0 && unknown == 0 {\n\t\tif stopped == succeeded {\n\t\t\treturn api.PodSucceeded\n\t\t}\n\t\treturn api.PodFailed\n\t}\n\tswitch {\n\tcase pendingInit > 0", "06-phase"),
	// Rule 6: an unset restartPolicy is not Always.
	"phase-unset-policy-not-always": edit("phase.go",
		"case spec.RestartPolicy == api.RestartPolicyAlways, spec.RestartPolicy == \"\":", "case spec.RestartPolicy == api.RestartPolicyAlways:", "06-phase"),
	// Rule 6: every container exited 0 is Succeeded, even under Always.
	"phase-always-succeeds": edit("phase.go",
		"case spec.RestartPolicy == api.RestartPolicyAlways, spec.RestartPolicy == \"\":", "case stopped != succeeded && (spec.RestartPolicy == api.RestartPolicyAlways || spec.RestartPolicy == \"\"):", "06-phase"),
	// Rule 6: Never with a failure is Running.
	"phase-never-failure-running": edit("phase.go",
		"case spec.RestartPolicy == api.RestartPolicyNever:\n\t\t\treturn api.PodFailed", "case spec.RestartPolicy == api.RestartPolicyNever:\n\t\t\treturn api.PodRunning", "06-phase"),
	// Rule 6: OnFailure with a failure is Failed.
	"phase-onfailure-failure-failed": edit("phase.go",
		"return api.PodRunning // OnFailure", "return api.PodFailed // OnFailure", "06-phase"),
	// Rule 7: the rest is Running.
	"phase-default-running": edit("phase.go",
		"return api.PodPending // Rule 7", "return api.PodRunning // Rule 7", "06-phase"),
	// Changes nothing it is given: counts restarts on the caller's
	// statuses.
	"phase-changes-statuses": edit("phase.go",
		"\tspec := pod.Spec\n", "\tspec := pod.Spec\n\tfor i := range statuses {\n\t\tstatuses[i].RestartCount++\n\t}\n", "06-phase"),
	// Changes nothing it is given: writes through the pod's containers.
	"phase-changes-pod": edit("phase.go",
		"\tspec := pod.Spec\n", "\tspec := pod.Spec\n\tfor i := range spec.Containers {\n\t\tspec.Containers[i].Image = \"\"\n\t}\n", "06-phase"),
}
