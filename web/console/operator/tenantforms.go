package operator

import (
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
)

// The forms of the console, read into the domain's input types. Ids and
// tenants never come from a form: handlers take them from the route.

// tenantForm reads the tenant form. What cannot be read (a maxUsers that
// is not a number) is a field error, and maxUsers is also returned as
// typed, so that the form shows it again.
func tenantForm(c echo.Context) (in kanri.TenantInput, maxUsers string, errs kanri.Fields) {
	in = kanri.TenantInput{
		Name: c.FormValue("name"), DisplayName: c.FormValue("displayName"), Plan: c.FormValue("plan"),
		Industry: c.FormValue("industry"), Country: c.FormValue("country"),
		StartDate: c.FormValue("startDate"), EndDate: c.FormValue("endDate"),
	}
	maxUsers = strings.TrimSpace(c.FormValue("maxUsers"))
	n, err := strconv.Atoi(maxUsers)
	if err != nil {
		return in, maxUsers, kanri.Fields{"maxUsers": "validation.max_users"}
	}
	in.MaxUsers = n
	return in, maxUsers, nil
}

// tenantBase reads the fields of the tenant edit form as it was opened, or
// nil if the form did not send them.
func tenantBase(c echo.Context, name string) *kanri.TenantInput {
	if c.FormValue("base_present") == "" {
		return nil
	}
	n, _ := strconv.Atoi(c.FormValue("base_maxUsers"))
	return &kanri.TenantInput{
		Name: name, DisplayName: c.FormValue("base_displayName"), Plan: c.FormValue("base_plan"), MaxUsers: n,
		Industry: c.FormValue("base_industry"), Country: c.FormValue("base_country"),
		StartDate: c.FormValue("base_startDate"), EndDate: c.FormValue("base_endDate"),
	}
}
