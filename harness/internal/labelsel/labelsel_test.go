package labelsel_test

// The harness's parser must agree with the reference solution of exercise
// 02, which is what the suite holds to upstream. This file imports
// solutions/02-labels, so kata classroom export leaves it out of a
// student copy.

import (
	"errors"
	"testing"

	"github.com/kubekata/kubekata/harness/internal/labelsel"
	"github.com/kubekata/kubekata/harness/labelstest"
	"github.com/kubekata/kubekata/harness/selector"
	sol "github.com/kubekata/kubekata/solutions/02-labels"
)

func inputs() []string {
	in := labelstest.FuzzSeeds()
	for _, c := range labelstest.KeyCases {
		in = append(in, c.In, c.In+"=x", "x="+c.In, "!"+c.In)
	}
	for _, c := range labelstest.ValueCases {
		in = append(in, "k="+c.In, "k in (a,"+c.In+")", "k>"+c.In)
	}
	return append(in, "a>1", "a < 2", "a>-1", "a>", "a>=1", "a<>1", "a in (1)>2", "a>b", "a>1.5", "a\tb", "a>9223372036854775808")
}

func TestParseAgreesWithTheSolution(t *testing.T) {
	for _, s := range inputs() {
		got, err := labelsel.Parse(s)
		want, wantErr := sol.Parse(s)
		var pe, wpe *selector.ParseError
		switch {
		case (err == nil) != (wantErr == nil):
			t.Errorf("labelsel.Parse(%q) = %#v, %v; the solution gives %#v, %v", s, got, err, want, wantErr)
		case err != nil && (!errors.As(err, &pe) || !errors.As(wantErr, &wpe) || pe.Pos != wpe.Pos || pe.Found != wpe.Found):
			t.Errorf("labelsel.Parse(%q) error = %v; the solution's = %v", s, err, wantErr)
		case err == nil && !selector.Equal(got, want):
			t.Errorf("labelsel.Parse(%q) = %#v; the solution gives %#v", s, got, want)
		}
	}
}

func TestMatchesAgreesWithTheSolution(t *testing.T) {
	for _, c := range labelstest.MatchCases {
		got := labelsel.Matches(c.Sel, func(k string) (string, bool) { v, ok := c.Labels[k]; return v, ok })
		if want := sol.Matches(c.Sel, c.Labels); got != want || got != c.Want {
			t.Errorf("labelsel.Matches(%#v, %v) = %v; the solution gives %v, the suite wants %v", c.Sel, c.Labels, got, want, c.Want)
		}
	}
}

func FuzzParseAgrees(f *testing.F) {
	for _, s := range inputs() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := labelsel.Parse(s)
		want, wantErr := sol.Parse(s)
		if (err == nil) != (wantErr == nil) || (err == nil && !selector.Equal(got, want)) {
			t.Errorf("labelsel.Parse(%q) = %#v, %v; the solution gives %#v, %v", s, got, err, want, wantErr)
		}
	})
}
