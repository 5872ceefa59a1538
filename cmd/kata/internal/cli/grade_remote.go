package cli

import (
	"github.com/kubekata/kubekata/cmd/kata/internal/grade"
	"github.com/kubekata/kubekata/harness/remote"
)

// Every exercise with a binding in harness/remote is graded isolated: the
// learner's package in a program of its own, the verdicts from a test
// binary built from the kata's harness alone.
func init() {
	gradeRemote = func() *grade.Remote {
		return &grade.Remote{
			ImplMain:  remote.ImplMain,
			GradeTest: remote.GradeTest,
			Exercises: remote.Exercises(),
			EnvImpl:   remote.EnvImpl,
		}
	}
}
