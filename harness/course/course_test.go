package course

import (
	"strings"
	"testing"
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
