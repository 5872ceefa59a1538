package policy

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	got, err := Parse(" deny-latest-tag,,deny-latest-tag ")
	if err != nil || !slices.Equal(got, []string{"deny-latest-tag"}) {
		t.Errorf(`Parse(" deny-latest-tag,,deny-latest-tag ") = %q, %v; want [deny-latest-tag]`, got, err)
	}
	if got, err := Parse(""); err != nil || got != nil {
		t.Errorf(`Parse("") = %q, %v; want nothing`, got, err)
	}
	const want = `unknown admission policy "deny-all"; the known ones are: deny-latest-tag`
	if _, err := Parse("deny-latest-tag,deny-all"); err == nil || err.Error() != want {
		t.Errorf(`Parse("deny-latest-tag,deny-all") = %v, want %q`, err, want)
	}
}
