package images

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// run is a program whose arguments are parsed: it runs until it is done
// or stop closes, logging to stdout, and returns its exit code.
type run func(stdout, stderr io.Writer, stop <-chan struct{}) int

// program is one built-in program.
type program struct {
	summary string
	// hint is the flag a push of a missing image suggests.
	hint string
	// flags defines the program's flags on fs; once fs has parsed the
	// arguments, the func it returns checks their values and returns
	// what runs.
	flags func(fs *flag.FlagSet) func() (run, error)
}

// programs are the built-in programs, one file each.
var programs = map[string]program{
	"http-echo": {"answer every HTTP request with -text and the pod's name", "-text ...", httpEchoFlags},
	"sleep":     {"run until signalled, or for -for", "-for ...", sleepFlags},
	"crash":     {"exit with -code after -after", "-code ... -after ...", crashFlags},
	"counter":   {"print a counter and the time every -every", "-every ...", counterFlags},
	"hog":       {"allocate -mb MiB of memory, -step-mb at a time, and hold it", "-mb ...", hogFlags},
	"curl":      {"fetch -url over HTTP, once or every -every, resolving its name through $KATA_DNS_SERVER as a pod does", "-url ...", curlFlags},
}

func isProgram(name string) bool { _, ok := programs[name]; return ok }

// Programs lists the built-in programs, sorted.
func Programs() []string {
	var ns []string
	for n := range programs {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

func unknownProgram(name string) error {
	return fmt.Errorf("images: unknown program %q; the programs are: %s", name, strings.Join(Programs(), ", "))
}

// errHelp is -h: the usage, and exit 0.
var errHelp = flag.ErrHelp

// parse parses a program's arguments, with -ignore-term, which every
// program takes.
func parse(name string, args []string, out io.Writer) (r run, ignoreTerm bool, err error) {
	p, ok := programs[name]
	if !ok {
		return nil, false, unknownProgram(name)
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, "usage: %s [flags]: %s\n", name, p.summary)
		fs.PrintDefaults()
	}
	check := p.flags(fs)
	ignore := fs.Bool("ignore-term", false, "keep running on SIGTERM and SIGINT: only SIGKILL, or the parent's death, stops it")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, false, errHelp
		}
		return nil, false, fmt.Errorf("images: %s: %w", name, err)
	}
	if fs.NArg() > 0 {
		return nil, false, fmt.Errorf("images: %s: unexpected argument %q (it takes only flags)", name, fs.Arg(0))
	}
	r, err = check()
	if err != nil {
		return nil, false, fmt.Errorf("images: %s: %w", name, err)
	}
	return r, *ignore, nil
}

// Check reports whether program is a built-in program that takes args,
// without running it.
func Check(program string, args []string) error {
	_, _, err := parse(program, args, io.Discard)
	if errors.Is(err, errHelp) {
		return fmt.Errorf("images: %s: -h is not an argument to keep", program)
	}
	return err
}

// Run runs program with args in the calling process until it ends, or
// stop closes (as SIGTERM would), and returns its exit code: 2 for bad
// arguments, 127 for an unknown program. Its log lines go to stdout.
func Run(program string, args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	stdout, stderr = &lockedWriter{w: stdout}, &lockedWriter{w: stderr}
	r, ignore, err := parse(program, args, stderr)
	switch {
	case errors.Is(err, errHelp):
		return 0
	case err != nil && !isProgram(program):
		fmt.Fprintln(stderr, err)
		return 127
	case err != nil:
		fmt.Fprintln(stderr, err)
		return 2
	}
	if ignore {
		done := make(chan struct{})
		defer close(done)
		go func(stop <-chan struct{}) {
			select {
			case <-stop:
				fmt.Fprintf(stdout, "%s: ignoring the signal to stop (-ignore-term)\n", program)
			case <-done:
			}
		}(stop)
		stop = nil
	}
	return r(stdout, stderr, stop)
}

// parentCheck is how often a dispatched program looks for its parent.
const parentCheck = 500 * time.Millisecond

// Dispatch runs the image program named by $KATA_IMAGE_PROGRAM with
// os.Args[1:] and exits, when that variable is set; otherwise it
// returns at once. Call it first thing in main (and in TestMain of
// tests that run containers).
func Dispatch() {
	name := os.Getenv(ProgramEnv)
	if name == "" {
		return
	}
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	go func() {
		<-sigs
		close(stop)
	}()
	go watchParent(os.Getppid(), name)
	os.Exit(Run(name, os.Args[1:], os.Stdout, os.Stderr, stop))
}

// watchParent exits when the process's parent is gone (it has been
// given to init or a subreaper), so that no container outlives the
// runtime that started it, even with -ignore-term.
func watchParent(ppid int, name string) {
	t := time.NewTicker(parentCheck)
	defer t.Stop()
	for range t.C {
		if os.Getppid() != ppid {
			fmt.Fprintf(os.Stderr, "%s: parent process %d is gone; exiting\n", name, ppid)
			os.Exit(1)
		}
	}
}

// lockedWriter lets a program's goroutines write whole lines at once.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
