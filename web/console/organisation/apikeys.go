package organisation

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// rotationGrace is how long a rotated key's old secret keeps working.
const rotationGrace = 24 * time.Hour

// usageDays is how many days the usage pages chart.
const usageDays = 30

// listAPIKeys shows a tenant's API keys.
func (s *Pages) listAPIKeys(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	keys, err := s.Keys.List(ctx, t.ID)
	if err != nil {
		return err
	}
	rows := make([]views.APIKeyRow, len(keys))
	for i, k := range keys {
		rows[i] = views.APIKeyRow{Key: k, Status: k.StatusAt(s.Now())}
	}
	usable := s.Catalog.Usable(ctx, t.ID, kanri.APIServiceID) == nil
	return httpkit.Render(c, http.StatusOK, views.APIKeysPage(s.Page(c, "apikeys.title", "apikeys"), rows, usable))
}

// newAPIKey shows the empty key form.
func (s *Pages) newAPIKey(c echo.Context) error {
	f := views.APIKeyForm{Scopes: []string{kanri.ScopeRead}, RateLimit: fmt.Sprint(kanri.DefaultRateLimit), RateLimitWindow: kanri.DefaultRateLimitWindow}
	return httpkit.Render(c, http.StatusOK, views.APIKeyFormPage(s.Page(c, "apikeys.new", "apikeys"), f))
}

// createAPIKey makes a key and redirects to the page that shows its
// secret, once (Post/Redirect/Get: reloading that page makes no key).
func (s *Pages) createAPIKey(c echo.Context) error {
	form, _ := c.FormParams()
	in := apikey.Input{
		Name: c.FormValue("name"), Scopes: form["scopes"], RateLimit: c.FormValue("rateLimit"),
		RateLimitWindow: c.FormValue("rateLimitWindow"), ExpiresAt: c.FormValue("expiresAt"),
	}
	k, secret, err := s.Keys.Create(c.Request().Context(), httpkit.Tenant(c).ID, in)
	if err == nil {
		return s.holdSecret(c, k, secret, false)
	}
	if !kanri.IsCode(err, kanri.EINVALID) {
		return err
	}
	f := views.APIKeyForm{Name: in.Name, Scopes: in.Scopes, RateLimit: in.RateLimit, RateLimitWindow: in.RateLimitWindow, ExpiresAt: in.ExpiresAt, Errors: views.Errors(kanri.ErrorFields(err))}
	return httpkit.Render(c, http.StatusUnprocessableEntity, views.APIKeyFormPage(s.Page(c, "apikeys.new", "apikeys"), f))
}

// holdSecret keeps a key's new secret for the page that shows it, once.
func (s *Pages) holdSecret(c echo.Context, k *kanri.APIKey, secret string, rotated bool) error {
	return s.HoldSecret(c, k.TenantID, k.ID, secret, rotated, views.APIKeyPath(k.TenantID, k.ID)+"/secret")
}

// showAPIKeySecret shows the secret that the last creation or rotation of
// the key held for this session, once (console.ClaimSecret). Shown once
// already (a reload), or never held, it sends the browser to the key
// list, which repeats nothing.
func (s *Pages) showAPIKeySecret(c echo.Context) error {
	t := httpkit.Tenant(c)
	secret, rotated, ok, err := s.ClaimSecret(c, c.Param("id"))
	if err != nil {
		return err
	}
	if !ok {
		return c.Redirect(http.StatusSeeOther, views.APIKeysPath(t.ID))
	}
	k, err := s.Keys.Get(c.Request().Context(), t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.APIKeySecretPage(s.Page(c, "apikeys.title", "apikeys"), k, secret, rotated))
}

// deactivateAPIKey stops a key until it is reactivated.
func (s *Pages) deactivateAPIKey(c echo.Context) error {
	return s.apiKeyAction(c, "apikeys.deactivated", func(id string, seen kanri.Seen) (*kanri.APIKey, error) {
		return s.Keys.SetActive(c.Request().Context(), httpkit.Tenant(c).ID, id, seen, false)
	})
}

// reactivateAPIKey lets a deactivated key work again.
func (s *Pages) reactivateAPIKey(c echo.Context) error {
	return s.apiKeyAction(c, "apikeys.reactivated", func(id string, seen kanri.Seen) (*kanri.APIKey, error) {
		return s.Keys.SetActive(c.Request().Context(), httpkit.Tenant(c).ID, id, seen, true)
	})
}

// revokeAPIKey ends a key for good.
func (s *Pages) revokeAPIKey(c echo.Context) error {
	return s.apiKeyAction(c, "apikeys.revoked", func(id string, seen kanri.Seen) (*kanri.APIKey, error) {
		return s.Keys.Revoke(c.Request().Context(), httpkit.Tenant(c).ID, id, seen)
	})
}

// rotateAPIKey gives a key a new secret and redirects to the page that
// shows it, once; the old one works for rotationGrace more.
func (s *Pages) rotateAPIKey(c echo.Context) error {
	k, secret, err := s.Keys.Rotate(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"), console.Seen(c), rotationGrace)
	if kanri.IsCode(err, kanri.ESTALE) {
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	}
	if err != nil {
		return err
	}
	return s.holdSecret(c, k, secret, true)
}

func (s *Pages) apiKeyAction(c echo.Context, doneKey string, do func(id string, seen kanri.Seen) (*kanri.APIKey, error)) error {
	return s.Action(c, doneKey, views.APIKeysPath(httpkit.Tenant(c).ID), func(seen kanri.Seen) (string, error) {
		k, err := do(c.Param("id"), seen)
		if err != nil {
			return "", err
		}
		return k.Name, nil
	})
}

// tenantAPIUsage shows the usage of all the tenant's keys.
func (s *Pages) tenantAPIUsage(c echo.Context) error {
	if err := console.NeedReporting(c); err != nil { // a gate of the plan and settings
		return err
	}
	return s.showAPIUsage(c, nil)
}

// apiKeyUsage shows the usage of one key.
func (s *Pages) apiKeyUsage(c echo.Context) error {
	if err := console.NeedReporting(c); err != nil { // a gate of the plan and settings
		return err
	}
	k, err := s.Keys.Get(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"))
	if err != nil {
		return err
	}
	return s.showAPIUsage(c, k)
}

func (s *Pages) showAPIUsage(c echo.Context, k *kanri.APIKey) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	keys, err := s.Keys.List(ctx, t.ID)
	if err != nil {
		return err
	}
	v := views.APIUsageView{Key: k, Status: c.QueryParam("status"), KeyName: map[string]string{}}
	for _, key := range keys {
		v.KeyName[key.ID] = key.Name
	}
	of, path := apikey.AllKeys, views.APIKeysPath(t.ID)+"/usage"
	if k != nil {
		of, path = k.ID, views.APIKeyPath(t.ID, k.ID)
	}
	days, err := s.Keys.Daily(ctx, t.ID, of, usageDays)
	if err != nil {
		return err
	}
	for _, d := range days {
		v.Days = append(v.Days, views.ChartPoint{Label: d.Date[5:], Value: d.Calls})
	}
	sum := apikey.Summarize(days)
	v.Calls, v.Errors, v.P50, v.P95 = sum.Calls, sum.Errors, sum.P50, sum.P95
	v.ErrorPct = fmt.Sprintf("%.1f%%", sum.ErrorRate())
	month, err := s.Keys.Aggregate(ctx, t.ID, of, s.Now())
	if err != nil {
		return err
	}
	for e, n := range month.Endpoints {
		v.Top = append(v.Top, views.EndpointCount{Endpoint: e, Calls: n})
	}
	slices.SortFunc(v.Top, func(a, b views.EndpointCount) int {
		return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.Endpoint, b.Endpoint))
	})
	v.Top = v.Top[:min(10, len(v.Top))]
	f := apikey.CallFilter{Status: v.Status}
	if k != nil {
		f.KeyID = k.ID
	}
	v.Log, v.Paging, err = console.ListPage(c, path, 50, func(token string, limit int) ([]*kanri.APIUsage, string, error) {
		f.Continuation, f.Limit = token, limit
		return s.Keys.Calls(ctx, t.ID, f)
	})
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.APIUsagePage(s.Page(c, "apikeys.usage", "apikeys"), v))
}

// showCORS shows the origins that may call the tenant's API from a browser.
func (s *Pages) showCORS(c echo.Context) error {
	st, err := s.Keys.Settings(c.Request().Context(), httpkit.Tenant(c).ID)
	if err != nil {
		return err
	}
	f := views.CORSForm{ETag: st.ETag, Input: strings.Join(st.CORSOrigins, "\n")}
	return httpkit.Render(c, http.StatusOK, views.CORSPage(s.Page(c, "cors.title", "apikeys"), f, st))
}

// saveCORS saves the origins typed, one per line.
func (s *Pages) saveCORS(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	f := views.CORSForm{ETag: c.FormValue("etag"), Input: c.FormValue("origins")}
	origins, err := apikey.ParseOrigins(f.Input)
	if err == nil {
		if _, err = s.Keys.SetCORSOrigins(ctx, t.ID, f.ETag, origins); err == nil {
			return s.Report(c, views.CORSPath(t.ID), "cors.saved")
		}
	}
	status, err := console.EditFailed(&f, err, func() (*kanri.APISettings, error) { return s.Keys.Settings(ctx, t.ID) },
		func(st *kanri.APISettings) string { return strings.Join(st.CORSOrigins, "\n") })
	if err != nil {
		return err
	}
	st := f.Current // read by editFailed after a stale save; otherwise read here
	if st == nil {
		if st, err = s.Keys.Settings(ctx, t.ID); err != nil {
			return err
		}
	}
	return httpkit.Render(c, status, views.CORSPage(s.Page(c, "cors.title", "apikeys"), f, st))
}
