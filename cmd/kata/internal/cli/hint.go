package cli

import (
	"fmt"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
)

func init() {
	register("hint", &command{
		summary: "show the next hint for the current step",
		usage:   "hint [--level N] [EXERCISE]",
		run:     runHint,
	})
}

func runHint(env *Env, args []string) error {
	fs := flags(env, "hint")
	level := fs.Int("level", 0, "show hint `N` (from 1) instead of the next one")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 || *level < 0 {
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
		res, err := l.runCached([]*course.Exercise{e})
		if err != nil {
			return err
		}
		r = res[0]
		if r.Done() {
			l.out.printf("Every step of %s passes: no hint needed. `kata next` shows what is next.\n", r.Exercise.ID)
			return nil
		}
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
	e := r.Exercise
	step := r.FirstFailing().Step
	hints := step.Hints
	if *level > len(hints) {
		return fmt.Errorf("step %s of %s has %s; --level must be 1 to %d", step.ID, e.ID, plural(len(hints), "hint"), len(hints))
	}

	state, note := loadHints(l.root)
	if note != "" {
		fmt.Fprintln(env.Stderr, "kata:", note)
	}
	key := hintKey(e.ID, step.ID)
	n := *level
	if n == 0 {
		n = min(state.Shown[key]+1, len(hints))
	}
	state.Shown[key] = max(state.Shown[key], n)
	if err := state.save(); err != nil {
		// Not being able to remember is no reason to withhold the hint.
		fmt.Fprintln(env.Stderr, "kata:", err)
	}

	u := l.out
	u.printf("%s for %s step %d: %s\n", u.bold.Sprintf("Hint %d of %d", n, len(hints)), e.ID, stepNumber(e, step.ID), step.Title)
	u.println()
	u.block("  ", wrap(hints[n-1], 74))
	u.println()
	if n < len(hints) {
		u.printf("Still stuck? `kata hint` again shows hint %d of %d.\n", n+1, len(hints))
	} else {
		u.printf("That was the last hint. The instructions (`kata next`) and the failing test (`kata test %s`) say the rest.\n", e.ID)
	}
	return nil
}
