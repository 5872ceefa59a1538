package images

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"
)

// crash exits with -code after -after: the container that makes a
// kubelet back off (CrashLoopBackOff) or a Job fail; -code 0 completes.
//
//	crash [-code 1] [-after 1s]
func crashFlags(fs *flag.FlagSet) func() (run, error) {
	code := fs.Int("code", 1, "the exit code, 0 to 255")
	after := fs.Duration("after", time.Second, "how long to run before exiting")
	return func() (run, error) {
		if *code < 0 || *code > 255 {
			return nil, fmt.Errorf("-code %d: want 0 to 255", *code)
		}
		if *after < 0 {
			return nil, errors.New("-after must not be negative")
		}
		return func(stdout, stderr io.Writer, stop <-chan struct{}) int {
			t := time.NewTimer(*after)
			defer t.Stop()
			select {
			case <-t.C:
				fmt.Fprintf(stdout, "crashing with exit code %d\n", *code)
				return *code
			case <-stop:
				fmt.Fprintln(stdout, "crash: stopping before crashing")
				return 0
			}
		}, nil
	}
}
