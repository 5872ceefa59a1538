package api

import (
	"encoding/json"
	"time"
)

// Time is metav1.Time: a time.Time that serializes as RFC 3339 in UTC with
// second precision, and as null when zero. Decoded times are in UTC
// (upstream converts them to the local zone; UTC keeps tests deterministic).
type Time struct {
	time.Time
}

// NewTime wraps t.
func NewTime(t time.Time) Time { return Time{t} }

// Now returns the current local time. Components that are tested should
// take their time from an injected clock and call NewTime instead.
func Now() Time { return Time{time.Now()} }

// Unix returns the Time for the given Unix seconds and nanoseconds.
func Unix(sec, nsec int64) Time { return Time{time.Unix(sec, nsec)} }

// IsZero reports whether t is nil or the zero time.
func (t *Time) IsZero() bool { return t == nil || t.Time.IsZero() }

// Before reports whether t is before u; nil is before everything.
func (t *Time) Before(u *Time) bool {
	if t != nil && u != nil {
		return t.Time.Before(u.Time)
	}
	return false
}

// Equal reports whether t and u are the same instant (two nils are equal).
func (t *Time) Equal(u *Time) bool {
	if t == nil && u == nil {
		return true
	}
	if t != nil && u != nil {
		return t.Time.Equal(u.Time)
	}
	return false
}

// Rfc3339Copy returns t truncated to what survives serialization.
func (t Time) Rfc3339Copy() Time {
	copied, _ := time.Parse(time.RFC3339, t.Format(time.RFC3339))
	return Time{copied}
}

// MarshalJSON writes RFC 3339 in UTC, or null for the zero time.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.Time.IsZero() {
		return []byte("null"), nil
	}
	buf := make([]byte, 0, len(time.RFC3339)+2)
	buf = append(buf, '"')
	buf = t.UTC().AppendFormat(buf, time.RFC3339)
	buf = append(buf, '"')
	return buf, nil
}

// UnmarshalJSON reads RFC 3339; null gives the zero time.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.UTC()
	return nil
}

// RFC3339Micro is the layout of MicroTime.
const RFC3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// MicroTime is metav1.MicroTime: like Time with microsecond precision
// (Lease renewTime, Event eventTime).
type MicroTime struct {
	time.Time
}

// NewMicroTime wraps t.
func NewMicroTime(t time.Time) MicroTime { return MicroTime{t} }

// NowMicro returns the current local time.
func NowMicro() MicroTime { return MicroTime{time.Now()} }

// IsZero reports whether t is nil or the zero time.
func (t *MicroTime) IsZero() bool { return t == nil || t.Time.IsZero() }

// Before reports whether t is before u; nil is before everything.
func (t *MicroTime) Before(u *MicroTime) bool {
	if t != nil && u != nil {
		return t.Time.Before(u.Time)
	}
	return false
}

// Equal reports whether t and u are the same instant (two nils are equal).
func (t *MicroTime) Equal(u *MicroTime) bool {
	if t == nil && u == nil {
		return true
	}
	if t != nil && u != nil {
		return t.Time.Equal(u.Time)
	}
	return false
}

// MarshalJSON writes RFC 3339 with microseconds in UTC, or null.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.Time.IsZero() {
		return []byte("null"), nil
	}
	buf := make([]byte, 0, len(RFC3339Micro)+2)
	buf = append(buf, '"')
	buf = t.UTC().AppendFormat(buf, RFC3339Micro)
	buf = append(buf, '"')
	return buf, nil
}

// UnmarshalJSON reads RFC 3339 with or without fractional seconds.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(RFC3339Micro, s)
	if err != nil {
		// RFC3339 also accepts any fractional precision.
		if pt, err = time.Parse(time.RFC3339, s); err != nil {
			return err
		}
	}
	t.Time = pt.UTC()
	return nil
}
