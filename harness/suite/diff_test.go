package suite

import (
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, c := range []struct {
		name, got, want string
		wants           []string // substrings of the result
	}{
		{"equal", "abc", "abc", nil},
		{"middle of a long string", long + "A" + long, long + "B" + long, []string{
			"differ at byte 100 (line 1, column 101); got 201 bytes, want 201:",
			`got:  …"` + strings.Repeat("x", 24) + `A` + strings.Repeat("x", 23) + `"…`,
			`want: …"` + strings.Repeat("x", 24) + `B` + strings.Repeat("x", 23) + `"…`,
		}},
		{"at the start", "abc", "xbc", []string{"differ at byte 0 (line 1, column 1)", `got:  "abc"`, `want: "xbc"`}},
		{"on a later line", "one\ntwo\nthree", "one\ntwo\nthrice", []string{"differ at byte 11 (line 3, column 4)", `got:  "one\ntwo\nthree"`}},
		{"got is a prefix", "abc", "abcdef", []string{"differ at byte 3", `got:  "abc" (ends here)`, `want: "abcdef"`}},
		{"want is a prefix", "abcdef", "abc", []string{"got 6 bytes, want 3", `want: "abc" (ends here)`}},
		{"tab versus space", "a\tb", "a b", []string{`got:  "a\tb"`, `want: "a b"`}},
		// é and è share their first byte: the difference is the rune.
		{"inside a rune", "café", "cafè", []string{"differ at byte 3 (line 1, column 4)", `got:  "café"`, `want: "cafè"`}},
	} {
		got := Diff(c.got, c.want)
		if c.wants == nil {
			if got != "" {
				t.Errorf("%s: Diff(%q, %q) = %q, want \"\"", c.name, c.got, c.want, got)
			}
			continue
		}
		for _, w := range c.wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s: Diff(%q, %q) =\n%s\nwant it to contain %s", c.name, c.got, c.want, got, w)
			}
		}
	}
}

func TestDiffCutsOnRuneBoundaries(t *testing.T) {
	a := strings.Repeat("한", 30) + "A" + strings.Repeat("글", 30)
	b := strings.Repeat("한", 30) + "B" + strings.Repeat("글", 30)
	got := Diff(a, b)
	if strings.Contains(got, `\x`) {
		t.Errorf("Diff cut a rune in half:\n%s", got)
	}
	if !strings.Contains(got, "A") || !strings.Contains(got, "B") {
		t.Errorf("Diff does not show the differing bytes:\n%s", got)
	}
}
