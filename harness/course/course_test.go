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
