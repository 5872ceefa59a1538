//go:build unix

package process_test

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cri/images"
)

// TestMain makes this test binary a container image too: with
// $KATA_IMAGE_PROGRAM set to one of the test programs below it runs
// that program; with a real image program, images.Dispatch runs it.
func TestMain(m *testing.M) {
	if p := os.Getenv(images.ProgramEnv); strings.HasPrefix(p, "ptest-") {
		// syscall.Exit, not os.Exit: under -race, os.Exit sleeps 1s
		// (GORACE atexit_sleep_ms) before exiting.
		syscall.Exit(testProgram(p, os.Args[1:]))
	}
	images.Dispatch()
	os.Exit(m.Run())
}

// testProgram runs in a container: the programs the tests need.
func testProgram(name string, args []string) int {
	switch name {
	case "ptest-exit": // exit with args[0]
		fmt.Println("bye")
		code, _ := strconv.Atoi(args[0])
		return code
	case "ptest-wait": // run until SIGTERM, then exit 0
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		fmt.Println("ready")
		<-term
		fmt.Println("term")
		return 0
	case "ptest-ignore": // ignore SIGTERM, run until killed
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		for {
			time.Sleep(time.Hour)
		}
	case "ptest-log":
		fmt.Println("out1")
		fmt.Fprintln(os.Stderr, "err1")
		fmt.Print("out2\r\n")
		fmt.Println(strings.Repeat("x", 40000))
		fmt.Print("tail")
		return 0
	case "ptest-env":
		for _, k := range args {
			fmt.Printf("%s=%s\n", k, os.Getenv(k))
		}
		wd, _ := os.Getwd()
		fmt.Printf("PWD=%s\n", wd)
		return 0
	case "ptest-hog": // grow until killed
		var keep [][]byte
		for i := 0; i < 64; i++ { // at most 1 GiB
			b := make([]byte, 16<<20)
			for j := range b {
				b[j] = byte(j)
			}
			keep = append(keep, b)
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Println("survived", len(keep))
		return 0
	case "ptest-spawn": // start a child in the same group, then wait
		exe, _ := os.Executable()
		child := exec.Command(exe)
		child.Env = []string{images.ProgramEnv + "=ptest-ignore"}
		if err := child.Start(); err != nil {
			fmt.Println("spawn:", err)
			return 1
		}
		fmt.Printf("child %d\n", child.Process.Pid)
		for {
			time.Sleep(time.Hour)
		}
	}
	fmt.Fprintln(os.Stderr, "unknown test program", name)
	return 127
}
