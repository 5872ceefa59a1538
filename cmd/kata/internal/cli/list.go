package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kubekata/kubekata/harness/course"
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
	return runListWith(l)
}

// runListWith prints the list for l.
func runListWith(l *learner) error {
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
	if cp := l.course.Capstone; cp != nil {
		u.println()
		l.printCapstone(p, cp)
	}
	return nil
}

// printCapstone lists the capstone's stories: those whose exercises are
// all done can run (kata scenario runs one, kata grade awards its points),
// the others say which exercises they wait for.
func (l *learner) printCapstone(p *progress, cp *course.Capstone) {
	u := l.out
	u.printf("%s %s %s\n", u.bold.Sprint("Capstone:"), cp.Title, u.dim.Sprintf("(%d points, awarded by kata grade)", cp.Points()))
	idW, titleW := 0, 0
	for _, s := range cp.Stories {
		idW = max(idW, len(s.ID))
		titleW = max(titleW, utf8.RuneCountInString(s.Title))
	}
	for _, s := range cp.Stories {
		missing := s.Missing(p.isDone)
		mark, state := u.dim.Sprint("·"), u.yellow.Sprint("needs "+strings.Join(missing, ", "))
		if len(missing) == 0 {
			mark, state = u.cyan.Sprint("▸"), "ready: "+u.cyan.Sprint("kata scenario "+s.Scenario)
		}
		line := fmt.Sprintf("  %s %s  %s  %9s  %s", mark, pad(s.ID, idW), pad(s.Title, titleW), plural(s.Points, "point"), state)
		u.println(strings.TrimRight(line, " "))
	}
}

// pad pads s with spaces to n runes.
func pad(s string, n int) string {
	for k := utf8.RuneCountInString(s); k < n; k++ {
		s += " "
	}
	return s
}
