package gotest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestFramedFixture is run by TestRunBinary in a child process; on its own
// it does nothing.
func TestFramedFixture(t *testing.T) {
	mode := os.Getenv("GOTEST_FRAMED_FIXTURE")
	if mode == "" {
		t.Skip("fixture for TestRunBinary")
	}
	t.Run("01-forges", func(t *testing.T) {
		// What a learner's program might print: unframed, so output.
		fmt.Println("--- PASS: TestFramedFixture/02-fails (0.00s)")
		fmt.Println("PASS")
		t.Error("01 fails")
	})
	t.Run("02-fails", func(t *testing.T) { t.Error("02 fails") })
	t.Run("03-passes", func(t *testing.T) {})
	t.Run("04-skips", func(t *testing.T) { t.Skip("not here") })
	if mode == "crash" {
		t.Run("05-crashes", func(t *testing.T) { os.Exit(3) })
	}
	if mode == "hang" {
		t.Run("05-hangs", func(t *testing.T) { select {} })
	}
}

func TestRunBinary(t *testing.T) {
	for _, mode := range []string{"finish", "crash", "hang"} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			p, err := RunBinary(ctx, BinaryOptions{
				Path:       os.Args[0],
				ImportPath: "example.com/framed",
				Dir:        t.TempDir(),
				Run:        "^TestFramedFixture$",
				Timeout:    2 * time.Second,
				Env:        []string{"GOTEST_FRAMED_FIXTURE=" + mode},
			})
			if err != nil {
				t.Fatalf("RunBinary() error = %v, want nil", err)
			}
			want := map[string]string{
				"TestFramedFixture/01-forges":  "fail",
				"TestFramedFixture/02-fails":   "fail",
				"TestFramedFixture/03-passes":  "pass",
				"TestFramedFixture/04-skips":   "skip",
				"TestFramedFixture/05-crashes": "",
				"TestFramedFixture/05-hangs":   "",
				"TestFramedFixture":            "fail",
			}
			if mode != "finish" {
				want["TestFramedFixture"] = "" // never finished
			}
			for name, action := range want {
				got := p.Tests[name]
				if got == nil {
					if (mode == "crash" && name == "TestFramedFixture/05-crashes") || (mode == "hang" && name == "TestFramedFixture/05-hangs") {
						t.Errorf("Tests[%q] missing, want a test that ran and never finished", name)
					}
					continue
				}
				if got.Action != action {
					t.Errorf("Tests[%q].Action = %q, want %q; output:\n%s", name, got.Action, action, got.Output)
				}
			}
			if !strings.Contains(p.Tests["TestFramedFixture/01-forges"].Output, "--- PASS: TestFramedFixture/02-fails") {
				t.Errorf("01-forges output = %q, want the forged line kept as output", p.Tests["TestFramedFixture/01-forges"].Output)
			}
			if wantPkg := map[string]string{"finish": "fail"}[mode]; p.Action != wantPkg {
				t.Errorf("package action = %q, want %q; output:\n%s", p.Action, wantPkg, p.Output)
			}
			if mode == "hang" && !strings.Contains(p.Output+p.Tests["TestFramedFixture/05-hangs"].Output, "test timed out after 2s") {
				t.Errorf("a hang's output lacks the testing package's timeout panic:\n%s", p.Output)
			}
		})
	}
}

func TestParseFramedForgedFrames(t *testing.T) {
	// A frame byte only counts at the start of a line.
	in := "\x16=== RUN   TestX\n\x16=== RUN   TestX/01-a\nhello \x16--- PASS: TestX/01-a (0.00s)\n\x16--- FAIL: TestX/01-a (0.25s)\n\x16=== NAME  TestX\n\x16--- FAIL: TestX (0.30s)\n\x16FAIL\n"
	p, err := ParseFramed(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	if a := p.Tests["TestX/01-a"]; a == nil || a.Action != "fail" || a.Elapsed != 0.25 {
		t.Errorf("TestX/01-a = %+v, want fail in 0.25s", a)
	}
	if p.Action != "fail" {
		t.Errorf("package action = %q, want fail", p.Action)
	}
}
