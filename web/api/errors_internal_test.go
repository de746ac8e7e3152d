package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/kanri"
)

// TestAbandonedRequestsAreNotErrors checks that a request whose client
// went away (its context canceled) is logged below error level, whether
// the cancellation comes bare or inside a store's error, and that a real
// internal error still is an error.
func TestAbandonedRequestsAreNotErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		what    string
		err     error
		level   string
		status  int
		notLogs string
	}{
		{"canceled", context.Canceled, "level=INFO", http.StatusServiceUnavailable, "internal error"},
		{"canceled in a store error", kanri.Wrap(kanri.EINTERNAL, "error.internal", fmt.Errorf("query: %w", context.Canceled)), "level=INFO", http.StatusServiceUnavailable, "internal error"},
		{"an internal error", errors.New("disk on fire"), "level=ERROR", http.StatusInternalServerError, "abandoned"},
	} {
		var log bytes.Buffer
		s := &Server{Deps: app.Deps{Logger: slog.New(slog.NewTextHandler(&log, nil))}}
		rec := httptest.NewRecorder()
		c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/api/v1/users", nil), rec)
		s.apiError(c, tc.err)
		if got, want := rec.Code, tc.status; got != want {
			t.Errorf("%s: status %d, want %d", tc.what, got, want)
		}
		if !strings.Contains(log.String(), tc.level) || strings.Contains(log.String(), tc.notLogs) {
			t.Errorf("%s: logged %q, want %s and not %q", tc.what, log.String(), tc.level, tc.notLogs)
		}
	}
}
