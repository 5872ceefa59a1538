package cli

import (
	"context"
	"path/filepath"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
)

func init() {
	register("watch", &command{
		summary: "re-run the current exercise whenever one of its files is saved",
		usage:   "watch [--poll]",
		run:     runWatch,
	})
}

// watchMaxLines bounds each failing step's output in kata watch.
const watchMaxLines = 12

func runWatch(env *Env, args []string) error {
	fs := flags(env, "watch")
	poll := fs.Bool("poll", false, "scan for changes every 500ms instead of using file notifications (for file systems that never deliver them, such as some container mounts)")
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
	w := &watcher{l: l, run: l.runCached, watch: watchDir}
	if *poll {
		w.watch = pollDir
	}
	return w.loop(env.Ctx)
}

// watcher is kata watch's loop, with its two seams: how the tests run
// and where the change signals come from.
type watcher struct {
	l     *learner
	run   func(exs []*course.Exercise) ([]*gotest.ExerciseResult, error)
	watch func(ctx context.Context, dir string) (src changeSource, polling bool)
}

// loop tests the course, watches the current exercise and re-tests it on
// every change, moving on when it is done, until every exercise passes or
// ctx ends (Ctrl-C).
func (w *watcher) loop(ctx context.Context) error {
	u := w.l.out
	for {
		res, err := w.run(w.l.all())
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		p := &progress{results: res}
		w.l.printStanding(p)
		cur := p.current()
		if cur == nil {
			u.println()
			w.l.printAllDone(p)
			return nil
		}
		e := cur.Exercise
		w.l.printSteps(cur, watchMaxLines, true)

		src, polling := w.watch(ctx, filepath.Join(w.l.root, e.ExerciseDir()))
		how := "file notifications"
		if polling {
			how = "polling every 500ms: file notifications are not available here"
		}
		u.println()
		u.printf("%s %s for saved changes (%s); Ctrl-C to stop.\n", u.bold.Sprint("Watching"), e.ExerciseDir(), how)

		done, err := w.follow(ctx, src, e)
		src.Close()
		if err != nil || !done {
			return err
		}
		u.printf("%s %s is done. Moving on.\n\n", u.green.Sprint("✓"), e.ID)
	}
}

// follow re-tests e on every change until it passes (true) or ctx ends
// (false).
func (w *watcher) follow(ctx context.Context, src changeSource, e *course.Exercise) (bool, error) {
	u := w.l.out
	for {
		select {
		case <-ctx.Done():
			u.println("Stopped watching.")
			return false, nil
		case _, ok := <-src.Changes():
			if !ok {
				return false, nil
			}
			u.println()
			u.println(u.dim.Sprintf("── %s changed: testing ──", e.ExerciseDir()))
			res, err := w.run([]*course.Exercise{e})
			if err != nil {
				if ctx.Err() != nil {
					u.println("Stopped watching.")
					return false, nil
				}
				// The next save may fix it (a broken go.mod, say).
				u.printf("%s %v\n", u.red.Sprint("kata:"), err)
				continue
			}
			r := res[0]
			w.l.printSteps(r, watchMaxLines, true)
			if r.Done() {
				return true, nil
			}
		}
	}
}
