package course

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/scenario/catalog"
)

func TestEmbeddedManifestIsValid(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatalf("Load() = %v, want a valid manifest", err)
	}
	if c.Points() <= 0 {
		t.Fatalf("Points() = %d, want > 0", c.Points())
	}
}

func TestExerciseLookup(t *testing.T) {
	c := MustLoad()
	first := c.Exercises[0]
	for _, name := range []string{first.ID, first.Topic(), first.ID[:2], first.ID[1:2], "exercises/" + first.ID + "/"} {
		e, err := c.Exercise(name)
		if err != nil || e.ID != first.ID {
			t.Errorf("Exercise(%q) = %v, %v; want %s", name, e, err, first.ID)
		}
	}
	_, err := c.Exercise("nope")
	if err == nil || !strings.Contains(err.Error(), first.ID) {
		t.Errorf("Exercise(%q) error = %v, want one that lists %s", "nope", err, first.ID)
	}
}

func TestValidateRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"empty":        `exercises: []`,
		"unknown":      `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}], extra: 1}]`,
		"out-of-order": `exercises: [{id: 02-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}]}]`,
		"zero-points":  `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 0, hints: [h]}]}]`,
		"no-hints":     `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1}]}]`,
		"bad-step":     `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 02-x, title: X, points: 1, hints: [h]}]}]`,
		"bad-test":     `exercises: [{id: 01-a, title: A, test: a, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}]}]`,
		"step-file":    `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h], files: [b.go]}]}]`,
		"step-file-2x": `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h], files: [a.go, a.go]}]}]`,
		"bench-name":   `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}], benchmarks: [{name: Put, metric: ns/op, max: 1}]}]`,
		"bench-unit":   `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}], benchmarks: [{name: BenchmarkPut, metric: "ns op", max: 1}]}]`,
		"bench-bound":  `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}], benchmarks: [{name: BenchmarkPut, metric: ns/op}]}]`,
		"bench-neg":    `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}], benchmarks: [{name: BenchmarkPut, metric: ns/op, min: -1}]}]`,
		"bench-order":  `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}], benchmarks: [{name: BenchmarkPut, metric: ns/op, min: 5, max: 2}]}]`,
		"bench-self":   `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}], benchmarks: [{name: BenchmarkPut, metric: ns/op, baseline: BenchmarkPut, min: 1}]}]`,
		"bench-field":  `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}], benchmarks: [{name: BenchmarkPut, metric: ns/op, min: 1, ratio: 2}]}]`,
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("Parse(%s) = nil error, want one", name)
		}
	}
	ok := `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}]}]`
	if _, err := Parse([]byte(ok)); err != nil {
		t.Errorf("Parse(valid) = %v, want nil", err)
	}
}

func TestStepFilesAndBenchmarks(t *testing.T) {
	doc := `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go, b.go],
  steps: [{id: 01-x, title: X, points: 1, hints: [h], files: [b.go]}, {id: 02-y, title: Y, points: 1, hints: [h]}],
  benchmarks: [{name: BenchmarkPut16, metric: writes/s, baseline: BenchmarkBase16, min: 3}, {name: BenchmarkOpen, metric: ns/op, max: 1e9}]}]`
	c, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse = %v", err)
	}
	e := &c.Exercises[0]
	if got := e.StepFiles(e.Steps[0]); len(got) != 1 || got[0] != "b.go" {
		t.Errorf("StepFiles(step 1) = %v, want [b.go]", got)
	}
	if got := e.StepFiles(e.Steps[1]); len(got) != 2 {
		t.Errorf("StepFiles(step 2) = %v, want the exercise's [a.go b.go]", got)
	}
	b := e.Benchmarks
	if len(b) != 2 || b[0].Baseline != "BenchmarkBase16" || b[0].Min == nil || *b[0].Min != 3 || b[0].Max != nil || b[1].Max == nil || *b[1].Max != 1e9 {
		t.Errorf("Benchmarks = %+v, want Put16 min 3 against BenchmarkBase16 and Open max 1e9", b)
	}
}

func TestCapstoneValidateRejects(t *testing.T) {
	ex := `exercises: [{id: 01-a, title: A, test: TestA, files: [a.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}]},
  {id: 02-b, title: B, test: TestB, files: [b.go], steps: [{id: 01-x, title: X, points: 1, hints: [h]}]}]
`
	story := func(fields string) string {
		return ex + `capstone: {title: T, test: TestScenarios, stories: [{` + fields + `}]}`
	}
	for name, doc := range map[string]string{
		"no-stories":    ex + `capstone: {title: T, test: TestScenarios, stories: []}`,
		"no-title":      ex + `capstone: {test: TestScenarios, stories: [{id: 01-s, title: S, scenario: story_s, needs: [01-a], points: 1, hints: [h]}]}`,
		"bad-test":      ex + `capstone: {title: T, test: scenarios, stories: [{id: 01-s, title: S, scenario: story_s, needs: [01-a], points: 1, hints: [h]}]}`,
		"bad-id":        story(`id: 02-s, title: S, scenario: story_s, needs: [01-a], points: 1, hints: [h]`),
		"bad-scenario":  story(`id: 01-s, title: S, scenario: story, needs: [01-a], points: 1, hints: [h]`),
		"no-needs":      story(`id: 01-s, title: S, scenario: story_s, points: 1, hints: [h]`),
		"unknown-need":  story(`id: 01-s, title: S, scenario: story_s, needs: [03-c], points: 1, hints: [h]`),
		"needs-order":   story(`id: 01-s, title: S, scenario: story_s, needs: [02-b, 01-a], points: 1, hints: [h]`),
		"needs-twice":   story(`id: 01-s, title: S, scenario: story_s, needs: [01-a, 01-a], points: 1, hints: [h]`),
		"zero-points":   story(`id: 01-s, title: S, scenario: story_s, needs: [01-a], points: 0, hints: [h]`),
		"no-hints":      story(`id: 01-s, title: S, scenario: story_s, needs: [01-a], points: 1`),
		"unknown-field": story(`id: 01-s, title: S, scenario: story_s, needs: [01-a], points: 1, hints: [h], files: [a.go]`),
		"same-scenario": ex + `capstone: {title: T, test: TestScenarios, stories: [{id: 01-s, title: S, scenario: story_s, needs: [01-a], points: 1, hints: [h]}, {id: 02-t, title: T, scenario: story_s, needs: [01-a], points: 1, hints: [h]}]}`,
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("Parse(%s) = nil error, want one", name)
		}
	}
	c, err := Parse([]byte(story(`id: 01-s, title: S, scenario: story_s, needs: [01-a, 02-b], points: 2, hints: [h]`)))
	if err != nil {
		t.Fatalf("Parse(valid capstone) = %v, want nil", err)
	}
	if got := c.Capstone.Points(); got != 2 {
		t.Errorf("Capstone.Points() = %d, want 2", got)
	}
	if got := c.Points(); got != 2 {
		t.Errorf("Points() = %d, want the exercises' 2 (the capstone's are apart)", got)
	}
	for _, name := range []string{"01-s", "01", "1", "s", "story_s"} {
		if s, err := c.Story(name); err != nil || s.ID != "01-s" {
			t.Errorf("Story(%q) = %v, %v; want 01-s", name, s, err)
		}
	}
	if _, err := c.Story("nope"); err == nil || !strings.Contains(err.Error(), "01-s") {
		t.Errorf("Story(%q) error = %v, want one that lists 01-s", "nope", err)
	}
	s, _ := c.Story("01")
	done := map[string]bool{"01-a": true}
	if got := s.Missing(func(id string) bool { return done[id] }); !slices.Equal(got, []string{"02-b"}) {
		t.Errorf("Missing(01-a done) = %v, want [02-b]", got)
	}
	if got := c.Capstone.TestPath(*s); got != "TestScenarios/story_s" {
		t.Errorf("TestPath = %q, want TestScenarios/story_s", got)
	}
}

// TestCapstoneMatchesScenarios: each story of the embedded manifest is a
// scenario of testdata/scenarios, and needs exactly what the scenario's
// `# needs:` line says (kata scenario and kata grade must agree on when a
// story can run).
func TestCapstoneMatchesScenarios(t *testing.T) {
	c := MustLoad()
	if c.Capstone == nil {
		t.Fatal("the manifest has no capstone")
	}
	list, err := catalog.List(filepath.Join("..", "..", catalog.Dir))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]catalog.Scenario{}
	for _, s := range list {
		byName[s.Name] = s
	}
	for _, st := range c.Capstone.Stories {
		sc, ok := byName[st.Scenario]
		if !ok {
			t.Errorf("story %s: no scenario %s in %s", st.ID, st.Scenario, catalog.Dir)
			continue
		}
		if !slices.Equal(sc.Needs, st.Needs) {
			t.Errorf("story %s: needs %v, but %s.txtar's needs line says %v", st.ID, st.Needs, st.Scenario, sc.Needs)
		}
	}
	if c.Capstone.Test != catalog.Test {
		t.Errorf("capstone test = %s, want the scenario engine's %s", c.Capstone.Test, catalog.Test)
	}
}
