package gotest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// frame is the byte the testing package puts before each of its own
// framing lines (=== RUN, --- PASS, the final PASS) when a test binary runs
// with -test.v=test2json, so that a reader can tell them from what the
// tests print. The value and its meaning are testing's
// (src/testing/testing.go, marker; src/cmd/internal/test2json/test2json.go).
const frame = '\x16'

// User is a numeric user and group to run a process as.
type User struct{ UID, GID uint32 }

// BinaryOptions says how to run a compiled test binary by itself, without
// the go command.
type BinaryOptions struct {
	// Path is the test binary.
	Path string
	// ImportPath names the package in the Report.
	ImportPath string
	// Dir is the working directory.
	Dir string
	// Run is the -test.run pattern; empty runs every test.
	Run string
	// Timeout is -test.timeout; 0 keeps the testing package's default.
	Timeout time.Duration
	// Env is the whole environment: nothing is inherited.
	Env []string
	// User, if set, runs the binary as that user (kata as root runs the
	// graded code as an unprivileged one). Unix only.
	User *User
	// Stderr, if set, receives the binary's output as it arrives.
	Stderr io.Writer
}

// RunBinary runs a test binary with -test.v=test2json and reads its
// verdicts (ParseFramed). The binary's stdout and stderr are one stream,
// as under go test. The error is non-nil only when the binary could not
// start; a binary that fails, crashes or is stopped by ctx has a Package
// whose Action says so ("fail", or empty when it never reported one).
func RunBinary(ctx context.Context, opts BinaryOptions) (*Package, error) {
	args := []string{"-test.v=test2json"}
	if opts.Run != "" {
		args = append(args, "-test.run="+opts.Run)
	}
	if opts.Timeout > 0 {
		args = append(args, "-test.timeout="+opts.Timeout.String())
	}
	cmd := exec.CommandContext(ctx, opts.Path, args...)
	cmd.Dir = opts.Dir
	cmd.Env = opts.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.WaitDelay = 5 * time.Second
	ownGroup(cmd)
	setUser(cmd, opts.User)
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("gotest: %w", err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("gotest: starting %s: %w", opts.Path, err)
	}
	// Only the binary holds the write end now: when it and its children
	// are gone, the read below ends.
	pw.Close()
	var rd io.Reader = pr
	if opts.Stderr != nil {
		rd = io.TeeReader(pr, opts.Stderr)
	}
	done := make(chan struct{})
	var p *Package
	var parseErr error
	go func() {
		defer close(done)
		p, parseErr = ParseFramed(rd, opts.ImportPath)
	}()
	waitErr := cmd.Wait()
	// The binary is gone; whatever it started in its group goes too, so
	// that nothing left behind holds the pipe open or outlives the run.
	killGroup(cmd)
	select {
	case <-done:
	case <-time.After(cmd.WaitDelay):
		// A process that left the group still holds the pipe.
	}
	pr.Close()
	<-done
	if ctx.Err() != nil && p.Action != "" {
		// Stopped from outside after it had finished: keep its verdict.
		return p, nil
	}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &exitErr):
		if p.Action == "" {
			p.Output += fmt.Sprintf("the test binary exited without a verdict (%v)\n", waitErr)
		}
	default:
		p.Output += fmt.Sprintf("the test binary: %v\n", waitErr)
	}
	if parseErr != nil && !errors.Is(parseErr, errClosed) {
		return p, fmt.Errorf("gotest: reading %s: %w", opts.Path, parseErr)
	}
	return p, nil
}

var errClosed = errors.New("read from a closed pipe")

// ParseFramed reads the output of a test binary run with -test.v=test2json:
// a line that starts with the frame byte is the testing package's own
// (=== RUN name, === NAME name, --- PASS: name (0.01s), the final PASS or
// FAIL), every other line is output of the test named last. Only the
// testing package writes frames, so the binary must hold no code that
// could write one of its own: a line that merely contains "--- PASS" is
// output, never a verdict.
func ParseFramed(rd io.Reader, importPath string) (*Package, error) {
	p := &Package{ImportPath: importPath, Tests: map[string]*Test{}}
	test := func(name string) *Test {
		t := p.Tests[name]
		if t == nil {
			t = &Test{Name: name}
			p.Tests[name] = t
		}
		return t
	}
	current := ""
	output := func(line string) {
		if current == "" {
			p.Output += line
			return
		}
		test(current).Output += line
	}
	br := bufio.NewReaderSize(rd, 64*1024)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if line[0] != frame {
				output(line)
			} else {
				parseFrame(p, strings.TrimRight(line[1:], "\n"), &current, test, output)
			}
		}
		if err == io.EOF {
			return p, nil
		}
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return p, errClosed
			}
			return p, err
		}
	}
}

func parseFrame(p *Package, f string, current *string, test func(string) *Test, output func(string)) {
	switch {
	case strings.HasPrefix(f, "=== "):
		// === RUN   name, === NAME  name, === PAUSE name, === CONT  name.
		verb, name, _ := strings.Cut(f[len("=== "):], " ")
		name = strings.TrimLeft(name, " ")
		switch verb {
		case "RUN", "NAME", "CONT", "PAUSE":
			*current = name
			if verb == "RUN" {
				test(name)
			}
			if verb != "NAME" {
				output(f + "\n")
			}
			return
		}
	case strings.HasPrefix(f, "--- "):
		// --- PASS: name (0.01s)
		verb, rest, ok := strings.Cut(f[len("--- "):], ": ")
		action := map[string]string{"PASS": "pass", "FAIL": "fail", "SKIP": "skip"}[verb]
		if ok && action != "" {
			name, elapsed := rest, 0.0
			if i := strings.LastIndex(rest, " ("); i >= 0 && strings.HasSuffix(rest, "s)") {
				name = rest[:i]
				elapsed, _ = strconv.ParseFloat(rest[i+2:len(rest)-2], 64)
			}
			t := test(name)
			t.Action, t.Elapsed = action, elapsed
			t.Output += f + "\n"
			*current = name
			return
		}
	case f == "PASS" || f == "FAIL":
		p.Action = strings.ToLower(f)
		*current = ""
		return
	}
	output(f + "\n")
}
