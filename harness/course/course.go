// Package course is the kata's single source of truth: the exercises in
// course order, each with its package directory, its graded steps (id,
// title, points) and the hints for every step.
//
// The manifest is course.yaml beside this file, embedded into every binary
// that imports the package, so that the points a grader awards come from
// the kata's own copy and not from a file a learner can edit.
//
// Responsibilities:
//
//  1. Load and validate the manifest: unique exercise and step ids, step
//     ids of the form NN-words in order, positive integer points, at least
//     one hint per step.
//  2. Look exercises up by id or by their short topic ("01-reconcile",
//     "reconcile", "01"), with an error that lists the valid names.
//  3. Say where an exercise lives: exercises/<dir> for the learner,
//     solutions/<dir> for the reference; which of its files a step
//     involves; and the performance targets of its benchmarks.
//  4. Hold the capstone: the seeds' stories, each an end-to-end scenario
//     of testdata/scenarios worth points once it passes on the learner's
//     own cluster, and the exercises each needs done before it can run.
package course

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

//go:embed course.yaml
var manifest []byte

// ModulePath is the kata's Go module; exercises and solutions are its
// packages ModulePath/exercises/<id> and ModulePath/solutions/<id>.
const ModulePath = "github.com/kubekata/kubekata"

// Course is the whole kata.
type Course struct {
	Exercises []Exercise `json:"exercises"`
	// Capstone comes after the exercises, when there is one.
	Capstone *Capstone `json:"capstone,omitempty"`
}

// CapstoneID names the capstone where an exercise id would go: in kata
// grade's arguments and reports ("capstone", "capstone/01-pod-relay").
const CapstoneID = "capstone"

// Capstone is the course's last section: the stories the seeds tell about
// a cluster at work, each a scenario that runs against the cluster built
// from the learner's exercises. Nothing is written for it; it is graded
// once the parts it needs are done.
type Capstone struct {
	Title string `json:"title"`
	// Test is the scenario engine's test function; a story's verdict is
	// its subtest Test/<Scenario>.
	Test    string  `json:"test"`
	Stories []Story `json:"stories"`
}

// Story is one graded scenario of the capstone.
type Story struct {
	// ID is the step's id, such as "01-pod-relay".
	ID    string `json:"id"`
	Title string `json:"title"`
	// Scenario is the scenario's name: testdata/scenarios/<Scenario>.txtar.
	Scenario string `json:"scenario"`
	// Needs are the exercises whose parts act in the story, in course
	// order: the same list as the scenario's `# needs:` line. The story
	// runs only when every one of them is done.
	Needs []string `json:"needs"`
	// Seeds names the seed-document sections the story comes from.
	Seeds  string   `json:"seeds,omitempty"`
	Points int      `json:"points"`
	Hints  []string `json:"hints"`
}

// Exercise is one Go package the learner implements.
type Exercise struct {
	// ID is the directory name under exercises/ and solutions/, such as
	// "01-reconcile".
	ID string `json:"id"`
	// Title is a short human title.
	Title string `json:"title"`
	// Test is the top-level test function whose subtests are the steps,
	// such as "TestReconcile".
	Test string `json:"test"`
	// Files are the files the learner edits, relative to the exercise
	// directory.
	Files []string `json:"files"`
	// Seeds names the seed-document sections the exercise builds on.
	Seeds string `json:"seeds,omitempty"`
	// Steps are the graded subtests, in order.
	Steps []Step `json:"steps"`
	// Benchmarks are the performance targets kata bench shows the
	// learner's figures against; they are not graded.
	Benchmarks []Benchmark `json:"benchmarks,omitempty"`
}

// Benchmark is one performance target: a figure that one benchmark of the
// exercise's package reports, and the bound it should meet. A target
// with a Baseline bounds the ratio of the figure to the same figure of
// the baseline benchmark, measured in the same run, so that it does not
// depend on how fast the machine is:
//
//	benchmarks:
//	  - name: BenchmarkPut16
//	    metric: writes/s
//	    baseline: BenchmarkBaselineBoltUpdate16
//	    min: 3          # at least 3 times the baseline's writes/s
type Benchmark struct {
	// Name is the benchmark function, such as "BenchmarkPut1".
	Name string `json:"name"`
	// Metric is the unit as go test prints it: "ns/op", "B/op",
	// "allocs/op", or one the benchmark reports ("writes/s", "p99-ms").
	Metric string `json:"metric"`
	// Baseline, when set, names the benchmark whose Metric the figure is
	// divided by; Min and Max then bound that ratio.
	Baseline string `json:"baseline,omitempty"`
	// Min and Max bound the figure (or the ratio); at least one is set.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
}

// Step is one graded subtest.
type Step struct {
	// ID is the subtest name, such as "01-create-missing".
	ID string `json:"id"`
	// Title is the step's title; the exercise README has a numbered task
	// with the same title.
	Title string `json:"title"`
	// Points are whole points, so that every report sums the same.
	Points int `json:"points"`
	// Hints go from a nudge to nearly the answer, and never hold code.
	Hints []string `json:"hints"`
	// Files are the exercise's files this step involves, when not all of
	// them; each must be one of the exercise's Files.
	Files []string `json:"files,omitempty"`
}

var (
	loadOnce sync.Once
	loaded   *Course
	loadErr  error
)

// Load returns the embedded manifest, parsed and validated once.
func Load() (*Course, error) {
	loadOnce.Do(func() {
		loaded, loadErr = Parse(manifest)
	})
	return loaded, loadErr
}

// MustLoad is Load for callers that cannot go on without a course, such as
// the conformance suites.
func MustLoad() *Course {
	c, err := Load()
	if err != nil {
		panic(err)
	}
	return c
}

// Parse reads and validates a manifest.
func Parse(data []byte) (*Course, error) {
	var c Course
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("course: manifest: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

var (
	exerciseID = regexp.MustCompile(`^[0-9]{2}-[a-z][a-z0-9-]*$`)
	benchName  = regexp.MustCompile(`^Benchmark[A-Z0-9_][A-Za-z0-9_]*$`)
	benchUnit  = regexp.MustCompile(`^[^\s]+$`)
	stepID     = regexp.MustCompile(`^[0-9]{2}-[a-z0-9][a-z0-9-]*$`)
	testName   = regexp.MustCompile(`^Test[A-Z][A-Za-z0-9]*$`)
)

// Validate checks the manifest's own consistency.
func (c *Course) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("course: "+format, args...))
	}
	if len(c.Exercises) == 0 {
		bad("manifest lists no exercises")
	}
	seen := map[string]bool{}
	for i, e := range c.Exercises {
		switch {
		case !exerciseID.MatchString(e.ID):
			bad("exercise %d: id %q must look like 01-reconcile", i+1, e.ID)
		case e.ID[:2] != fmt.Sprintf("%02d", i+1):
			bad("exercise %q: number %s, want %02d (course order)", e.ID, e.ID[:2], i+1)
		}
		if seen[e.ID] {
			bad("exercise %q listed twice", e.ID)
		}
		seen[e.ID] = true
		if e.Title == "" {
			bad("exercise %q: no title", e.ID)
		}
		if !testName.MatchString(e.Test) {
			bad("exercise %q: test %q must look like TestReconcile", e.ID, e.Test)
		}
		if len(e.Files) == 0 {
			bad("exercise %q: no files for the learner to edit", e.ID)
		}
		if len(e.Steps) == 0 {
			bad("exercise %q: no steps", e.ID)
		}
		for j, s := range e.Steps {
			where := fmt.Sprintf("exercise %q step %d", e.ID, j+1)
			switch {
			case !stepID.MatchString(s.ID):
				bad("%s: id %q must look like 01-create-missing", where, s.ID)
			case s.ID[:2] != fmt.Sprintf("%02d", j+1):
				bad("%s: id %q must start with %02d", where, s.ID, j+1)
			}
			if s.Title == "" {
				bad("%s: no title", where)
			}
			if s.Points <= 0 {
				bad("%s: points = %d, want a positive whole number", where, s.Points)
			}
			if len(s.Hints) == 0 {
				bad("%s: no hints", where)
			}
			seenFile := map[string]bool{}
			for _, f := range s.Files {
				if !slices.Contains(e.Files, f) {
					bad("%s: file %q is not one of the exercise's files %v", where, f, e.Files)
				}
				if seenFile[f] {
					bad("%s: file %q listed twice", where, f)
				}
				seenFile[f] = true
			}
		}
		for j, b := range e.Benchmarks {
			where := fmt.Sprintf("exercise %q benchmark %d", e.ID, j+1)
			if !benchName.MatchString(b.Name) {
				bad("%s: name %q must look like BenchmarkPut1", where, b.Name)
			}
			if !benchUnit.MatchString(b.Metric) {
				bad("%s: metric %q must be a unit as go test prints it, such as ns/op or writes/s", where, b.Metric)
			}
			if b.Baseline != "" && (!benchName.MatchString(b.Baseline) || b.Baseline == b.Name) {
				bad("%s: baseline %q must name another benchmark", where, b.Baseline)
			}
			switch {
			case b.Min == nil && b.Max == nil:
				bad("%s: %s has neither min nor max", where, b.Name)
			case b.Min != nil && !(*b.Min > 0 && !math.IsInf(*b.Min, 0)):
				bad("%s: min = %v, want a positive number", where, *b.Min)
			case b.Max != nil && !(*b.Max > 0 && !math.IsInf(*b.Max, 0)):
				bad("%s: max = %v, want a positive number", where, *b.Max)
			case b.Min != nil && b.Max != nil && *b.Min > *b.Max:
				bad("%s: min %v is above max %v", where, *b.Min, *b.Max)
			}
		}
	}
	c.validateCapstone(bad, seen)
	return errors.Join(errs...)
}

var scenarioName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*_[a-z0-9]+(-[a-z0-9]+)*$`)

// validateCapstone checks the capstone's stories: ids in order, a
// scenario each (never twice), and needs that are exercises of the course,
// in course order.
func (c *Course) validateCapstone(bad func(string, ...any), exercises map[string]bool) {
	cp := c.Capstone
	if cp == nil {
		return
	}
	if cp.Title == "" {
		bad("capstone: no title")
	}
	if !testName.MatchString(cp.Test) {
		bad("capstone: test %q must look like TestScenarios", cp.Test)
	}
	if len(cp.Stories) == 0 {
		bad("capstone: no stories")
	}
	order := map[string]int{}
	for i, e := range c.Exercises {
		order[e.ID] = i
	}
	scenarios := map[string]bool{}
	for j, s := range cp.Stories {
		where := fmt.Sprintf("capstone story %d", j+1)
		switch {
		case !stepID.MatchString(s.ID):
			bad("%s: id %q must look like 01-pod-relay", where, s.ID)
		case s.ID[:2] != fmt.Sprintf("%02d", j+1):
			bad("%s: id %q must start with %02d", where, s.ID, j+1)
		}
		if s.Title == "" {
			bad("%s: no title", where)
		}
		if !scenarioName.MatchString(s.Scenario) {
			bad("%s: scenario %q must be a scenario's name, <area>_<behaviour>", where, s.Scenario)
		}
		if scenarios[s.Scenario] {
			bad("%s: scenario %q is already another story's", where, s.Scenario)
		}
		scenarios[s.Scenario] = true
		if len(s.Needs) == 0 {
			bad("%s: needs no exercise", where)
		}
		for k, id := range s.Needs {
			switch {
			case !exercises[id]:
				bad("%s: needs %q, which is not an exercise of the course", where, id)
			case k > 0 && exercises[s.Needs[k-1]] && order[id] <= order[s.Needs[k-1]]:
				bad("%s: needs %q after %q, want course order with each once", where, id, s.Needs[k-1])
			}
		}
		if s.Points <= 0 {
			bad("%s: points = %d, want a positive whole number", where, s.Points)
		}
		if len(s.Hints) == 0 {
			bad("%s: no hints", where)
		}
	}
}

// Story finds a capstone story by its id ("01-pod-relay"), its number
// ("01" or "1"), its id without the number ("pod-relay") or its scenario.
func (c *Course) Story(name string) (*Story, error) {
	if c.Capstone == nil {
		return nil, errors.New("course: the course has no capstone")
	}
	n := strings.TrimSpace(name)
	var ids []string
	for i := range c.Capstone.Stories {
		s := &c.Capstone.Stories[i]
		if n == s.ID || n == s.ID[:2] || "0"+n == s.ID[:2] || n == s.ID[3:] || n == s.Scenario {
			return s, nil
		}
		ids = append(ids, s.ID)
	}
	return nil, fmt.Errorf("course: the capstone has no story %q; its stories are: %s", name, strings.Join(ids, ", "))
}

// Points is the capstone's total.
func (cp *Capstone) Points() int {
	total := 0
	for _, s := range cp.Stories {
		total += s.Points
	}
	return total
}

// Missing lists the exercises the story needs that done says are not
// done, in course order; none means the story can run.
func (s *Story) Missing(done func(id string) bool) []string {
	var out []string
	for _, id := range s.Needs {
		if !done(id) {
			out = append(out, id)
		}
	}
	return out
}

// TestPath is the story's subtest as `go test` reports it, such as
// "TestScenarios/story_pod-relay".
func (cp *Capstone) TestPath(s Story) string { return cp.Test + "/" + s.Scenario }

// Exercise finds an exercise by its id ("01-reconcile"), its topic
// ("reconcile") or its number ("01" or "1").
func (c *Course) Exercise(name string) (*Exercise, error) {
	n := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(name), "exercises/"), "/")
	for i := range c.Exercises {
		e := &c.Exercises[i]
		if n == e.ID || n == e.Topic() || n == e.ID[:2] || "0"+n == e.ID[:2] {
			return e, nil
		}
	}
	return nil, fmt.Errorf("course: no exercise %q; the exercises are: %s", name, strings.Join(c.IDs(), ", "))
}

// IDs lists the exercise ids in course order.
func (c *Course) IDs() []string {
	ids := make([]string, len(c.Exercises))
	for i, e := range c.Exercises {
		ids[i] = e.ID
	}
	return ids
}

// Points is the exercises' total (the capstone's is Capstone.Points).
func (c *Course) Points() int {
	total := 0
	for _, e := range c.Exercises {
		total += e.Points()
	}
	return total
}

// Topic is the id without its number: "reconcile" for "01-reconcile".
func (e *Exercise) Topic() string { return e.ID[3:] }

// Number is the exercise's position in the course, from 1.
func (e *Exercise) Number() int {
	return int(e.ID[0]-'0')*10 + int(e.ID[1]-'0')
}

// ExerciseDir is the learner's package directory, relative to the root.
func (e *Exercise) ExerciseDir() string { return "exercises/" + e.ID }

// SolutionDir is the reference package directory, relative to the root.
func (e *Exercise) SolutionDir() string { return "solutions/" + e.ID }

// Points is the exercise's total.
func (e *Exercise) Points() int {
	total := 0
	for _, s := range e.Steps {
		total += s.Points
	}
	return total
}

// StepFiles are the files step s involves, relative to the exercise
// directory: the step's own list, or else all the exercise's Files.
func (e *Exercise) StepFiles(s Step) []string {
	if len(s.Files) > 0 {
		return s.Files
	}
	return e.Files
}

// Step finds a step by its id.
func (e *Exercise) Step(id string) (*Step, bool) {
	for i := range e.Steps {
		if e.Steps[i].ID == id {
			return &e.Steps[i], true
		}
	}
	return nil, false
}

// StepIDs lists the step ids in order.
func (e *Exercise) StepIDs() []string {
	ids := make([]string, len(e.Steps))
	for i, s := range e.Steps {
		ids[i] = s.ID
	}
	return ids
}

// TestPath is the full name of a step's subtest as `go test` reports it,
// such as "TestReconcile/01-create-missing".
func (e *Exercise) TestPath(s Step) string { return e.Test + "/" + s.ID }
