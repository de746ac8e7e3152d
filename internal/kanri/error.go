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
	EBUSY            = "busy"            // Other writes kept winning the race for the thing; try again later.
	EMALFORMED       = "malformed"       // The request itself cannot be read (a repeated header or parameter, a body that ended early).
	ETOOLARGE        = "too_large"       // The thing is larger than a limit allows (a file over the largest size, a quota).
)

// Error is the application's error type.
//
// Message is always a message key of the catalog in internal/i18n, with
// Args for its verbs: the edge (a page, a JSON response) translates it into
// the caller's language. Internal details belong in Err, which is logged and
// never shown.
type Error struct {
	// Code is one of the E* constants.
	Code string
	// Message is the message key, safe to show once translated.
	Message string
	// Args are the arguments of Message's verbs.
	Args []any
	// Fields holds per-field message keys for EINVALID errors, keyed by the
	// field's JSON name.
	Fields map[string]string
	// Err is the underlying cause, if any. It is logged, never shown.
	Err error
}

// Error implements the error interface.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kanri %s: %s", e.Code, e.Message)
	if len(e.Args) > 0 {
		fmt.Fprintf(&b, " %v", e.Args)
	}
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

// E returns an *Error with the given code, message key and arguments.
func E(code, key string, args ...any) *Error {
	return &Error{Code: code, Message: key, Args: args}
}

// Wrap returns an *Error with the given code and message key whose cause,
// for the log only, is err.
func Wrap(code, key string, err error) *Error {
	return &Error{Code: code, Message: key, Err: err}
}

// Invalid returns an EINVALID error with per-field message keys.
func Invalid(fields map[string]string) *Error {
	return &Error{Code: EINVALID, Message: "error.invalid", Fields: fields}
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

// ErrorMessage returns the message key of err and its arguments. Errors
// that are not an *Error get the generic "error.internal" so that internals
// never leak.
func ErrorMessage(err error) (key string, args []any) {
	var e *Error
	if errors.As(err, &e) && e.Message != "" && e.Code != EINTERNAL {
		return e.Message, e.Args
	}
	return "error.internal", nil
}

// ErrorFields returns the per-field message keys of an EINVALID error, or
// nil.
func ErrorFields(err error) map[string]string {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}

// Stale returns the ESTALE error of an edit made from an outdated version.
func Stale() error { return E(ESTALE, "stale.title") }

// IsCode reports whether err carries the given code.
func IsCode(err error, code string) bool { return err != nil && ErrorCode(err) == code }

// RenamedField returns err with the field error of from named to, as the
// request named the field.
func RenamedField(err error, from, to string) error {
	fields := ErrorFields(err)
	if !IsCode(err, EINVALID) || fields[from] == "" {
		return err
	}
	out := Fields{}
	for k, v := range fields {
		if k == from {
			k = to
		}
		out[k] = v
	}
	return Invalid(out)
}
