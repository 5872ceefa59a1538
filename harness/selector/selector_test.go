package selector

import (
	"errors"
	"fmt"
	"testing"
)

func TestParseErrorMessage(t *testing.T) {
	for _, c := range []struct {
		err  *ParseError
		want string
	}{
		{&ParseError{Input: "a=b,,c", Pos: 4, Found: ",", Msg: "expected: identifier after ','"},
			`selector: unable to parse requirement at position 4 of "a=b,,c": found ',', expected: identifier after ','`},
		{&ParseError{Input: "a=b\x00", Pos: 2, Found: "b\x00", Msg: "invalid label value"},
			`selector: unable to parse requirement at position 2 of "a=b\x00": found 'b\x00', invalid label value`},
		{&ParseError{Input: "x in", Pos: 4, Msg: "expected: '('"},
			`selector: unable to parse requirement at position 4 of "x in": found end of string, expected: '('`},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
		var pe *ParseError
		if !errors.As(fmt.Errorf("wrapped: %w", c.err), &pe) || pe != c.err {
			t.Errorf("errors.As does not find a wrapped *ParseError")
		}
	}
}

func TestEqual(t *testing.T) {
	a := Selector{Requirements: []Requirement{{Key: "a", Operator: Exists}, {Key: "b", Operator: In, Values: []string{"x", "y"}}}}
	b := Selector{Requirements: []Requirement{{Key: "a", Operator: Exists, Values: []string{}}, {Key: "b", Operator: In, Values: []string{"x", "y"}}}}
	if !Equal(a, b) {
		t.Errorf("Equal(%#v, %#v) = false, want true (nil and empty values are equal)", a, b)
	}
	for _, c := range []Selector{
		{Requirements: []Requirement{{Key: "a", Operator: Exists}, {Key: "b", Operator: In, Values: []string{"y", "x"}}}},
		{Requirements: []Requirement{{Key: "a", Operator: DoesNotExist}, {Key: "b", Operator: In, Values: []string{"x", "y"}}}},
		{Requirements: []Requirement{{Key: "a", Operator: Exists}}},
		{Requirements: a.Requirements, MatchNothing: true},
	} {
		if Equal(a, c) {
			t.Errorf("Equal(%#v, %#v) = true, want false", a, c)
		}
	}
	if !Equal(Everything(), Selector{Requirements: []Requirement{}}) || Equal(Everything(), Nothing()) {
		t.Errorf("Everything and Nothing compare wrongly")
	}
}

func TestGoString(t *testing.T) {
	for _, c := range []struct {
		s    Selector
		want string
	}{
		{Everything(), "Everything"},
		{Nothing(), "Nothing"},
		{Selector{Requirements: []Requirement{{Key: "a", Operator: Equals, Values: []string{"b"}}, {Key: "c", Operator: DoesNotExist}}},
			`{["a" = ["b"]] ["c" !]}`},
	} {
		if got := fmt.Sprintf("%#v", c.s); got != c.want {
			t.Errorf("%%#v = %s, want %s", got, c.want)
		}
	}
}
