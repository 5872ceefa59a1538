package images

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"
)

// counter prints a counter and the time, the pod of Kubernetes' logging
// docs (kubernetes/website content/en/examples/debug/counter-pod.yaml:
// `echo "$i: $(date)"` every second), for kubectl logs.
//
//	counter [-every 1s]
//
// prints "0: 2026-01-02T15:04:05Z" at once, then one line every -every.
func counterFlags(fs *flag.FlagSet) func() (run, error) {
	every := fs.Duration("every", time.Second, "how often to print a line")
	return func() (run, error) {
		if *every <= 0 {
			return nil, errors.New("-every must be positive")
		}
		return func(stdout, stderr io.Writer, stop <-chan struct{}) int {
			t := time.NewTicker(*every)
			defer t.Stop()
			for i := 0; ; i++ {
				fmt.Fprintf(stdout, "%d: %s\n", i, time.Now().Format(time.RFC3339))
				select {
				case <-t.C:
				case <-stop:
					return 0
				}
			}
		}, nil
	}
}
