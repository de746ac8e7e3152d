package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/user"
	"github.com/kanri/kanri/views"
)

// routeTenant returns the tenant resolved for a /t/:tenant route.
func routeTenant(c echo.Context) *kanri.Tenant { return c.Get(ctxTenant).(*kanri.Tenant) }

func usersPath(t *kanri.Tenant) string { return "/t/" + t.ID + "/users" }

// listUsers shows a tenant's users.
func (s *Server) listUsers(c echo.Context) error {
	t := routeTenant(c)
	q := c.QueryParams()
	f := user.ListFilter{Search: q.Get("q"), Status: q.Get("status"), Continuation: q.Get("cursor")}
	ctx := c.Request().Context()
	list, next, notice, err := firstPageOnBadToken(&f.Continuation, func() ([]*kanri.User, string, error) {
		return s.Users.List(ctx, t.ID, f)
	})
	if err != nil {
		return err
	}
	l := views.UserList{
		Users: list, Search: f.Search, Status: f.Status, Notice: notice,
		FirstURL: pageURL(usersPath(t), q, ""), OnFirst: f.Continuation == "",
	}
	if next != "" {
		l.NextURL = pageURL(usersPath(t), q, next)
	}
	p := s.page(c, "users.title", "users")
	if isHTMX(c) {
		return render(c, http.StatusOK, views.UserResults(p, l))
	}
	return render(c, http.StatusOK, views.UsersPage(p, l))
}

// newUser shows the empty user form.
func (s *Server) newUser(c echo.Context) error {
	return render(c, http.StatusOK, views.UserFormPage(s.page(c, "users.new", "users"), views.UserForm{}))
}

func userInput(c echo.Context) kanri.UserInput {
	return kanri.UserInput{
		Username: c.FormValue("username"), Email: c.FormValue("email"),
		DisplayName: c.FormValue("displayName"), Password: c.FormValue("password"),
	}
}

// createUser adds a user, or shows the form again with its errors. The
// password is never echoed back.
func (s *Server) createUser(c echo.Context) error {
	t := routeTenant(c)
	in := userInput(c)
	u, err := s.Users.Create(c.Request().Context(), t.ID, in)
	if code := kanri.ErrorCode(err); code == kanri.EINVALID || code == kanri.ECONFLICT {
		in.Password = ""
		f := views.UserForm{Input: in, Errors: formErrors(views.Errors{}, err)}
		status := http.StatusUnprocessableEntity
		if code == kanri.ECONFLICT || len(f.Errors) == 0 {
			f.FormError, status = message(c.Request().Context(), err, "error.form"), http.StatusConflict
		}
		return render(c, status, views.UserFormPage(s.page(c, "users.new", "users"), f))
	}
	if err != nil {
		return err
	}
	s.flash(c, "success", i18n.T(c.Request().Context(), "users.created", u.Username))
	return redirect(c, usersPath(t))
}

// routeUser loads the user of a /users/:id route; deleted users are gone.
// Only a global administrator may change a global administrator (their
// password, status, roles): nobody takes over a higher account.
func (s *Server) routeUser(c echo.Context) (*kanri.User, error) {
	ctx := c.Request().Context()
	t := routeTenant(c)
	u, err := s.Users.Get(ctx, t.ID, c.Param("id"))
	if err != nil {
		return nil, err
	}
	if !u.DeletedAt.IsZero() {
		return nil, echo.ErrNotFound
	}
	if c.Request().Method != http.MethodGet && t.IsPrivileged && !isGlobalAdmin(c) {
		global, err := s.Roles.IsGlobalAdmin(ctx, t, u.ID)
		if err != nil {
			return nil, err
		}
		if global {
			return nil, kanri.E(kanri.EFORBIDDEN, "error.global_admin_only")
		}
	}
	return u, nil
}

// editUser shows a user's edit form, security state and actions.
func (s *Server) editUser(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	f := views.UserForm{User: u, ETag: u.ETag, Input: editableUser(u), Base: editableUser(u)}
	return render(c, http.StatusOK, views.UserFormPage(s.page(c, "users.edit", "users"), f))
}

// editableUser returns the fields of u that the edit form changes.
func editableUser(u *kanri.User) kanri.UserInput {
	return kanri.UserInput{Email: u.Email, DisplayName: u.DisplayName}
}

// userBase reads the values the edit form was opened with, or nil if the
// form did not send them.
func userBase(c echo.Context) *kanri.UserInput {
	if c.FormValue("base_present") == "" {
		return nil
	}
	return &kanri.UserInput{Email: c.FormValue("base_email"), DisplayName: c.FormValue("base_displayName")}
}

// updateUser saves a user edit; a stale edit keeps the input and shows the
// stored values.
func (s *Server) updateUser(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	in := userInput(c)
	in.Username, in.Password = u.Username, ""
	etag := c.FormValue("etag")
	base := userBase(c)
	saved, err := s.Users.Update(c.Request().Context(), routeTenant(c).ID, u.ID, etag, base, in)
	if err == nil {
		s.flash(c, "success", i18n.T(c.Request().Context(), "users.updated", saved.Username))
		return redirect(c, usersPath(routeTenant(c)))
	}
	f := views.UserForm{User: u, ETag: etag, Input: in, Errors: formErrors(views.Errors{}, err)}
	if base != nil {
		f.Base = *base
	}
	switch kanri.ErrorCode(err) {
	case kanri.ESTALE:
		cur, gerr := s.Users.Get(c.Request().Context(), routeTenant(c).ID, u.ID)
		if gerr != nil {
			return gerr
		}
		f.ETag, f.Current, f.Base = cur.ETag, cur, editableUser(cur)
		return render(c, http.StatusConflict, views.UserFormPage(s.page(c, "users.edit", "users"), f))
	case kanri.EINVALID:
		return render(c, http.StatusUnprocessableEntity, views.UserFormPage(s.page(c, "users.edit", "users"), f))
	}
	return err
}

// resetPassword sets a new password chosen by an administrator.
func (s *Server) resetPassword(c echo.Context) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	saved, err := s.Users.ResetPassword(c.Request().Context(), routeTenant(c).ID, u.ID, "", c.FormValue("password"))
	if kanri.IsCode(err, kanri.EINVALID) {
		f := views.UserForm{User: u, ETag: u.ETag, Input: editableUser(u), Base: editableUser(u), PasswordErrors: formErrors(views.Errors{}, err)}
		return render(c, http.StatusUnprocessableEntity, views.UserFormPage(s.page(c, "users.edit", "users"), f))
	}
	if err != nil {
		return err
	}
	s.flash(c, "success", i18n.T(c.Request().Context(), "users.password_reset", saved.Username))
	return redirect(c, usersPath(routeTenant(c))+"/"+u.ID+"/edit")
}

// deactivateUser stops a user from signing in.
func (s *Server) deactivateUser(c echo.Context) error {
	return s.userAction(c, "users.deactivated", false, func(tid, id, etag string) (*kanri.User, error) {
		return s.Users.SetActive(c.Request().Context(), tid, id, etag, false)
	})
}

// reactivateUser lets a deactivated user sign in again.
func (s *Server) reactivateUser(c echo.Context) error {
	return s.userAction(c, "users.reactivated", false, func(tid, id, etag string) (*kanri.User, error) {
		return s.Users.SetActive(c.Request().Context(), tid, id, etag, true)
	})
}

// unlockUser lifts a lockout.
func (s *Server) unlockUser(c echo.Context) error {
	return s.userAction(c, "users.unlocked", false, func(tid, id, etag string) (*kanri.User, error) {
		return s.Users.Unlock(c.Request().Context(), tid, id, etag)
	})
}

// deleteUser soft-deletes a user and removes their role assignments.
func (s *Server) deleteUser(c echo.Context) error {
	return s.userAction(c, "users.deleted", true, func(tid, id, etag string) (*kanri.User, error) {
		return s.Users.Delete(c.Request().Context(), tid, id, etag)
	})
}

// userAction runs one of the user actions and returns to the user (or, after
// a delete, to the list).
func (s *Server) userAction(c echo.Context, done string, toList bool, do func(tid, id, etag string) (*kanri.User, error)) error {
	u, err := s.routeUser(c)
	if err != nil {
		return err
	}
	t := routeTenant(c)
	saved, err := do(t.ID, u.ID, c.FormValue("etag"))
	if err != nil {
		return err
	}
	s.flash(c, "success", i18n.T(c.Request().Context(), done, saved.Username))
	if toList {
		return redirect(c, usersPath(t))
	}
	return redirect(c, usersPath(t)+"/"+u.ID+"/edit")
}
