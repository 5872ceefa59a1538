package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	kubekata "github.com/kubekata/kubekata"
	"github.com/kubekata/kubekata/cmd/kata/internal/grade"
	"github.com/kubekata/kubekata/harness/course"
)

func init() {
	register("grade", &command{
		summary: "grade exercises with the kata's pristine tests, for a teacher or CI",
		usage: "grade [--format table|json|junit|classroom] [-o FILE] [--solutions] [--timeout 10m] [--isolate process] [EXERCISE[/STEP]...]\n\n" +
			"Runs the conformance suites of the named exercises (all by default) with the\n" +
			"tests and harness this kata binary carries, whatever the copy's own test and\n" +
			"harness files say, and reports every step with its points. Changed protected\n" +
			"files are listed and ignored. Exits 0 when every graded step passed, 1 if not.\n\n" +
			"Formats: table (default), json (Exercism results.json v3), junit (JUnit XML),\n" +
			"classroom (the base64 result of GitHub Classroom's autograding-command-grader).\n\n" +
			"The learner's code runs in a program of its own, driven through its contract by\n" +
			"a test binary built from the kata's harness alone; as root, kata runs both as\n" +
			"the user nobody. --isolate container is not supported yet.",
		run: runGrade,
	})
}

func runGrade(env *Env, args []string) error {
	fs := flags(env, "grade")
	format := fs.String("format", "table", "report format: "+strings.Join(grade.Formats, ", "))
	output := fs.String("o", "", "write the report to `FILE` instead of standard output")
	solutions := fs.Bool("solutions", false, "grade solutions/ instead of exercises/ (maintainers)")
	timeout := fs.Duration("timeout", 0, "bound on the whole grade run (default 10m, and 10m more when it grades the capstone)")
	pkgTimeout := fs.Duration("package-timeout", grade.DefaultPackageTimeout, "go test -timeout for each exercise's test binary")
	isolate := fs.String("isolate", grade.IsolateProcess, "how the learner's code is kept apart: process (container is not supported yet)")
	names, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if !validFormat(*format) {
		return fmt.Errorf("grade: unknown format %q; the formats are: %s", *format, strings.Join(grade.Formats, ", "))
	}
	root, err := findRoot(env.Dir)
	if err != nil {
		return err
	}
	c, err := course.Load()
	if err != nil {
		return fmt.Errorf("the course manifest is broken: %w", err)
	}
	sel, err := grade.Select(c, names)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "grade: "))
	}
	rep, err := grade.Run(env.Ctx, grade.Options{
		Root:           root,
		Pristine:       kubekata.Files,
		Course:         c,
		Select:         sel,
		Solutions:      *solutions,
		Timeout:        *timeout,
		PackageTimeout: *pkgTimeout,
		Isolate:        *isolate,
		Remote:         gradeRemote(),
		Capstone:       gradeCapstone(),
	})
	if err != nil {
		if env.Ctx.Err() != nil {
			return errors.New("interrupted")
		}
		return errors.New(strings.TrimPrefix(err.Error(), "grade: "))
	}

	var buf bytes.Buffer
	if err := grade.Write(&buf, rep, *format); err != nil {
		return err
	}
	if *output != "" {
		if err := os.WriteFile(*output, buf.Bytes(), 0o644); err != nil {
			return err
		}
		if *format != "table" {
			// The log still shows the learner the table (Classroom's
			// grade step writes its result to a file).
			if err := grade.WriteTable(env.Stdout, rep); err != nil {
				return err
			}
		}
	} else if _, err := env.Stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	if *format != "table" || *output != "" {
		// The machine formats carry the list too; say it where a person
		// reading the log sees it.
		if len(rep.Tampered) > 0 {
			fmt.Fprintf(env.Stderr, "kata grade: %d protected files differ from the kata's copy and were ignored:\n", len(rep.Tampered))
			for _, t := range rep.Tampered {
				fmt.Fprintf(env.Stderr, "  %s\n", t)
			}
		}
		fmt.Fprintf(env.Stderr, "kata grade: %d/%d points, %d of %s passed in %s\n",
			rep.Points(), rep.MaxPoints(), rep.Passed(), grade.Steps(len(rep.Steps())), rep.Elapsed.Round(time.Millisecond))
	}
	if rep.Status() != grade.Pass {
		return &exitError{code: 1}
	}
	return nil
}

// gradeRemote is what isolates the exercises (grade_remote.go); nil grades
// every exercise the old way.
var gradeRemote = func() *grade.Remote { return nil }

// gradeCapstone is what grades the capstone's stories (grade_remote.go);
// nil reports them as errors.
var gradeCapstone = func() *grade.Capstone { return nil }

func validFormat(f string) bool {
	for _, g := range grade.Formats {
		if f == g {
			return true
		}
	}
	return false
}
