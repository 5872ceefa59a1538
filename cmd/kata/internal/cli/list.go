package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

func init() {
	register("list", &command{
		summary: "list every exercise with the steps and points passed",
		usage:   "list",
		run:     runList,
	})
}

func runList(env *Env, args []string) error {
	fs := flags(env, "list")
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
	p, err := l.progress()
	if err != nil {
		return err
	}
	u := l.out
	idW, titleW := 0, 0
	for _, r := range p.results {
		idW = max(idW, len(r.Exercise.ID))
		titleW = max(titleW, utf8.RuneCountInString(r.Exercise.Title))
	}
	cur := p.current()
	for _, r := range p.results {
		e := r.Exercise
		var state string
		switch {
		case r.Done():
			state = u.green.Sprint("done")
		case r.BuildFailed:
			state = u.red.Sprint("does not compile")
		case r == cur:
			state = u.yellow.Sprint("← you are here")
		}
		steps := fmt.Sprintf("%d/%d steps", r.Passed(), len(r.Steps))
		points := fmt.Sprintf("%d/%d points", r.Points(), e.Points())
		line := fmt.Sprintf("  %s %s  %s  %11s  %13s  %s", u.mark(r.Done()), pad(e.ID, idW), pad(e.Title, titleW), steps, points, state)
		u.println(strings.TrimRight(line, " "))
	}
	got, total := p.points()
	u.printf("Total: %d/%d exercises, %d/%d points\n", p.done(), len(p.results), got, total)
	return nil
}

// pad pads s with spaces to n runes.
func pad(s string, n int) string {
	for k := utf8.RuneCountInString(s); k < n; k++ {
		s += " "
	}
	return s
}
