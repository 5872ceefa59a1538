package images

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"
)

// hog takes memory step by step and holds it, for a container that goes
// over its memory limit and is OOMKilled, as the stress image of
// Kubernetes' docs does (kubernetes/website content/en/examples/pods/
// resource/memory-request-limit-2.yaml: stress --vm-bytes 250M).
//
//	hog [-mb 64] [-step-mb 8] [-every 100ms]
//
// Every page it allocates is written to, so that it counts in the
// process's resident memory. It prints the total after each step, then
// holds it until signalled.
func hogFlags(fs *flag.FlagSet) func() (run, error) {
	mb := fs.Int("mb", 64, "how many MiB to take in all")
	step := fs.Int("step-mb", 8, "how many MiB to take at each step")
	every := fs.Duration("every", 100*time.Millisecond, "how long to wait between steps")
	return func() (run, error) {
		switch {
		case *mb < 0:
			return nil, errors.New("-mb must not be negative")
		case *step <= 0:
			return nil, errors.New("-step-mb must be positive")
		case *every < 0:
			return nil, errors.New("-every must not be negative")
		}
		return func(stdout, stderr io.Writer, stop <-chan struct{}) int {
			return hog(*mb, *step, *every, stdout, stop)
		}, nil
	}
}

func hog(mb, step int, every time.Duration, stdout io.Writer, stop <-chan struct{}) int {
	page := os.Getpagesize()
	var held [][]byte
	defer runtime.KeepAlive(&held)
	total := 0
	for total < mb {
		n := min(step, mb-total)
		b := make([]byte, n<<20)
		for i := 0; i < len(b); i += page {
			b[i] = 1
		}
		held = append(held, b)
		total += n
		fmt.Fprintf(stdout, "hog: allocated %d MiB\n", total)
		if total < mb && every > 0 {
			t := time.NewTimer(every)
			select {
			case <-t.C:
			case <-stop:
				t.Stop()
				fmt.Fprintf(stdout, "hog: stopping with %d MiB\n", total)
				return 0
			}
		}
		select {
		case <-stop:
			fmt.Fprintf(stdout, "hog: stopping with %d MiB\n", total)
			return 0
		default:
		}
	}
	fmt.Fprintf(stdout, "hog: holding %d MiB\n", total)
	<-stop
	fmt.Fprintf(stdout, "hog: stopping with %d MiB\n", total)
	return 0
}
