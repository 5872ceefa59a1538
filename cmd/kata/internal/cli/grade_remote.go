package cli

import (
	kubekata "github.com/kubekata/kubekata"
	"github.com/kubekata/kubekata/cmd/kata/internal/grade"
	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/course"
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
	gradeCapstone = func() *grade.Capstone {
		return &grade.Capstone{
			// The same wiring as kata up's for the exercises done.
			ClusterMain: func(dir string, done []string) ([]byte, error) {
				w := program.Wiring{Module: course.ModulePath, Edge: true, NotDone: "finish it (kata next)"}
				finishedOf(done).wire(&w, dir, false)
				return w.Source()
			},
			Scenarios: kubekata.Files,
		}
	}
}
