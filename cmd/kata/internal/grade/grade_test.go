package grade

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
)

const manifest = `
exercises:
  - id: 01-alpha
    title: Alpha
    test: TestAlpha
    files: [alpha.go]
    steps:
      - {id: 01-one, title: One, points: 2, hints: [h]}
      - {id: 02-two, title: Two, points: 3, hints: [h]}
      - {id: 03-three, title: Three, points: 1, hints: [h]}
  - id: 02-beta
    title: Beta
    test: TestBeta
    files: [beta.go]
    steps:
      - {id: 01-uno, title: Uno, points: 4, hints: [h]}
      - {id: 02-dos, title: Dos, points: 5, hints: [h]}
`

func testCourse(t *testing.T) *course.Course {
	t.Helper()
	c, err := course.Parse([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sampleReport has every kind of verdict: passes, a failure with user
// output, an error, and a tampered file.
func sampleReport(t *testing.T) *Report {
	c := testCourse(t)
	a, b := &c.Exercises[0], &c.Exercises[1]
	long := strings.Repeat("x", 700)
	return &Report{
		Dir: "exercises",
		Exercises: []*Exercise{
			{Exercise: a, Dir: "exercises/01-alpha", Steps: []*Step{
				{Step: a.Steps[0], Number: 1, Status: Pass, Elapsed: 3 * time.Millisecond},
				{Step: a.Steps[1], Number: 2, Status: Fail, Message: "alpha_test.go:9: Plan(2) = 1, want 2\n    more", Output: "=== RUN   TestAlpha/02-two\ndebug from the learner\n    alpha_test.go:9: Plan(2) = 1, want 2\n--- FAIL: TestAlpha/02-two (0.00s)\n"},
				{Step: a.Steps[2], Number: 3, Status: Error, Message: "the step never finished"},
			}},
			{Exercise: b, Dir: "exercises/02-beta", Steps: []*Step{
				{Step: b.Steps[0], Number: 1, Status: Pass, Output: long + "\n"},
				{Step: b.Steps[1], Number: 2, Status: Fail, Message: "x ]]> y <z> & \"q\""},
			}},
		},
		Tampered: []Tamper{{Path: "harness/suite/suite.go", Change: "modified"}},
		Elapsed:  1500 * time.Millisecond,
	}
}

func TestReportTotals(t *testing.T) {
	r := sampleReport(t)
	if got, want := r.Points(), 2+4; got != want {
		t.Errorf("Points() = %d, want %d", got, want)
	}
	if got, want := r.MaxPoints(), 2+3+1+4+5; got != want {
		t.Errorf("MaxPoints() = %d, want %d", got, want)
	}
	if got := r.Status(); got != Fail {
		t.Errorf("Status() = %s, want fail", got)
	}
}

func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		steps []Status
		want  Status
	}{
		{[]Status{Pass, Pass}, Pass},
		{[]Status{Pass, Fail}, Fail},
		{[]Status{Error, Error}, Error},
		{[]Status{Error, Fail}, Fail},
		{nil, Error},
	} {
		var steps []*Step
		for _, s := range tc.steps {
			steps = append(steps, &Step{Status: s})
		}
		if got := overall(steps); got != tc.want {
			t.Errorf("overall(%v) = %s, want %s", tc.steps, got, tc.want)
		}
	}
}

func TestStepsGrammar(t *testing.T) {
	for n, want := range map[int]string{0: "0 steps", 1: "1 step", 2: "2 steps"} {
		if got := Steps(n); got != want {
			t.Errorf("Steps(%d) = %q, want %q", n, got, want)
		}
	}
}

// Every format adds up to the same points as the report.
func TestFormatsSumToSameTotal(t *testing.T) {
	r := sampleReport(t)
	want, wantMax := r.Points(), r.MaxPoints()

	t.Run("table", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteTable(&b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		total := "Total: " + strconv.Itoa(want) + "/" + strconv.Itoa(wantMax) + " points, 2 of 5 steps passed (fail)"
		for _, s := range []string{total, "01-alpha", "FAIL  02-two", "Plan(2) = 1, want 2", "ERROR 03-three", "modified  harness/suite/suite.go"} {
			if !strings.Contains(out, s) {
				t.Errorf("table lacks %q:\n%s", s, out)
			}
		}
		if strings.Contains(out, "alpha_test.go:9:") {
			t.Errorf("table keeps the file:line prefix of the message:\n%s", out)
		}
	})

	t.Run("table fits 80 columns", func(t *testing.T) {
		r := sampleReport(t)
		long := strings.Repeat("a long title ", 12)
		r.Exercises[0].Exercise.Title = long
		r.Exercises[0].Steps[0].Step.Title = long
		r.Exercises[0].Steps[1].Message = "alpha_test.go:9: " + strings.Repeat("Plan(2) = 1, want 2; ", 10)
		var b bytes.Buffer
		if err := WriteTable(&b, r); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(b.String(), "\n") {
			if n := utf8.RuneCountInString(line); n > 80 {
				t.Errorf("table line of %d columns, want at most 80: %q", n, line)
			}
		}
		if !strings.Contains(b.String(), "…") {
			t.Errorf("table does not mark the cut titles and messages with …:\n%s", b.String())
		}
	})

	t.Run("json", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteJSON(&b, r); err != nil {
			t.Fatal(err)
		}
		var res struct {
			Version   int
			Status    string
			Message   *string
			Points    int
			MaxPoints int `json:"max_points"`
			Tampered  []Tamper
			Tests     []struct {
				Name      string
				Status    string
				Message   *string
				Output    *string
				TestCode  string `json:"test_code"`
				TaskID    int    `json:"task_id"`
				Points    int
				MaxPoints int `json:"max_points"`
			}
		}
		if err := json.Unmarshal(b.Bytes(), &res); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, b.String())
		}
		if res.Version != 3 || res.Status != "fail" || res.Message != nil {
			t.Errorf("version, status, message = %d, %s, %v; want 3, fail, null", res.Version, res.Status, res.Message)
		}
		sum, max := 0, 0
		for _, tc := range res.Tests {
			sum += tc.Points
			max += tc.MaxPoints
			if tc.Output != nil && len([]rune(*tc.Output)) > 500 {
				t.Errorf("test %s: output has %d characters, want at most 500", tc.Name, len([]rune(*tc.Output)))
			}
			if tc.TestCode == "" {
				t.Errorf("test %s: no test_code", tc.Name)
			}
		}
		if sum != want || res.Points != want || max != wantMax || res.MaxPoints != wantMax {
			t.Errorf("points: tests sum %d/%d, top %d/%d; want %d/%d", sum, max, res.Points, res.MaxPoints, want, wantMax)
		}
		var ids []int
		for _, tc := range res.Tests {
			ids = append(ids, tc.TaskID)
		}
		if got := strconvInts(ids); got != "1,2,3,1,2" {
			t.Errorf("task ids = %s, want 1,2,3,1,2 (the step numbers, in course order)", got)
		}
		if res.Tests[1].Output == nil || *res.Tests[1].Output != "debug from the learner" {
			t.Errorf("output of a failed step = %v, want only what the learner printed", res.Tests[1].Output)
		}
		if res.Tests[0].Message != nil {
			t.Errorf("a passed step has message %q, want null", *res.Tests[0].Message)
		}
		if len(res.Tampered) != 1 {
			t.Errorf("tampered = %v, want the one file", res.Tampered)
		}
	})

	t.Run("junit", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteJUnit(&b, r); err != nil {
			t.Fatal(err)
		}
		var res struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Suites   []struct {
				Name  string `xml:"name,attr"`
				Props []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Text string `xml:",chardata"`
					} `xml:"failure"`
					Error *struct{} `xml:"error"`
					Props []struct {
						Name  string `xml:"name,attr"`
						Value string `xml:"value,attr"`
					} `xml:"properties>property"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(b.Bytes(), &res); err != nil {
			t.Fatalf("not XML: %v\n%s", err, b.String())
		}
		if res.Tests != 6 || res.Failures != 3 || res.Errors != 1 {
			t.Errorf("tests, failures, errors = %d, %d, %d; want 6, 3, 1 (5 steps and 1 protected file)", res.Tests, res.Failures, res.Errors)
		}
		sum, max := 0, 0
		for _, s := range res.Suites {
			for _, c := range s.Cases {
				for _, p := range c.Props {
					n, _ := strconv.Atoi(p.Value)
					switch p.Name {
					case "points":
						sum += n
					case "max_points":
						max += n
					}
				}
			}
		}
		if sum != want || max != wantMax {
			t.Errorf("testcase points add up to %d/%d, want %d/%d", sum, max, want, wantMax)
		}
		last := res.Suites[len(res.Suites)-1]
		if last.Name != IntegritySuite || len(last.Cases) != 1 || last.Cases[0].Name != "harness/suite/suite.go" {
			t.Errorf("last suite = %+v, want %s listing harness/suite/suite.go", last, IntegritySuite)
		}
		if got := res.Suites[1].Cases[1].Failure; got == nil || got.Text != "x ]]> y <z> & \"q\"" {
			t.Errorf("failure text = %+v, want the message unchanged through CDATA", got)
		}
	})

	t.Run("classroom", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteClassroom(&b, r); err != nil {
			t.Fatal(err)
		}
		line := strings.TrimSuffix(b.String(), "\n")
		if strings.Contains(line, "\n") {
			t.Fatalf("classroom output has several lines, want one:\n%s", b.String())
		}
		data, err := base64.StdEncoding.DecodeString(line)
		if err != nil {
			t.Fatalf("not base64: %v", err)
		}
		var res map[string]any
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
		if res["version"] != 1.0 || res["status"] != "fail" || res["max_score"] != float64(wantMax) {
			t.Errorf("version, status, max_score = %v, %v, %v; want 1, fail, %d", res["version"], res["status"], res["max_score"], wantMax)
		}
		sum := 0.0
		tests := res["tests"].([]any)
		for _, tc := range tests {
			m := tc.(map[string]any)
			for _, k := range []string{"name", "status", "score", "message", "test_code", "filename", "line_no", "duration"} {
				if _, ok := m[k]; !ok {
					t.Errorf("test %v has no %q", m["name"], k)
				}
			}
			sum += m["score"].(float64)
		}
		if sum != float64(want) {
			t.Errorf("scores add up to %v, want %d", sum, want)
		}
		if n := len(tests); n != 6 {
			t.Errorf("%d tests, want 6 (5 steps and the protected files)", n)
		}
	})
}

func strconvInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func TestJSONErrorStatusHasMessage(t *testing.T) {
	c := testCourse(t)
	a := &c.Exercises[0]
	r := &Report{Exercises: []*Exercise{{Exercise: a, Dir: "exercises/01-alpha", BuildFailed: true, BuildOutput: "alpha.go:3:1: syntax error", Steps: []*Step{
		{Step: a.Steps[0], Number: 1, Status: Error, Message: "the package does not compile"},
	}}}}
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Status  string
		Message *string
	}
	if err := json.Unmarshal(b.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != "error" || res.Message == nil || !strings.Contains(*res.Message, "alpha.go:3:1: syntax error") {
		t.Errorf("status, message = %s, %v; want error with the compiler's line", res.Status, res.Message)
	}
}

func TestUserOutputCapped(t *testing.T) {
	out := userOutput(strings.Repeat("é", 600))
	if n := len([]rune(out)); n != 500 {
		t.Errorf("capped output has %d characters, want 500", n)
	}
	if !strings.HasSuffix(out, "Output was truncated. Please limit to 500 chars") {
		t.Errorf("capped output does not say it was truncated: %q", out[len(out)-60:])
	}
}

func TestSelect(t *testing.T) {
	c := testCourse(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "01-alpha 02-beta"},
		{[]string{"2", "01"}, "01-alpha 02-beta"},
		{[]string{"alpha/02"}, "01-alpha[02-two]"},
		{[]string{"01/3", "01-alpha/01-one"}, "01-alpha[01-one,03-three]"},
		{[]string{"01/3", "01"}, "01-alpha"},
		{[]string{"exercises/02-beta/"}, "02-beta"},
	} {
		checkSelect(t, c, tc.args, tc.want)
	}
	if _, err := Select(c, []string{"gamma"}); err == nil || !strings.Contains(err.Error(), "01-alpha, 02-beta") {
		t.Errorf("Select(gamma) error = %v, want one that lists the exercises", err)
	}
	if _, err := Select(c, []string{"01/09"}); err == nil || !strings.Contains(err.Error(), "01-one, 02-two, 03-three") {
		t.Errorf("Select(01/09) error = %v, want one that lists the steps", err)
	}
}

// checkSelect checks Select(c, args) against want: the exercise ids in
// order, each with its steps in brackets when only some are selected.
func checkSelect(t *testing.T, c *course.Course, args []string, want string) {
	t.Helper()
	sel, err := Select(c, args)
	if err != nil {
		t.Errorf("Select(%q): %v", args, err)
		return
	}
	var parts []string
	for _, s := range sel {
		p := s.Exercise.ID
		if s.Steps != nil {
			p += "[" + strings.Join(s.Steps, ",") + "]"
		}
		parts = append(parts, p)
	}
	if got := strings.Join(parts, " "); got != want {
		t.Errorf("Select(%q) = %s, want %s", args, got, want)
	}
}

const alphaTest = "package alpha // pristine\n\nimport _ \"github.com/kubekata/kubekata/harness/suite\"\n"

// pristineFS is the kata's own copy of a tiny module: 01's tests use
// harness/suite, 02's use harness/betatest and harness/course.
func pristineFS() fstest.MapFS {
	return fstest.MapFS{
		"go.mod":                              {Data: []byte("module github.com/kubekata/kubekata\n\ngo 1.26\n")},
		"go.sum":                              {Data: []byte("")},
		"harness/suite/suite.go":              {Data: []byte("package suite\n")},
		"harness/suite/suite_test.go":         {Data: []byte("package suite\n")},
		"harness/course/course.yaml":          {Data: []byte(manifest)},
		"exercises/01-alpha/alpha.go":         {Data: []byte("package alpha\n")},
		"exercises/01-alpha/alpha_test.go":    {Data: []byte(alphaTest)},
		"exercises/02-beta/beta.go":           {Data: []byte("package beta\n")},
		"exercises/02-beta/beta_test.go":      {Data: []byte("package beta // pristine\n\nimport _ \"github.com/kubekata/kubekata/harness/betatest\"\n")},
		"harness/betatest/betatest.go":        {Data: []byte("package betatest\n\nimport _ \"github.com/kubekata/kubekata/harness/course\"\n")},
		"harness/course/course.go":            {Data: []byte("package course\n")},
		"harness/other/other.go":              {Data: []byte("package other\n")},
		"exercises/02-beta/testdata/seed.txt": {Data: []byte("x")},
	}
}

// writeTree copies fsys to a new directory and applies edits (nil
// content deletes).
func writeTree(t *testing.T, fsys fstest.MapFS, edits map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, f := range fsys {
		if _, edited := edits[name]; !edited {
			write(name, f.Data)
		}
	}
	for name, data := range edits {
		if data != nil {
			write(name, data)
		}
	}
	return dir
}

func TestScanFindsTampering(t *testing.T) {
	c := testCourse(t)
	root := writeTree(t, pristineFS(), map[string][]byte{
		"harness/suite/suite.go":           []byte("package suite // cheat\n"),
		"harness/suite/cheat.go":           []byte("package suite\n"),
		"harness/suite/suite_test.go":      nil,                       // harness tests do not count
		"harness/suite/more_test.go":       []byte("package suite\n"), // nor do added ones
		"harness/other/other.go":           []byte("package other // not in 01's tests\n"),
		"harness/course/course.yaml":       []byte("exercises: []\n"), // 02's, not 01's
		"harness/course/.course.yaml.swp":  []byte("editor junk"),     // go ignores it
		"exercises/01-alpha/alpha_test.go": nil,
		"exercises/01-alpha/cheat_test.go": []byte("package alpha\n"),
		"exercises/01-alpha/alpha.go":      []byte("package alpha // the learner's work\n"),
		"go.mod":                           []byte("module github.com/kubekata/kubekata\n\ngo 1.26\n\nreplace github.com/stretchr/testify => ./fake\n"),
	})
	p, err := scan(root, pristineFS(), []*course.Exercise{&c.Exercises[0]}, "exercises")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tm := range p.tampered {
		got = append(got, tm.String())
	}
	want := []string{
		"added exercises/01-alpha/cheat_test.go",
		"deleted exercises/01-alpha/alpha_test.go",
		"modified go.mod",
		"added harness/suite/cheat.go",
		"modified harness/suite/suite.go",
	}
	if strings.Join(sortedCopy(got), "\n") != strings.Join(sortedCopy(want), "\n") {
		t.Errorf("tampered =\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}

	// The overlay puts back every pristine protected file and removes
	// the extra ones.
	tmp := t.TempDir()
	name, err := p.writeOverlay(tmp, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ov struct{ Replace map[string]string }
	data, _ := os.ReadFile(name)
	if err := json.Unmarshal(data, &ov); err != nil {
		t.Fatal(err)
	}
	abs := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	for rel, want := range map[string]string{
		"exercises/01-alpha/alpha_test.go": alphaTest,
		"harness/other/other.go":           "package other\n",
		"harness/suite/suite.go":           "package suite\n",
		"harness/course/course.yaml":       manifest, // put back, though not reported
		"go.mod":                           "module github.com/kubekata/kubekata\n\ngo 1.26\n",
	} {
		to, ok := ov.Replace[abs(rel)]
		if !ok {
			t.Errorf("overlay does not replace %s", rel)
			continue
		}
		if b, _ := os.ReadFile(to); string(b) != want {
			t.Errorf("overlay gives %s as %q, want %q", rel, b, want)
		}
	}
	for _, rel := range []string{"exercises/01-alpha/cheat_test.go", "harness/suite/cheat.go"} {
		if to, ok := ov.Replace[abs(rel)]; !ok || to != "" {
			t.Errorf("overlay maps %s to %q (present: %v), want it removed", rel, to, ok)
		}
	}
	for _, rel := range []string{"exercises/01-alpha/alpha.go", "harness/suite/suite_test.go", "exercises/02-beta/beta_test.go"} {
		if _, ok := ov.Replace[abs(rel)]; ok {
			t.Errorf("overlay touches %s, which is not protected in this run", rel)
		}
	}
}

func sortedCopy(s []string) []string {
	c := append([]string{}, s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return c
}

// Run maps go test's events onto steps: a crash costs only the steps that
// had not finished, and the go command runs with the overlay and a
// readonly module.
// A test binary that holds the learner's code and does not finish by
// itself earns nothing at all: the code that crashed it could have
// printed the passes before it (forge, then crash). go test runs with a
// scrubbed environment.
func TestRunLegacyCrashVoidsTheBinary(t *testing.T) {
	t.Setenv("GOFLAGS", "-toolexec=/tmp/evil")
	t.Setenv("GITHUB_ENV", "/tmp/github_env")
	t.Setenv("GOEXPERIMENT", "nocoverageredesign")
	c := testCourse(t)
	root := writeTree(t, pristineFS(), nil)
	var got gotest.Options
	fake := func(ctx context.Context, opts gotest.Options) (*gotest.Report, error) {
		got = opts
		if _, ok := ctx.Deadline(); !ok {
			t.Error("go test runs without a deadline")
		}
		ip := course.ModulePath + "/exercises/01-alpha"
		return &gotest.Report{Packages: map[string]*gotest.Package{
			ip: {ImportPath: ip, Action: "fail", Output: "panic: boom [recovered]\n", Tests: map[string]*gotest.Test{
				"TestAlpha":        {Name: "TestAlpha", Action: ""},
				"TestAlpha/01-one": {Name: "TestAlpha/01-one", Action: "pass", Elapsed: 0.25},
				"TestAlpha/02-two": {Name: "TestAlpha/02-two", Action: ""},
			}},
		}}, nil
	}
	sel, _ := Select(c, []string{"01"})
	r, err := Run(context.Background(), Options{Root: root, Pristine: pristineFS(), Course: c, Select: sel, GoTest: fake})
	if err != nil {
		t.Fatal(err)
	}
	var st []string
	for _, s := range r.Steps() {
		st = append(st, string(s.Status))
	}
	if strings.Join(st, " ") != "error error error" || r.Points() != 0 {
		t.Errorf("step statuses = %v with %d points, want error error error and 0", st, r.Points())
	}
	if msg := r.Steps()[0].Message; !strings.Contains(msg, "did not finish by itself") || !strings.Contains(msg, "panic: boom") {
		t.Errorf("step 01 message = %q, want the reason and the binary's output", msg)
	}
	if r.Exercises[0].Isolated {
		t.Errorf("Isolated = true for an exercise without a binding, want false")
	}
	if got.Overlay == "" || got.Timeout != DefaultPackageTimeout || got.Run != "^(TestAlpha)$" {
		t.Errorf("go test options = %+v, want an overlay, -timeout %v and -run ^(TestAlpha)$", got, DefaultPackageTimeout)
	}
	env := strings.Join(append(got.Environ, got.Env...), "\n")
	for _, want := range []string{"GOWORK=off", "GOFLAGS=-mod=readonly -buildvcs=false -trimpath", "GOTOOLCHAIN=local", "GOENV=off", "PWD=" + root} {
		if !strings.Contains(env, want) {
			t.Errorf("go test env %q lacks %q", env, want)
		}
	}
	for _, bad := range []string{"toolexec", "GITHUB_ENV", "GOEXPERIMENT"} {
		if strings.Contains(env, bad) {
			t.Errorf("go test env %q holds %q from the caller's environment", env, bad)
		}
	}
	if got.Environ == nil {
		t.Errorf("go test inherits kata's environment, want a whole one of its own")
	}
	if _, err := os.Stat(got.Overlay); !os.IsNotExist(err) {
		t.Errorf("the overlay %s is still there after the run (err %v)", got.Overlay, err)
	}
}

// An isolated grader is built from the harness alone: the verdicts it
// printed before it crashed stand, and only the steps it had not finished
// earn nothing.
func TestIsolatedCrashCostsOnlyUnfinishedSteps(t *testing.T) {
	c := testCourse(t)
	a := &c.Exercises[0]
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "exercises", a.ID), 0o755); err != nil {
		t.Fatal(err)
	}
	ip := course.ModulePath + "/exercises/01-alpha"
	gr := &gotest.Report{Packages: map[string]*gotest.Package{
		ip: {ImportPath: ip, Output: "panic: test timed out after 3m0s\n", Tests: map[string]*gotest.Test{
			"TestAlpha":        {Name: "TestAlpha", Action: ""},
			"TestAlpha/01-one": {Name: "TestAlpha/01-one", Action: "pass", Elapsed: 0.25},
			"TestAlpha/02-two": {Name: "TestAlpha/02-two", Action: ""},
		}},
	}}
	e := exerciseResult(gr, Selection{Exercise: a}, "exercises", root, true)
	var st []string
	for _, s := range e.Steps {
		st = append(st, string(s.Status))
	}
	if strings.Join(st, " ") != "pass error error" || e.Points() != 2 || !e.Isolated {
		t.Errorf("isolated steps = %v with %d points (isolated %v), want pass error error, 2, true", st, e.Points(), e.Isolated)
	}
	if e.Steps[0].Elapsed != 250*time.Millisecond {
		t.Errorf("first step took %v, want 250ms", e.Steps[0].Elapsed)
	}
}

// A test binary that edits a protected file while the tests run voids the
// run.
func TestRunVoidsChangesDuringTheRun(t *testing.T) {
	c := testCourse(t)
	root := writeTree(t, pristineFS(), nil)
	fake := func(ctx context.Context, opts gotest.Options) (*gotest.Report, error) {
		if err := os.WriteFile(filepath.Join(root, "harness", "betatest", "betatest.go"), []byte("package betatest // rewritten\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ip := course.ModulePath + "/exercises/02-beta"
		return &gotest.Report{Packages: map[string]*gotest.Package{ip: {ImportPath: ip, Action: "pass", Tests: map[string]*gotest.Test{
			"TestBeta/01-uno": {Action: "pass"}, "TestBeta/02-dos": {Action: "pass"},
		}}}}, nil
	}
	sel, _ := Select(c, []string{"02"})
	r, err := Run(context.Background(), Options{Root: root, Pristine: pristineFS(), Course: c, Select: sel, GoTest: fake})
	if err != nil {
		t.Fatal(err)
	}
	if r.Points() != 0 || !strings.Contains(r.Message, "changed while the tests ran") {
		t.Errorf("points = %d, message %q; want 0 and a message that says why", r.Points(), r.Message)
	}
	if len(r.Tampered) != 1 || r.Tampered[0].Change != "modified while grading" {
		t.Errorf("tampered = %v, want betatest.go modified while grading", r.Tampered)
	}
}

func TestRunMissingExercise(t *testing.T) {
	c := testCourse(t)
	root := writeTree(t, pristineFS(), map[string][]byte{
		"exercises/02-beta/beta.go": nil, "exercises/02-beta/beta_test.go": nil, "exercises/02-beta/testdata/seed.txt": nil,
	})
	os.RemoveAll(filepath.Join(root, "exercises", "02-beta"))
	called := false
	fake := func(ctx context.Context, opts gotest.Options) (*gotest.Report, error) {
		called = true
		return &gotest.Report{Packages: map[string]*gotest.Package{}}, nil
	}
	sel, _ := Select(c, []string{"02"})
	r, err := Run(context.Background(), Options{Root: root, Pristine: pristineFS(), Course: c, Select: sel, GoTest: fake})
	if err != nil {
		t.Fatal(err)
	}
	if called {
		t.Error("go test ran with no package to test")
	}
	if r.Status() != Error || !strings.Contains(r.Steps()[0].Message, "exercises/02-beta is missing") {
		t.Errorf("status %s, message %q; want error saying the directory is missing", r.Status(), r.Steps()[0].Message)
	}
}

func TestWorkflow(t *testing.T) {
	c := testCourse(t)
	data, err := Workflow(WorkflowOptions{Version: "v0.3.0", GoVersion: "1.26.x", Exercises: []*course.Exercise{&c.Exercises[0], &c.Exercises[1]}})
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Name  string
			Steps []struct {
				Name string
				ID   string
				Uses string
				Run  string
				Env  map[string]string
				With map[string]any
			}
		}
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, data)
	}
	job := wf.Jobs["run-autograding-tests"]
	var order []string
	var reporter map[string]string
	var runners, gradeRun string
	for _, s := range job.Steps {
		switch {
		case strings.Contains(s.Run, "go install github.com/kubekata/kubekata/cmd/kata@v0.3.0"):
			order = append(order, "install")
		case s.ID == RunnerID:
			order = append(order, "grade")
			gradeRun = s.Run
			if s.Env["KATA"] != "${{ runner.temp }}/kata/kata" {
				t.Errorf("the grade step runs kata from %q, want the pinned one in runner.temp", s.Env["KATA"])
			}
		case strings.HasPrefix(s.Uses, "classroom-resources/autograding-grading-reporter@"):
			order = append(order, "report")
			reporter = s.Env
			runners = s.With["runners"].(string)
		case strings.HasPrefix(s.Uses, "classroom-resources/autograding-command-grader@"):
			t.Errorf("step %s uses the command grader: every verdict must come from the one grade step", s.ID)
		case s.Run != "":
			order = append(order, "run: "+s.Run)
		}
	}
	// Nothing of the student's runs before the grade step, and only the
	// reporter after it.
	if got := strings.Join(order, ", "); got != "install, grade, report" {
		t.Errorf("steps = %s, want install, grade, report:\n%s", got, data)
	}
	for _, want := range []string{`sudo -E env "PATH=$PATH" "$KATA" grade --format classroom -o "$RESULT" 01-alpha 02-beta`, `"$GITHUB_OUTPUT"`} {
		if !strings.Contains(gradeRun, want) {
			t.Errorf("grade step runs %q, want it to contain %q", gradeRun, want)
		}
	}
	if strings.Contains(gradeRun, "go run") || strings.Contains(gradeRun, "./cmd/kata") {
		t.Errorf("grade step runs %q, the student's own kata", gradeRun)
	}
	if runners != RunnerID || reporter["KATA_RESULTS"] != "${{steps.kata.outputs.result}}" {
		t.Errorf("reporter runners %q env %v, want kata and KATA_RESULTS from the grade step", runners, reporter)
	}
	if job.Name != "Autograding Tests" {
		t.Errorf("job name %q, want Autograding Tests (the reporter finds its check run by it)", job.Name)
	}
	if _, err := Workflow(WorkflowOptions{Exercises: []*course.Exercise{&c.Exercises[0]}}); err == nil {
		t.Error("Workflow without a version: no error")
	}
}

func TestExportLeavesSolutionsOut(t *testing.T) {
	root := writeTree(t, pristineFS(), map[string][]byte{
		"README.md":                           []byte("# kata\n"),
		"cmd/kata/main.go":                    []byte("package main\n\nfunc main() {}\n"),
		"solutions/01-alpha/alpha.go":         []byte("package alpha\n\n// Plan returns the plan.\nfunc Plan(n int) int {\n\tcurrentReplicaCount := n * 2\n\tdesiredReplicaCount := currentReplicaCount + 1\n\treturn desiredReplicaCount - currentReplicaCount\n}\n"),
		"exercises/01-alpha/alpha.go":         []byte("package alpha // the teacher solved it here\n"),
		".git/config":                         []byte("[core]\n"),
		".kata/progress":                      []byte("{}"),
		"harness/alphatest/alphatest_test.go": []byte("package alphatest\n\nimport _ \"github.com/kubekata/kubekata/solutions/01-alpha\"\n"),
		"internal/tool/main_test.go.txt":      []byte("nothing"),
	})
	pristine := pristineFS()
	pristine["harness/alphatest/alphatest_test.go"] = &fstest.MapFile{Data: []byte("package alphatest\n\nimport _ \"github.com/kubekata/kubekata/solutions/01-alpha\"\n")}
	dest := filepath.Join(t.TempDir(), "student")
	res, err := Export(ExportOptions{Root: root, Pristine: pristine, Dir: dest})
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"solutions", ".git", ".kata", "harness/alphatest/alphatest_test.go"} {
		if _, err := os.Stat(filepath.Join(dest, gone)); !os.IsNotExist(err) {
			t.Errorf("the copy has %s", gone)
		}
	}
	for rel, want := range map[string]string{
		"exercises/01-alpha/alpha.go": "package alpha\n", // pristine, not the teacher's
		"README.md":                   "# kata\n",
		"harness/suite/suite.go":      "package suite\n",
	} {
		if b, err := os.ReadFile(filepath.Join(dest, rel)); err != nil || string(b) != want {
			t.Errorf("copy's %s = %q (%v), want %q", rel, b, err, want)
		}
	}
	if len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0], "alphatest_test.go") {
		t.Errorf("dropped = %v, want the harness test that imports solutions", res.Dropped)
	}

	// An existing, non-empty directory is refused.
	if _, err := Export(ExportOptions{Root: root, Pristine: pristine, Dir: dest}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("second export into %s: %v, want a refusal", dest, err)
	}

	// A file that carries a solution's code is refused, and nothing is
	// written.
	leaky := writeTree(t, pristineFS(), map[string][]byte{
		"solutions/01-alpha/alpha.go": []byte("package alpha\n\nfunc Plan(n int) int {\n\tcurrentReplicaCount := n * 2\n\tdesiredReplicaCount := currentReplicaCount + 1\n\treturn desiredReplicaCount - currentReplicaCount\n}\n"),
		"docs/walkthrough.md":         []byte("Here is how:\n\n    currentReplicaCount := n * 2\n    desiredReplicaCount := currentReplicaCount + 1\n    return desiredReplicaCount - currentReplicaCount\n"),
	})
	dest2 := filepath.Join(t.TempDir(), "student")
	if _, err := Export(ExportOptions{Root: leaky, Pristine: pristineFS(), Dir: dest2}); err == nil || !strings.Contains(err.Error(), "docs/walkthrough.md has 3 lines of solutions/01-alpha/alpha.go") {
		t.Errorf("export of a leaky checkout: %v, want a refusal naming docs/walkthrough.md", err)
	}
	if _, err := os.Stat(dest2); !os.IsNotExist(err) {
		t.Errorf("a refused export still wrote %s", dest2)
	}
	// Plumbing the exercise ships as the solution has it is given code,
	// not a leak; a copy of a solution file that differs still is.
	given := "package beta\n\nfunc decodeTheWireFormat(b []byte) string { return string(b) }\n"
	pristine3 := pristineFS()
	pristine3["exercises/02-beta/wire.go"] = &fstest.MapFile{Data: []byte(given)}
	plumbed := writeTree(t, pristine3, map[string][]byte{"solutions/02-beta/wire.go": []byte(given)})
	if _, err := Export(ExportOptions{Root: plumbed, Pristine: pristine3, Dir: filepath.Join(t.TempDir(), "s3")}); err != nil {
		t.Errorf("export with given plumbing identical in exercise and solution: %v, want it written", err)
	}
	plumbed = writeTree(t, pristine3, map[string][]byte{"solutions/02-beta/wire.go": []byte(given + "// the reference's own\n"), "docs/wire.go.txt": []byte(given + "// the reference's own\n")})
	if _, err := Export(ExportOptions{Root: plumbed, Pristine: pristine3, Dir: filepath.Join(t.TempDir(), "s4")}); err == nil || !strings.Contains(err.Error(), "docs/wire.go.txt is a copy of solutions/02-beta/wire.go") {
		t.Errorf("export with a copy of a solution file that the exercise does not ship: %v, want a refusal", err)
	}
}

// The whole run is bounded: when the deadline passes, go test is stopped;
// its binary held the learner's code and did not finish, so no step
// earns anything.
func TestRunWholeRunDeadline(t *testing.T) {
	c := testCourse(t)
	root := writeTree(t, pristineFS(), nil)
	fake := func(ctx context.Context, opts gotest.Options) (*gotest.Report, error) {
		<-ctx.Done()
		ip := course.ModulePath + "/exercises/01-alpha"
		return &gotest.Report{Packages: map[string]*gotest.Package{ip: {ImportPath: ip, Tests: map[string]*gotest.Test{
			"TestAlpha/01-one": {Action: "pass"}, "TestAlpha/02-two": {},
		}}}}, fmt.Errorf("gotest: go test stopped: %w", ctx.Err())
	}
	sel, _ := Select(c, []string{"01"})
	r, err := Run(context.Background(), Options{Root: root, Pristine: pristineFS(), Course: c, Select: sel, GoTest: fake, Timeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var st []string
	for _, s := range r.Steps() {
		st = append(st, string(s.Status))
	}
	if strings.Join(st, " ") != "error error error" || r.Points() != 0 {
		t.Errorf("steps %v with %d points, want error error error and 0", st, r.Points())
	}
	if !strings.Contains(r.Message, "did not finish within 20ms") {
		t.Errorf("message %q, want one that gives the bound", r.Message)
	}
}

// CheckShipped refuses a copy in which any step passes as shipped.
func TestCheckShipped(t *testing.T) {
	c := testCourse(t)
	root := writeTree(t, pristineFS(), nil)
	passOne := false
	fake := func(ctx context.Context, opts gotest.Options) (*gotest.Report, error) {
		rep := &gotest.Report{Packages: map[string]*gotest.Package{}}
		for _, e := range c.Exercises {
			ip := course.ModulePath + "/" + e.ExerciseDir()
			p := &gotest.Package{ImportPath: ip, Action: "fail", Tests: map[string]*gotest.Test{e.Test: {Name: e.Test, Action: "fail"}}}
			for i, s := range e.Steps {
				action := "fail"
				if passOne && e.ID == "02-beta" && i == 1 {
					action = "pass"
				}
				p.Tests[e.TestPath(s)] = &gotest.Test{Name: e.TestPath(s), Action: action, Output: "not implemented: X\n"}
			}
			rep.Packages[ip] = p
		}
		return rep, nil
	}
	opts := Options{Root: root, Pristine: pristineFS(), Course: c, GoTest: fake}
	r, err := CheckShipped(context.Background(), opts)
	if err != nil || r.Passed() != 0 {
		t.Fatalf("CheckShipped(every step failing) = %v, %d passed; want nil, 0", err, r.Passed())
	}
	passOne = true
	_, err = CheckShipped(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "02-beta/02-dos pass as shipped") {
		t.Errorf("CheckShipped(02-beta/02-dos passing) = %v, want an error naming it", err)
	}
}

// Whatever bytes the learner's code prints (an ANSI colour escape,
// test2json's \x16, invalid UTF-8, a NUL), every format stays parseable and
// shows them as escapes.
func TestFormatsSurviveAnyBytes(t *testing.T) {
	c := testCourse(t)
	a := &c.Exercises[0]
	nasty := "panic: \x1b[31mred\x1b[0m\x16--- PASS: TestAlpha/01-one\r\x00 \xff\xfe ok \u0085 \ufffe ]]> é"
	gr := &gotest.Report{Packages: map[string]*gotest.Package{
		course.ModulePath + "/exercises/01-alpha": {Action: "fail", Tests: map[string]*gotest.Test{
			"TestAlpha":          {Action: "fail"},
			"TestAlpha/01-one":   {Action: "fail", Output: nasty + "\n"},
			"TestAlpha/02-two":   {Action: "fail", Output: "    x_test.go:1: " + nasty + "\n"},
			"TestAlpha/03-three": {Action: "pass"},
		}},
	}}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "exercises", a.ID), 0o755); err != nil {
		t.Fatal(err)
	}
	e := exerciseResult(gr, Selection{Exercise: a}, "exercises", root, false)
	r := &Report{Dir: "exercises", Exercises: []*Exercise{e}, Tampered: []Tamper{{Path: Printable("harness/\x1b[2Jx.go"), Change: "added"}}}
	for _, format := range Formats {
		var b bytes.Buffer
		if err := Write(&b, r, format); err != nil {
			t.Fatalf("Write(%s) = %v, want nil", format, err)
		}
		out := b.Bytes()
		switch format {
		case "junit":
			var v junitSuites
			if err := xml.Unmarshal(out, &v); err != nil {
				t.Errorf("xml.Unmarshal(junit) = %v, want nil:\n%s", err, out)
			}
		case "json":
			var v map[string]any
			if err := json.Unmarshal(out, &v); err != nil {
				t.Errorf("json.Unmarshal(json) = %v, want nil", err)
			}
		case "classroom":
			data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(out)))
			var v ClassroomResult
			if err == nil {
				err = json.Unmarshal(data, &v)
			}
			if err != nil {
				t.Errorf("decoding the classroom result = %v, want nil", err)
			}
			out = data
		}
		if !utf8.Valid(out) {
			t.Errorf("Write(%s) wrote invalid UTF-8", format)
		}
		for _, bad := range []string{"\x1b", "\x16", "\x00", "\r"} {
			if bytes.Contains(out, []byte(bad)) {
				t.Errorf("Write(%s) output holds the raw byte %q, want it escaped", format, bad)
			}
		}
		if format != "classroom" && !bytes.Contains(out, []byte(`\x1b[31mred`)) && !bytes.Contains(out, []byte(`\\x1b[31mred`)) {
			t.Errorf("Write(%s) output lacks the escaped colour code \\x1b[31mred:\n%s", format, out)
		}
	}
	if got, want := Printable("a\x1bb\xffc\td\n\u0085é"), `a\x1bb\xffc`+"\td\n"+`\x85é`; got != want {
		t.Errorf("Printable = %q, want %q", got, want)
	}
	if s := "plain\ttext é\n"; Printable(s) != s {
		t.Errorf("Printable(%q) = %q, want it unchanged", s, Printable(s))
	}
}
