package docstore

import (
	"fmt"

	"github.com/kanri/kanri/internal/kanri"
)

// The errors of the port. Every backend returns these, so that callers see
// the same codes and message keys whichever backend runs. The cause, logged
// and never shown, names its package: "docstore:" for the port's own
// checks, "bolt:" or "cosmos:" for a backend's.

// ErrNotFound is the error of a read, replace or delete of a missing
// document.
func ErrNotFound(cause error) error { return kanri.Wrap(kanri.ENOTFOUND, "error.not_found", cause) }

// ErrConflict is the error of a create whose id exists.
func ErrConflict(cause error) error { return kanri.Wrap(kanri.ECONFLICT, "error.conflict", cause) }

// ErrStale is the error of a write whose ETag no longer matches.
func ErrStale(cause error) error { return kanri.Wrap(kanri.ESTALE, "stale.title", cause) }

// ErrInvalid is the error of a request the store refuses: a bad query or
// document.
func ErrInvalid(cause error) error {
	return kanri.Wrap(kanri.EINVALID, "error.invalid_request", cause)
}

// ErrContinuation is the error of a continuation token that is not one of
// this query's.
func ErrContinuation() error { return kanri.E(kanri.EINVALID, "validation.continuation") }

// invalid is ErrInvalid of a formatted cause from the port's own checks.
func invalid(format string, args ...any) error {
	return ErrInvalid(fmt.Errorf("docstore: "+format, args...))
}

// BatchError names the failed operation i of a batch in the cause, keeping
// err's code and message.
func BatchError(i int, err error) error {
	key, args := kanri.ErrorMessage(err)
	return &kanri.Error{Code: kanri.ErrorCode(err), Message: key, Args: args, Err: fmt.Errorf("batch operation %d: %w", i, err)}
}
