package protoedge_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"
)

// TestMain fails the run when goroutines outlive the tests: the clusters,
// informers, watches and client connections the tests start must all be
// gone (checked every 10ms for up to 10s, for connections to close).
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		deadline := time.Now().Add(10 * time.Second)
		for runtime.NumGoroutine() > 1 && time.Now().Before(deadline) {
			<-time.After(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > 1 {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			fmt.Fprintf(os.Stderr, "protoedge tests: %d goroutines outlived the tests, want only main:\n%s\n", n, buf)
			code = 1
		}
	}
	os.Exit(code)
}
