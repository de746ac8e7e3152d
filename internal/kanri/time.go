package kanri

import (
	"bytes"
	"fmt"
	"time"
)

// TimeLayout is the one layout in which Kanri stores instants: UTC, ISO 8601,
// always the same length, so that string comparison orders instants and
// range queries work in every store.
const TimeLayout = "2006-01-02T15:04:05.0000000Z"

// Time is an instant stored as a fixed-length UTC ISO-8601 string. The zero
// Time marshals as JSON null.
type Time struct{ time.Time }

// NewTime returns t, truncated to the precision that TimeLayout keeps.
func NewTime(t time.Time) Time { return Time{t.UTC().Truncate(100 * time.Nanosecond)} }

// FormatTime formats t in TimeLayout. Use it for range filters on stored
// timestamps.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// String returns the stored form of t, or "" for the zero Time.
func (t Time) String() string {
	if t.IsZero() {
		return ""
	}
	return FormatTime(t.Time)
}

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + FormatTime(t.Time) + `"`), nil
}

// UnmarshalJSON implements json.Unmarshaler. It accepts any RFC 3339 instant,
// so documents written with a shorter layout still read.
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*t = Time{}
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("kanri: time %s is not a string", b)
	}
	v, err := time.Parse(time.RFC3339Nano, string(b[1:len(b)-1]))
	if err != nil {
		return fmt.Errorf("kanri: time %s: %w", b, err)
	}
	*t = NewTime(v)
	return nil
}
