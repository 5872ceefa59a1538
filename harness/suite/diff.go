package suite

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// diffContext is how many bytes Diff shows on each side of the first
// difference.
const diffContext = 24

// Diff says where two strings first differ, for failure messages about
// long strings (a serialized object, a rendered table) where printing both
// whole hides the difference:
//
//	Get("pods/default/web") body: differ at byte 1234 (line 5, column 17); got 2000 bytes, want 2001:
//	  got:  …"\"image\": \"nginx:1.26\","…
//	  want: …"\"image\": \"nginx:1.27\","…
//
// Each side shows up to 24 bytes before and after the first difference,
// quoted so that spaces, tabs and newlines are visible; … marks where a
// side is cut. Diff returns "" when the strings are equal.
func Diff(got, want string) string {
	if got == want {
		return ""
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	// Start at a rune boundary common to both, so no rune is cut in half.
	for i > 0 && (i < len(got) && !utf8.RuneStart(got[i]) || i < len(want) && !utf8.RuneStart(want[i])) {
		i--
	}
	line := strings.Count(got[:i], "\n") + 1
	col := i - strings.LastIndexByte(got[:i], '\n')
	return fmt.Sprintf("differ at byte %d (line %d, column %d); got %d bytes, want %d:\n  got:  %s\n  want: %s",
		i, line, col, len(got), len(want), around(got, i), around(want, i))
}

// around is s from diffContext bytes before i to diffContext bytes after,
// quoted, with … where it is cut; the cuts fall on rune boundaries.
func around(s string, i int) string {
	from := max(0, i-diffContext)
	for from > 0 && from < len(s) && !utf8.RuneStart(s[from]) {
		from--
	}
	to := min(len(s), i+diffContext)
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	q := strconv.Quote(s[from:to])
	if from > 0 {
		q = "…" + q
	}
	if to < len(s) {
		q += "…"
	}
	if i >= len(s) {
		q += " (ends here)"
	}
	return q
}
