package cli

import (
	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
)

func init() {
	register("test", &command{
		summary: "run one exercise (default: the current one) and show each step",
		usage:   "test [EXERCISE]",
		run:     runTest,
	})
}

// testMaxLines bounds each failing step's output in kata test.
const testMaxLines = 40

func runTest(env *Env, args []string) error {
	fs := flags(env, "test")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return errUsage
	}
	l, err := newLearner(env)
	if err != nil {
		return err
	}
	var r *gotest.ExerciseResult
	if len(pos) == 1 {
		e, err := l.exercise(pos[0])
		if err != nil {
			return err
		}
		res, err := l.run([]*course.Exercise{e})
		if err != nil {
			return err
		}
		r = res[0]
	} else {
		p, err := l.progress()
		if err != nil {
			return err
		}
		if r = p.current(); r == nil {
			l.printAllDone(p)
			return nil
		}
	}
	l.printSteps(r, testMaxLines, false)
	if !r.Done() {
		return &exitError{code: 1}
	}
	l.out.printf("%s every step of %s passes.\n", l.out.green.Sprint("Done:"), r.Exercise.ID)
	return nil
}
