package web

import (
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
)

// action runs one of a page's action forms (suspend, deactivate, delete…)
// on the document as the page showed it (its ETag and state) and reports
// what was done on the page at dest. A change made meanwhile by someone
// else is reported on the page the action came from, and nothing is done.
// do returns the name of what it acted on, for the message doneKey.
func (s *Server) action(c echo.Context, doneKey, dest string, do func(seen kanri.Seen) (string, error)) error {
	name, err := do(seen(c))
	if kanri.IsCode(err, kanri.ESTALE) {
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	}
	if err != nil {
		return err
	}
	return s.done(c, dest, doneKey, name)
}

// done reports a change that was made, in a message on the page at dest.
func (s *Server) done(c echo.Context, dest, key string, args ...any) error {
	s.Flash(c, "success", key, args...)
	return redirect(c, dest)
}
