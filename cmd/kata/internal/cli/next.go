package cli

import (
	"fmt"
	"strings"
)

func init() {
	register("next", &command{
		summary: "show the next step to work on, with its instructions and failing test",
		usage:   "next",
		run:     runNext,
	})
}

// nextMaxLines bounds the failing test output kata next shows.
const nextMaxLines = 30

func runNext(env *Env, args []string) error {
	fs := flags(env, "next")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return errUsage
	}
	l, err := newLearner(env)
	if err != nil {
		return err
	}
	return l.next()
}

// next prints where the learner stands and what to do next.
func (l *learner) next() error {
	p, err := l.progress()
	if err != nil {
		return err
	}
	u := l.out
	l.printStanding(p)
	u.println()
	cur := p.current()
	// Say which exercises are finished before moving on to the next.
	finished := false
	for _, r := range p.results {
		if r.Done() {
			all := fmt.Sprintf("all %d steps pass", len(r.Steps))
			if len(r.Steps) == 1 {
				all = "its 1 step passes"
			}
			u.printf("%s %s: %s (%d/%d points)\n", u.mark(true), r.Exercise.ID, all, r.Points(), r.Exercise.Points())
			finished = true
		}
	}
	if finished {
		u.println()
	}
	if cur == nil {
		l.printAllDone(p)
		return nil
	}
	e := cur.Exercise
	step := cur.FirstFailing()
	files := learnerFiles(e, e.StepFiles(step.Step))
	n := stepNumber(e, step.Step.ID)

	u.printf("%s %s\n", u.bold.Sprintf("Exercise %s:", e.ID), e.Title)
	u.printf("%s %s %s\n", u.bold.Sprintf("Step %d of %d:", n, len(e.Steps)), step.Step.Title,
		u.dim.Sprintf("(%s; %d/%d steps of this exercise pass)", plural(step.Step.Points, "point"), cur.Passed(), len(e.Steps)))
	u.println()
	if text, err := stepInstructions(l.root, e, n); err != nil {
		u.printf("  %s\n", u.yellow.Sprintf("(no instructions: %v)", err))
	} else {
		u.block("  ", text)
	}
	u.println()
	u.printf("%s %s\n", u.bold.Sprint("Edit:"), u.cyan.Sprint(strings.Join(files, ", ")))
	u.println()

	var exit error
	if cur.BuildFailed {
		u.printf("%s %s does not compile:\n", u.red.Sprint("✗"), e.ExerciseDir())
		u.block("    ", compilerLines(e, cur.BuildOutput))
		exit = &exitError{code: 1}
	} else {
		u.printf("%s %s\n", u.red.Sprint("✗ Failing now:"), e.TestPath(step.Step))
		u.block("    ", clip(step.Message, nextMaxLines))
	}
	for _, r := range p.results {
		if r != cur && r.BuildFailed {
			u.printf("%s %s does not compile; `kata test %s` shows why.\n", u.yellow.Sprint("Note:"), r.Exercise.ExerciseDir(), r.Exercise.ID)
		}
	}
	u.println()
	what := "edit " + strings.Join(files, " or ")
	if cur.BuildFailed {
		what = "fix the compile error in " + strings.Join(files, " or ")
	}
	u.printf("%s %s, then run `kata next` again (or `kata watch`); stuck? `kata hint`\n", u.bold.Sprint("Next:"), what)
	return exit
}
