package planted

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestEditedRefusesOldNotOnce(t *testing.T) {
	read := func(string) ([]byte, error) { return []byte("a := 1\nb := 2\nb := 2\n"), nil }
	for _, tc := range []struct {
		old  string
		want string
	}{
		{"c := 3", `solutions/00-x/f.go holds "c := 3" 0 times, want once: the reference changed; plant the bug anew`},
		{"b := 2", `solutions/00-x/f.go holds "b := 2" 2 times, want once: the reference changed; plant the bug anew`},
	} {
		_, err := edited(read, "solutions/00-x", []Edit{{File: "f.go", Old: tc.old, New: "x"}})
		if err == nil || err.Error() != tc.want {
			t.Errorf("edit of %q: error %v, want %q", tc.old, err, tc.want)
		}
	}
}

func TestEditedChainsEditsOfOneFile(t *testing.T) {
	reads := 0
	read := func(file string) ([]byte, error) {
		reads++
		return []byte("one two three"), nil
	}
	files, err := edited(read, "s", []Edit{
		{File: "f.go", Old: "one", New: "two"},
		// The first edit made "two" occur twice.
		{File: "f.go", Old: "two three", New: "3"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"f.go": "two 3"}; fmt.Sprint(files) != fmt.Sprint(want) || reads != 1 {
		t.Fatalf("got %q after %d reads, want %q after 1", files, reads, want)
	}
	// A file that cannot be read is the read's error.
	_, err = edited(func(string) ([]byte, error) { return nil, os.ErrNotExist }, "s", []Edit{{File: "f.go", Old: "a", New: "b"}})
	if err != os.ErrNotExist {
		t.Fatalf("an unreadable file: error %v, want %v", err, os.ErrNotExist)
	}
}

// fatalTB is a testing.TB whose Fatal and Fatalf record the message and
// end the goroutine, as testing's do.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatal(args ...any) { f.msg = fmt.Sprint(args...); runtime.Goexit() }
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestPlant(t *testing.T) {
	root := t.TempDir()
	sol := filepath.Join("solutions", "00-x")
	if err := os.MkdirAll(filepath.Join(root, sol), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package x\n\nvar a = 1\n"
	if err := os.WriteFile(filepath.Join(root, sol, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}

	overlay := Plant(t, root, sol, []Edit{{File: "x.go", Old: "a = 1", New: "a = 2"}})
	data, err := os.ReadFile(overlay)
	if err != nil {
		t.Fatal(err)
	}
	var o struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatal(err)
	}
	planted, ok := o.Replace[filepath.Join(root, sol, "x.go")]
	if len(o.Replace) != 1 || !ok {
		t.Fatalf("overlay %s, want x.go replaced, only", data)
	}
	if b, err := os.ReadFile(planted); err != nil || string(b) != "package x\n\nvar a = 2\n" {
		t.Fatalf("the planted x.go: %q, %v; want a = 2", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, sol, "x.go")); string(b) != src {
		t.Fatalf("the reference's x.go became %q", b)
	}

	// An Old the file holds twice is fatal, with the message.
	if err := os.WriteFile(filepath.Join(root, sol, "y.go"), []byte("b b"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Plant(f, root, sol, []Edit{{File: "y.go", Old: "b", New: "c"}})
		f.msg = "Plant returned"
	}()
	<-done
	if want := fmt.Sprintf("%s/y.go holds \"b\" 2 times, want once", sol); !strings.HasPrefix(f.msg, want) {
		t.Fatalf("Plant of an Old held twice: %q, want it fatal with %q", f.msg, want)
	}
}

func TestResultsAndCompare(t *testing.T) {
	out := []byte(`=== RUN   TestX/01-a
    --- PASS: TestX/01-a (0.00s)
    --- FAIL: TestX/02-b-c (0.10s)
    --- FAIL: TestXY/03-d (0.00s)
    --- SKIP: TestX/04-e (0.00s)
    --- PASS: TestX/05-f (0.00s)
`)
	failed, passed := Results(StepLine("TestX"), out)
	if !slices.Equal(failed, []string{"02-b-c"}) || !slices.Equal(passed, []string{"01-a", "05-f"}) {
		t.Fatalf("failed %v, passed %v; want [02-b-c], [01-a 05-f]", failed, passed)
	}
	missed, extra := compare(Bug{Fails: []string{"01-a", "02-b"}, Racy: []string{"03-c"}}, []string{"02-b", "03-c", "04-d"})
	if !slices.Equal(missed, []string{"01-a"}) || !slices.Equal(extra, []string{"04-d"}) {
		t.Fatalf("missed %v, extra %v; want [01-a], [04-d]", missed, extra)
	}
}

func TestConfigValidate(t *testing.T) {
	good := Config{SolutionDir: "s", Test: "TestX", Steps: []string{"01-a"}, ChildEnv: "X", Noun: "an x", Slots: 2, Timeout: time.Minute}
	if err := good.validate(); err != nil {
		t.Fatalf("%+v: %v", good, err)
	}
	if err := (Config{}).validate(); err == nil || !strings.Contains(err.Error(), "no SolutionDir") || !strings.Contains(err.Error(), "Slots 0, want at least 1") {
		t.Fatalf("an empty Config: %v, want every missing field named", err)
	}
}

func TestSkips(t *testing.T) {
	cfg := Config{Root: t.TempDir(), SolutionDir: "solutions/00-x", Test: "TestX", Steps: []string{"01-a"}, ChildEnv: "PLANTED_TEST_CHILD", Noun: "an x", Slots: 1, Timeout: time.Minute}
	bugs := map[string]Bug{"b": {Edits: []Edit{{File: "x.go", Old: "a", New: "b"}}, Fails: []string{"01-a"}}}
	// A learner's copy: no solutions/.
	t.Run("no-solution-apply", func(t *testing.T) {
		Apply(t, cfg, bugs)
		t.Error("Apply without the reference did not skip")
	})
	t.Run("no-solution-check", func(t *testing.T) {
		if testing.Short() {
			t.Skip("Check skips under -short before it looks")
		}
		Check(t, cfg, bugs)
		t.Error("Check without the reference did not skip")
	})
	// A child process.
	t.Setenv(cfg.ChildEnv, "1")
	t.Run("child-apply", func(t *testing.T) {
		Apply(t, cfg, bugs)
		t.Error("Apply in a child process did not skip")
	})
	t.Run("child-check", func(t *testing.T) {
		Check(t, cfg, bugs)
		t.Error("Check in a child process did not skip")
	})
}

func TestFuncSource(t *testing.T) {
	src := "package p\n\n// f does.\nfunc f() int {\n\treturn 1\n}\n\nfunc (r *T) g() {}\n"
	if got, want := FuncSource(t, "p.go", src, "f"), "func f() int {\n\treturn 1\n}"; got != want {
		t.Errorf("FuncSource(f) = %q, want %q", got, want)
	}
	if got, want := FuncSource(t, "p.go", src, "g"), "func (r *T) g() {}"; got != want {
		t.Errorf("FuncSource(g) = %q, want %q", got, want)
	}
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); FuncSource(f, "p.go", src, "h") }()
	<-done
	if want := "planted: p.go has no func h"; f.msg != want {
		t.Errorf("FuncSource(h) failed with %q, want %q", f.msg, want)
	}
}

// A partial is the reference's file over the scaffold's, with the
// functions kept the scaffold's, then its edits; the imports that only
// the reference's own versions used become blank imports.
func TestPartials(t *testing.T) {
	root := t.TempDir()
	ex, sol := filepath.Join("exercises", "00-x"), filepath.Join("solutions", "00-x")
	files := map[string]string{
		filepath.Join(ex, "x.go"):  "package x\n\n// f is a stub.\nfunc f() string {\n\tpanic(\"not implemented: f\")\n}\n\nfunc g() int { panic(\"not implemented: g\") }\n",
		filepath.Join(sol, "x.go"): "package x\n\nimport (\n\t\"strings\"\n\tstr \"strconv\"\n)\n\n// f is the reference.\nfunc f() string {\n\treturn strings.ToUpper(\"a\")\n}\n\nfunc g() int { n, _ := str.Atoi(\"1\"); return n }\n",
	}
	for name, src := range files {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bugs := Partials(t, root, ex, sol, map[string]Partial{
		"f-written": {Files: []string{"x.go"}, Keep: map[string][]string{"x.go": {"g"}},
			Edits: []Edit{{File: "x.go", Old: "ToUpper", New: "ToLower"}}, Fails: []string{"02-g"}},
	})
	got, err := edited(func(f string) ([]byte, error) { return os.ReadFile(filepath.Join(root, ex, f)) }, ex, bugs["f-written"].Edits)
	if err != nil {
		t.Fatal(err)
	}
	want := "package x\n\nimport (\n\t\"strings\"\n\t_ \"strconv\"\n)\n\n// f is the reference.\nfunc f() string {\n\treturn strings.ToLower(\"a\")\n}\n\nfunc g() int { panic(\"not implemented: g\") }\n"
	if got["x.go"] != want {
		t.Errorf("the partial's x.go:\n%s\nwant:\n%s", got["x.go"], want)
	}
	if f := bugs["f-written"].Fails; !slices.Equal(f, []string{"02-g"}) {
		t.Errorf("the partial's Fails = %v, want [02-g]", f)
	}
}
