// Package sso serves the console's pages of single sign-on
// (docs/sso.md): a tenant's identity providers and its rules, and the
// identities linked to a user.
package sso

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/sso"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// Pages serve the pages of single sign-on.
type Pages struct{ *console.Console }

// New returns the pages of the console c.
func New(c *console.Console) *Pages { return &Pages{Console: c} }

// Routes are a tenant's single sign-on page, its providers' forms and
// actions, its settings, its provisioning token, and the unlinking of a
// user's identity. Changing them decides who signs in as whom, so it
// takes sso.manage (the auth service's administrators), not the tenant's
// settings' permission; what reaches a secret or the rules of sign-in is
// out of a support session's reach.
func (s *Pages) Routes(g console.Groups) []console.Route {
	return []console.Route{
		console.Get(g.Tenant, "/sso", role.SettingsRead, s.page),
		console.Get(g.Tenant, "/sso/providers/new", role.SSOManage, s.newProvider),
		console.NoSupport(console.Post(g.Tenant, "/sso/providers", role.SSOManage, s.addProvider)),
		console.Get(g.Tenant, "/sso/providers/:id/edit", role.SSOManage, s.editProvider),
		console.NoSupport(console.Post(g.Tenant, "/sso/providers/:id", role.SSOManage, s.updateProvider)),
		console.NoSupport(console.Post(g.Tenant, "/sso/providers/:id/remove", role.SSOManage, s.removeProvider)),
		console.Post(g.Tenant, "/sso/providers/:id/test", role.SSOManage, s.testProvider),
		console.NoSupport(console.Post(g.Tenant, "/sso/settings", role.SSOManage, s.updateSettings)),
		console.NoSupport(console.Post(g.Tenant, "/users/:id/identities/:identity/unlink", role.UsersUpdate, s.unlink)),
		console.NoSupport(console.Post(g.Tenant, "/sso/scim/token", role.SSOManage, s.newSCIMToken)),
		console.NoSupport(console.Post(g.Tenant, "/sso/scim/revoke", role.SSOManage, s.revokeSCIMToken)),
		console.NoSupport(console.Post(g.Tenant, "/sso/scim/settings", role.SSOManage, s.scimSettings)),
		console.NoSupport(console.Post(g.Tenant, "/sso/scim/groups/:id", role.SSOManage, s.groupRoles)),
	}
}

// Nav is the single sign-on page's entry.
func (s *Pages) Nav() []views.NavEntry {
	return []views.NavEntry{{Key: "sso", LabelKey: "nav.sso", Path: views.SSOPath, Perm: role.SettingsRead, Order: 75}}
}

// callbackURL is where providers send the browser back.
func callbackURL(c echo.Context) string { return httpkit.BaseURL(c) + "/login/sso/callback" }

// page shows the tenant's providers and settings.
func (s *Pages) page(c echo.Context) error {
	return s.show(c, http.StatusOK, nil, nil, nil)
}

// showing is what the page shows besides the stored settings: the
// settings form's input with its errors, a provider's test, a new SCIM
// token.
type showing struct {
	input *views.SSOSettingsInput
	errs  views.Errors
	check *views.SSOCheck
	token string
}

// show renders the page; in (when not nil) is the settings form's input
// with its errors, check a provider's test.
func (s *Pages) show(c echo.Context, status int, in *views.SSOSettingsInput, errs views.Errors, check *views.SSOCheck) error {
	return s.render(c, status, showing{input: in, errs: errs, check: check})
}

func (s *Pages) render(c echo.Context, status int, sh showing) error {
	in, errs, check := sh.input, sh.errs, sh.check
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	ps, err := s.SSO.Providers(ctx, t.ID)
	if err != nil {
		return err
	}
	st, err := s.SSO.Settings(ctx, t.ID)
	if err != nil {
		return err
	}
	sc, err := s.SCIM.Config(ctx, t.ID)
	if err != nil {
		return err
	}
	gs, err := s.SCIM.Groups(ctx, t.ID)
	if err != nil {
		return err
	}
	v := views.SSOView{CallbackURL: callbackURL(c), Providers: ps, Settings: st, Errors: errs, Check: check,
		SCIM: views.SCIMView{BaseURL: httpkit.BaseURL(c) + "/scim/v2/" + t.ID, Config: sc, NewToken: sh.token, Groups: gs, Off: t.IsPrivileged}}
	if in != nil {
		v.Input = *in
	} else {
		v.Input = views.SSOSettingsInput{Required: st.Required, CreateUsers: st.CreateUsers, NewUserRoles: st.NewUserRoles, TrustProviderMFA: st.TrustProviderMFA}
		if len(st.BreakGlass) > 0 {
			users, err := s.Store.Tenant(t.ID).Users().ByIDs(ctx, st.BreakGlass, "username")
			if err != nil {
				return err
			}
			names := make([]string, len(users))
			for i, u := range users {
				names[i] = u.Username
			}
			v.Input.BreakGlass = strings.Join(names, ", ")
		}
	}
	for _, svc := range s.Roles.Catalog.Services() {
		for _, d := range svc.Roles {
			value := d.ServiceID + "/" + d.RoleName
			opt := views.SSORoleOption{Value: value, Service: svc.Name, Role: d.RoleName}
			if sso.NewUserRole(s.Roles.Catalog, t, value) {
				v.Roles = append(v.Roles, opt)
			}
			if !d.PrivilegedOnly() {
				v.SCIM.Roles = append(v.SCIM.Roles, opt)
			}
		}
	}
	return httpkit.Render(c, status, views.SSOPage(s.Page(c, "sso.title", "sso"), v))
}

// updateSettings saves the tenant's rules, or shows the page again with
// the input and its errors.
func (s *Pages) updateSettings(c echo.Context) error {
	t := httpkit.Tenant(c)
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	in := views.SSOSettingsInput{
		Required: form.Get("required") != "", BreakGlass: form.Get("breakGlass"), CreateUsers: form.Get("createUsers") != "",
		NewUserRoles: form["newUserRoles"], TrustProviderMFA: form.Get("trustProviderMfa") != "",
	}
	_, err = s.SSO.UpdateSettings(c.Request().Context(), t, form.Get("etag"), sso.SettingsInput{
		Required: in.Required, BreakGlass: strings.FieldsFunc(in.BreakGlass, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }),
		CreateUsers: in.CreateUsers, NewUserRoles: in.NewUserRoles, TrustProviderMFA: in.TrustProviderMFA,
	})
	if kanri.IsCode(err, kanri.EINVALID) {
		return s.show(c, http.StatusUnprocessableEntity, &in, views.Errors(kanri.ErrorFields(err)), nil)
	}
	if kanri.IsCode(err, kanri.ESTALE) {
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.SSOPath(t.ID), "sso.settings_saved")
}

// newProvider shows the form of a new provider.
func (s *Pages) newProvider(c echo.Context) error {
	return s.form(c, http.StatusOK, nil, views.ProviderInput{Scopes: "email profile", EmailClaim: "email"}, nil)
}

func (s *Pages) form(c echo.Context, status int, p *kanri.IdentityProvider, in views.ProviderInput, errs views.Errors) error {
	v := views.ProviderFormView{Provider: p, Input: in, CallbackURL: callbackURL(c), Errors: errs}
	return httpkit.Render(c, status, views.ProviderForm(s.Page(c, "sso.title", "sso"), v))
}

func input(c echo.Context) sso.ProviderInput {
	return sso.ProviderInput{
		Name: c.FormValue("name"), Issuer: c.FormValue("issuer"), ClientID: c.FormValue("clientId"),
		ClientSecret: c.FormValue("clientSecret"), Scopes: c.FormValue("scopes"), EmailClaim: c.FormValue("emailClaim"),
	}
}

// kept is the form's input as shown again: never the secret.
func kept(in sso.ProviderInput) views.ProviderInput {
	return views.ProviderInput{Name: in.Name, Issuer: in.Issuer, ClientID: in.ClientID, Scopes: in.Scopes, EmailClaim: in.EmailClaim}
}

// addProvider adds a provider, or shows the form again with its errors.
func (s *Pages) addProvider(c echo.Context) error {
	t := httpkit.Tenant(c)
	in := input(c)
	p, err := s.SSO.AddProvider(c.Request().Context(), t.ID, in)
	if kanri.IsCode(err, kanri.EINVALID) {
		return s.form(c, http.StatusUnprocessableEntity, nil, kept(in), views.Errors(kanri.ErrorFields(err)))
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.SSOPath(t.ID), "sso.provider_added", p.Name)
}

// editProvider shows a provider's form.
func (s *Pages) editProvider(c echo.Context) error {
	p, err := s.SSO.Provider(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"))
	if err != nil {
		return err
	}
	return s.form(c, http.StatusOK, p, kept(sso.ProviderInputOf(p)), nil)
}

// updateProvider saves a provider, or shows the form again.
func (s *Pages) updateProvider(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	in := input(c)
	p, err := s.SSO.UpdateProvider(ctx, t.ID, c.Param("id"), c.FormValue("etag"), in)
	if kanri.IsCode(err, kanri.EINVALID) || kanri.IsCode(err, kanri.ESTALE) {
		cur, gerr := s.SSO.Provider(ctx, t.ID, c.Param("id"))
		if gerr != nil {
			return gerr
		}
		errs := views.Errors(kanri.ErrorFields(err))
		if kanri.IsCode(err, kanri.ESTALE) {
			errs = views.Errors{"name": "stale.title"}
			cur.ETag = c.FormValue("etag") // saving again is stale again until reloaded
		}
		return s.form(c, httpkit.Status(err), cur, kept(in), errs)
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.SSOPath(t.ID), "sso.provider_saved", p.Name)
}

// removeProvider removes a provider and its identities.
func (s *Pages) removeProvider(c echo.Context) error {
	t := httpkit.Tenant(c)
	return s.Action(c, "sso.provider_removed", views.SSOPath(t.ID), func(seen kanri.Seen) (string, error) {
		p, err := s.SSO.Provider(c.Request().Context(), t.ID, c.Param("id"))
		if err != nil {
			return "", err
		}
		return p.Name, s.SSO.RemoveProvider(c.Request().Context(), t.ID, p.ID, seen.ETag)
	})
}

// testProvider fetches the provider's discovery and keys and shows what
// it found, or what is wrong.
func (s *Pages) testProvider(c echo.Context) error {
	ctx := c.Request().Context()
	check := &views.SSOCheck{ProviderID: c.Param("id")}
	r, err := s.SSO.Test(ctx, httpkit.Tenant(c).ID, c.Param("id"))
	switch {
	case err == nil:
		check.OK, check.Authorization, check.Token, check.Keys = true, r.Authorization, r.Token, r.Keys
	case kanri.IsCode(err, kanri.EINVALID):
		check.Message = httpkit.Message(ctx, err, "sso.test_failed")
	default:
		return err
	}
	return s.show(c, http.StatusOK, nil, nil, check)
}

// unlink removes an identity linked to a user.
func (s *Pages) unlink(c echo.Context) error {
	t := httpkit.Tenant(c)
	dest := views.UserPath(t.ID, c.Param("id")) + "/edit"
	return s.Action(c, "sso.unlinked", dest, func(kanri.Seen) (string, error) {
		return "", s.SSO.Unlink(c.Request().Context(), t.ID, c.Param("id"), c.Param("identity"))
	})
}

// newSCIMToken creates or rotates the tenant's provisioning token and
// shows it, this once.
func (s *Pages) newSCIMToken(c echo.Context) error {
	token, _, err := s.SCIM.NewToken(c.Request().Context(), httpkit.Tenant(c).ID, c.FormValue("etag"))
	if kanri.IsCode(err, kanri.ESTALE) {
		return kanri.Wrap(kanri.ESTALE, "stale.action", err) // sent again (a reload): the token made first stands
	}
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, showing{token: token})
}

// revokeSCIMToken stops the tenant's provisioning tokens.
func (s *Pages) revokeSCIMToken(c echo.Context) error {
	t := httpkit.Tenant(c)
	if err := s.SCIM.RevokeToken(c.Request().Context(), t.ID); err != nil {
		return err
	}
	return s.Report(c, views.SSOPath(t.ID), "scim.revoked")
}

// scimSettings saves what deprovisioning does.
func (s *Pages) scimSettings(c echo.Context) error {
	t := httpkit.Tenant(c)
	err := s.SCIM.SetDeleteUsers(c.Request().Context(), t.ID, c.FormValue("etag"), c.FormValue("deleteUsers") != "")
	if kanri.IsCode(err, kanri.ESTALE) {
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.SSOPath(t.ID), "scim.settings_saved")
}

// groupRoles maps a provisioned group to roles; its members' roles
// follow.
func (s *Pages) groupRoles(c echo.Context) error {
	t := httpkit.Tenant(c)
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	err = s.SCIM.SetGroupRoles(c.Request().Context(), t, c.Param("id"), form.Get("etag"), form["roles"])
	if kanri.IsCode(err, kanri.ESTALE) {
		return kanri.Wrap(kanri.ESTALE, "stale.action", err)
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.SSOPath(t.ID), "scim.group_saved")
}
