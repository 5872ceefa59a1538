package kubelettest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

func init() { addBugs(restartBugs) }

// restartBugs break ShouldRestart's rules 1-7, "the newest of that name
// decides" and "changes nothing it is given" (restart.go), each an edit
// of the reference's source. Actions and ContainerStatuses ask
// ShouldRestart, so these bugs may fail 03-actions and
// 05-container-statuses too.
var restartBugs = map[string]planted.Bug{
	// Rule 1: a pod being deleted has its containers started again.
	"restart-while-deleting": edit("restart.go",
		"if pod.DeletionTimestamp != nil {", "if false {", "02-should-restart", "03-actions", "05-container-statuses"),
	// Rule 2: a container never created is not started.
	"restart-never-created-not-started": edit("restart.go",
		"case newest == nil: // Rule 2: never created (or all removed): start it.\n\t\treturn true",
		"case newest == nil: // Rule 2: never created (or all removed): start it.\n\t\treturn false", "02-should-restart", "03-actions", "05-container-statuses"),
	// The newest decides: the oldest container of that name is taken.
	"restart-oldest-decides": edit("restart.go",
		"newest = &rt.Containers[i]\n\t\t\tbreak\n", "newest = &rt.Containers[i]\n", "02-should-restart", "03-actions"),
	// The newest decides: the newest container of any name is taken.
	"restart-any-name-decides": edit("restart.go",
		"if rt.Containers[i].Metadata.Name == container {", "if true {", "02-should-restart", "03-actions", "05-container-statuses"),
	// Rule 3: a running container is started again.
	"restart-running-restarted": edit("restart.go",
		"case newest.State == cri.ContainerRunning: // Rule 3: running: leave it.\n\t\treturn false",
		"case newest.State == cri.ContainerRunning: // Rule 3: running: leave it.\n\t\treturn true", "02-should-restart", "05-container-statuses"),
	// Rule 4: a container created but never started follows the
	// restartPolicy as if it had exited.
	"restart-created-follows-policy": edit("restart.go",
		"case newest.State == cri.ContainerCreated, newest.State == cri.ContainerUnknown:",
		"case newest.State == cri.ContainerUnknown:", "02-should-restart", "03-actions"),
	// Rule 4: a container in an unknown state follows the restartPolicy.
	"restart-unknown-follows-policy": edit("restart.go",
		"case newest.State == cri.ContainerCreated, newest.State == cri.ContainerUnknown:",
		"case newest.State == cri.ContainerCreated:", "02-should-restart", "03-actions"),
	// Rule 5: Never restarts.
	"restart-never-restarts": edit("restart.go",
		"case api.RestartPolicyNever:\n\t\treturn false", "case api.RestartPolicyNever:\n\t\treturn true", "02-should-restart", "03-actions", "05-container-statuses"),
	// Rule 6: OnFailure restarts whatever the exit code.
	"restart-on-failure-ignores-exit-code": edit("restart.go",
		"return newest.ExitCode != 0", "return true", "02-should-restart", "03-actions", "05-container-statuses"),
	// Rule 6: OnFailure restarts on success rather than on failure.
	"restart-on-failure-inverted": edit("restart.go",
		"return newest.ExitCode != 0", "return newest.ExitCode == 0", "02-should-restart", "03-actions", "05-container-statuses"),
	// Rule 7: Always restarts only a container that failed.
	"restart-always-only-on-failure": edit("restart.go",
		"\t}\n\treturn true\n}\n", "\t}\n\treturn newest.ExitCode != 0\n}\n", "02-should-restart", "03-actions"),
	// Rule 7: an empty restartPolicy is taken for Never.
	"restart-empty-policy-is-never": edit("restart.go",
		"case api.RestartPolicyNever:", "case api.RestartPolicyNever, \"\":", "02-should-restart", "03-actions"),
	// Changes nothing it is given: the container it decided to start is
	// marked in the runtime's state (the answer is right).
	"restart-changes-its-input": edit("restart.go",
		"case newest.State == cri.ContainerCreated, newest.State == cri.ContainerUnknown:\n\t\treturn true",
		"case newest.State == cri.ContainerCreated, newest.State == cri.ContainerUnknown:\n\t\tnewest.State = cri.ContainerRunning\n\t\treturn true", "02-should-restart", "03-actions", "05-container-statuses"),
}
