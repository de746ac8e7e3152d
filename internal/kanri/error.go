package kanri

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Error codes. They are the only error kinds the rest of the application
// distinguishes; the web layer maps each to one HTTP status in one place.
const (
	ECONFLICT        = "conflict"        // The thing already exists or is in use.
	EINTERNAL        = "internal"        // Something went wrong that the user cannot fix.
	EINVALID         = "invalid"         // The input was rejected; Fields says why.
	ENOTFOUND        = "not_found"       // The thing does not exist (or must not be revealed).
	ESTALE           = "stale"           // The thing changed since it was read (ETag mismatch).
	EFORBIDDEN       = "forbidden"       // The caller may not do this.
	EUNAUTHENTICATED = "unauthenticated" // The caller is not signed in.
)

// Error is the application's error type. Its Message is safe to show to a
// user; internal details belong in a wrapped error, which is never shown.
type Error struct {
	// Code is one of the E* constants.
	Code string
	// Message is a human-readable message, safe to show to the user.
	Message string
	// Fields holds per-field messages for EINVALID errors, keyed by the
	// field's JSON name.
	Fields map[string]string
	// Err is the underlying cause, if any. It is logged, never shown.
	Err error
}

// Error implements the error interface.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kanri %s: %s", e.Code, e.Message)
	if len(e.Fields) > 0 {
		keys := make([]string, 0, len(e.Fields))
		for k := range e.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "; %s: %s", k, e.Fields[k])
		}
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns an EINVALID error with per-field messages.
func Invalid(fields map[string]string) *Error {
	return &Error{Code: EINVALID, Message: "The input is not valid.", Fields: fields}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of err. Errors that are not
// an *Error get a generic message so that internals never leak.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return "An internal error occurred."
}

// ErrorFields returns the per-field messages of an EINVALID error, or nil.
func ErrorFields(err error) map[string]string {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}

// Stale returns the ESTALE error of an edit made from an outdated version.
func Stale() error { return Errorf(ESTALE, "stale.title") }

// IsCode reports whether err carries the given code.
func IsCode(err error, code string) bool { return err != nil && ErrorCode(err) == code }
