package userimport

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"slices"
	"strings"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// Result is what a dry run says a row would do, or what the import did.
type Result struct {
	Line     int    `json:"line"`
	Username string `json:"username"`
	Email    string `json:"email"`
	Outcome  string `json:"outcome"`
	// Changes are the fields an update changes (email, displayName,
	// status, roles).
	Changes []string `json:"changes,omitempty"`
	// Errors say why a row is refused: per column (or RowField), a
	// translation key.
	Errors map[string]string `json:"errors,omitempty"`
}

// plan is what a row does to the tenant, as the tenant is now.
type plan struct {
	in       kanri.UserInput
	active   *bool
	roles    []role.Definition
	existing *kanri.User
	newRoles []role.Definition // of roles, those the existing user lacks
	res      Result
}

// refuseRow marks the plan refused for field with the translation key.
func (p *plan) refuseRow(field, key string) {
	if p.res.Errors == nil {
		p.res.Errors = map[string]string{}
	}
	if _, ok := p.res.Errors[field]; !ok {
		p.res.Errors[field] = key
	}
	p.res.Outcome, p.res.Changes = Refused, nil
}

// noteRow records why part of a row's change was not made, keeping its
// outcome.
func (p *plan) noteRow(field, key string) {
	if p.res.Errors == nil {
		p.res.Errors = map[string]string{}
	}
	p.res.Errors[field] = key
}

// seen are the usernames and e-mail addresses of the rows read so far: a
// file names a user once.
type seen struct{ usernames, emails map[string]bool }

func newSeen() *seen { return &seen{usernames: map[string]bool{}, emails: map[string]bool{}} }

// check reads a row and compares it with the tenant's user of its
// username, if any.
func (s *Service) check(ctx context.Context, t *kanri.Tenant, im *Import, row Row, dup *seen) (*plan, error) {
	p := &plan{res: Result{Line: row.Line, Username: kanri.NormalUsername(row.Username), Email: strings.TrimSpace(row.Email)}}
	if row.Cells != 0 {
		p.refuseRow(RowField, "imports.error.cells")
		return p, nil
	}
	s.readRow(ctx, t, im, row, p)
	if p.res.Outcome == Refused {
		return p, nil
	}
	// Rows that repeat a username or address are refused, not the first.
	name, email := kanri.UsernameID(p.in.Username), kanri.EmailAddressID(p.in.Email)
	if dup.usernames[name] {
		p.refuseRow(ColUsername, "imports.error.duplicate_username")
	}
	if dup.emails[email] {
		p.refuseRow(ColEmail, "imports.error.duplicate_email")
	}
	dup.usernames[name], dup.emails[email] = true, true
	if p.res.Outcome == Refused {
		return p, nil
	}
	return p, s.compare(ctx, t, p)
}

// readRow validates a row's cells into p.
func (s *Service) readRow(ctx context.Context, t *kanri.Tenant, im *Import, row Row, p *plan) {
	p.in = kanri.UserInput{Username: row.Username, Email: row.Email, DisplayName: row.DisplayName, Password: randomPassword(), Provisioned: true}
	if err := p.in.Validate(true); err != nil {
		for field, key := range kanri.ErrorFields(err) {
			p.refuseRow(field, key)
		}
	}
	p.res.Username, p.res.Email = p.in.Username, p.in.Email
	switch row.Status {
	case "":
	case StatusActive, StatusInactive:
		active := row.Status == StatusActive
		p.active = &active
	default:
		p.refuseRow(ColStatus, "imports.error.status")
	}
	if row.Roles == "" {
		return
	}
	if !im.AssignRoles {
		p.refuseRow(ColRoles, "imports.error.roles_forbidden")
		return
	}
	for entry := range strings.SplitSeq(row.Roles, ";") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		d, ok := findRole(s.roles.Catalog, entry)
		switch {
		case !ok:
			p.refuseRow(ColRoles, "imports.error.role_unknown")
			return
		case d.PrivilegedOnly() && (!t.IsPrivileged || !audit.ActorFrom(ctx).GlobalAdmin):
			p.refuseRow(ColRoles, "imports.error.role_global_admin")
			return
		}
		if !slices.ContainsFunc(p.roles, func(h role.Definition) bool { return h.ID() == d.ID() }) {
			p.roles = append(p.roles, d)
		}
	}
}

// findRole returns the role an entry of the roles column names: a
// service's id, a colon and the role's name (管理者) or key (admin).
func findRole(c *role.Catalog, entry string) (role.Definition, bool) {
	svc, name, ok := strings.Cut(strings.TrimSpace(entry), ":")
	svc, name = strings.TrimSpace(svc), strings.TrimSpace(name)
	if !ok || svc == "" || name == "" {
		return role.Definition{}, false
	}
	if d, ok := c.Find(svc, name); ok {
		return d, true
	}
	for _, info := range c.Services() {
		if info.ID != svc {
			continue
		}
		for _, d := range info.Roles {
			if strings.EqualFold(d.Key, name) {
				return d, true
			}
		}
	}
	return role.Definition{}, false
}

// compare decides what a valid row does: creates a user, updates the
// user of its username, or changes nothing. A row whose e-mail address is
// another user's is refused.
func (s *Service) compare(ctx context.Context, t *kanri.Tenant, p *plan) error {
	ten := s.Store.Tenant(t.ID)
	if r, err := ten.UsernameReservation(ctx, p.in.Username); err == nil {
		u, err := ten.Users().Get(ctx, r.UserID)
		if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
		if err == nil && u.DeletedAt.IsZero() {
			p.existing = u
		}
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		return err
	}
	owner := ""
	if r, err := ten.EmailAddresses().Get(ctx, kanri.EmailAddressID(p.in.Email)); err == nil {
		owner = r.UserID
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		return err
	}
	if owner != "" && (p.existing == nil || owner != p.existing.ID) {
		p.refuseRow(ColEmail, "validation.email_taken")
		return nil
	}
	if p.existing == nil {
		p.res.Outcome, p.newRoles = Created, p.roles
		return nil
	}
	return s.changes(ctx, t, p)
}

// changes lists what a row changes of its existing user.
func (s *Service) changes(ctx context.Context, t *kanri.Tenant, p *plan) error {
	u := p.existing
	var changed []string
	if u.Email != p.in.Email {
		changed = append(changed, ColEmail)
	}
	if u.DisplayName != p.in.DisplayName {
		changed = append(changed, ColDisplayName)
	}
	if p.active != nil && *p.active != u.IsActive {
		changed = append(changed, ColStatus)
	}
	if len(p.roles) > 0 {
		held, err := s.roles.ForUser(ctx, t.ID, u.ID)
		if err != nil {
			return err
		}
		for _, d := range p.roles {
			if !slices.ContainsFunc(held, func(ra *kanri.RoleAssignment) bool { return ra.ServiceID == d.ServiceID && ra.RoleName == d.RoleName }) {
				p.newRoles = append(p.newRoles, d)
			}
		}
		if len(p.newRoles) > 0 {
			changed = append(changed, ColRoles)
		}
	}
	if len(changed) == 0 {
		p.res.Outcome = Unchanged
		return nil
	}
	if err := s.roles.CheckChange(ctx, t.ID, u.ID); err != nil {
		p.refuseRow(RowField, messageOf(err))
		return nil
	}
	p.res.Outcome, p.res.Changes = Updated, changed
	return nil
}

// apply makes the change a checked plan says: it creates or updates the
// user. What the services refuse refuses the row.
func (s *Service) apply(ctx context.Context, t *kanri.Tenant, p *plan) error {
	var err error
	switch p.res.Outcome {
	case Created:
		err = s.create(ctx, t, p)
	case Updated:
		err = s.update(ctx, t, p)
	default:
		return nil
	}
	if err == nil {
		return nil
	}
	if kanri.ErrorCode(err) == kanri.EINTERNAL {
		return err
	}
	refuse := p.refuseRow
	if p.res.Outcome == Created && p.existing != nil {
		// The user was made, but not all of the rest: it stays created,
		// with why (importing the file again finishes it).
		refuse = p.noteRow
	}
	if fields := kanri.ErrorFields(err); len(fields) > 0 {
		for field, key := range fields {
			refuse(field, key)
		}
		return nil
	}
	refuse(RowField, messageOf(err))
	return nil
}

// create makes the row's user, then sets its status and roles.
func (s *Service) create(ctx context.Context, t *kanri.Tenant, p *plan) error {
	u, err := s.users.Create(ctx, t.ID, p.in)
	if err != nil {
		return err
	}
	p.existing = u
	if p.active != nil && !*p.active {
		if _, err := s.users.SetActive(ctx, t.ID, u.ID, kanri.Seen{}, false); err != nil {
			return err
		}
	}
	return s.grant(ctx, t, u.ID, p.newRoles)
}

// update changes the row's user as planned.
func (s *Service) update(ctx context.Context, t *kanri.Tenant, p *plan) error {
	u := p.existing
	if u.Email != p.in.Email || u.DisplayName != p.in.DisplayName {
		if _, err := s.users.Update(ctx, t.ID, u.ID, "", nil, kanri.UserInput{Email: p.in.Email, DisplayName: p.in.DisplayName}); err != nil {
			return err
		}
	}
	if p.active != nil && *p.active != u.IsActive {
		if _, err := s.users.SetActive(ctx, t.ID, u.ID, kanri.Seen{}, *p.active); err != nil {
			return err
		}
	}
	return s.grant(ctx, t, u.ID, p.newRoles)
}

// grant gives the user the roles.
func (s *Service) grant(ctx context.Context, t *kanri.Tenant, userID string, roles []role.Definition) error {
	for _, d := range roles {
		if _, _, err := s.roles.Assign(ctx, role.Grant{Tenant: t, UserID: userID, ServiceID: d.ServiceID, RoleName: d.RoleName}); err != nil {
			return err
		}
	}
	return nil
}

// messageOf returns the translation key of a refusal.
func messageOf(err error) string {
	key, _ := kanri.ErrorMessage(err)
	return key
}

// randomPassword returns a password nobody knows, which the policy
// accepts: an imported user signs in by single sign-on, or once an
// administrator sets a password.
func randomPassword() string {
	b := make([]byte, 18)
	rand.Read(b)
	return "Imp-" + base64.RawURLEncoding.EncodeToString(b) + "-1a"
}
