package grade

import (
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Formats are the names Write accepts.
var Formats = []string{"table", "json", "junit", "classroom"}

// Write writes the report in one of Formats.
func Write(w io.Writer, r *Report, format string) error {
	switch format {
	case "", "table":
		return WriteTable(w, r)
	case "json":
		return WriteJSON(w, r)
	case "junit":
		return WriteJUnit(w, r)
	case "classroom":
		return WriteClassroom(w, r)
	}
	return fmt.Errorf("grade: unknown format %q; the formats are: %s", format, strings.Join(Formats, ", "))
}

// tableWidth is the width the human report fits in: a terminal's 80
// columns.
const tableWidth = 80

// WriteTable writes the human report: one line per exercise and per step,
// with the first line of each failure under its step, the protected files
// that were ignored, and the total. Every line fits in tableWidth columns.
func WriteTable(w io.Writer, r *Report) error {
	for _, e := range r.Exercises {
		row(w, e.Exercise.ID+"  "+e.Exercise.Title, fmt.Sprintf("%d/%d", e.Points(), e.MaxPoints()))
		for _, s := range e.Steps {
			row(w, "  "+mark(s.Status)+" "+s.Step.ID+"  "+s.Step.Title, fmt.Sprintf("%d/%d", s.Score(), s.Step.Points))
			if msg := firstLine(s.Message, tableWidth-stepIndent); s.Status != Pass && msg != "" {
				fmt.Fprintf(w, "%*s%s\n", stepIndent, "", msg)
			}
		}
	}
	for _, e := range r.Exercises {
		if e.BuildFailed {
			fmt.Fprintf(w, "\n%s does not compile:\n%s\n", e.Dir, indent(strings.TrimSpace(e.BuildOutput), "  "))
		}
		if e.Refused != "" {
			fmt.Fprintf(w, "\n%s was not graded:\n%s\n", e.Dir, indent(wrapWords(e.Refused, tableWidth-2), "  "))
		}
	}
	if len(r.Tampered) > 0 {
		fmt.Fprintf(w, "\nProtected files that differ from the kata's copy (graded with the kata's):\n")
		for _, t := range r.Tampered {
			fmt.Fprintf(w, "  %-9s %s\n", t.Change, t.Path)
		}
	}
	if ids := r.NotIsolated(); len(ids) > 0 {
		fmt.Fprintf(w, "\nNot isolated (the learner's code ran inside the grading test binary):\n  %s\n", strings.Join(ids, ", "))
	}
	if r.Message != "" {
		fmt.Fprintf(w, "\n%s\n", r.Message)
	}
	_, err := fmt.Fprintf(w, "\nTotal: %d/%d points, %d of %s passed (%s)\n", r.Points(), r.MaxPoints(), r.Passed(), Steps(len(r.Steps())), r.Status())
	return err
}

// stepIndent is where a failure's line starts, under the step's id.
const stepIndent = 10

// row writes left and right on one line of tableWidth columns, cutting
// left (with …) when both do not fit.
func row(w io.Writer, left, right string) {
	left = clip(left, tableWidth-1-utf8.RuneCountInString(right))
	pad := tableWidth - utf8.RuneCountInString(left) - utf8.RuneCountInString(right)
	fmt.Fprintf(w, "%s%s%s\n", left, strings.Repeat(" ", max(1, pad)), right)
}

func mark(s Status) string {
	switch s {
	case Pass:
		return "pass "
	case Error:
		return "ERROR"
	}
	return "FAIL "
}

// logPrefix is the file:line go test puts before a test's log line.
var logPrefix = regexp.MustCompile(`^[\w.-]+\.go:\d+: `)

// firstLine is the first non-empty line of s without its file:line
// prefix, cut to n runes.
// A line that ends in ":" introduces the next one, which joins it.
func firstLine(s string, n int) string {
	var parts []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		parts = append(parts, logPrefix.ReplaceAllString(line, ""))
		if !strings.HasSuffix(line, ":") {
			break
		}
	}
	// A tab would start a new column of the table.
	return clip(strings.ReplaceAll(strings.Join(parts, " "), "\t", " "), n)
}

// Steps is "1 step" or "n steps".
func Steps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// wrapWords breaks each line of s between words so that it fits in n
// columns where it can (a word longer than n stays whole).
func wrapWords(s string, n int) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		cur := ""
		for _, w := range strings.Fields(line) {
			if cur != "" && utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > n {
				out = append(out, cur)
				cur = ""
			}
			if cur != "" {
				cur += " "
			}
			cur += w
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// TestCode is the command that runs one step by itself.
func TestCode(e *Exercise, s *Step) string {
	if s.Scenario != "" {
		return "kata scenario " + s.Scenario
	}
	return fmt.Sprintf("go test -run '^%s$/^%s$' ./%s", e.Exercise.Test, s.Step.ID, e.Dir)
}

// TestName is a step's name in the machine formats.
func TestName(e *Exercise, s *Step) string {
	return fmt.Sprintf("%s/%s: %s", e.Exercise.ID, s.Step.ID, s.Step.Title)
}

// exercismOutputLimit is the most the Exercism spec allows in a test's
// output.
const exercismOutputLimit = 500

// userOutput keeps what the implementation printed itself during a step:
// go test indents everything the test logs (failures included) and frames
// the rest with === and --- lines, so the lines left are the learner's.
func userOutput(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "",
			strings.HasPrefix(line, " "), strings.HasPrefix(line, "\t"),
			strings.HasPrefix(t, "=== "), strings.HasPrefix(t, "--- "),
			t == "PASS", t == "FAIL":
			continue
		}
		keep = append(keep, line)
	}
	s := strings.Join(keep, "\n")
	if utf8.RuneCountInString(s) > exercismOutputLimit {
		const note = "\nOutput was truncated. Please limit to 500 chars"
		r := []rune(s)
		s = string(r[:exercismOutputLimit-utf8.RuneCountInString(note)]) + note
	}
	return s
}

type exercismResults struct {
	Version int            `json:"version"`
	Status  Status         `json:"status"`
	Message *string        `json:"message"`
	Tests   []exercismTest `json:"tests"`

	// Extensions: Exercism's readers ignore keys they do not know.
	Points    int      `json:"points"`
	MaxPoints int      `json:"max_points"`
	Tampered  []Tamper `json:"tampered"`
	Note      string   `json:"note,omitempty"`
	// NotIsolated lists the exercises whose learner's code ran inside
	// the test binary that gave the verdicts.
	NotIsolated []string `json:"not_isolated,omitempty"`
}

type exercismTest struct {
	Name     string  `json:"name"`
	Status   Status  `json:"status"`
	Message  *string `json:"message"`
	Output   *string `json:"output"`
	TestCode string  `json:"test_code"`
	TaskID   int     `json:"task_id"`

	// Extensions.
	Exercise  string `json:"exercise"`
	Step      string `json:"step"`
	Points    int    `json:"points"`
	MaxPoints int    `json:"max_points"`
}

// WriteJSON writes Exercism's test-runner results.json, version 3: the
// overall status (pass, fail, or error when no step ran), the tests in
// course order with their task_id (the step's task number in the
// exercise README), and the points as extension keys.
func WriteJSON(w io.Writer, r *Report) error {
	res := exercismResults{
		Version:     3,
		Status:      r.Status(),
		Tests:       []exercismTest{},
		Points:      r.Points(),
		MaxPoints:   r.MaxPoints(),
		Tampered:    append([]Tamper{}, r.Tampered...),
		Note:        r.Message,
		NotIsolated: r.NotIsolated(),
	}
	if res.Status == Error {
		msg := errorMessage(r)
		res.Message = &msg
	}
	for _, e := range r.Exercises {
		for _, s := range e.Steps {
			t := exercismTest{
				Name:      TestName(e, s),
				Status:    s.Status,
				TestCode:  TestCode(e, s),
				TaskID:    s.Number,
				Exercise:  e.Exercise.ID,
				Step:      s.Step.ID,
				Points:    s.Score(),
				MaxPoints: s.Step.Points,
			}
			if s.Status != Pass && s.Message != "" {
				m := s.Message
				t.Message = &m
			}
			if out := userOutput(s.Output); out != "" {
				t.Output = &out
			}
			res.Tests = append(res.Tests, t)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// errorMessage says why nothing ran: the compiler's lines, or the run's
// own message.
func errorMessage(r *Report) string {
	var parts []string
	if r.Message != "" {
		parts = append(parts, r.Message)
	}
	for _, e := range r.Exercises {
		if e.BuildFailed {
			parts = append(parts, e.Dir+" does not compile:\n"+strings.TrimSpace(e.BuildOutput))
		} else if len(e.Steps) > 0 && e.Steps[0].Message != "" {
			parts = append(parts, e.Dir+": "+e.Steps[0].Message)
		}
	}
	if len(parts) == 0 {
		return "no step was graded"
	}
	return strings.Join(parts, "\n\n")
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemErr  *junitText      `xml:"system-err"`
}

// junitText is element text in a CDATA section, which keeps multi-line
// output readable (the encoder splits any "]]>" in it).
type junitText struct {
	Text string `xml:",cdata"`
}

func cdata(s string) *junitText {
	if s == "" {
		return nil
	}
	return &junitText{s}
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name       string          `xml:"name,attr"`
	Classname  string          `xml:"classname,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Failure    *junitProblem   `xml:"failure"`
	Error      *junitProblem   `xml:"error"`
	SystemOut  *junitText      `xml:"system-out"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// IntegritySuite is the JUnit test suite that lists the protected files
// grading ignored, one failed test case each.
const IntegritySuite = "protected-files"

// WriteJUnit writes JUnit XML: a testsuite per exercise (with its points
// and max_points as properties), a testcase per step with a failure or
// error element, and, when protected files were changed, a testsuite that
// lists each as a failure.
func WriteJUnit(w io.Writer, r *Report) error {
	out := junitSuites{Name: "kubekata", Time: seconds(r.Elapsed.Seconds())}
	for _, e := range r.Exercises {
		s := junitSuite{
			Name: e.Exercise.ID,
			Time: seconds(e.Elapsed().Seconds()),
			Properties: []junitProperty{
				{"points", fmt.Sprint(e.Points())},
				{"max_points", fmt.Sprint(e.MaxPoints())},
				{"isolated", fmt.Sprint(e.Isolated)},
			},
		}
		if e.BuildFailed {
			s.SystemErr = cdata(strings.TrimSpace(e.BuildOutput))
		}
		for _, st := range e.Steps {
			c := junitCase{
				Name:      st.Step.ID + ": " + st.Step.Title,
				Classname: e.Dir,
				Time:      seconds(st.Elapsed.Seconds()),
				Properties: []junitProperty{
					{"points", fmt.Sprint(st.Score())},
					{"max_points", fmt.Sprint(st.Step.Points)},
				},
			}
			problem := &junitProblem{Message: firstLine(st.Message, 200), Type: string(st.Status), Text: st.Message}
			switch st.Status {
			case Fail:
				c.Failure = problem
				s.Failures++
			case Error:
				c.Error = problem
				s.Errors++
			}
			c.SystemOut = cdata(userOutput(st.Output))
			s.Cases = append(s.Cases, c)
			s.Tests++
		}
		out.Suites = append(out.Suites, s)
	}
	if len(r.Tampered) > 0 {
		s := junitSuite{Name: IntegritySuite, Time: "0.000"}
		for _, t := range r.Tampered {
			s.Cases = append(s.Cases, junitCase{
				Name:      t.Path,
				Classname: IntegritySuite,
				Time:      "0.000",
				Failure: &junitProblem{
					Message: t.Change + ": ignored, graded with the kata's own copy",
					Type:    "tampered",
				},
			})
			s.Tests++
			s.Failures++
		}
		out.Suites = append(out.Suites, s)
	}
	for _, s := range out.Suites {
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// Printable makes text the learner's code printed safe for every format:
// a byte that is not valid UTF-8 becomes \xNN, and a control character
// other than newline and tab (an ANSI colour escape, test2json's \x16
// framing byte, a carriage return), or a character XML 1.0 does not allow
// (U+FFFE, U+FFFF), becomes its Go escape (\x1b, \u0085), so the JUnit XML
// parses and a terminal shows the bytes instead of obeying them. Text
// that is already printable comes back unchanged.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if !printableRune(r) {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case printableRune(r):
			b.WriteString(s[i : i+n])
		case r < 0x100:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
		i += n
	}
	return b.String()
}

// printableRune says whether r may stand as itself in every format.
func printableRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return true
	case unicode.IsControl(r), r == 0xFFFE, r == 0xFFFF:
		return false
	}
	return true
}

// ClassroomResult is GitHub Classroom's autograding result, version 1: what
// classroom-resources/autograding-command-grader puts, base64-encoded, in
// its `result` output and autograding-grading-reporter reads from the
// <RUNNER>_RESULTS variables. The reporter adds up tests[].score into the
// points it sends to Classroom, against max_score.
type ClassroomResult struct {
	Version  int             `json:"version"`
	Status   Status          `json:"status"`
	MaxScore int             `json:"max_score"`
	Tests    []ClassroomTest `json:"tests"`
}

// ClassroomTest is one test of a ClassroomResult.
type ClassroomTest struct {
	Name     string `json:"name"`
	Status   Status `json:"status"`
	Score    int    `json:"score"`
	Message  string `json:"message"`
	TestCode string `json:"test_code"`
	Filename string `json:"filename"`
	LineNo   int    `json:"line_no"`
	// Duration is in milliseconds, as the command grader reports it.
	Duration int64 `json:"duration"`
}

// Classroom builds the Classroom result of a report: one test per step,
// scored with the step's points when it passed; when protected files were
// changed, one more test worth nothing that lists them.
func Classroom(r *Report) ClassroomResult {
	res := ClassroomResult{Version: 1, Status: r.Status(), MaxScore: r.MaxPoints(), Tests: []ClassroomTest{}}
	for _, e := range r.Exercises {
		for _, s := range e.Steps {
			t := ClassroomTest{
				Name:     TestName(e, s),
				Status:   s.Status,
				Score:    s.Score(),
				TestCode: TestCode(e, s),
				Duration: s.Elapsed.Milliseconds(),
			}
			switch {
			case s.Scenario != "":
				t.Filename = e.Dir + "/" + s.Scenario + ".txtar"
			case len(e.Exercise.Files) > 0:
				t.Filename = e.Dir + "/" + e.Exercise.Files[0]
			}
			if s.Status != Pass {
				t.Message = s.Message
			}
			res.Tests = append(res.Tests, t)
		}
	}
	if len(r.Tampered) > 0 {
		var lines []string
		for _, t := range r.Tampered {
			lines = append(lines, t.String())
		}
		res.Tests = append(res.Tests, ClassroomTest{
			Name:    "protected files (ignored: graded with the kata's own copies)",
			Status:  Fail,
			Message: strings.Join(lines, "\n"),
		})
	}
	return res
}

// WriteClassroom writes the base64 Classroom result on one line, ready for
// `echo "result=$(kata grade --format classroom)" >> "$GITHUB_OUTPUT"`.
func WriteClassroom(w io.Writer, r *Report) error {
	data, err := json.Marshal(Classroom(r))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, base64.StdEncoding.EncodeToString(data))
	return err
}
