// Package webhooks serves the console's pages of webhooks
// (docs/webhooks.md): a tenant's endpoints, their forms and secrets, and
// each endpoint's delivery log with its test event and replays.
package webhooks

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/webhook"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// overlap is how long a rotated secret keeps signing.
const overlap = 24 * time.Hour

// sinceLayout is the replay form's time, as a datetime-local input sends
// it, in the reader's zone.
const sinceLayout = "2006-01-02T15:04"

// Pages serve the pages of webhooks.
type Pages struct{ *console.Console }

// New returns the pages of the console c.
func New(c *console.Console) *Pages { return &Pages{Console: c} }

// Routes are the pages of a tenant's webhooks. They are the tenant's
// settings (role.SettingsRead to read, role.SettingsUpdate to change);
// what makes or shows a secret, or changes where the tenant's data is
// sent, is out of a support session's reach. Endpoints and files carry
// the audit log, so what sends it anywhere, or downloads it, takes the
// audit log's permission too (role.AuditRead, checked by auditReader).
func (s *Pages) Routes(g console.Groups) []console.Route {
	return []console.Route{
		console.Get(g.Tenant, "/webhooks", role.SettingsRead, s.list),
		console.NoSupport(console.Get(g.Tenant, "/webhooks/new", role.SettingsUpdate, s.newEndpoint)),
		console.NoSupport(console.Post(g.Tenant, "/webhooks/files/enable", role.SettingsUpdate, auditReader(s.enableFiles))),
		console.NoSupport(console.Post(g.Tenant, "/webhooks/files/disable", role.SettingsUpdate, s.disableFiles)),
		console.NoSupport(console.Get(g.Tenant, "/webhooks/files/:day", role.SettingsRead, auditReader(s.downloadFile))),
		console.NoSupport(console.Post(g.Tenant, "/webhooks", role.SettingsUpdate, auditReader(s.create))),
		console.Get(g.Tenant, "/webhooks/:id", role.SettingsRead, s.show),
		console.NoSupport(console.Get(g.Tenant, "/webhooks/:id/secret", role.SettingsUpdate, s.showSecret)),
		console.NoSupport(console.Get(g.Tenant, "/webhooks/:id/edit", role.SettingsUpdate, s.edit)),
		console.NoSupport(console.Post(g.Tenant, "/webhooks/:id", role.SettingsUpdate, auditReader(s.update))),
		console.NoSupport(console.Post(g.Tenant, "/webhooks/:id/rotate", role.SettingsUpdate, s.rotate)),
		console.NoSupport(console.Post(g.Tenant, "/webhooks/:id/enable", role.SettingsUpdate, auditReader(s.enable))),
		console.NoSupport(console.Post(g.Tenant, "/webhooks/:id/disable", role.SettingsUpdate, s.disable)),
		console.NoSupport(console.Post(g.Tenant, "/webhooks/:id/delete", role.SettingsUpdate, s.remove)),
		console.NoSupport(console.Post(g.Tenant, "/webhooks/:id/test", role.SettingsUpdate, s.sendTest)),
		console.NoSupport(console.Post(g.Tenant, "/webhooks/:id/replay", role.SettingsUpdate, auditReader(s.replay))),
		console.NoSupport(console.Post(g.Tenant, "/webhooks/:id/deliveries/:delivery/resend", role.SettingsUpdate, auditReader(s.resend))),
	}
}

// auditReader lets only those who may read the audit log (role.AuditRead)
// through to h: what it does sends the audit log somewhere or downloads
// it.
func auditReader(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !httpkit.Can(c, role.AuditRead) {
			return kanri.E(kanri.EFORBIDDEN, "webhooks.need_audit")
		}
		return h(c)
	}
}

// Nav is the webhooks page's entry.
func (s *Pages) Nav() []views.NavEntry {
	return []views.NavEntry{{Key: "webhooks", LabelKey: "nav.webhooks", Path: views.WebhooksPath, Perm: role.SettingsRead, Order: 85}}
}

// list shows the tenant's endpoints and daily audit files.
func (s *Pages) list(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	es, err := s.Webhooks.List(ctx, t.ID)
	if err != nil {
		return err
	}
	var files views.AuditFilesView
	if files.Setting, err = s.Webhooks.AuditFilesOf(ctx, t.ID); err != nil {
		return err
	}
	if files.Files, err = s.Webhooks.ListAuditFiles(ctx, t.ID); err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.WebhooksPage(s.Page(c, "webhooks.title", "webhooks"), es, files))
}

// enableFiles has the audit log written to daily files.
func (s *Pages) enableFiles(c echo.Context) error { return s.setFiles(c, true, "auditfiles.enabled") }

// disableFiles stops writing daily files.
func (s *Pages) disableFiles(c echo.Context) error {
	return s.setFiles(c, false, "auditfiles.disabled")
}

func (s *Pages) setFiles(c echo.Context, on bool, doneKey string) error {
	t := httpkit.Tenant(c)
	return s.Action(c, doneKey, views.WebhooksPath(t.ID), func(seen kanri.Seen) (string, error) {
		_, err := s.Webhooks.SetAuditFiles(c.Request().Context(), t.ID, on, seen)
		return "", err
	})
}

// downloadFile sends one day's audit file.
func (s *Pages) downloadFile(c echo.Context) error {
	t := httpkit.Tenant(c)
	d := c.Param("day")
	r, err := s.Webhooks.OpenAuditFile(c.Request().Context(), t.ID, d)
	if err != nil {
		return err
	}
	defer r.Close()
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, `attachment; filename="audit-`+d+`.ndjson"`)
	h.Set(echo.HeaderCacheControl, "no-store")
	return c.Stream(http.StatusOK, "application/x-ndjson", r)
}

// newEndpoint shows the empty form, selecting every event.
func (s *Pages) newEndpoint(c echo.Context) error {
	return s.form(c, http.StatusOK, views.WebhookForm{Events: webhook.AllEvents})
}

func (s *Pages) form(c echo.Context, status int, f views.WebhookForm) error {
	title := "webhooks.add"
	if f.ID != "" {
		title = "webhooks.edit"
	}
	return httpkit.Render(c, status, views.WebhookFormPage(s.Page(c, title, "webhooks"), f))
}

func input(c echo.Context) webhook.Input {
	return webhook.Input{URL: c.FormValue("url"), Events: c.FormValue("events"), Description: c.FormValue("description")}
}

// refused shows the form again with what was typed and why it was
// refused; any other error is returned.
func (s *Pages) refused(c echo.Context, f views.WebhookForm, err error) error {
	if !kanri.IsCode(err, kanri.EINVALID) {
		return err
	}
	in := input(c)
	f.URL, f.Events, f.Description, f.Errors = in.URL, in.Events, in.Description, views.Errors(kanri.ErrorFields(err))
	return s.form(c, http.StatusUnprocessableEntity, f)
}

// create registers an endpoint and sends the browser to the page that
// shows its secret, once.
func (s *Pages) create(c echo.Context) error {
	t := httpkit.Tenant(c)
	e, secret, err := s.Webhooks.Create(c.Request().Context(), t.ID, input(c))
	if err != nil {
		return s.refused(c, views.WebhookForm{}, err)
	}
	return s.HoldSecret(c, t.ID, e.ID, secret.String(), false, views.WebhookPath(t.ID, e.ID)+"/secret")
}

// showSecret shows the secret the endpoint's creation or rotation held
// for this session, once; after that, the endpoint's page.
func (s *Pages) showSecret(c echo.Context) error {
	t := httpkit.Tenant(c)
	secret, rotated, ok, err := s.ClaimSecret(c, c.Param("id"))
	if err != nil {
		return err
	}
	if !ok {
		return c.Redirect(http.StatusSeeOther, views.WebhookPath(t.ID, c.Param("id")))
	}
	e, err := s.Webhooks.Get(c.Request().Context(), t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.WebhookSecretPage(s.Page(c, "webhooks.title", "webhooks"), e, secret, rotated))
}

// show shows an endpoint and one page of its delivery log.
func (s *Pages) show(c echo.Context) error {
	return s.showWith(c, http.StatusOK, "", nil)
}

// showWith shows an endpoint's page with the replay form's input and its
// errors.
func (s *Pages) showWith(c echo.Context, status int, since string, errs views.Errors) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	e, err := s.Webhooks.Get(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	v := views.WebhookView{Endpoint: e, Failed: c.QueryParam("failed") == "1", Since: since, Errors: errs}
	v.Deliveries, v.Paging, err = console.ListPage(c, views.WebhookPath(t.ID, e.ID), 50, func(token string, limit int) ([]*webhook.Delivery, string, error) {
		return s.Webhooks.Deliveries(ctx, t.ID, e.ID, v.Failed, limit, token)
	})
	if err != nil {
		return err
	}
	return httpkit.Render(c, status, views.WebhookPage(s.Page(c, "webhooks.title", "webhooks"), v))
}

// edit shows the form of an endpoint.
func (s *Pages) edit(c echo.Context) error {
	e, err := s.Webhooks.Get(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"))
	if err != nil {
		return err
	}
	return s.form(c, http.StatusOK, views.WebhookForm{
		ID: e.ID, ETag: e.ETag, State: e.State(), URL: e.URL, Events: strings.Join(e.Events, ", "), Description: e.Description,
	})
}

// update saves an endpoint's form.
func (s *Pages) update(c echo.Context) error {
	t := httpkit.Tenant(c)
	seen := console.Seen(c)
	e, err := s.Webhooks.Update(c.Request().Context(), t.ID, c.Param("id"), input(c), seen)
	if kanri.IsCode(err, kanri.ESTALE) {
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	}
	if err != nil {
		return s.refused(c, views.WebhookForm{ID: c.Param("id"), ETag: seen.ETag, State: seen.State}, err)
	}
	return s.Report(c, views.WebhookPath(t.ID, e.ID), "webhooks.saved", e.URL)
}

// rotate gives an endpoint a new secret and sends the browser to the page
// that shows it, once; the old one signs too for overlap.
func (s *Pages) rotate(c echo.Context) error {
	t := httpkit.Tenant(c)
	e, secret, err := s.Webhooks.Rotate(c.Request().Context(), t.ID, c.Param("id"), console.Seen(c), overlap)
	if kanri.IsCode(err, kanri.ESTALE) {
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	}
	if err != nil {
		return err
	}
	return s.HoldSecret(c, t.ID, e.ID, secret.String(), true, views.WebhookPath(t.ID, e.ID)+"/secret")
}

// enable sends an endpoint the events written from now on again.
func (s *Pages) enable(c echo.Context) error { return s.setEnabled(c, true, "webhooks.enabled") }

// disable stops sending an endpoint events.
func (s *Pages) disable(c echo.Context) error { return s.setEnabled(c, false, "webhooks.disabled") }

func (s *Pages) setEnabled(c echo.Context, on bool, doneKey string) error {
	t := httpkit.Tenant(c)
	return s.Action(c, doneKey, views.WebhookPath(t.ID, c.Param("id")), func(seen kanri.Seen) (string, error) {
		e, err := s.Webhooks.SetEnabled(c.Request().Context(), t.ID, c.Param("id"), seen, on)
		if err != nil {
			return "", err
		}
		return e.URL, nil
	})
}

// remove deletes an endpoint.
func (s *Pages) remove(c echo.Context) error {
	t := httpkit.Tenant(c)
	return s.Action(c, "webhooks.deleted", views.WebhooksPath(t.ID), func(seen kanri.Seen) (string, error) {
		e, err := s.Webhooks.Delete(c.Request().Context(), t.ID, c.Param("id"), seen)
		if err != nil {
			return "", err
		}
		return e.URL, nil
	})
}

// sendTest sends a test event now and reports how it went; the delivery
// is at the top of the log.
func (s *Pages) sendTest(c echo.Context) error {
	t := httpkit.Tenant(c)
	d, err := s.Webhooks.SendTest(c.Request().Context(), t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	return s.reportDelivery(c, d)
}

// resend sends one delivery's message again.
func (s *Pages) resend(c echo.Context) error {
	t := httpkit.Tenant(c)
	d, err := s.Webhooks.Redeliver(c.Request().Context(), t.ID, c.Param("id"), c.Param("delivery"))
	if err != nil {
		return err
	}
	return s.reportDelivery(c, d)
}

// reportDelivery says on the endpoint's page whether a delivery made by
// hand was answered.
func (s *Pages) reportDelivery(c echo.Context, d *webhook.Delivery) error {
	dest := views.WebhookPath(httpkit.Tenant(c).ID, d.EndpointID)
	if d.OK {
		return s.Report(c, dest, "webhooks.delivered", d.EventType, d.Status)
	}
	s.Flash(c, "error", "webhooks.not_delivered", d.EventType)
	return console.Redirect(c, dest)
}

// replay sends an endpoint again every event it selects since a time.
func (s *Pages) replay(c echo.Context) error {
	t := httpkit.Tenant(c)
	raw := strings.TrimSpace(c.FormValue("since"))
	since, err := time.ParseInLocation(sinceLayout, raw, views.ZoneOf(c.Request().Context()))
	if err != nil {
		since = time.Time{} // refused by the service, as an empty time
	}
	e, err := s.Webhooks.ReplaySince(c.Request().Context(), t.ID, c.Param("id"), since, console.Seen(c))
	switch {
	case kanri.IsCode(err, kanri.ESTALE):
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	case kanri.IsCode(err, kanri.EINVALID):
		return s.showWith(c, http.StatusUnprocessableEntity, raw, views.Errors(kanri.ErrorFields(err)))
	case err != nil:
		return err
	}
	return s.Report(c, views.WebhookPath(t.ID, e.ID), "webhooks.replaying", views.Local(c.Request().Context(), e.CursorTime))
}
