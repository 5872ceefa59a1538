package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	kubekata "github.com/kubekata/kubekata"
	"github.com/kubekata/kubekata/cmd/kata/internal/grade"
	"github.com/kubekata/kubekata/harness/course"
)

func init() {
	register("classroom", &command{
		summary: "set the kata up for a class: the GitHub Classroom workflow, a student copy",
		usage: "classroom init [--version V] [--module M] [--force] [EXERCISE...]\n" +
			"       kata classroom export DIR\n\n" +
			"init writes " + grade.WorkflowPath + ": GitHub Classroom autograding that\n" +
			"installs kata at version V (default: this kata's own version) and grades every\n" +
			"step of the named exercises (all by default) with its points.\n" +
			"export writes a student copy of the kata to DIR: no solutions/, nothing that\n" +
			"reveals them, the exercises as shipped.",
		run: runClassroom,
	})
}

func runClassroom(env *Env, args []string) error {
	if len(args) == 0 {
		return errUsage
	}
	switch args[0] {
	case "init":
		return classroomInit(env, args[1:])
	case "export":
		return classroomExport(env, args[1:])
	case "-h", "--help", "help":
		return errUsage
	}
	return fmt.Errorf("classroom: unknown subcommand %q; the subcommands are: init, export", args[0])
}

func classroomInit(env *Env, args []string) error {
	fs := flags(env, "classroom init")
	version := fs.String("version", "", "kata `version` the workflow installs: a tag such as v0.3.0 or a commit (default: this kata's version)")
	module := fs.String("module", course.ModulePath, "the kata's `module` path (a fork's, if you grade with your fork)")
	force := fs.Bool("force", false, "overwrite an existing workflow")
	names, err := parseArgs(fs, args)
	if err != nil {
		return err
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
	var exs []*course.Exercise
	for _, s := range sel {
		if s.Steps != nil {
			return fmt.Errorf("classroom init grades whole exercises; name %s without a step", s.Exercise.ID)
		}
		exs = append(exs, s.Exercise)
	}
	v := *version
	if v == "" {
		v = ownVersion()
	}
	if v == "" {
		return errors.New("this kata was built from a checkout and does not know its version; pass the version the class should be graded with, such as --version v0.3.0 or --version <commit>")
	}
	gomod, err := kubekata.Files.ReadFile("go.mod")
	if err != nil {
		return err
	}
	data, err := grade.Workflow(grade.WorkflowOptions{
		Version:   v,
		Module:    *module,
		GoVersion: grade.GoVersionOf(gomod),
		Exercises: exs,
	})
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "grade: "))
	}
	path := filepath.Join(root, filepath.FromSlash(grade.WorkflowPath))
	if _, err := os.Stat(path); err == nil && !*force {
		return fmt.Errorf("%s already exists; pass --force to overwrite it", grade.WorkflowPath)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	steps, points, exercises := 0, 0, 0
	stories := ""
	for _, e := range exs {
		steps += len(e.Steps)
		points += e.Points()
		if e.ID == course.CapstoneID {
			stories = fmt.Sprintf(" and %d stories of the capstone", len(e.Steps))
			if len(e.Steps) == 1 {
				stories = " and 1 story of the capstone"
			}
		} else {
			exercises++
		}
	}
	fmt.Fprintf(env.Stdout, "wrote %s: kata %s grades %s of %s%s, %d points in all\n", grade.WorkflowPath, v, plural(steps, "step"), plural(exercises, "exercise"), stories, points)
	fmt.Fprintf(env.Stdout, "the class must start from a copy of the same kata version (kata classroom export)\n")
	return nil
}

// ownVersion is the module version this kata binary was built at, when it
// was installed as a module (go install ...@v0.3.0); empty for a build
// from a checkout.
func ownVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Path != course.ModulePath {
		return ""
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" && !strings.HasSuffix(v, "+dirty") {
		return v
	}
	return ""
}

func classroomExport(env *Env, args []string) error {
	fs := flags(env, "classroom export")
	names, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(names) != 1 {
		return errUsage
	}
	root, err := findRoot(env.Dir)
	if err != nil {
		return err
	}
	dir := names[0]
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.Dir, dir)
	}
	_, statErr := os.Stat(dir)
	res, err := grade.Export(grade.ExportOptions{Root: root, Pristine: kubekata.Files, Dir: dir})
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "export: "))
	}
	// Grade the copy as shipped, as kata grade would in it: no step may
	// pass before the student writes a line.
	c, err := course.Load()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "kata classroom export: grading the copy as shipped; every step must fail...\n")
	rep, err := grade.CheckShipped(env.Ctx, grade.Options{Root: dir, Pristine: kubekata.Files, Course: c, Remote: gradeRemote(), Capstone: gradeCapstone()})
	if err != nil {
		// Take back what Export wrote: the directory was new or empty.
		if ents, rerr := os.ReadDir(dir); rerr == nil {
			for _, ent := range ents {
				os.RemoveAll(filepath.Join(dir, ent.Name()))
			}
		}
		if statErr != nil {
			os.Remove(dir)
		}
		if env.Ctx.Err() != nil {
			return errors.New("interrupted; nothing written")
		}
		return fmt.Errorf("refusing the student copy, nothing written: %s", strings.TrimPrefix(err.Error(), "export: "))
	}
	fmt.Fprintf(env.Stdout, "wrote a student copy to %s: %d files, no solutions; as shipped it earns 0 of %d points (%d of %s pass)\n",
		names[0], res.Files, rep.MaxPoints(), rep.Passed(), grade.Steps(len(rep.Steps())))
	for _, d := range res.Dropped {
		fmt.Fprintf(env.Stdout, "  left out %s\n", d)
	}
	fmt.Fprintf(env.Stdout, "next: cd %s && git init, push it as the assignment's template, and add the workflow with `kata classroom init`\n", names[0])
	return nil
}
