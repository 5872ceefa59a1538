package cli

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
)

// kata bench runs an exercise's benchmarks in a separate process, like
// every command that runs learner code (go test -run '^$' -bench .
// -benchmem on the package), and shows each figure beside the targets the
// manifest sets for it, with ratios to baselines measured in the same
// kata bench. Benchmarks are not graded: a machine's speed is no verdict
// on a learner, and targets are met or not on the machine at hand.
//
// A benchmark that panics stops its test binary, and with it the
// benchmarks after it: kata bench notes which one it was ("not
// implemented yet" when it panicked with "not implemented") and runs the
// targets' benchmarks that have not run yet again, until each has a
// figure or a failure.

func init() {
	register("bench", &command{
		summary: "run an exercise's benchmarks and show each figure beside its target",
		usage:   "bench [--reference] [EXERCISE]",
		run:     runBench,
	})
}

// benchTimeout bounds one go test run of benchmarks.
const benchTimeout = 10 * time.Minute

func runBench(env *Env, args []string) error {
	fs := flags(env, "bench")
	reference := fs.Bool("reference", false, "run the reference solution's benchmarks instead of yours")
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
	var e *course.Exercise
	if len(pos) == 1 {
		if e, err = l.exercise(pos[0]); err != nil {
			return err
		}
	} else {
		p, err := l.progress()
		if err != nil {
			return err
		}
		if cur := p.current(); cur != nil {
			e = cur.Exercise
		}
	}
	if e == nil || len(e.Benchmarks) == 0 {
		var with []string
		for _, x := range l.all() {
			if len(x.Benchmarks) > 0 {
				with = append(with, x.ID)
			}
		}
		what := "your current exercise"
		if e != nil {
			what = e.ID
		}
		return fmt.Errorf("%s has no benchmark targets; the exercises with targets are: %s (kata bench EXERCISE)", what, strings.Join(with, ", "))
	}
	dir := e.ExerciseDir()
	if *reference {
		if !isDir(l.root + "/solutions") {
			return errors.New("kata bench --reference: this is a student copy: there is no solutions/ directory")
		}
		dir = e.SolutionDir()
	}
	if !isDir(l.root + "/" + dir) {
		return fmt.Errorf("%s is missing; `kata reset %s` brings back the stub", dir, e.ID)
	}
	fmt.Fprintf(env.Stderr, "kata bench: running the benchmarks of %s (go test -run '^$' -bench . -benchmem); this takes a minute...\n", dir)
	res, err := l.runBenchmarks(e, dir)
	if err != nil {
		return err
	}
	if res.buildOutput != "" {
		fmt.Fprintf(env.Stdout, "%s does not compile:\n", dir)
		l.out.block("    ", compilerLines(e, res.buildOutput))
		return &exitError{code: 1}
	}
	if met := l.printBench(e, res); met < len(e.Benchmarks) {
		return &exitError{code: 1}
	}
	return nil
}

// benchResult is what the benchmarks of one exercise gave.
type benchResult struct {
	// figures by benchmark name, then by unit ("ns/op", "writes/s").
	figures map[string]map[string]float64
	// units by benchmark name, in the order go test printed them.
	units map[string][]string
	// failed by benchmark name: why it gave no figures.
	failed map[string]string
	// order is the benchmarks in the order they ran.
	order       []string
	buildOutput string
}

// runBenchmarks runs dir's benchmarks, again for the targets' benchmarks
// that a crash of the test binary kept from running.
func (l *learner) runBenchmarks(e *course.Exercise, dir string) (*benchResult, error) {
	res := &benchResult{figures: map[string]map[string]float64{}, units: map[string][]string{}, failed: map[string]string{}}
	pattern := "."
	for range 1 + len(e.Benchmarks)*2 {
		rep, err := l.gotest(l.env.Ctx, gotest.Options{
			Dir:      l.root,
			Packages: []string{"./" + dir},
			Run:      "^$",
			Bench:    pattern,
			Benchmem: true,
			Timeout:  benchTimeout,
			Vet:      "off",
		})
		switch {
		case l.env.Ctx.Err() != nil:
			return nil, errors.New("interrupted")
		case err != nil:
			return nil, errors.New(strings.TrimPrefix(err.Error(), "gotest: "))
		}
		p := rep.Packages[importPath(dir)]
		if p == nil {
			return nil, fmt.Errorf("go test said nothing about %s:\n%s", dir, strings.TrimSpace(rep.Stderr))
		}
		if p.BuildFailed {
			res.buildOutput = p.BuildOutput
			return res, nil
		}
		progress := res.add(p)
		var todo []string
		for _, name := range targetBenchmarks(e) {
			if res.figures[name] == nil && res.failed[name] == "" {
				todo = append(todo, regexp.QuoteMeta(name))
			}
		}
		if len(todo) == 0 || !progress {
			break
		}
		pattern = "^(" + strings.Join(todo, "|") + ")$"
	}
	return res, nil
}

// targetBenchmarks are the benchmarks e's targets name, baselines
// included.
func targetBenchmarks(e *course.Exercise) []string {
	var names []string
	seen := map[string]bool{}
	for _, b := range e.Benchmarks {
		for _, n := range []string{b.Name, b.Baseline} {
			if n != "" && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// benchLine is a benchmark's result line: its name (with the -GOMAXPROCS
// suffix), the iterations, then value and unit pairs.
var benchLine = regexp.MustCompile(`(?m)^(Benchmark\S*?)(?:-\d+)?\s+(\d+)\s+(.+)$`)

// add records what one go test run said of the package's benchmarks, and
// whether it learnt anything new.
func (r *benchResult) add(p *gotest.Package) bool {
	progress := false
	names := make([]string, 0, len(p.Tests))
	for name := range p.Tests {
		if strings.HasPrefix(name, "Benchmark") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	// A benchmark that only runs sub-benchmarks (b.Run) prints no result
	// of its own: its sub-benchmarks' lines are its figures.
	parent := func(name string) bool {
		for _, n := range names {
			if strings.HasPrefix(n, name+"/") {
				return true
			}
		}
		return false
	}
	for _, name := range names {
		t := p.Tests[name]
		if r.figures[name] != nil || r.failed[name] != "" {
			continue
		}
		figs, units := parseFigures(name, t.Output)
		switch {
		case figs != nil && t.Action != "fail":
			r.figures[name], r.units[name] = figs, units
		case t.Action != "fail" && parent(name):
			continue
		default:
			r.failed[name] = benchFailure(t.Output + "\n" + p.Output)
		}
		r.order = append(r.order, name)
		progress = true
	}
	return progress
}

// parseFigures reads the figures of benchmark name from its output, and
// their units in order; nil when it printed no result line.
func parseFigures(name, out string) (map[string]float64, []string) {
	for _, m := range benchLine.FindAllStringSubmatch(out, -1) {
		if m[1] != name {
			continue
		}
		fields := strings.Fields(m[3])
		figs := map[string]float64{}
		var units []string
		for i := 0; i+1 < len(fields); i += 2 {
			if v, err := strconv.ParseFloat(fields[i], 64); err == nil {
				figs[fields[i+1]] = v
				units = append(units, fields[i+1])
			}
		}
		if len(figs) > 0 {
			return figs, units
		}
	}
	return nil, nil
}

// benchFailure says in a line why a benchmark gave no figures.
func benchFailure(out string) string {
	var first string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(testPrefix.ReplaceAllString(line, ""))
		switch {
		case line == "", strings.HasPrefix(line, "=== RUN"), strings.HasPrefix(line, "--- FAIL"),
			strings.HasPrefix(line, "Benchmark"), line == "FAIL", strings.HasPrefix(line, "goos:"),
			strings.HasPrefix(line, "goarch:"), strings.HasPrefix(line, "pkg:"), strings.HasPrefix(line, "cpu:"):
			continue
		}
		if i := strings.Index(line, "not implemented"); i >= 0 {
			if j := strings.Index(line, "panic: "); j >= 0 && j < i {
				i = j
			}
			return "not implemented yet (" + line[i:] + ")"
		}
		if first == "" {
			first = line
		}
	}
	if first == "" {
		return "failed without a message"
	}
	return "failed: " + first
}

// printBench prints each target with its figure, then the other figures,
// and returns how many targets were met.
func (l *learner) printBench(e *course.Exercise, res *benchResult) int {
	u := l.out
	type row struct {
		ok                bool
		name, got, target string
	}
	var rows []row
	met := 0
	nameW := 0
	for _, b := range e.Benchmarks {
		r := row{name: b.Name}
		v, why := res.figure(b.Name, b.Metric)
		unit := " " + b.Metric
		if b.Baseline != "" {
			base, bwhy := res.figure(b.Baseline, b.Metric)
			switch {
			case why != "":
			case bwhy != "":
				why = "baseline " + b.Baseline + ": " + bwhy
			case base == 0:
				why = "baseline " + b.Baseline + " measured 0 " + b.Metric
			default:
				v /= base
			}
			unit = "× " + b.Baseline + " (" + b.Metric + ")"
		}
		if why != "" {
			r.got = why
		} else {
			r.ok = b.Min == nil || v >= *b.Min
			r.ok = r.ok && (b.Max == nil || v <= *b.Max)
			r.got = formatFigure(v) + unit
		}
		var bounds []string
		if b.Min != nil {
			bounds = append(bounds, "≥ "+formatFigure(*b.Min))
		}
		if b.Max != nil {
			bounds = append(bounds, "≤ "+formatFigure(*b.Max))
		}
		r.target = "(target " + strings.Join(bounds, " and ") + " " + b.Metric + ")"
		if b.Baseline != "" {
			r.target = "(target " + strings.Join(bounds, " and ") + "× " + b.Baseline + " " + b.Metric + ")"
		}
		if r.ok {
			met++
		}
		nameW = max(nameW, len(b.Name))
		rows = append(rows, r)
	}
	u.printf("%s %s  %s\n", u.bold.Sprint(e.ID), e.Title, u.dim.Sprintf("%d of %d targets met", met, len(e.Benchmarks)))
	for _, r := range rows {
		u.printf("  %s %s  %s  %s\n", u.mark(r.ok), pad(r.name, nameW), r.got, u.dim.Sprint(r.target))
	}
	var others []string
	targets := map[string]bool{}
	for _, n := range targetBenchmarks(e) {
		targets[n] = true
	}
	for _, name := range res.order {
		figs := res.figures[name]
		if figs == nil {
			if !targets[name] {
				others = append(others, fmt.Sprintf("  %s  %s", name, res.failed[name]))
			}
			continue
		}
		var parts []string
		for _, unit := range res.units[name] {
			parts = append(parts, formatFigure(figs[unit])+" "+unit)
		}
		others = append(others, fmt.Sprintf("  %s  %s", name, strings.Join(parts, ", ")))
	}
	if len(others) > 0 {
		u.println()
		u.println("Every figure measured:")
		for _, o := range others {
			u.println(o)
		}
	}
	return met
}

// figure is benchmark name's figure in unit, or why there is none.
func (r *benchResult) figure(name, unit string) (float64, string) {
	if why := r.failed[name]; why != "" {
		return 0, why
	}
	figs := r.figures[name]
	if figs == nil {
		return 0, "did not run (the package has no " + name + ")"
	}
	v, ok := figs[unit]
	if !ok {
		return 0, "reported no " + unit
	}
	return v, ""
}

// formatFigure prints v with about four significant digits, without an
// exponent below a million.
func formatFigure(v float64) string {
	a := math.Abs(v)
	if a >= 1e6 || (a < 0.001 && a != 0) {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	digits := 0
	if a >= 1 {
		digits = int(math.Floor(math.Log10(a))) + 1
	}
	s := strconv.FormatFloat(v, 'f', max(0, 4-digits), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
