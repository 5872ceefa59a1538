package api

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// IntOrString is intstr.IntOrString: a JSON value that is either an
// integer (a port number, a replica count) or a string (a named port, a
// percentage like "25%").
type IntOrString struct {
	Type   IntOrStringType
	IntVal int32
	StrVal string
}

// IntOrStringType says which member of an IntOrString is set.
type IntOrStringType int64

const (
	Int    IntOrStringType = iota // IntVal is set
	String                        // StrVal is set
)

// FromInt32 returns an IntOrString holding i.
func FromInt32(i int32) IntOrString { return IntOrString{Type: Int, IntVal: i} }

// FromInt returns an IntOrString holding i (clamped to int32).
func FromInt(i int) IntOrString {
	if i > math.MaxInt32 {
		i = math.MaxInt32
	} else if i < math.MinInt32 {
		i = math.MinInt32
	}
	return FromInt32(int32(i))
}

// FromString returns an IntOrString holding s.
func FromString(s string) IntOrString { return IntOrString{Type: String, StrVal: s} }

// ParseIntOrString returns an int IntOrString if s is an integer, else a string one.
func ParseIntOrString(s string) IntOrString {
	i, err := strconv.Atoi(s)
	if err != nil {
		return FromString(s)
	}
	return FromInt(i)
}

// String returns the string value, or the int formatted in decimal.
func (v *IntOrString) String() string {
	if v == nil {
		return "<nil>"
	}
	if v.Type == String {
		return v.StrVal
	}
	return strconv.Itoa(int(v.IntVal))
}

// IntValue returns the int value, or the string parsed as an int (0 when
// it is not one).
func (v *IntOrString) IntValue() int {
	if v.Type == String {
		i, _ := strconv.Atoi(v.StrVal)
		return i
	}
	return int(v.IntVal)
}

// MarshalJSON writes a JSON number or string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	switch v.Type {
	case Int:
		return json.Marshal(v.IntVal)
	case String:
		return json.Marshal(v.StrVal)
	default:
		return nil, fmt.Errorf("impossible IntOrString.Type")
	}
}

// UnmarshalJSON reads a JSON number or string.
func (v *IntOrString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		v.Type = String
		v.IntVal = 0
		return json.Unmarshal(b, &v.StrVal)
	}
	v.Type = Int
	v.StrVal = ""
	return json.Unmarshal(b, &v.IntVal)
}

// GetScaledValueFromIntOrPercent returns v itself if it is an int, or
// v percent of total, rounded up or down, if it is a percentage like
// "25%" (as upstream intstr does for maxSurge and maxUnavailable).
func GetScaledValueFromIntOrPercent(v *IntOrString, total int, roundUp bool) (int, error) {
	if v == nil {
		return 0, fmt.Errorf("nil value for IntOrString")
	}
	switch v.Type {
	case Int:
		return v.IntValue(), nil
	case String:
		s, ok := strings.CutSuffix(v.StrVal, "%")
		if !ok {
			return 0, fmt.Errorf("invalid type: string is not a percentage")
		}
		p, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("invalid value for IntOrString: invalid value %q: %v", v.StrVal, err)
		}
		if roundUp {
			return int(math.Ceil(float64(p) * float64(total) / 100)), nil
		}
		return int(math.Floor(float64(p) * float64(total) / 100)), nil
	}
	return 0, fmt.Errorf("invalid type: neither int nor percentage")
}
