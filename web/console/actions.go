package console

import (
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
)

// Action runs one of a page's action forms (suspend, deactivate, delete…)
// on the document as the page showed it (its ETag and state) and reports
// what was done on the page at dest. A change made meanwhile by someone
// else is reported on the page the action came from, and nothing is done.
// do returns the name of what it acted on, for the message doneKey.
func (s *Console) Action(c echo.Context, doneKey, dest string, do func(seen kanri.Seen) (string, error)) error {
	name, err := do(Seen(c))
	if kanri.IsCode(err, kanri.ESTALE) {
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	}
	if err != nil {
		return err
	}
	return s.Report(c, dest, doneKey, name)
}

// Report reports a change that was made, in a message on the page at dest.
func (s *Console) Report(c echo.Context, dest, key string, args ...any) error {
	s.Flash(c, "success", key, args...)
	return Redirect(c, dest)
}
