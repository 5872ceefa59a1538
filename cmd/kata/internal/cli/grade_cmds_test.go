package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"
	"sigs.k8s.io/yaml"

	"github.com/kubekata/kubekata/cmd/kata/internal/grade"
	"github.com/kubekata/kubekata/harness/course"
)

// The grade and classroom scenarios' commands. They parse a report or a
// workflow, check its shape against the course manifest (so that the
// scenarios do not depend on which exercises exist), and print a short
// normalised summary for the scenario to match:
//
//	status fail
//	total 10/25
//	exercise 01-reconcile 10/10
//	tampered modified harness/suite/suite.go
func init() {
	scriptCmds["grade-shape"] = cmdGradeShape
	scriptCmds["workflow-check"] = cmdWorkflowCheck
	scriptCmds["grader-copy"] = cmdGraderCopy
	scriptCmds["write-path"] = cmdWritePath
}

// scriptCondition adds the scenarios' own conditions: [root] holds when
// the scenarios run as root, so kata grade runs the learner's code as
// nobody (an attack on kata's own files is only stopped then; as any other
// user it would succeed on the shared caches, so it is not attempted).
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "root":
		return os.Geteuid() == 0, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// cmdGraderCopy: grader-copy install FILE copies the kata under test to a
// fresh directory any user can reach (as a Classroom workflow installs its
// pinned kata), sets $GRADER to it, and writes its path into FILE (for a
// learner's program to embed and attack); grader-copy check fails unless
// the copy is still byte for byte the kata under test.
func cmdGraderCopy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || (args[0] == "install") != (len(args) == 2) {
		ts.Fatalf("usage: grader-copy install FILE | grader-copy check")
	}
	kata, err := exec.LookPath("kata")
	ts.Check(err)
	want, err := os.ReadFile(kata)
	ts.Check(err)
	switch args[0] {
	case "install":
		dir, err := os.MkdirTemp("/tmp", "kata-grader-")
		ts.Check(err)
		ts.Defer(func() { os.RemoveAll(dir) })
		ts.Check(os.Chmod(dir, 0o755))
		path := filepath.Join(dir, "kata")
		ts.Check(os.WriteFile(path, want, 0o755))
		ts.Setenv("GRADER", path)
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(path), 0o644))
	case "check":
		got, err := os.ReadFile(ts.Getenv("GRADER"))
		ts.Check(err)
		if !bytes.Equal(got, want) {
			ts.Fatalf("the grader %s was changed: %d bytes, want the kata's %d", ts.Getenv("GRADER"), len(got), len(want))
		}
		entries, err := os.ReadDir(filepath.Dir(ts.Getenv("GRADER")))
		ts.Check(err)
		if len(entries) != 1 {
			ts.Fatalf("the grader's directory holds %d files, want only kata", len(entries))
		}
	default:
		ts.Fatalf("usage: grader-copy install FILE | grader-copy check")
	}
}

// cmdWritePath: write-path FILE GOENV-VAR [REL] writes the value of a go
// env variable (such as GOMODCACHE), joined with REL, into FILE, for a
// learner's program to embed.
func cmdWritePath(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: write-path FILE GOENV-VAR [REL]")
	}
	out, err := exec.Command("go", "env", args[1]).Output()
	ts.Check(err)
	p := strings.TrimSpace(string(out))
	if len(args) == 3 {
		matches, err := filepath.Glob(filepath.Join(p, args[2]))
		ts.Check(err)
		if len(matches) == 0 {
			ts.Fatalf("write-path: nothing matches %s under %s", args[2], p)
		}
		p = matches[0]
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(p), 0o644))
}

// shape is what every format must agree on.
type shape struct {
	status   string
	points   map[string]int // exercise -> earned
	tampered []string
}

// cmdGradeShape: grade-shape json|junit|classroom FILE [EXERCISE...]
// checks FILE against the manifest's steps and points for the named
// exercises (all by default) and prints the summary.
func cmdGradeShape(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: grade-shape json|junit|classroom FILE [EXERCISE...]")
	}
	c := course.MustLoad()
	sel, err := grade.Select(c, args[2:])
	ts.Check(err)
	var exs []*course.Exercise
	for _, s := range sel {
		e := s.Exercise
		if s.Steps != nil {
			// Only the selected steps are graded.
			part := *e
			part.Steps = nil
			for _, st := range e.Steps {
				if slices.Contains(s.Steps, st.ID) {
					part.Steps = append(part.Steps, st)
				}
			}
			e = &part
		}
		exs = append(exs, e)
	}
	data := []byte(ts.ReadFile(args[1]))
	var sh shape
	switch args[0] {
	case "json":
		sh = jsonShape(ts, data, exs)
	case "junit":
		sh = junitShape(ts, data, exs)
	case "classroom":
		sh = classroomShape(ts, data, exs)
	default:
		ts.Fatalf("grade-shape: unknown format %q", args[0])
	}
	total, max := 0, 0
	var lines []string
	for _, e := range exs {
		total += sh.points[e.ID]
		max += e.Points()
		lines = append(lines, fmt.Sprintf("exercise %s %d/%d", e.ID, sh.points[e.ID], e.Points()))
	}
	fmt.Fprintf(ts.Stdout(), "status %s\ntotal %d/%d\n%s\n", sh.status, total, max, strings.Join(lines, "\n"))
	for _, t := range sh.tampered {
		fmt.Fprintf(ts.Stdout(), "tampered %s\n", t)
	}
}

// wantStep is step i of the graded steps, in course order.
type wantStep struct {
	e *course.Exercise
	n int
	s course.Step
}

func wantSteps(exs []*course.Exercise) []wantStep {
	var ws []wantStep
	for _, e := range exs {
		for _, s := range e.Steps {
			ws = append(ws, wantStep{e, courseNumber(e.ID, s.ID), s})
		}
	}
	return ws
}

// courseNumber is a step's number in its exercise (or a story's in the
// capstone) in the manifest, whichever steps were graded.
func courseNumber(exercise, step string) int {
	c := course.MustLoad()
	var steps []string
	if exercise == course.CapstoneID {
		for _, s := range c.Capstone.Stories {
			steps = append(steps, s.ID)
		}
	} else if e, err := c.Exercise(exercise); err == nil {
		steps = e.StepIDs()
	}
	return slices.Index(steps, step) + 1
}

func checkStatus(ts *testscript.TestScript, where, s string) {
	switch s {
	case "pass", "fail", "error":
	default:
		ts.Fatalf("%s: status %q, want pass, fail or error", where, s)
	}
}

func jsonShape(ts *testscript.TestScript, data []byte, exs []*course.Exercise) shape {
	var res struct {
		Version   *int             `json:"version"`
		Status    string           `json:"status"`
		Message   *string          `json:"message"`
		Points    int              `json:"points"`
		MaxPoints int              `json:"max_points"`
		Tampered  []grade.Tamper   `json:"tampered"`
		Tests     []map[string]any `json:"tests"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		ts.Fatalf("results.json: %v", err)
	}
	if res.Version == nil || *res.Version != 3 {
		ts.Fatalf("results.json: version %v, want 3", res.Version)
	}
	checkStatus(ts, "results.json", res.Status)
	if (res.Status == "error") != (res.Message != nil) {
		ts.Fatalf("results.json: status %s with message %v: a message goes with error, and only with it", res.Status, res.Message)
	}
	ws := wantSteps(exs)
	if len(res.Tests) != len(ws) {
		ts.Fatalf("results.json: %d tests, want %d (every step of %d exercises)", len(res.Tests), len(ws), len(exs))
	}
	sh := shape{status: res.Status, points: map[string]int{}}
	sum := 0
	for i, t := range res.Tests {
		w := ws[i]
		where := fmt.Sprintf("results.json test %d", i+1)
		name, _ := t["name"].(string)
		if !strings.HasPrefix(name, w.e.ID+"/"+w.s.ID+": ") {
			ts.Fatalf("%s: name %q, want %s/%s first (course order)", where, name, w.e.ID, w.s.ID)
		}
		status, _ := t["status"].(string)
		checkStatus(ts, where, status)
		if id, _ := t["task_id"].(float64); int(id) != w.n {
			ts.Fatalf("%s: task_id %v, want %d", where, t["task_id"], w.n)
		}
		if code, _ := t["test_code"].(string); code == "" {
			ts.Fatalf("%s: no test_code", where)
		}
		if out, ok := t["output"].(string); ok && utf8.RuneCountInString(out) > 500 {
			ts.Fatalf("%s: output of %d characters, want at most 500", where, utf8.RuneCountInString(out))
		}
		pts, _ := t["points"].(float64)
		if max, _ := t["max_points"].(float64); int(max) != w.s.Points {
			ts.Fatalf("%s: max_points %v, want the manifest's %d", where, max, w.s.Points)
		}
		if (status == "pass") != (int(pts) == w.s.Points) {
			ts.Fatalf("%s: status %s with %v points of %d", where, status, pts, w.s.Points)
		}
		sh.points[w.e.ID] += int(pts)
		sum += int(pts)
	}
	if sum != res.Points {
		ts.Fatalf("results.json: tests earn %d points, the top says %d", sum, res.Points)
	}
	for _, t := range res.Tampered {
		sh.tampered = append(sh.tampered, t.String())
	}
	return sh
}

func junitShape(ts *testscript.TestScript, data []byte, exs []*course.Exercise) shape {
	type prop struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	var res struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
			Props    []prop `xml:"properties>property"`
			Cases    []struct {
				Name    string    `xml:"name,attr"`
				Props   []prop    `xml:"properties>property"`
				Failure *struct{} `xml:"failure"`
				Error   *struct{} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &res); err != nil {
		ts.Fatalf("junit: %v", err)
	}
	propInt := func(ps []prop, name string) int {
		for _, p := range ps {
			if p.Name == name {
				n, err := strconv.Atoi(p.Value)
				ts.Check(err)
				return n
			}
		}
		ts.Fatalf("junit: no %s property", name)
		return 0
	}
	sh := shape{points: map[string]int{}}
	tests, failures, errs, pass := 0, 0, 0, 0
	suites := res.Suites
	if n := len(suites); n > 0 && suites[n-1].Name == grade.IntegritySuite {
		for _, c := range suites[n-1].Cases {
			if c.Failure == nil {
				ts.Fatalf("junit: protected file %s is not a failure", c.Name)
			}
			sh.tampered = append(sh.tampered, c.Name)
		}
		tests += suites[n-1].Tests
		failures += suites[n-1].Failures
		suites = suites[:n-1]
	}
	if len(suites) != len(exs) {
		ts.Fatalf("junit: %d test suites, want %d", len(suites), len(exs))
	}
	for i, s := range suites {
		e := exs[i]
		if s.Name != e.ID || len(s.Cases) != len(e.Steps) || s.Tests != len(e.Steps) {
			ts.Fatalf("junit: suite %d is %s with %d cases, want %s with %d", i+1, s.Name, len(s.Cases), e.ID, len(e.Steps))
		}
		sum, f, er := 0, 0, 0
		for j, c := range s.Cases {
			st := e.Steps[j]
			if !strings.HasPrefix(c.Name, st.ID+": ") {
				ts.Fatalf("junit: %s case %d is %q, want %s first", e.ID, j+1, c.Name, st.ID)
			}
			pts := propInt(c.Props, "points")
			if propInt(c.Props, "max_points") != st.Points {
				ts.Fatalf("junit: %s/%s max_points differ from the manifest's %d", e.ID, st.ID, st.Points)
			}
			switch {
			case c.Failure != nil && c.Error != nil:
				ts.Fatalf("junit: %s/%s has both a failure and an error", e.ID, st.ID)
			case c.Failure != nil:
				f++
			case c.Error != nil:
				er++
			default:
				pass++
				if pts != st.Points {
					ts.Fatalf("junit: %s/%s passed with %d of %d points", e.ID, st.ID, pts, st.Points)
				}
			}
			sum += pts
		}
		if s.Failures != f || s.Errors != er {
			ts.Fatalf("junit: suite %s counts %d failures, %d errors; its cases have %d, %d", e.ID, s.Failures, s.Errors, f, er)
		}
		if propInt(s.Props, "points") != sum || propInt(s.Props, "max_points") != e.Points() {
			ts.Fatalf("junit: suite %s points properties disagree with its cases (%d) or the manifest (%d)", e.ID, sum, e.Points())
		}
		sh.points[e.ID] = sum
		tests += s.Tests
		failures += f
		errs += er
	}
	if res.Tests != tests || res.Failures != failures || res.Errors != errs {
		ts.Fatalf("junit: testsuites counts %d/%d/%d, the suites add up to %d/%d/%d", res.Tests, res.Failures, res.Errors, tests, failures, errs)
	}
	total := len(wantSteps(exs))
	switch {
	case pass == total:
		sh.status = "pass"
	case errs == total:
		sh.status = "error"
	default:
		sh.status = "fail"
	}
	return sh
}

func classroomShape(ts *testscript.TestScript, data []byte, exs []*course.Exercise) shape {
	line := strings.TrimSpace(string(data))
	raw, err := base64.StdEncoding.DecodeString(line)
	if err != nil {
		ts.Fatalf("classroom: not one line of base64: %v", err)
	}
	var res struct {
		Version  int    `json:"version"`
		Status   string `json:"status"`
		MaxScore int    `json:"max_score"`
		Tests    []struct {
			Name     string  `json:"name"`
			Status   string  `json:"status"`
			Score    *int    `json:"score"`
			Message  *string `json:"message"`
			TestCode *string `json:"test_code"`
			Filename *string `json:"filename"`
			LineNo   *int    `json:"line_no"`
			Duration *int64  `json:"duration"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		ts.Fatalf("classroom: %v", err)
	}
	if res.Version != 1 {
		ts.Fatalf("classroom: version %d, want 1", res.Version)
	}
	checkStatus(ts, "classroom", res.Status)
	ws := wantSteps(exs)
	max := 0
	for _, e := range exs {
		max += e.Points()
	}
	if res.MaxScore != max {
		ts.Fatalf("classroom: max_score %d, want the manifest's %d", res.MaxScore, max)
	}
	if len(res.Tests) < len(ws) {
		ts.Fatalf("classroom: %d tests, want %d", len(res.Tests), len(ws))
	}
	sh := shape{status: res.Status, points: map[string]int{}}
	for i, t := range res.Tests {
		if t.Score == nil || t.Message == nil || t.TestCode == nil || t.Filename == nil || t.LineNo == nil || t.Duration == nil {
			ts.Fatalf("classroom: test %d (%s) lacks one of score, message, test_code, filename, line_no, duration", i+1, t.Name)
		}
		checkStatus(ts, "classroom test "+t.Name, t.Status)
		if i >= len(ws) {
			if *t.Score != 0 {
				ts.Fatalf("classroom: extra test %q scores %d", t.Name, *t.Score)
			}
			sh.tampered = append(sh.tampered, strings.Split(*t.Message, "\n")...)
			continue
		}
		w := ws[i]
		if !strings.HasPrefix(t.Name, w.e.ID+"/"+w.s.ID+": ") {
			ts.Fatalf("classroom: test %d is %q, want %s/%s first", i+1, t.Name, w.e.ID, w.s.ID)
		}
		if (t.Status == "pass") != (*t.Score == w.s.Points) {
			ts.Fatalf("classroom: %s status %s with score %d of %d", t.Name, t.Status, *t.Score, w.s.Points)
		}
		sh.points[w.e.ID] += *t.Score
	}
	return sh
}

// cmdWorkflowCheck: workflow-check FILE VERSION checks a Classroom
// workflow: kata installed at VERSION, then one step that grades every
// exercise of the course with it (never the student's own kata) into the
// reporter's result, then the reporter, and nothing else that runs; it
// prints "graders N" (steps that grade) and "exercises E".
func cmdWorkflowCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: workflow-check FILE VERSION")
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				ID   string            `json:"id"`
				Uses string            `json:"uses"`
				Run  string            `json:"run"`
				Env  map[string]string `json:"env"`
				With map[string]any    `json:"with"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	ts.Check(yaml.Unmarshal([]byte(ts.ReadFile(args[0])), &wf))
	if len(wf.Jobs) != 1 {
		ts.Fatalf("workflow: %d jobs, want 1", len(wf.Jobs))
	}
	c := course.MustLoad()
	var order []string
	graders, exercises := 0, 0
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			switch {
			case strings.Contains(s.Run, "go install "+course.ModulePath+"/cmd/kata@"+args[1]):
				order = append(order, "install")
			case strings.Contains(s.Run, " grade "):
				order = append(order, "grade")
				graders++
				if strings.Contains(s.Run, "go run") || strings.Contains(s.Run, "./cmd/kata") || s.Env["KATA"] != "${{ runner.temp }}/kata/kata" {
					ts.Fatalf("workflow: step %s runs %q with KATA=%q, not the pinned kata", s.ID, s.Run, s.Env["KATA"])
				}
				for i := range c.Exercises {
					if strings.Contains(s.Run, " "+c.Exercises[i].ID) {
						exercises++
					}
				}
				if s.ID != grade.RunnerID || !strings.Contains(s.Run, "--format classroom") || !strings.Contains(s.Run, "GITHUB_OUTPUT") {
					ts.Fatalf("workflow: grade step %q runs %q, want id %s writing the classroom result to its output", s.ID, s.Run, grade.RunnerID)
				}
			case strings.HasPrefix(s.Uses, "classroom-resources/autograding-command-grader@"):
				ts.Fatalf("workflow: step %s is a command grader, which runs student code after the grade", s.ID)
			case strings.HasPrefix(s.Uses, "classroom-resources/autograding-grading-reporter@"):
				order = append(order, "report")
				runners, _ := s.With["runners"].(string)
				if runners != grade.RunnerID || s.Env[grade.ResultsVar(grade.RunnerID)] != "${{steps."+grade.RunnerID+".outputs.result}}" {
					ts.Fatalf("workflow: reporter runners %q, env %v; want the grade step's result", runners, s.Env)
				}
			case s.Run != "":
				order = append(order, "run")
			}
		}
	}
	if got := strings.Join(order, ","); got != "install,grade,report" {
		ts.Fatalf("workflow: steps that run are %s, want install,grade,report", got)
	}
	fmt.Fprintf(ts.Stdout(), "graders %d\nexercises %d\n", graders, exercises)
}
