package cluster

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
)

func TestLogPath(t *testing.T) {
	for path, want := range map[string]string{
		"/api/v1/namespaces/default/pods/web/log":  "default/web",
		"/api/v1/namespaces/default/pods/web/log/": "default/web",
		"/api/v1/namespaces/default/pods/web":      "",
		"/api/v1/namespaces/default/pods//log":     "",
		"/apis/v1/namespaces/default/pods/web/log": "",
		"/api/v1/namespaces/default/pods/web/exec": "",
	} {
		ns, name, ok := logPath(path)
		got := ""
		if ok {
			got = ns + "/" + name
		}
		if got != want {
			t.Errorf("logPath(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestParseLogOptions(t *testing.T) {
	o, err := parseLogOptions(map[string][]string{"container": {"c"}, "follow": {"true"}, "previous": {"1"}, "timestamps": {"true"},
		"tailLines": {"0"}, "limitBytes": {"10"}, "sinceSeconds": {"5"}})
	want := logOptions{container: "c", follow: true, previous: true, timestamps: true, tailLines: 0, limitBytes: 10, since: 5 * time.Second}
	if err != nil || o != want {
		t.Errorf("parseLogOptions(every option) = %+v, %v; want %+v", o, err, want)
	}
	if o, err := parseLogOptions(nil); err != nil || o.tailLines != -1 || o.limitBytes != 0 {
		t.Errorf("parseLogOptions(none) = %+v, %v; want tailLines -1 (all), no limit", o, err)
	}
	for _, bad := range []map[string][]string{
		{"follow": {"yes"}}, {"tailLines": {"-1"}}, {"tailLines": {"x"}}, {"limitBytes": {"0"}}, {"sinceSeconds": {"0"}},
	} {
		if _, err := parseLogOptions(bad); err == nil {
			t.Errorf("parseLogOptions(%v) = nil error, want one", bad)
		}
	}
}

// logFile writes lines in CRI's format, the last one unterminated when
// torn is set.
func logFile(t *testing.T, lines []cri.LogLine, torn string) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Format())
	}
	b.WriteString(torn)
	path := filepath.Join(t.TempDir(), "0.log")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var logT0 = time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)

func TestCopyLog(t *testing.T) {
	lines := []cri.LogLine{
		{Time: logT0, Stream: cri.Stdout, Message: "one"},
		{Time: logT0.Add(time.Second), Stream: cri.Stderr, Message: "two"},
		{Time: logT0.Add(2 * time.Second), Stream: cri.Stdout, Partial: true, Message: "thr"},
		{Time: logT0.Add(3 * time.Second), Stream: cri.Stdout, Message: "ee"},
	}
	// A line the runtime has only begun to write is not shown yet.
	path := logFile(t, lines, logT0.Add(4*time.Second).Format(time.RFC3339Nano)+" stdout F fo")
	stopped := func() bool { return false }
	for _, tc := range []struct {
		name string
		opts logOptions
		want string
	}{
		{"all", logOptions{tailLines: -1}, "one\ntwo\nthree\n"},
		{"tail 2", logOptions{tailLines: 2}, "two\nthree\n"},
		{"tail 0", logOptions{tailLines: 0}, ""},
		{"timestamps", logOptions{tailLines: 1, timestamps: true}, logT0.Add(2*time.Second).Format(time.RFC3339Nano) + " three\n"},
		{"limit", logOptions{tailLines: -1, limitBytes: 6}, "one\ntw"},
	} {
		var b bytes.Buffer
		if err := copyLog(context.Background(), &b, path, tc.opts, stopped, time.Millisecond); err != nil || b.String() != tc.want {
			t.Errorf("copyLog(%s) = %q, %v; want %q", tc.name, b.String(), err, tc.want)
		}
	}
}

// With follow, what is written while the container runs comes too, and
// the copy ends once it has stopped and the rest is read.
func TestCopyLogFollows(t *testing.T) {
	path := logFile(t, []cri.LogLine{{Time: logT0, Stream: cri.Stdout, Message: "one"}}, "")
	var alive atomic.Bool
	alive.Store(true)
	var b syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- copyLog(context.Background(), &b, path, logOptions{tailLines: -1, follow: true}, alive.Load, time.Millisecond)
	}()
	waitFor := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for b.String() != want {
			if time.Now().After(deadline) {
				t.Fatalf("following the log: got %q, want %q", b.String(), want)
			}
			select {
			case err := <-done:
				t.Fatalf("copyLog returned %v while the container runs; got %q", err, b.String())
			case <-time.After(time.Millisecond):
			}
		}
	}
	waitFor("one\n")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	two := cri.LogLine{Time: logT0.Add(time.Second), Stream: cri.Stdout, Message: "two"}.Format()
	if _, err := f.WriteString(two[:10]); err != nil { // torn: not shown yet
		t.Fatal(err)
	}
	if _, err := f.WriteString(two[10:]); err != nil {
		t.Fatal(err)
	}
	waitFor("one\ntwo\n")
	// The container writes its last line and stops.
	if _, err := f.WriteString(cri.LogLine{Time: logT0.Add(2 * time.Second), Stream: cri.Stdout, Message: "bye"}.Format()); err != nil {
		t.Fatal(err)
	}
	alive.Store(false)
	select {
	case err := <-done:
		if err != nil || b.String() != "one\ntwo\nbye\n" {
			t.Errorf("copyLog once the container stopped = %v with %q, want nil with %q", err, b.String(), "one\ntwo\nbye\n")
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("copyLog still follows 10s after the container stopped; got %q", b.String())
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
