// Package accountapi serves the API's operations on a tenant's users, their roles, and its audit log.
package accountapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/user"
	"github.com/kanri/kanri/web/api"
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

func (s *Handlers) apiUserOf(u *kanri.User) apiUser {
	return apiUser{
		ID: u.ID, TenantID: u.TenantID, Username: u.Username, Email: u.Email, DisplayName: u.DisplayName,
		IsActive: u.IsActive, Status: u.Status(s.Now()), CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt,
		LastLoginAt: u.Security.LastLoginAt,
		Profile: apiProfile{FirstName: u.Profile.FirstName, LastName: u.Profile.LastName, PhoneNumber: u.Profile.PhoneNumber,
			Department: u.Profile.Department, JobTitle: u.Profile.JobTitle},
	}
}

func (s *Handlers) apiListUsers(c echo.Context) error {
	limit, err := api.ParamLimit.Int(c)
	if err != nil {
		return err
	}
	users, next, err := s.Users.List(c.Request().Context(), httpkit.Tenant(c).ID, user.ListFilter{
		Search: paramUserSearch.Str(c), Status: paramUserStatus.Str(c), Sort: paramUserSort.Str(c), Desc: api.ParamDesc.Bool(c),
		Limit: limit, Continuation: api.ParamNext.Str(c),
	})
	if err != nil {
		return api.BadNext(err)
	}
	out := make([]apiUser, len(users))
	for i, u := range users {
		out[i] = s.apiUserOf(u)
	}
	return api.SendList(c, out, next)
}

func (s *Handlers) apiGetUser(c echo.Context) error {
	u, err := s.Users.Get(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"))
	if err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, u.ETag, s.apiUserOf(u))
}

// apiUserCreate is the body of POST /users.
type apiUserCreate struct {
	Username    string      `json:"username"`
	Email       string      `json:"email"`
	DisplayName string      `json:"displayName"`
	Password    string      `json:"password"`
	Profile     *apiProfile `json:"profile"`
}

func (s *Handlers) apiCreateUser(c echo.Context) error {
	var in apiUserCreate
	if err := api.ReadJSON(c, &in); err != nil {
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
	c.Response().Header().Set(echo.HeaderLocation, api.Prefix+"/users/"+url.PathEscape(u.ID))
	return api.SendDoc(c, http.StatusCreated, u.ETag, s.apiUserOf(u))
}

func (s *Handlers) apiUpdateUser(c echo.Context) error {
	var in kanri.UserModificationRequest
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	u, err := s.Users.Patch(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"), in,
		func(etag string) (string, error) { return api.Precondition(c, etag) })
	if err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, u.ETag, s.apiUserOf(u))
}

func (s *Handlers) apiDeactivateUser(c echo.Context) error { return s.apiSetActive(c, false) }

func (s *Handlers) apiReactivateUser(c echo.Context) error { return s.apiSetActive(c, true) }

func (s *Handlers) apiSetActive(c echo.Context, active bool) error {
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
	tag, err := api.Precondition(c, cur.ETag)
	if err != nil {
		return err
	}
	u, err := s.Users.SetActive(ctx, t.ID, cur.ID, kanri.Seen{ETag: tag}, active)
	if err != nil {
		return err
	}
	return api.SendDoc(c, http.StatusOK, u.ETag, s.apiUserOf(u))
}

// apiDeleteUser soft-deletes a user through the user service, with the
// console's rules: not the tenant's last administrator, not oneself.
func (s *Handlers) apiDeleteUser(c echo.Context) error {
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
	tag, err := api.Precondition(c, cur.ETag)
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
	if u.ID == api.KeyOf(c).CreatedBy && paramConfirm.Str(c) != confirmDisableKey {
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

func (s *Handlers) apiRoleOf(ctx context.Context, ra *kanri.RoleAssignment) apiRoleAssignment {
	out := apiRoleAssignment{ID: ra.ID, UserID: ra.UserID, ServiceID: ra.ServiceID, RoleName: ra.RoleName, RoleLabel: ra.RoleName,
		AssignedBy: ra.AssignedBy, AssignedByKind: api.ActorKind(ra.AssignedBy), AssignedAt: ra.AssignedAt}
	if d, ok := s.Roles.Catalog.Find(ra.ServiceID, ra.RoleName); ok {
		out.Role, out.RoleLabel = d.Key, i18n.T(ctx, "role."+d.Key)
	}
	return out
}

// apiUserOfTenant checks that the route's user is one of the tenant's.
func (s *Handlers) apiUserOfTenant(c echo.Context) (*kanri.User, error) {
	return s.Users.Get(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("id"))
}

func (s *Handlers) apiListRoles(c echo.Context) error {
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
		out[i] = s.apiRoleOf(c.Request().Context(), ra)
	}
	return api.SendList(c, out, "")
}

// apiRoleCreate is the body of POST /users/{id}/roles: a service and its
// role, by key (admin, viewer) or by the data model's name (管理者).
type apiRoleCreate struct {
	ServiceID string `json:"serviceId"`
	Role      string `json:"role"`
}

func (s *Handlers) apiAssignRole(c echo.Context) error {
	var in apiRoleCreate
	if err := api.ReadJSON(c, &in); err != nil {
		return err
	}
	u, err := s.apiUserOfTenant(c)
	if err != nil {
		return err
	}
	d, ok := s.Roles.Catalog.FindKey(in.ServiceID, in.Role)
	if !ok {
		if d, ok = s.Roles.Catalog.Find(in.ServiceID, in.Role); !ok {
			return kanri.Invalid(kanri.Fields{"role": "validation.role"})
		}
	}
	ra, created, err := s.Roles.Assign(c.Request().Context(), role.Grant{Tenant: httpkit.Tenant(c), UserID: u.ID, ServiceID: d.ServiceID, RoleName: d.RoleName})
	if err != nil {
		return err
	}
	if !created {
		return c.JSON(http.StatusOK, s.apiRoleOf(c.Request().Context(), ra))
	}
	out := s.apiRoleOf(c.Request().Context(), ra)
	c.Response().Header().Set(echo.HeaderLocation, api.Prefix+"/users/"+url.PathEscape(u.ID)+"/roles/"+url.PathEscape(out.ServiceID)+"/"+url.PathEscape(out.Role))
	return c.JSON(http.StatusCreated, out)
}

// apiGetRole answers the assignment of a role, by its key, to a user of
// the tenant: the resource a role's assignment is created as.
func (s *Handlers) apiGetRole(c echo.Context) error {
	u, err := s.apiUserOfTenant(c)
	if err != nil {
		return err
	}
	d, ok := s.Roles.Catalog.FindKey(c.Param("service"), c.Param("role"))
	if !ok {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	ras, err := s.Roles.ForUser(c.Request().Context(), u.TenantID, u.ID)
	if err != nil {
		return err
	}
	for _, ra := range ras {
		if ra.ServiceID == d.ServiceID && ra.RoleName == d.RoleName {
			return api.SendTagged(c, s.apiRoleOf(c.Request().Context(), ra))
		}
	}
	return kanri.E(kanri.ENOTFOUND, "error.not_found")
}

func (s *Handlers) apiRemoveRole(c echo.Context) error {
	u, err := s.apiUserOfTenant(c)
	if err != nil {
		return err
	}
	d, ok := s.Roles.Catalog.FindKey(c.Param("service"), c.Param("role"))
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
func (s *Handlers) apiRoleCatalog(c echo.Context) error {
	ctx := c.Request().Context()
	var out []apiRole
	for _, svc := range s.Roles.Catalog.Services() {
		for _, d := range svc.Roles {
			if d.PrivilegedOnly() && !httpkit.Tenant(c).IsPrivileged {
				continue
			}
			out = append(out, apiRole{ID: d.ID(), ServiceID: d.ServiceID, ServiceName: i18n.T(ctx, "service."+svc.ID),
				RoleName: d.RoleName, Role: d.Key, Label: i18n.T(ctx, "role."+d.Key)})
		}
	}
	return api.SendList(c, out, "")
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

func (s *Handlers) apiListAudit(c echo.Context) error {
	limit, err := api.ParamLimit.Int(c)
	if err != nil {
		return err
	}
	f, errs := audit.ParseFilter(c.QueryParams(), time.UTC) // the console's filter: action, user, resource, from and to; whole UTC days
	if len(errs) > 0 {
		return kanri.Invalid(errs)
	}
	f.Limit, f.Continuation = limit, api.ParamNext.Str(c)
	recs, next, err := s.Audit.Query(c.Request().Context(), httpkit.Tenant(c).ID, f)
	if err != nil {
		return api.BadNext(err)
	}
	out := make([]apiAudit, len(recs))
	for i, r := range recs {
		out[i] = apiAudit{
			ID: r.ID, Timestamp: r.Timestamp, Action: r.Action, Status: r.Status, UserID: r.UserID, UserKind: api.ActorKind(r.UserID), UserName: r.UserName,
			Resource: r.Resource, Changes: r.Details.Changes, Reason: r.Details.Reason,
			IPAddress: r.Metadata.IPAddress, RequestID: r.Metadata.RequestID,
		}
	}
	return api.SendList(c, out, next)
}

// The query parameters of the users' and the audit log's operations.
var (
	paramUserSearch = api.Param{Name: "q", Doc: "Words that begin words of the username, e-mail or display name."}
	paramUserStatus = api.Param{Name: "status", Enum: []string{kanri.UserActive, kanri.UserInactive, kanri.UserLocked, kanri.UserDeleted},
		Doc: "Only the users of this status; without it, every user not deleted. Another value is refused (400)."}
	paramUserSort = api.Param{Name: "sort", Enum: []string{"username", "displayName", "email", "createdAt", "lastLogin"}, DefString: "username",
		Doc: "The order of the list. Another value is refused (400)."}

	paramConfirm = api.Param{Name: "confirm", Enum: []string{confirmDisableKey},
		Doc: "disable-this-key: deactivate or delete the person who made the request's API key, which disables the key itself. Without it, that is refused (409)."}

	paramAuditAction   = api.Param{Name: "action", Doc: "An action (user.update) or a prefix ending in a dot (user.)."}
	paramAuditUser     = api.Param{Name: "user", Doc: "A user id or username."}
	paramAuditResource = api.Param{Name: "resource", Doc: "A resource type, such as User."}
	paramAuditFrom     = api.Param{Name: "from", Kind: api.DateParam, Doc: "First day, inclusive. A value that is not a date is refused (422)."}
	paramAuditTo       = api.Param{Name: "to", Kind: api.DateParam, Doc: "Last day, inclusive. A value that is not a date, or before from, is refused (422)."}
)

// confirmDisableKey is the value of the confirm parameter by which a key
// deactivates or deletes its own creator.
const confirmDisableKey = "disable-this-key"

// confirmConflict says the conflicts of an operation that takes
// paramConfirm.
var confirmConflict = map[int]string{http.StatusConflict: "The change conflicts with the current state (the last administrator), or the user made the request's API key and confirm=" + confirmDisableKey + " is missing: the change would disable the key itself."}

// Routes are the API's operations on the tenant's users, their roles,
// and its audit log.
func (s *Handlers) Routes() []api.Route {
	return []api.Route{
		{Method: http.MethodGet, Path: "/users", Scope: kanri.ScopeRead, Perm: role.UsersRead, Handler: s.apiListUsers, Op: "listUsers",
			Query: []api.Param{paramUserSearch, paramUserStatus, paramUserSort, api.ParamDesc, api.ParamLimit, api.ParamNext}, Response: "UserList", Status: 200, ETag: true},
		{Method: http.MethodPost, Path: "/users", Scope: kanri.ScopeWrite, Perm: role.UsersCreate, Handler: s.apiCreateUser, Op: "createUser",
			Request: "UserCreate", Response: "User", Status: 201, ETag: true, Location: true},
		{Method: http.MethodGet, Path: "/users/:id", Scope: kanri.ScopeRead, Perm: role.UsersRead, Handler: s.apiGetUser, Op: "getUser",
			Response: "User", Status: 200, ETag: true},
		{Method: http.MethodPatch, Path: "/users/:id", Scope: kanri.ScopeWrite, Perm: role.UsersUpdate, Handler: s.apiUpdateUser, Op: "updateUser",
			Doc: "Only the fields sent change. Send the ETag read in If-Match so that a change made since is not overwritten (412).", Request: "UserUpdate", Response: "User", Status: 200, IfMatch: true, ETag: true},
		{Method: http.MethodDelete, Path: "/users/:id", Scope: kanri.ScopeWrite, Perm: role.UsersDelete, Handler: s.apiDeleteUser, Op: "deleteUser",
			Doc:   "A soft delete, as the console's: the account is kept as deleted, its username and e-mail freed and its roles removed. The tenant's last administrator cannot be deleted (409).",
			Query: []api.Param{paramConfirm}, Status: 204, IfMatch: true, Statuses: confirmConflict},
		{Method: http.MethodPost, Path: "/users/:id/deactivate", Scope: kanri.ScopeWrite, Perm: role.UsersUpdate, Handler: s.apiDeactivateUser, Op: "deactivateUser",
			Query: []api.Param{paramConfirm}, Response: "User", Status: 200, IfMatch: true, ETag: true, Statuses: confirmConflict},
		{Method: http.MethodPost, Path: "/users/:id/reactivate", Scope: kanri.ScopeWrite, Perm: role.UsersUpdate, Handler: s.apiReactivateUser, Op: "reactivateUser",
			Response: "User", Status: 200, IfMatch: true, ETag: true},
		{Method: http.MethodGet, Path: "/users/:id/roles", Scope: kanri.ScopeRead, Perm: role.RolesRead, Handler: s.apiListRoles, Op: "listUserRoles",
			Response: "RoleAssignmentList", Status: 200, ETag: true},
		{Method: http.MethodPost, Path: "/users/:id/roles", Scope: kanri.ScopeWrite, Perm: role.RolesUpdate, Handler: s.apiAssignRole, Op: "assignUserRole",
			Doc: "A role the user holds already is answered 200 with the existing assignment. Location is the assignment's path: GET reads it, DELETE takes the role back.", Request: "RoleAssignmentCreate", Response: "RoleAssignment", Status: 201, Unchanged: 200, Location: true},
		{Method: http.MethodGet, Path: "/users/:id/roles/:service/:role", Scope: kanri.ScopeRead, Perm: role.RolesRead, Handler: s.apiGetRole, Op: "getUserRole",
			Doc: "The role by its key, as DELETE takes it back: 404 when the user does not hold it.", Response: "RoleAssignment", Status: 200, ETag: true},
		{Method: http.MethodDelete, Path: "/users/:id/roles/:service/:role", Scope: kanri.ScopeWrite, Perm: role.RolesUpdate, Handler: s.apiRemoveRole, Op: "removeUserRole",
			Status: 204},
		{Method: http.MethodGet, Path: "/roles", Scope: kanri.ScopeRead, Perm: role.RolesRead, Handler: s.apiRoleCatalog, Op: "listRoles",
			Doc: "Each role's stable English key is what POST /users/{id}/roles takes; its label is in the language of Accept-Language.", Response: "RoleList", Status: 200, ETag: true},
		{Method: http.MethodGet, Path: "/audit", Scope: kanri.ScopeRead, Perm: role.AuditRead, Handler: s.apiListAudit, Op: "listAudit",
			Query: []api.Param{paramAuditAction, paramAuditUser, paramAuditResource, paramAuditFrom, paramAuditTo, api.ParamLimit, api.ParamNext}, Response: "AuditList", Status: 200, ETag: true},
	}
}

// Schemas returns the schemas of the users', roles' and audit log's
// operations, made with the document's obj and list. The limits of the
// fields a request sends are the constants kanri.UserInput.Validate
// checks them with.
func (*Handlers) Schemas(obj func([]string, map[string]any) map[string]any, list func(string) map[string]any) map[string]any {
	str := map[string]any{"type": "string"}
	// An e-mail address as kanri.UserInput.Validate takes it: one
	// address as net/mail reads it (RFC 5322, UTF-8 included as RFC 6532
	// allows: the API takes and returns internationalised addresses,
	// hence idn-email), alone (no name, no angle brackets), of at most
	// 254 bytes; spaces around it are trimmed.
	email := map[string]any{"type": "string", "format": "idn-email", "maxLength": kanri.UsernameMax,
		"description": fmt.Sprintf("One address as RFC 5322 writes it, UTF-8 allowed (RFC 6532), without a name or angle brackets; at most %d bytes.", kanri.UsernameMax)}
	displayName := map[string]any{"type": "string", "minLength": 1, "maxLength": kanri.DisplayNameMax,
		"description": fmt.Sprintf("The name shown for the user: 1 to %d characters, spaces around it trimmed.", kanri.DisplayNameMax)}
	when := map[string]any{"type": []string{"string", "null"}, "format": "date-time"}
	profileInput := obj(nil, map[string]any{
		"firstName": map[string]any{"type": "string", "maxLength": kanri.ProfileMax}, "lastName": map[string]any{"type": "string", "maxLength": kanri.ProfileMax},
		"department": map[string]any{"type": "string", "maxLength": kanri.ProfileMax}, "jobTitle": map[string]any{"type": "string", "maxLength": kanri.ProfileMax},
		"phoneNumber": map[string]any{"type": "string", "description": "With its country code (\"+81 90-1234-5678\"); stored in E.164. Empty for none."},
	})
	roleKey := map[string]any{"type": "string", "enum": []string{"global_admin", "admin", "member", "viewer"}, "description": "The role's key."}
	out := map[string]any{
		"User": obj([]string{"id", "tenantId", "username", "email", "displayName", "isActive", "status"}, map[string]any{
			"id": str, "tenantId": str, "username": str, "email": email, "displayName": str,
			"isActive": map[string]any{"type": "boolean"}, "status": map[string]any{"type": "string", "enum": []string{"active", "inactive", "locked", "deleted"}},
			"createdAt": when, "updatedAt": when, "lastLoginAt": when,
			"profile": obj([]string{"firstName", "lastName", "phoneNumber", "department", "jobTitle"}, map[string]any{
				"firstName": str, "lastName": str, "department": str, "jobTitle": str,
				"phoneNumber": map[string]any{"type": "string", "description": "E.164 (\"+819012345678\"), or empty."},
			}),
		}),
		"UserList": list("User"),
		"UserCreate": obj([]string{"username", "email", "displayName", "password"}, map[string]any{
			"username": map[string]any{"type": "string", "minLength": 1, "maxLength": kanri.UsernameMax,
				"description": fmt.Sprintf("The sign-in name, unique in the tenant after NFKC normalisation and case folding: no spaces, control characters or direction marks, at most %d bytes.", kanri.UsernameMax)},
			"email": email, "displayName": displayName,
			"password": map[string]any{"type": "string", "maxLength": kanri.PasswordMaxBytes, "format": "password",
				"description": i18n.Translate(i18n.English, "validation.password_policy")},
			"profile": profileInput,
		}),
		"UserUpdate": obj(nil, map[string]any{"email": email, "displayName": displayName, "profile": profileInput}),
		"RoleAssignment": obj([]string{"id", "userId", "serviceId", "roleName", "role", "roleLabel", "assignedBy", "assignedByKind"}, map[string]any{
			"id": str, "userId": str, "serviceId": str, "roleName": map[string]any{"type": "string", "description": "The role's name in the service's catalogue (stored in Japanese, 管理者), as in the id."},
			"role":           roleKey,
			"roleLabel":      map[string]any{"type": "string", "description": "The role's name in the language of Accept-Language (English by default, ja)."},
			"assignedBy":     api.ActorIDSchema("assignedByKind"),
			"assignedByKind": api.ActorKindSchema("assignedBy"),
			"assignedAt":     when,
		}),
		"RoleAssignmentList": list("RoleAssignment"),
		"RoleAssignmentCreate": obj([]string{"serviceId", "role"}, map[string]any{
			"serviceId": map[string]any{"type": "string", "minLength": 1, "description": "The service's id, such as auth-service."},
			"role":      map[string]any{"type": "string", "minLength": 1, "description": "The role's key (admin or viewer) or its name in the service's catalogue."},
		}),
		"AuditRecord": obj([]string{"id", "timestamp", "action", "status", "userKind"}, map[string]any{
			"id": str, "timestamp": when, "action": str, "status": map[string]any{"type": "string", "enum": []string{"success", "failure"}},
			"userId": api.ActorIDSchema("userKind"), "userKind": api.ActorKindSchema("userId"), "userName": str,
			"resource": obj(nil, map[string]any{"type": str, "id": str, "name": str}),
			"changes":  map[string]any{"type": "object", "additionalProperties": obj(nil, map[string]any{"before": map[string]any{}, "after": map[string]any{}})},
			"reason":   str, "ipAddress": str, "requestId": str,
		}),
		"AuditList": list("AuditRecord"),
		"Role": obj([]string{"id", "serviceId", "serviceName", "roleName", "role", "label"}, map[string]any{
			"id": str, "serviceId": str,
			"serviceName": map[string]any{"type": "string", "description": "The service's name in the language of Accept-Language (English by default, ja)."},
			"roleName":    map[string]any{"type": "string", "description": "The role's name as stored, in Japanese (管理者)."},
			"role":        map[string]any{"type": "string", "enum": []string{"global_admin", "admin", "member", "viewer"}, "description": "The role's stable English key: give it as role to POST /users/{id}/roles."},
			"label":       map[string]any{"type": "string", "description": "The role's name in the language of Accept-Language (English by default, ja)."},
		}),
		"RoleList": list("Role"),
	}
	return out
}

// Examples returns examples of the users', roles' and audit
// log's schemas, at the time at.
func (*Handlers) Examples(at string) map[string]any {
	user := map[string]any{"id": api.ExampleUserID, "tenantId": "tenant_acme", "username": "hanako", "email": "hanako@acme.example.jp",
		"displayName": "Hanako Yamada", "isActive": true, "status": "active", "createdAt": at, "updatedAt": at, "lastLoginAt": nil,
		"profile": map[string]any{"firstName": "Hanako", "lastName": "Yamada", "phoneNumber": "+819012345678", "department": "営業部", "jobTitle": "Manager"}}
	ra := map[string]any{"id": kanri.RoleAssignmentID(api.ExampleUserID, kanri.AuthServiceID, "閲覧者"), "userId": api.ExampleUserID, "serviceId": kanri.AuthServiceID,
		"roleName": "閲覧者", "role": "viewer", "roleLabel": "Viewer", "assignedBy": api.ExampleKeyID, "assignedByKind": api.ActorAPIKey, "assignedAt": at}
	audit := map[string]any{"id": "audit_20260401T093000.000000000_9f86d081", "timestamp": at, "action": "user.create", "status": "success",
		"userId": api.ExampleKeyID, "userKind": api.ActorAPIKey, "userName": "API key Nightly sync (ak_live_3x…)", "resource": map[string]any{"type": "User", "id": api.ExampleUserID, "name": "hanako"},
		"ipAddress": "203.0.113.7", "requestId": api.ExampleReqID}
	return map[string]any{
		"User":                 user,
		"UserList":             map[string]any{"items": []any{user}, "next": "eyJrIjoiaGFuYWtvIn0", "hasMore": true},
		"UserCreate":           map[string]any{"username": "hanako", "email": "hanako@acme.example.jp", "displayName": "Hanako Yamada", "password": "Correct-horse-42"},
		"UserUpdate":           map[string]any{"displayName": "Hanako Suzuki"},
		"RoleAssignment":       ra,
		"RoleAssignmentList":   map[string]any{"items": []any{ra}, "hasMore": false},
		"RoleAssignmentCreate": map[string]any{"serviceId": kanri.AuthServiceID, "role": "viewer"},
		"AuditRecord":          audit,
		"AuditList":            map[string]any{"items": []any{audit}, "hasMore": false},
	}
}

// Handlers serve the feature's operations, with what every operation of
// the API shares.
type Handlers struct {
	*api.Server
}

// New returns the feature of the API s.
func New(s *api.Server) api.Feature { return &Handlers{Server: s} }

// Tags group the feature's operations.
func (*Handlers) Tags() []api.Tag {
	return []api.Tag{
		{Name: "Users", Doc: "The tenant's users: list, read, create, change, deactivate and reactivate them."},
		{Name: "Roles", Doc: "The roles users hold in the tenant's services: list, give and take them."},
		{Name: "Audit", Doc: "The tenant's audit log: every change, who made it, when and from where."},
	}
}

// PathParams describe the path parameters of the feature's operations.
func (*Handlers) PathParams() map[string]api.PathParam {
	return map[string]api.PathParam{
		"id":      {Doc: "The user's id.", Example: api.ExampleUserID},
		"service": {Doc: "A service's id, such as auth-service.", Example: kanri.AuthServiceID},
		"role":    {Doc: "A role's key: admin or viewer (global_admin in the operator's tenant).", Example: "viewer"},
	}
}
