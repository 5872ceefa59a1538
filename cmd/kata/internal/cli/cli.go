// Package cli is the kata command: the learner loop (next, list, test,
// hint, watch, reset), the maintainers' check (verify), grading (grade,
// classroom) and the cluster (up). cmd/kata only calls Main.
//
// The kata never imports exercises/ or solutions/: whatever runs learner
// code does it through the go tool in another process (cmd/kata/internal/gotest), so
// that a half-written exercise cannot stop kata from building.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
)

// Env is what a command gets from the outside world.
type Env struct {
	Ctx    context.Context
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Dir is the working directory the command was started in.
	Dir string
	// Getenv reads the environment.
	Getenv func(string) string
}

// command is one kata subcommand.
type command struct {
	summary string
	usage   string
	run     func(env *Env, args []string) error
}

// commands is filled by the files beside this one, one file a command.
var commands = map[string]*command{}

func register(name string, c *command) { commands[name] = c }

// errUsage asks Main to print the command's usage and exit 2.
var errUsage = errors.New("usage")

// exitError carries an exit code without a message of its own (the command
// already printed what went wrong).
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// Main runs kata with args (without the program name) and returns the exit
// code.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "kata:", err)
		return 1
	}
	return Run(&Env{Ctx: ctx, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Dir: wd, Getenv: os.Getenv}, args)
}

// Run is Main with an explicit environment, for tests.
func Run(env *Env, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printHelp(env.Stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "kata: unknown command %q; the commands are: %s\n", args[0], strings.Join(names(), ", "))
		return 2
	}
	err := c.run(env, args[1:])
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage), errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(env.Stderr, "usage: kata %s\n", c.usage)
		return 2
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintln(env.Stderr, "kata:", strings.TrimPrefix(err.Error(), "kata: "))
		return 1
	}
}

func names() []string {
	var ns []string
	for n := range commands {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "kata: learn how Kubernetes works inside by building it.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, n := range names() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Start with: kata next")
}

// flags makes a flag set for a command that reports errors through Run.
func flags(env *Env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
}
