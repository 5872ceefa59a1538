package grade

import (
	"context"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/course"
)

const capstoneManifest = manifest + `
capstone:
  title: Stories
  test: TestScenarios
  stories:
    - {id: 01-first, title: First, scenario: story_first, needs: [01-alpha], points: 3, hints: [h]}
    - {id: 02-both, title: Both, scenario: story_both, needs: [01-alpha, 02-beta], points: 4, hints: [h]}
`

func capstoneCourse(t *testing.T) *course.Course {
	t.Helper()
	c, err := course.Parse([]byte(capstoneManifest))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSelectCapstone: no names select the capstone after the exercises;
// naming a story selects it and, whole, every exercise it needs.
func TestSelectCapstone(t *testing.T) {
	c := capstoneCourse(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "01-alpha 02-beta capstone"},
		{[]string{"capstone"}, "01-alpha 02-beta capstone"},
		{[]string{"capstone/01"}, "01-alpha capstone[01-first]"},
		{[]string{"capstone/story_first"}, "01-alpha capstone[01-first]"},
		{[]string{"capstone/both", "capstone/first"}, "01-alpha 02-beta capstone[01-first,02-both]"},
		{[]string{"alpha/02", "capstone/first"}, "01-alpha capstone[01-first]"},
		{[]string{"beta/01", "capstone/first"}, "01-alpha 02-beta[01-uno] capstone[01-first]"},
		{[]string{"capstone/first", "capstone"}, "01-alpha 02-beta capstone"},
	} {
		checkSelect(t, c, tc.args, tc.want)
	}
	if _, err := Select(c, []string{"capstone/nope"}); err == nil || !strings.Contains(err.Error(), "01-first, 02-both") {
		t.Errorf("Select(capstone/nope) error = %v, want one that lists the stories", err)
	}
	if _, err := Select(testCourse(t), []string{"capstone"}); err == nil || !strings.Contains(err.Error(), "no capstone") {
		t.Errorf("Select(capstone) without one = %v, want an error that says there is none", err)
	}
	cp := capstoneExercise(c.Capstone)
	if cp.ID != course.CapstoneID || cp.Points() != 7 || len(cp.Steps) != 2 || cp.Steps[1].ID != "02-both" {
		t.Errorf("capstoneExercise = %+v, want id capstone, 2 steps, 7 points", cp)
	}
}

// TestCapstoneNeedsDoneExercises: a story whose exercises are not all
// done fails without running anything, and says which are missing; a
// kata with no scenario engine reports the others as errors.
func TestCapstoneNeedsDoneExercises(t *testing.T) {
	c := capstoneCourse(t)
	sel, err := Select(c, []string{"capstone"})
	if err != nil {
		t.Fatal(err)
	}
	s := sel[len(sel)-1]
	opts := Options{Course: c} // no Capstone: nothing could run
	got := gradeCapstone(context.Background(), opts, nil, t.TempDir(), s, "exercises", map[string]bool{"01-alpha": true}, nil)
	if got.Points() != 0 || got.MaxPoints() != 7 || len(got.Steps) != 2 {
		t.Fatalf("gradeCapstone = %d/%d points over %d steps, want 0/7 over 2", got.Points(), got.MaxPoints(), len(got.Steps))
	}
	first, both := got.Steps[0], got.Steps[1]
	if first.Status != Error || !strings.Contains(first.Message, "cannot grade the capstone") {
		t.Errorf("story 01-first (its exercise done) = %s %q, want error: this kata cannot grade it", first.Status, first.Message)
	}
	if both.Status != Fail || !strings.Contains(both.Message, "needs 02-beta, which is not done") {
		t.Errorf("story 02-both (02-beta not done) = %s %q, want fail: needs 02-beta", both.Status, both.Message)
	}
	if first.Scenario != "story_first" || TestCode(got, first) != "kata scenario story_first" {
		t.Errorf("story 01-first: scenario %q, test code %q; want story_first and kata scenario story_first", first.Scenario, TestCode(got, first))
	}
	cr := Classroom(&Report{Exercises: []*Exercise{got}})
	if f := cr.Tests[1].Filename; f != "testdata/scenarios/story_both.txtar" {
		t.Errorf("Classroom filename of story 02-both = %q, want its scenario file", f)
	}
}
