package scim

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// Schema URNs (RFC 7643, RFC 7644).
const (
	SchemaUser         = "urn:ietf:params:scim:schemas:core:2.0:User"
	SchemaEnterprise   = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
	SchemaListResponse = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
	SchemaPatchOp      = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
	SchemaError        = "urn:ietf:params:scim:api:messages:2.0:Error"
)

// MaxCount is the most resources a list returns at once.
const MaxCount = 100

// User is the SCIM User resource of a Kanri user.
type User struct {
	Schemas     []string `json:"schemas"`
	ID          string   `json:"id,omitempty"`
	ExternalID  string   `json:"externalId,omitempty"`
	UserName    string   `json:"userName"`
	Name        *Name    `json:"name,omitempty"`
	DisplayName string   `json:"displayName,omitempty"`
	Title       string   `json:"title,omitempty"`
	Emails      []Email  `json:"emails,omitempty"`
	Active      *Bool    `json:"active,omitempty"`
	// Enterprise is the enterprise extension's department.
	Enterprise *Enterprise `json:"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User,omitempty"`
	Meta       *Meta       `json:"meta,omitempty"`
}

// Name is a user's name.
type Name struct {
	Formatted  string `json:"formatted,omitempty"`
	GivenName  string `json:"givenName,omitempty"`
	FamilyName string `json:"familyName,omitempty"`
}

// Email is one of a user's addresses.
type Email struct {
	Value   string `json:"value"`
	Type    string `json:"type,omitempty"`
	Primary Bool   `json:"primary,omitempty"`
}

// Enterprise is the part of the enterprise extension Kanri keeps.
type Enterprise struct {
	Department string `json:"department,omitempty"`
}

// Meta is a resource's metadata.
type Meta struct {
	ResourceType string `json:"resourceType"`
	Created      string `json:"created,omitempty"`
	LastModified string `json:"lastModified,omitempty"`
	Location     string `json:"location,omitempty"`
	Version      string `json:"version,omitempty"`
}

// Bool is a SCIM boolean, which Entra ID sends as a string ("True",
// "False") in PATCH operations.
type Bool bool

// UnmarshalJSON reads true, false, "true" or "false" (any case).
func (b *Bool) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case bool:
		*b = Bool(v)
		return nil
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			*b = true
			return nil
		case "false":
			*b = false
			return nil
		}
	}
	return invalid("invalidValue", "a boolean is true or false")
}

// Error is an error in SCIM's terms: its HTTP status, scimType and detail.
type Error struct {
	Status   int
	SCIMType string
	Detail   string
}

func (e *Error) Error() string { return e.Detail }

func invalid(scimType, detail string) *Error {
	return &Error{Status: 400, SCIMType: scimType, Detail: detail}
}

// Version is a user's ETag as SCIM writes it (a weak HTTP entity tag).
func Version(u *kanri.User) string { return `W/"` + strings.Trim(u.ETag, `"`) + `"` }

// ETagOf reads a version SCIM sent (If-Match: W/"…" or "…"), as the
// opaque value it quotes.
func ETagOf(v string) string {
	v = strings.TrimPrefix(strings.TrimSpace(v), "W/")
	return strings.Trim(v, `"`)
}

// stale reports whether the version a request named (etag, as ETagOf
// reads it; "" for none) is not the stored one.
func stale(etag, stored string) bool {
	return etag != "" && etag != "*" && etag != strings.Trim(stored, `"`)
}

// resource returns the User resource of u, at base (the Users endpoint's
// URL).
func resource(u *kanri.User, link *kanri.SCIMUser, base string) *User {
	active := Bool(u.IsActive && u.DeletedAt.IsZero())
	r := &User{
		Schemas: []string{SchemaUser}, ID: u.ID, UserName: u.Username, DisplayName: u.DisplayName, Title: u.Profile.JobTitle,
		Name:   &Name{GivenName: u.Profile.FirstName, FamilyName: u.Profile.LastName, Formatted: u.DisplayName},
		Emails: []Email{{Value: u.Email, Type: "work", Primary: true}}, Active: &active,
		Meta: &Meta{ResourceType: "User", Created: u.CreatedAt.String(), LastModified: u.UpdatedAt.String(), Location: base + "/" + u.ID, Version: Version(u)},
	}
	if u.Profile.Department != "" {
		r.Schemas = append(r.Schemas, SchemaEnterprise)
		r.Enterprise = &Enterprise{Department: u.Profile.Department}
	}
	if link != nil {
		r.ExternalID = link.ExternalID
	}
	return r
}

// email is the address of a resource: the primary one, else the work one,
// else the first, else the userName when it is one.
func (r *User) email() string {
	for _, e := range r.Emails {
		if e.Primary {
			return strings.TrimSpace(e.Value)
		}
	}
	for _, e := range r.Emails {
		if strings.EqualFold(e.Type, "work") {
			return strings.TrimSpace(e.Value)
		}
	}
	if len(r.Emails) > 0 {
		return strings.TrimSpace(r.Emails[0].Value)
	}
	if strings.Contains(r.UserName, "@") {
		return strings.TrimSpace(r.UserName)
	}
	return ""
}

// displayName is what the console calls the person.
func (r *User) displayName() string {
	if d := strings.TrimSpace(r.DisplayName); d != "" {
		return d
	}
	if r.Name != nil {
		if f := strings.TrimSpace(r.Name.Formatted); f != "" {
			return f
		}
		if f := strings.TrimSpace(r.Name.GivenName + " " + r.Name.FamilyName); f != "" {
			return f
		}
	}
	return strings.TrimSpace(r.UserName)
}

func (r *User) profile() kanri.UserProfile {
	var p kanri.UserProfile
	if r.Name != nil {
		p.FirstName, p.LastName = strings.TrimSpace(r.Name.GivenName), strings.TrimSpace(r.Name.FamilyName)
	}
	p.JobTitle = strings.TrimSpace(r.Title)
	if r.Enterprise != nil {
		p.Department = strings.TrimSpace(r.Enterprise.Department)
	}
	return p
}

// fromKanri turns the user service's errors into SCIM's.
func fromKanri(err error) error {
	switch kanri.ErrorCode(err) {
	case "":
		return nil
	case kanri.ENOTFOUND:
		return &Error{Status: 404, Detail: "no such user"}
	case kanri.ECONFLICT:
		if key, _ := kanri.ErrorMessage(err); strings.Contains(key, "last_admin") {
			return &Error{Status: 400, SCIMType: "mutability", Detail: "the organisation's last administrator stays active"}
		}
		return &Error{Status: 409, SCIMType: "uniqueness", Detail: "a user with this userName or e-mail address exists, or the organisation has no room for another user"}
	case kanri.ESTALE:
		return &Error{Status: 412, Detail: "the user changed since the version given (If-Match)"}
	case kanri.EINVALID:
		var fields []string
		for f, msg := range kanri.ErrorFields(err) {
			if strings.HasSuffix(msg, "_taken") {
				return &Error{Status: 409, SCIMType: "uniqueness", Detail: f + " is taken by another user"}
			}
			fields = append(fields, f+": "+msg)
		}
		return invalid("invalidValue", "invalid attributes: "+strings.Join(fields, "; "))
	case kanri.EFORBIDDEN:
		return &Error{Status: 403, Detail: "not allowed"}
	}
	return err
}

func (s *Service) link(ctx context.Context, tenantID, userID string) (*kanri.SCIMUser, error) {
	l, err := links(s.Store, tenantID).Get(ctx, kanri.SCIMUserID(userID))
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, nil
	}
	return l, err
}

// visible returns the user id of tenantID, unless provisioning deleted it
// (404 then, as SCIM expects after a DELETE).
func (s *Service) visible(ctx context.Context, tenantID, id string) (*kanri.User, *kanri.SCIMUser, error) {
	u, err := s.Users.Get(ctx, tenantID, id)
	if err != nil {
		return nil, nil, fromKanri(err)
	}
	l, err := s.link(ctx, tenantID, id)
	if err != nil {
		return nil, nil, err
	}
	if !u.DeletedAt.IsZero() || l != nil && l.Deprovisioned {
		return nil, nil, &Error{Status: 404, Detail: "no such user"}
	}
	return u, l, nil
}

// Get returns a user's resource.
func (s *Service) Get(ctx context.Context, tenantID, id, base string) (*User, error) {
	u, l, err := s.visible(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	return resource(u, l, base), nil
}

// setLink keeps the user's externalId (and that provisioning sees them).
func (s *Service) setLink(ctx context.Context, tenantID, userID string, externalID *string, deprovisioned bool) error {
	if externalID == nil && !deprovisioned {
		l, err := s.link(ctx, tenantID, userID)
		if err != nil || l == nil || !l.Deprovisioned {
			return err // nothing to keep, or to bring back
		}
	}
	_, err := links(s.Store, tenantID).Modify(ctx, kanri.SCIMUserID(userID), func() *kanri.SCIMUser { return &kanri.SCIMUser{UserID: userID} }, func(l *kanri.SCIMUser) error {
		if externalID != nil {
			l.ExternalID = strings.TrimSpace(*externalID)
		}
		l.Deprovisioned, l.UpdatedAt = deprovisioned, kanri.NewTime(s.Now())
		return nil
	})
	return fromKanri(err)
}

// Create provisions a user: a password nobody knows (they sign in with
// the provider), within the organisation's quota.
func (s *Service) Create(ctx context.Context, tenantID string, r *User, base string) (*User, error) {
	if strings.TrimSpace(r.UserName) == "" {
		return nil, invalid("invalidValue", "userName is required")
	}
	// A user the provider deprovisioned comes back when it creates them
	// again (a person re-assigned to the application).
	if id, err := s.Users.IDByUsername(ctx, tenantID, r.UserName); err == nil {
		if l, err := s.link(ctx, tenantID, id); err != nil {
			return nil, err
		} else if l != nil && l.Deprovisioned && l.Created && (l.ExternalID == "" || r.ExternalID == "" || l.ExternalID == r.ExternalID) {
			if u, err := s.Users.Get(ctx, tenantID, id); err == nil && u.DeletedAt.IsZero() {
				if err := s.setLink(ctx, tenantID, id, nil, false); err != nil {
					return nil, err
				}
				if r.Active == nil {
					active := Bool(true)
					r.Active = &active
				}
				return s.Replace(ctx, tenantID, id, "", r, base)
			}
		}
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, err
	}
	if err := s.checkExternalID(ctx, tenantID, "", r.ExternalID); err != nil {
		return nil, err
	}
	b := make([]byte, 24)
	rand.Read(b)
	in := kanri.UserInput{Username: r.UserName, Email: r.email(), DisplayName: r.displayName(), Password: "Scim-" + base64.RawURLEncoding.EncodeToString(b) + "-1a", Provisioned: true}
	p := r.profile()
	in.Profile = &p
	u, err := s.Users.Create(ctx, tenantID, in)
	if err != nil {
		return nil, fromKanri(err)
	}
	if r.Active != nil && !bool(*r.Active) {
		if u, err = s.Users.SetActive(ctx, tenantID, u.ID, kanri.Seen{}, false); err != nil {
			return nil, fromKanri(err)
		}
	}
	ext := r.ExternalID
	if _, err := links(s.Store, tenantID).Modify(ctx, kanri.SCIMUserID(u.ID), func() *kanri.SCIMUser { return &kanri.SCIMUser{UserID: u.ID} }, func(l *kanri.SCIMUser) error {
		l.ExternalID, l.Created, l.Deprovisioned, l.UpdatedAt = strings.TrimSpace(ext), true, false, kanri.NewTime(s.Now())
		return nil
	}); err != nil {
		return nil, fromKanri(err)
	}
	return s.Get(ctx, tenantID, u.ID, base) // as stored, at its version now
}

// filterPattern is the filters Kanri answers: userName or externalId
// equal to a value, the lookups provisioning makes before creating
// (RFC 7644, 3.4.2.2).
var filterPattern = regexp.MustCompile(`(?i)^\s*(userName|externalId)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$`)

// List returns a page of users: those a filter names, or all, from
// startIndex (1-based) at most count.
func (s *Service) List(ctx context.Context, tenantID, filter string, startIndex, count int, base string) (total int, out []*User, err error) {
	if count < 0 {
		count = 0
	}
	count = min(count, MaxCount)
	startIndex = max(startIndex, 1)
	if filter != "" {
		m := filterPattern.FindStringSubmatch(filter)
		if m == nil {
			return 0, nil, invalid("invalidFilter", `the filters answered are userName eq "…" and externalId eq "…"`)
		}
		var value string
		if err := json.Unmarshal([]byte(`"`+m[2]+`"`), &value); err != nil {
			return 0, nil, invalid("invalidFilter", "the filter's value is not a valid string")
		}
		var id string
		if strings.EqualFold(m[1], "userName") {
			id, err = s.Users.IDByUsername(ctx, tenantID, value)
		} else {
			id, err = s.byExternalID(ctx, tenantID, value)
		}
		if kanri.IsCode(err, kanri.ENOTFOUND) || id == "" {
			return 0, nil, nil
		}
		if err != nil {
			return 0, nil, err
		}
		u, l, err := s.visible(ctx, tenantID, id)
		if e, ok := err.(*Error); ok && e.Status == 404 {
			return 0, nil, nil
		} else if err != nil {
			return 0, nil, err
		}
		if startIndex > 1 || count == 0 {
			return 1, nil, nil
		}
		return 1, []*User{resource(u, l, base)}, nil
	}
	t, err := s.Store.Tenant(tenantID).Profile(ctx)
	if err != nil {
		return 0, nil, err
	}
	// The deprovisioned are left out of pages and totals: read once.
	gone, err := links(s.Store, tenantID).All(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("deprovisioned", true)}, OrderBy: "userId"})
	if err != nil {
		return 0, nil, err
	}
	hidden := make(map[string]bool, len(gone))
	for _, l := range gone {
		hidden[l.UserID] = true
	}
	// SCIM pages by index: the users before startIndex are walked (an
	// index, not a scan of the partition) and left out.
	var page []*kanri.User
	skip, cont := startIndex-1, ""
	for len(page) < count {
		users, next, err := s.Store.Tenant(tenantID).Users().Query(ctx, docstore.Query{
			Where: []docstore.Filter{docstore.Eq("deletedAt", nil)}, OrderBy: "username", Limit: MaxCount, Continuation: cont,
		})
		if err != nil {
			return 0, nil, err
		}
		for _, u := range users {
			switch {
			case len(page) == count || hidden[u.ID]:
			case skip > 0:
				skip--
			default:
				page = append(page, u)
			}
		}
		if next == "" {
			break
		}
		cont = next
	}
	// What provisioning keeps of the page's users (their externalId), in
	// one query rather than one read each.
	ids := make([]string, len(page))
	for i, u := range page {
		ids[i] = kanri.SCIMUserID(u.ID)
	}
	kept, err := links(s.Store, tenantID).ByIDs(ctx, ids, "userId")
	if err != nil {
		return 0, nil, err
	}
	byUser := make(map[string]*kanri.SCIMUser, len(kept))
	for _, l := range kept {
		byUser[l.UserID] = l
	}
	for _, u := range page {
		out = append(out, resource(u, byUser[u.ID], base))
	}
	return max(t.UserCount-len(gone), 0), out, nil
}

func (s *Service) byExternalID(ctx context.Context, tenantID, ext string) (string, error) {
	if ext == "" {
		return "", nil
	}
	ls, _, err := links(s.Store, tenantID).Query(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("externalId", ext)}, OrderBy: "externalId", Limit: 10})
	if err != nil {
		return "", err
	}
	for _, l := range ls {
		if !l.Deprovisioned {
			return l.UserID, nil
		}
	}
	return "", nil
}

// checkExternalID refuses an externalId that is too long, holds hidden
// characters, or is another user's (userID's own is fine).
func (s *Service) checkExternalID(ctx context.Context, tenantID, userID, ext string) error {
	ext = strings.TrimSpace(ext)
	if len(ext) > 256 || kanri.HasHidden(ext, false) {
		return invalid("invalidValue", "externalId is at most 256 characters, without control characters")
	}
	other, err := s.byExternalID(ctx, tenantID, ext)
	if err != nil {
		return err
	}
	if other != "" && other != userID {
		return &Error{Status: 409, SCIMType: "uniqueness", Detail: "another user has this externalId"}
	}
	return nil
}

// administers reports whether the user administers anything in the
// tenant (a 管理者 or 全体管理者 role of any service): such a user is
// managed in Kanri, never by provisioning, so that a provider cannot
// take over or lock out the tenant's administrators.
func (s *Service) administers(ctx context.Context, tenantID, userID string) (bool, error) {
	held, err := s.Roles.ForUser(ctx, tenantID, userID)
	if err != nil {
		return false, err
	}
	for _, ra := range held {
		if ra.RoleName == role.Admin || ra.RoleName == role.GlobalAdmin {
			return true, nil
		}
	}
	return false, nil
}

var errAdministrator = &Error{Status: 403, Detail: "this user administers the organisation and is managed in Kanri, not by provisioning"}
