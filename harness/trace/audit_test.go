package trace

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// goodLine is a line as harness/pipeline's Audit filter writes it.
const goodLine = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"b96a","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/pods/web/status","verb":"update","user":{"username":"system:node:node-1","groups":["system:nodes","system:authenticated"]},"impersonatedUser":{"username":"learner"},"sourceIPs":["127.0.0.1"],"userAgent":"Go-http-client/1.1","objectRef":{"resource":"pods","namespace":"default","name":"web","apiVersion":"v1","subresource":"status"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-12-06T20:36:53.614597Z","stageTimestamp":"2026-12-06T20:36:53.628237Z"}`

func TestParseAuditLine(t *testing.T) {
	got, err := ParseAuditLine([]byte(goodLine))
	if err != nil {
		t.Fatalf("ParseAuditLine(a pipeline line) = %v, want no error", err)
	}
	want := AuditEvent{Verb: "update", User: "system:node:node-1", Impersonated: "learner", Resource: "pods", Subresource: "status", Namespace: "default", Name: "web", Code: 200,
		Received: time.Date(2026, 12, 6, 20, 36, 53, 614597000, time.UTC), Done: time.Date(2026, 12, 6, 20, 36, 53, 628237000, time.UTC)}
	if got != want {
		t.Errorf("ParseAuditLine(a pipeline line) =\n %+v, want\n %+v", got, want)
	}
	if got.Actor() != "learner" {
		t.Errorf("AuditEvent.Actor() with an impersonated user = %q, want learner", got.Actor())
	}
	for _, c := range []struct{ name, line, want string }{
		{"empty", ``, "not an audit event"},
		{"not JSON", `hello`, "not an audit event"},
		{"truncated", goodLine[:len(goodLine)/2], "not an audit event"},
		{"a JSON array", `[1,2]`, "not an audit event"},
		{"another kind", `{"kind":"Pod","apiVersion":"v1","verb":"get","stageTimestamp":"2026-12-06T20:36:53Z"}`, "want Event audit.k8s.io/v1"},
		{"no verb", `{"kind":"Event","apiVersion":"audit.k8s.io/v1","stageTimestamp":"2026-12-06T20:36:53Z"}`, "without a verb"},
		{"no time", `{"kind":"Event","apiVersion":"audit.k8s.io/v1","verb":"get"}`, "stageTimestamp"},
		{"a bad time", `{"kind":"Event","apiVersion":"audit.k8s.io/v1","verb":"get","stageTimestamp":"yesterday"}`, "stageTimestamp"},
		{"a code that is a string", `{"kind":"Event","apiVersion":"audit.k8s.io/v1","verb":"get","responseStatus":{"code":"200"},"stageTimestamp":"2026-12-06T20:36:53Z"}`, "not an audit event"},
	} {
		_, err := ParseAuditLine([]byte(c.line))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "trace: ") {
			t.Errorf("ParseAuditLine(%s: %q) = %v, want an error \"trace: ...%s...\"", c.name, c.line, err, c.want)
		}
	}
}

func TestParseAudit(t *testing.T) {
	long := strings.Replace(goodLine, `"userAgent":"Go-http-client/1.1"`, `"userAgent":"`+strings.Repeat("x", 200_000)+`"`, 1)
	log := strings.Join([]string{
		goodLine,
		"",
		"{broken",
		long, // beyond bufio.Scanner's 64 KiB default
		`{"kind":"Event"}`,
		goodLine, // the last line, without its newline
	}, "\n")
	evs, skipped, err := ParseAudit(strings.NewReader(log))
	if err != nil || len(evs) != 3 || skipped != 2 {
		t.Errorf("ParseAudit(3 events, 2 broken lines, a blank one) = %d events, %d skipped, %v; want 3, 2, nil", len(evs), skipped, err)
	}
	readErr := errors.New("disk on fire")
	// A reader that fails after its first read: what was read is kept.
	evs, _, err = ParseAudit(iotest.TimeoutReader(bytes.NewReader([]byte(goodLine + "\n" + goodLine + "\n"))))
	if !errors.Is(err, iotest.ErrTimeout) || len(evs) != 2 {
		t.Errorf("ParseAudit(iotest.TimeoutReader(2 lines)) = %d events, %v; want 2 and %v", len(evs), err, iotest.ErrTimeout)
	}
	_, _, err = ParseAudit(iotest.ErrReader(readErr))
	if !errors.Is(err, readErr) {
		t.Errorf("ParseAudit(iotest.ErrReader(%v)) = %v, want it wrapped", readErr, err)
	}
}

// FuzzParseAudit: whatever the log holds, ParseAudit neither panics nor
// loses count: every non-blank line is an event or a skipped line.
func FuzzParseAudit(f *testing.F) {
	f.Add(goodLine + "\n")
	f.Add("{broken\n" + goodLine)
	f.Add(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","verb":"x","stageTimestamp":"2026-01-01T00:00:00Z","objectRef":null,"responseStatus":null,"impersonatedUser":null}`)
	f.Add("\n\n\x00\xff")
	f.Fuzz(func(t *testing.T, log string) {
		evs, skipped, err := ParseAudit(strings.NewReader(log))
		if err != nil {
			t.Fatalf("ParseAudit(%q) = %v, want no error from a strings.Reader", log, err)
		}
		n := 0
		for _, l := range strings.Split(log, "\n") {
			if strings.TrimSpace(l) != "" {
				n++
			}
		}
		if len(evs)+skipped != n {
			t.Errorf("ParseAudit(%q) = %d events + %d skipped, want %d lines in all", log, len(evs), skipped, n)
		}
		// Whatever parsed builds a timeline without a panic.
		Build(Input{Resource: "pods", Namespace: "default", Name: "web", Audit: evs})
	})
}
