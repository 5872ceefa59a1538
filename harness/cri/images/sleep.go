package images

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"
)

// sleep runs until it is signalled, as the pause container and
// `sleep infinity` do, or for -for and then exits 0 (a Job's work).
// -say and -say-err write a line to stdout and to stderr first, so that
// a container's log holds a line of each stream.
//
//	sleep [-for 0] [-say LINE] [-say-err LINE]
func sleepFlags(fs *flag.FlagSet) func() (run, error) {
	d := fs.Duration("for", 0, "exit 0 after this long (0: run until signalled)")
	say := fs.String("say", "", "a line to write to stdout first")
	sayErr := fs.String("say-err", "", "a line to write to stderr first")
	return func() (run, error) {
		if *d < 0 {
			return nil, errors.New("-for must not be negative")
		}
		return func(stdout, stderr io.Writer, stop <-chan struct{}) int {
			if *say != "" {
				fmt.Fprintln(stdout, *say)
			}
			if *sayErr != "" {
				fmt.Fprintln(stderr, *sayErr)
			}
			var done <-chan time.Time
			if *d > 0 {
				t := time.NewTimer(*d)
				defer t.Stop()
				done = t.C
				fmt.Fprintf(stdout, "sleep: sleeping for %s\n", *d)
			} else {
				fmt.Fprintln(stdout, "sleep: sleeping until signalled")
			}
			select {
			case <-done:
				fmt.Fprintln(stdout, "sleep: done")
			case <-stop:
				fmt.Fprintln(stdout, "sleep: stopping")
			}
			return 0
		}, nil
	}
}
