package api

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/user"
	"github.com/kanri/kanri/web/httpkit"
)

// apiUser is a user as the API shows it: the data model's field names
// (docs/data-model.md, "Users"), never the password hash or the security
// bookkeeping.
type apiUser struct {
	ID          string     `json:"id"`
	TenantID    string     `json:"tenantId"`
	Username    string     `json:"username"`
	Email       string     `json:"email"`
	DisplayName string     `json:"displayName"`
	IsActive    bool       `json:"isActive"`
	Status      string     `json:"status"`
	CreatedAt   kanri.Time `json:"createdAt"`
	UpdatedAt   kanri.Time `json:"updatedAt"`
	LastLoginAt kanri.Time `json:"lastLoginAt"`
	Profile     apiProfile `json:"profile"`
}

// apiProfile is a user's profile as the API shows it.
type apiProfile struct {
	FirstName   string `json:"firstName"`
	LastName    string `json:"lastName"`
	PhoneNumber string `json:"phoneNumber"`
	Department  string `json:"department"`
	JobTitle    string `json:"jobTitle"`
}

func (s *Server) apiUserOf(u *kanri.User) apiUser {
	return apiUser{
		ID: u.ID, TenantID: u.TenantID, Username: u.Username, Email: u.Email, DisplayName: u.DisplayName,
		IsActive: u.IsActive, Status: u.Status(s.Now()), CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt,
		LastLoginAt: u.Security.LastLoginAt,
		Profile: apiProfile{FirstName: u.Profile.FirstName, LastName: u.Profile.LastName, PhoneNumber: u.Profile.PhoneNumber,
			Department: u.Profile.Department, JobTitle: u.Profile.JobTitle},
	}
}

// BadNext names the next parameter in a list's refusal of its
// continuation token: the console starts such a list over at its first
// page, but an API client asked for a page after another and gets none.
func BadNext(err error) error {
	if key, _ := kanri.ErrorMessage(err); kanri.IsCode(err, kanri.EINVALID) && key == "validation.continuation" {
		return kanri.Invalid(map[string]string{ParamNext.Name: "api.next_invalid"})
	}
	return err
}

func (s *Server) apiListUsers(c echo.Context) error {
	limit, err := ParamLimit.Int(c)
	if err != nil {
		return err
	}
	users, next, err := s.Users.List(c.Request().Context(), httpkit.Tenant(c).ID, user.ListFilter{
		Search: paramUserSearch.Str(c), Status: paramUserStatus.Str(c), Sort: paramUserSort.Str(c), Desc: ParamDesc.Bool(c),
		Limit: limit, Continuation: ParamNext.Str(c),
	})
	if err != nil {
		return BadNext(err)
	}
	out := make([]apiUser, len(users))
	for i, u := range users {
		out[i] = s.apiUserOf(u)
	}
	return SendList(c, out, next)
}

func (s *Server) apiGetUser(c echo.Context) error {
	u, err := s.Users.Get(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"))
	if err != nil {
		return err
	}
	return SendDoc(c, http.StatusOK, u.ETag, s.apiUserOf(u))
}

// apiUserCreate is the body of POST /users.
type apiUserCreate struct {
	Username    string      `json:"username"`
	Email       string      `json:"email"`
	DisplayName string      `json:"displayName"`
	Password    string      `json:"password"`
	Profile     *apiProfile `json:"profile"`
}

func (s *Server) apiCreateUser(c echo.Context) error {
	var in apiUserCreate
	if err := ReadJSON(c, &in); err != nil {
		return err
	}
	user := kanri.UserInput{Username: in.Username, Email: in.Email, DisplayName: in.DisplayName, Password: in.Password}
	if p := in.Profile; p != nil {
		user.Profile = &kanri.UserProfile{FirstName: p.FirstName, LastName: p.LastName, PhoneNumber: p.PhoneNumber, Department: p.Department, JobTitle: p.JobTitle}
	}
	u, err := s.Users.Create(c.Request().Context(), httpkit.Tenant(c).ID, user)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, Prefix+"/users/"+url.PathEscape(u.ID))
	return SendDoc(c, http.StatusCreated, u.ETag, s.apiUserOf(u))
}

func (s *Server) apiUpdateUser(c echo.Context) error {
	var in kanri.UserModificationRequest
	if err := ReadJSON(c, &in); err != nil {
		return err
	}
	u, err := s.Users.Patch(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"), in,
		func(etag string) (string, error) { return Precondition(c, etag) })
	if err != nil {
		return err
	}
	return SendDoc(c, http.StatusOK, u.ETag, s.apiUserOf(u))
}

func (s *Server) apiDeactivateUser(c echo.Context) error { return s.apiSetActive(c, false) }

func (s *Server) apiReactivateUser(c echo.Context) error { return s.apiSetActive(c, true) }

func (s *Server) apiSetActive(c echo.Context, active bool) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	cur, err := s.Users.Get(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	if !active {
		if err := disablesItself(c, cur); err != nil {
			return err
		}
	}
	tag, err := Precondition(c, cur.ETag)
	if err != nil {
		return err
	}
	u, err := s.Users.SetActive(ctx, t.ID, cur.ID, kanri.Seen{ETag: tag}, active)
	if err != nil {
		return err
	}
	return SendDoc(c, http.StatusOK, u.ETag, s.apiUserOf(u))
}

// apiDeleteUser soft-deletes a user through the user service, with the
// console's rules: not the tenant's last administrator, not oneself.
func (s *Server) apiDeleteUser(c echo.Context) error {
	ctx := c.Request().Context()
	t := httpkit.Tenant(c)
	cur, err := s.Users.Get(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	if !cur.DeletedAt.IsZero() {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	if err := disablesItself(c, cur); err != nil {
		return err
	}
	tag, err := Precondition(c, cur.ETag)
	if err != nil {
		return err
	}
	if _, err := s.Users.Delete(ctx, t.ID, cur.ID, kanri.Seen{ETag: tag}); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// disablesItself refuses to deactivate or delete the person who made the
// request's key, which would disable the key itself, unless the request
// says confirm=disable-this-key.
func disablesItself(c echo.Context, u *kanri.User) error {
	if u.ID == KeyOf(c).CreatedBy && paramConfirm.Str(c) != confirmDisableKey {
		return kanri.E(kanri.ECONFLICT, "api.disables_itself", confirmDisableKey)
	}
	return nil
}

// apiRoleAssignment is a role assignment as the API shows it: the data
// model's id and role name (docs/data-model.md, "Roles"), and the role's
// stable English key (admin, viewer or global_admin) and its label in the
// request's language.
type apiRoleAssignment struct {
	ID         string `json:"id"`
	UserID     string `json:"userId"`
	ServiceID  string `json:"serviceId"`
	RoleName   string `json:"roleName"`
	Role       string `json:"role"`
	RoleLabel  string `json:"roleLabel"`
	AssignedBy string `json:"assignedBy"`
	// AssignedByKind says what AssignedBy names (actorKind).
	AssignedByKind string     `json:"assignedByKind"`
	AssignedAt     kanri.Time `json:"assignedAt"`
}

func apiRoleOf(ctx context.Context, ra *kanri.RoleAssignment) apiRoleAssignment {
	out := apiRoleAssignment{ID: ra.ID, UserID: ra.UserID, ServiceID: ra.ServiceID, RoleName: ra.RoleName, RoleLabel: ra.RoleName,
		AssignedBy: ra.AssignedBy, AssignedByKind: ActorKind(ra.AssignedBy), AssignedAt: ra.AssignedAt}
	if d, ok := role.Find(ra.ServiceID, ra.RoleName); ok {
		out.Role, out.RoleLabel = d.Key, i18n.T(ctx, "role."+d.Key)
	}
	return out
}

// apiUserOfTenant checks that the route's user is one of the tenant's.
func (s *Server) apiUserOfTenant(c echo.Context) (*kanri.User, error) {
	return s.Users.Get(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"))
}

func (s *Server) apiListRoles(c echo.Context) error {
	u, err := s.apiUserOfTenant(c)
	if err != nil {
		return err
	}
	ras, err := s.Roles.ForUser(c.Request().Context(), u.TenantID, u.ID)
	if err != nil {
		return err
	}
	out := make([]apiRoleAssignment, len(ras))
	for i, ra := range ras {
		out[i] = apiRoleOf(c.Request().Context(), ra)
	}
	return SendList(c, out, "")
}

// apiRoleCreate is the body of POST /users/{id}/roles: a service and its
// role, by key (admin, viewer) or by the data model's name (管理者).
type apiRoleCreate struct {
	ServiceID string `json:"serviceId"`
	Role      string `json:"role"`
}

func (s *Server) apiAssignRole(c echo.Context) error {
	var in apiRoleCreate
	if err := ReadJSON(c, &in); err != nil {
		return err
	}
	u, err := s.apiUserOfTenant(c)
	if err != nil {
		return err
	}
	d, ok := role.FindKey(in.ServiceID, in.Role)
	if !ok {
		if d, ok = role.Find(in.ServiceID, in.Role); !ok {
			return kanri.Invalid(kanri.Fields{"role": "validation.role"})
		}
	}
	ra, created, err := s.Roles.Assign(c.Request().Context(), role.Grant{Tenant: httpkit.Tenant(c), UserID: u.ID, ServiceID: d.ServiceID, RoleName: d.RoleName})
	if err != nil {
		return err
	}
	if !created {
		return c.JSON(http.StatusOK, apiRoleOf(c.Request().Context(), ra))
	}
	out := apiRoleOf(c.Request().Context(), ra)
	c.Response().Header().Set(echo.HeaderLocation, Prefix+"/users/"+url.PathEscape(u.ID)+"/roles/"+url.PathEscape(out.ServiceID)+"/"+url.PathEscape(out.Role))
	return c.JSON(http.StatusCreated, out)
}

// apiGetRole answers the assignment of a role, by its key, to a user of
// the tenant: the resource a role's assignment is created as.
func (s *Server) apiGetRole(c echo.Context) error {
	u, err := s.apiUserOfTenant(c)
	if err != nil {
		return err
	}
	d, ok := role.FindKey(c.Param("service"), c.Param("role"))
	if !ok {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	ras, err := s.Roles.ForUser(c.Request().Context(), u.TenantID, u.ID)
	if err != nil {
		return err
	}
	for _, ra := range ras {
		if ra.ServiceID == d.ServiceID && ra.RoleName == d.RoleName {
			return SendTagged(c, apiRoleOf(c.Request().Context(), ra))
		}
	}
	return kanri.E(kanri.ENOTFOUND, "error.not_found")
}

func (s *Server) apiRemoveRole(c echo.Context) error {
	u, err := s.apiUserOfTenant(c)
	if err != nil {
		return err
	}
	d, ok := role.FindKey(c.Param("service"), c.Param("role"))
	if !ok {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	if err := s.Roles.Remove(c.Request().Context(), role.Grant{Tenant: httpkit.Tenant(c), UserID: u.ID, ServiceID: d.ServiceID, RoleName: d.RoleName}); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// apiRole is a role of the catalogue, as the API shows it.
type apiRole struct {
	ID          string `json:"id"`
	ServiceID   string `json:"serviceId"`
	ServiceName string `json:"serviceName"`
	RoleName    string `json:"roleName"`
	Role        string `json:"role"`
	Label       string `json:"label"`
}

// apiRoleCatalog lists the roles that can be given in the key's tenant:
// every service's administrator and viewer, and in the operator's tenant
// the global administrator too.
func (s *Server) apiRoleCatalog(c echo.Context) error {
	ctx := c.Request().Context()
	var out []apiRole
	for _, svc := range role.Catalog() {
		for _, d := range svc.Roles {
			if d.PrivilegedOnly() && !httpkit.Tenant(c).IsPrivileged {
				continue
			}
			out = append(out, apiRole{ID: d.ID(), ServiceID: d.ServiceID, ServiceName: i18n.T(ctx, "service."+svc.ID),
				RoleName: d.RoleName, Role: d.Key, Label: i18n.T(ctx, "role."+d.Key)})
		}
	}
	return SendList(c, out, "")
}

// apiMeKey is the request's API key as GET /me shows it: never its
// secret or hash.
type apiMeKey struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Prefix    string     `json:"prefix"`
	Scopes    []string   `json:"scopes"`
	CreatedAt kanri.Time `json:"createdAt"`
	ExpiresAt kanri.Time `json:"expiresAt"`
}

// apiMe is the answer of GET /me.
type apiMe struct {
	Key    apiMeKey `json:"key"`
	Tenant struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		DisplayName string `json:"displayName"`
	} `json:"tenant"`
	RateLimit struct {
		Limit         int    `json:"limit"`
		Window        string `json:"window"`
		WindowSeconds int    `json:"windowSeconds"`
	} `json:"rateLimit"`
}

// apiMe answers with the request's key, its tenant and its rate limit.
func (s *Server) apiMe(c echo.Context) error {
	k, t := KeyOf(c), httpkit.Tenant(c)
	var me apiMe
	me.Key = apiMeKey{ID: k.ID, Name: k.Name, Prefix: k.KeyPrefix, Scopes: k.Scopes, CreatedAt: k.CreatedAt, ExpiresAt: k.ExpiresAt}
	if me.Key.Scopes == nil {
		me.Key.Scopes = []string{}
	}
	me.Tenant.ID, me.Tenant.Name, me.Tenant.DisplayName = t.ID, t.Name, t.DisplayName
	me.RateLimit.Limit, me.RateLimit.Window = k.RateLimit, k.RateLimitWindow
	me.RateLimit.WindowSeconds = int(k.Window() / time.Second)
	return SendTagged(c, me)
}

// apiAudit is an audit record as the API shows it.
type apiAudit struct {
	ID        string                  `json:"id"`
	Timestamp kanri.Time              `json:"timestamp"`
	Action    string                  `json:"action"`
	Status    string                  `json:"status"`
	UserID    string                  `json:"userId"`
	UserKind  string                  `json:"userKind"` // what UserID names (actorKind)
	UserName  string                  `json:"userName"`
	Resource  kanri.AuditResource     `json:"resource"`
	Changes   map[string]kanri.Change `json:"changes,omitempty"`
	Reason    string                  `json:"reason,omitempty"`
	IPAddress string                  `json:"ipAddress,omitempty"`
	RequestID string                  `json:"requestId,omitempty"`
}

func (s *Server) apiListAudit(c echo.Context) error {
	limit, err := ParamLimit.Int(c)
	if err != nil {
		return err
	}
	f, errs := audit.ParseFilter(c.QueryParams(), time.UTC) // the console's filter: action, user, resource, from and to; whole UTC days
	if len(errs) > 0 {
		return kanri.Invalid(errs)
	}
	f.Limit, f.Continuation = limit, ParamNext.Str(c)
	recs, next, err := s.Audit.Query(c.Request().Context(), httpkit.Tenant(c).ID, f)
	if err != nil {
		return BadNext(err)
	}
	out := make([]apiAudit, len(recs))
	for i, r := range recs {
		out[i] = apiAudit{
			ID: r.ID, Timestamp: r.Timestamp, Action: r.Action, Status: r.Status, UserID: r.UserID, UserKind: ActorKind(r.UserID), UserName: r.UserName,
			Resource: r.Resource, Changes: r.Details.Changes, Reason: r.Details.Reason,
			IPAddress: r.Metadata.IPAddress, RequestID: r.Metadata.RequestID,
		}
	}
	return SendList(c, out, next)
}
