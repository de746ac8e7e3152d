package console

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
)

// Seen reads the ETag and state an action form was rendered with.
func Seen(c echo.Context) kanri.Seen {
	return kanri.Seen{ETag: c.FormValue("etag"), State: c.FormValue("state"), LastAdmin: c.FormValue("last_admin") == "1"}
}

// Unreadable merges the errors of fields that could not be read with
// those of validate, so that a form shows every error at once; it is nil
// when nothing failed to read, and validation is left to the service.
func Unreadable(errs kanri.Fields, validate func() error) error {
	if len(errs) == 0 {
		return nil
	}
	return kanri.Invalid(mergeFields(errs, validate()))
}

// mergeFields adds err's field errors to errs, keeping errs' own.
func mergeFields(errs kanri.Fields, err error) kanri.Fields {
	out := kanri.Fields{}
	for k, v := range kanri.ErrorFields(err) {
		out[k] = v
	}
	for k, v := range errs {
		out[k] = v
	}
	return out
}

// EditFailed prepares an edit form again after its save failed with err:
// with the field errors of invalid input (422), or after a stale save with
// the stored version read by reload next to the user's input (409). Any
// other error is returned for the error handler.
func EditFailed[In any, D interface{ Base() *kanri.Doc }](f *views.Edit[In, D], err error, reload func() (D, error), inputOf func(D) In) (int, error) {
	switch kanri.ErrorCode(err) {
	case kanri.ESTALE:
		cur, rerr := reload()
		if rerr != nil {
			return 0, rerr
		}
		f.Current, f.ETag, f.Base = cur, cur.Base().ETag, inputOf(cur)
		return http.StatusConflict, nil
	case kanri.EINVALID:
		f.Errors = views.Errors(mergeFields(nil, err))
		return http.StatusUnprocessableEntity, nil
	}
	return 0, err
}
