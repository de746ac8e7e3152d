package people

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/sso"
	"github.com/kanri/kanri/internal/user"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// routeUser loads the user of a /t/:tenant/users/:id route; deleted users
// are gone.
func (s *Pages) routeUser(c echo.Context) (*kanri.User, error) {
	u, err := s.Users.Get(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"))
	if err != nil {
		return nil, err
	}
	if !u.DeletedAt.IsZero() {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return u, nil
}

// listUsers shows a tenant's users.
func (s *Pages) listUsers(c echo.Context) error {
	t := httpkit.Tenant(c)
	f := user.ListFilter{Search: c.QueryParam("q"), Status: c.QueryParam("status"), Sort: c.QueryParam("sort"), Desc: c.QueryParam("desc") == "1"}
	users, pg, err := console.ListPage(c, views.UsersPath(t.ID), 20, func(token string, limit int) ([]*kanri.User, string, error) {
		page := f
		page.Continuation, page.Limit = token, limit
		return s.Users.List(c.Request().Context(), t.ID, page)
	})
	if err != nil {
		return err
	}
	if f.Search == "" && f.Status == "" {
		pg.Total = t.UserCount // kept exact with every create and delete
	}
	p, l := s.Page(c, "users.title", "users"), views.UserList{Users: users, Search: f.Search, Status: f.Status, Paging: pg}
	return console.ShowList(c, views.UsersPage(p, l), views.UserResults(p, l))
}

// newUser shows the empty user form.
func (s *Pages) newUser(c echo.Context) error {
	return httpkit.Render(c, http.StatusOK, views.UserFormPage(s.Page(c, "users.new", "users"), views.UserForm{}))
}

// createUser adds a user, or shows the form again with its errors. The
// password is never echoed back.
func (s *Pages) createUser(c echo.Context) error {
	t := httpkit.Tenant(c)
	in := userForm(c)
	u, err := s.Users.Create(c.Request().Context(), t.ID, in)
	if err == nil {
		return s.Report(c, views.UsersPath(t.ID), "users.created", u.Username)
	}
	code := kanri.ErrorCode(err)
	if code != kanri.EINVALID && code != kanri.ECONFLICT {
		return err
	}
	in.Password = ""
	f := views.UserForm{}
	f.Input, f.Errors = in, views.Errors(kanri.ErrorFields(err))
	status := http.StatusUnprocessableEntity
	if code == kanri.ECONFLICT || len(f.Errors) == 0 {
		f.FormError, status = httpkit.Message(c.Request().Context(), err, "error.form"), http.StatusConflict
	}
	return httpkit.Render(c, status, views.UserFormPage(s.Page(c, "users.new", "users"), f))
}

// editUser shows a user's edit form, security state and actions.
func (s *Pages) editUser(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	f := userEditForm(u)
	if f.LastAdmin, err = s.lastAdmin(c, u); err != nil {
		return err
	}
	if f.ErasureRequested, err = s.Erasure.Requested(c.Request().Context(), u.TenantID, u.ID); err != nil {
		return err
	}
	if f.Passkeys, err = auth.CountPasskeys(c.Request().Context(), s.Store, u.TenantID, u.ID); err != nil {
		return err
	}
	if f.Identities, err = identities(c.Request().Context(), s.SSO, u); err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.UserFormPage(s.Page(c, "users.edit", "users"), f))
}

// identities are the identities of the tenant's providers linked to u.
func identities(ctx context.Context, svc *sso.Service, u *kanri.User) (*views.IdentitiesView, error) {
	ids, err := svc.Identities(ctx, u.TenantID, u.ID)
	if err != nil {
		return nil, err
	}
	v := &views.IdentitiesView{UserID: u.ID, Identities: ids, Providers: map[string]string{}}
	if len(ids) > 0 {
		ps, err := svc.Providers(ctx, u.TenantID)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			v.Providers[p.ID] = p.Name
		}
	}
	return v, nil
}

// lastAdmin reports whether u is the last active administrator of a
// customer tenant that a global administrator is looking at: the one case
// where deactivating or deleting them is allowed, after a warning.
func (s *Pages) lastAdmin(c echo.Context, u *kanri.User) (bool, error) {
	t := httpkit.Tenant(c)
	if !httpkit.IsGlobalAdmin(c) || t.IsPrivileged || !u.IsActive {
		return false, nil
	}
	return s.Roles.IsLastAdmin(c.Request().Context(), t, u.ID)
}

// userEditForm is the edit form of u as stored.
func userEditForm(u *kanri.User) views.UserForm {
	f := views.UserForm{User: u, Profile: u.Profile}
	f.ETag, f.Input, f.Base = u.ETag, user.InputOf(u), user.InputOf(u)
	return f
}

// updateUser saves a user edit; a stale edit keeps the input and shows the
// stored values.
func (s *Pages) updateUser(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	in, base, etag := userForm(c), userBase(c), c.FormValue("etag")
	in.Username, in.Password = u.Username, ""
	saved, err := s.Users.Update(ctx, t.ID, u.ID, etag, base, in)
	if err == nil {
		return s.Report(c, views.UsersPath(t.ID), "users.updated", saved.Username)
	}
	f := views.UserForm{User: u}
	f.ETag, f.Input = etag, in
	if base != nil {
		f.Base = *base
	}
	status, err := console.EditFailed(&f.Edit, err, func() (*kanri.User, error) { return s.Users.Get(ctx, t.ID, u.ID) }, user.InputOf)
	if err != nil {
		return err
	}
	return httpkit.Render(c, status, views.UserFormPage(s.Page(c, "users.edit", "users"), f))
}

// resetPassword sets a new password chosen by an administrator.
func (s *Pages) resetPassword(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	t := httpkit.Tenant(c)
	saved, err := s.Users.ResetPassword(c.Request().Context(), t.ID, u.ID, console.Seen(c), c.FormValue("password"))
	if kanri.IsCode(err, kanri.EINVALID) {
		f := userEditForm(u)
		f.PasswordErrors = views.Errors(kanri.ErrorFields(err))
		return httpkit.Render(c, http.StatusUnprocessableEntity, views.UserFormPage(s.Page(c, "users.edit", "users"), f))
	}
	if err != nil {
		return err
	}
	return s.Report(c, views.UserPath(t.ID, u.ID)+"/edit", "users.password_reset", saved.Username)
}

// endUserSessions signs a user out on every device.
func (s *Pages) endUserSessions(c echo.Context) error {
	return s.userAction(c, "users.sessions_ended", false, func(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.User, error) {
		return s.Users.EndSessions(ctx, tenantID, id, seen)
	})
}

// deactivateUser stops a user from signing in.
func (s *Pages) deactivateUser(c echo.Context) error {
	return s.userAction(c, "users.deactivated", false, func(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.User, error) {
		return s.Users.SetActive(ctx, tenantID, id, seen, false)
	})
}

// reactivateUser lets a deactivated user sign in again.
func (s *Pages) reactivateUser(c echo.Context) error {
	return s.userAction(c, "users.reactivated", false, func(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.User, error) {
		return s.Users.SetActive(ctx, tenantID, id, seen, true)
	})
}

// unlockUser lifts a lockout.
func (s *Pages) unlockUser(c echo.Context) error {
	return s.userAction(c, "users.unlocked", false, s.Users.Unlock)
}

// deleteUser soft-deletes a user and removes their role assignments.
func (s *Pages) deleteUser(c echo.Context) error {
	return s.userAction(c, "users.deleted", true, s.Users.Delete)
}

// userAction runs one of the actions of the user's edit page and returns to
// it, or to the list when the user is gone.
func (s *Pages) userAction(c echo.Context, doneKey string, toList bool, do func(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.User, error)) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	t := httpkit.Tenant(c)
	dest := views.UserPath(t.ID, u.ID) + "/edit"
	if toList {
		dest = views.UsersPath(t.ID)
	}
	return s.Action(c, doneKey, dest, func(seen kanri.Seen) (string, error) {
		saved, err := do(c.Request().Context(), t.ID, u.ID, seen)
		if err != nil {
			return "", err
		}
		return saved.Username, nil
	})
}

// profileForm reads the profile form.
func profileForm(c echo.Context) kanri.UserProfile {
	return kanri.UserProfile{
		FirstName: c.FormValue("firstName"), LastName: c.FormValue("lastName"), PhoneNumber: c.FormValue("phoneNumber"),
		Department: c.FormValue("department"), JobTitle: c.FormValue("jobTitle"),
	}
}

// profileErrors are the profile form's errors of err (a stale edit is one
// of the whole form), or err itself when it is no form's.
func profileErrors(err error) (int, views.Errors, error) {
	switch {
	case kanri.IsCode(err, kanri.ESTALE):
		return http.StatusConflict, views.Errors{"_form": "stale.title"}, nil
	case kanri.IsCode(err, kanri.EINVALID):
		return http.StatusUnprocessableEntity, views.Errors(kanri.ErrorFields(err)), nil
	}
	return 0, nil, err
}

// updateProfile saves a user's profile from their page (an administrator).
func (s *Pages) updateProfile(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	t, in := httpkit.Tenant(c), profileForm(c)
	saved, err := s.Users.UpdateProfile(c.Request().Context(), t.ID, u.ID, console.Seen(c), in)
	if err == nil {
		return s.Report(c, views.UserPath(t.ID, u.ID)+"/edit", "profile.saved", saved.Username)
	}
	status, errs, err := profileErrors(err)
	if err != nil {
		return err
	}
	cur, gerr := s.Users.Get(c.Request().Context(), t.ID, u.ID)
	if gerr != nil {
		return gerr
	}
	f := userEditForm(cur)
	f.Profile, f.ProfileErrors = in, errs
	return httpkit.Render(c, status, views.UserFormPage(s.Page(c, "users.edit", "users"), f))
}

// avatarPath is where a user's avatar is served, with its version.
func avatarPath(tenantID, userID, version string) string {
	return views.UserPath(tenantID, userID) + "/avatar?v=" + version[:12]
}

// storeAvatar makes a user's avatar from the form's image and records it.
func (s *Pages) storeAvatar(c echo.Context, u *kanri.User) error {
	ctx := c.Request().Context()
	fh, err := c.FormFile("avatar")
	if err != nil {
		return kanri.Invalid(kanri.Fields{"avatar": "profile.avatar_missing"})
	}
	f, err := fh.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	version, err := s.Files.StoreAvatar(ctx, u.TenantID, u.ID, f)
	if err != nil {
		return err
	}
	_, err = s.Users.SetAvatar(ctx, u.TenantID, u.ID, console.Seen(c), avatarPath(u.TenantID, u.ID, version))
	return err
}

// uploadAvatar sets a user's avatar from their page (an administrator).
func (s *Pages) uploadAvatar(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	if err := s.storeAvatar(c, u); err != nil {
		return err
	}
	return s.Report(c, views.UserPath(u.TenantID, u.ID)+"/edit", "profile.avatar_saved")
}

// avatar sends a user's avatar, as a thumbnail is sent.
func (s *Pages) avatar(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	return s.sendAvatar(c, u)
}

func (s *Pages) sendAvatar(c echo.Context, u *kanri.User) error {
	r, err := s.Files.Avatar(c.Request().Context(), u.TenantID, u.ID)
	if err != nil {
		return err
	}
	return httpkit.SendImage(c, r, "image/png")
}
