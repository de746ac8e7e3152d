package people

import (
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
)

// The forms of the console, read into the domain's input types. Ids and
// tenants never come from a form: handlers take them from the route.

// userForm reads the user form.
func userForm(c echo.Context) kanri.UserInput {
	return kanri.UserInput{
		Username: c.FormValue("username"), Email: c.FormValue("email"),
		DisplayName: c.FormValue("displayName"), Password: c.FormValue("password"),
	}
}

// userBase reads the fields of the user edit form as it was opened, or nil
// if the form did not send them.
func userBase(c echo.Context) *kanri.UserInput {
	if c.FormValue("base_present") == "" {
		return nil
	}
	return &kanri.UserInput{Email: c.FormValue("base_email"), DisplayName: c.FormValue("base_displayName")}
}
