package cli

import (
	"github.com/kubekata/kubekata/cmd/kata/internal/verify"
)

func init() {
	register("verify", &command{
		summary: "the maintainers' check: solutions green, exercises red, everything agrees",
		usage:   "verify [-v] [-static]",
		run:     runVerify,
	})
}

func runVerify(env *Env, args []string) error {
	fs := flags(env, "verify")
	verbose := fs.Bool("v", false, "list passing checks too")
	static := fs.Bool("static", false, "only the static checks: skip running the tests")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		return errUsage
	}
	root, err := findRoot(env.Dir)
	if err != nil {
		return err
	}
	res, err := verify.Run(env.Ctx, verify.Options{Root: root, Out: env.Stdout, Verbose: *verbose, SkipTests: *static})
	if err != nil {
		return err
	}
	if !res.OK() {
		return &exitError{code: 1}
	}
	return nil
}
