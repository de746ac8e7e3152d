package scim

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/kanri/kanri/internal/kanri"
)

// draft is a user as a PUT or PATCH leaves them: what the request sets.
type draft struct {
	userName, email, displayName, externalID *string
	active                                   *bool
	profile                                  *kanri.UserProfile
}

// apply makes the draft's changes to the user id, at etag when given (a
// stale version is 412), and returns its resource.
func (s *Service) apply(ctx context.Context, tenantID, id, etag string, d draft, base string) (*User, error) {
	u, _, err := s.visible(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if stale(etag, u.ETag) {
		return nil, &Error{Status: 412, Detail: "the user changed since the version given (If-Match)"}
	}
	if admin, err := s.administers(ctx, tenantID, id); err != nil {
		return nil, err
	} else if admin {
		return nil, errAdministrator
	}
	if d.externalID != nil {
		if err := s.checkExternalID(ctx, tenantID, id, *d.externalID); err != nil {
			return nil, err
		}
	}
	if d.userName != nil && kanri.NormalUsername(*d.userName) != u.Username {
		return nil, invalid("mutability", "userName cannot change in Kanri: create another user")
	}
	if d.email != nil || d.displayName != nil || d.profile != nil {
		mod := kanri.UserModificationRequest{Email: d.email, DisplayName: d.displayName}
		if d.profile != nil {
			p := d.profile
			mod.Profile = &kanri.ProfileModification{FirstName: &p.FirstName, LastName: &p.LastName, JobTitle: &p.JobTitle, Department: &p.Department}
		}
		if _, err := s.Users.Patch(ctx, tenantID, id, mod, func(cur string) (string, error) {
			if stale(etag, cur) {
				return "", kanri.Stale()
			}
			if etag == "" || etag == "*" {
				return "", nil
			}
			return cur, nil
		}); err != nil {
			return nil, fromKanri(err)
		}
	}
	if d.active != nil && *d.active != u.IsActive {
		if _, err := s.Users.SetActive(ctx, tenantID, id, kanri.Seen{}, *d.active); err != nil {
			return nil, fromKanri(err)
		}
	}
	if err := s.setLink(ctx, tenantID, id, d.externalID, false); err != nil {
		return nil, err
	}
	return s.Get(ctx, tenantID, id, base)
}

// Replace is a PUT: the user becomes the resource r.
func (s *Service) Replace(ctx context.Context, tenantID, id, etag string, r *User, base string) (*User, error) {
	if strings.TrimSpace(r.UserName) == "" {
		return nil, invalid("invalidValue", "userName is required")
	}
	email, name, p, ext := r.email(), r.displayName(), r.profile(), r.ExternalID
	d := draft{userName: &r.UserName, email: &email, displayName: &name, profile: &p, externalID: &ext}
	if r.Active != nil {
		a := bool(*r.Active)
		d.active = &a
	}
	return s.apply(ctx, tenantID, id, etag, d, base)
}

// Operation is one operation of a PATCH (RFC 7644, 3.5.2).
type Operation struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// Patch applies a PATCH's operations: add and replace set an attribute,
// remove clears it; an operation without a path carries an object of
// attributes (Entra ID's "replace" of {"active": false}, or of dotted
// names such as "name.givenName"); booleans may be strings.
func (s *Service) Patch(ctx context.Context, tenantID, id, etag string, ops []Operation, base string) (*User, error) {
	if len(ops) == 0 {
		return nil, invalid("invalidValue", "a PATCH needs Operations")
	}
	u, l, err := s.visible(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	cur := resource(u, l, base)
	p := cur.profile()
	d := draft{profile: &p}
	for _, op := range ops {
		kind := strings.ToLower(op.Op)
		if kind != "add" && kind != "replace" && kind != "remove" {
			return nil, invalid("invalidSyntax", "op is add, replace or remove, not "+op.Op)
		}
		if op.Path == "" {
			if kind == "remove" {
				return nil, invalid("noTarget", "remove needs a path")
			}
			var attrs map[string]json.RawMessage
			if err := json.Unmarshal(op.Value, &attrs); err != nil {
				return nil, invalid("invalidValue", "an operation without a path carries an object of attributes")
			}
			if err := d.setAll("", attrs); err != nil {
				return nil, err
			}
			continue
		}
		value := op.Value
		if kind == "remove" {
			value = json.RawMessage(`""`)
		}
		if err := d.set(op.Path, value, kind == "remove"); err != nil {
			return nil, err
		}
	}
	if *d.profile == cur.profile() {
		d.profile = nil
	}
	return s.apply(ctx, tenantID, id, etag, d, base)
}

// setAll sets the attributes of an object, under prefix.
func (d *draft) setAll(prefix string, attrs map[string]json.RawMessage) error {
	for k, v := range attrs {
		if err := d.set(prefix+k, v, false); err != nil {
			return err
		}
	}
	return nil
}

// emailPath is the work (or primary) e-mail's value, as Entra ID and Okta
// name it.
var emailPath = regexp.MustCompile(`(?i)^emails\[(type eq "work"|primary eq true)\]\.value$`)

// ignored are attributes of the core and enterprise schemas that Kanri
// does not keep: set, they change nothing.
var ignored = map[string]bool{
	"nickname": true, "profileurl": true, "usertype": true, "preferredlanguage": true, "locale": true, "timezone": true,
	"phonenumbers": true, "addresses": true, "ims": true, "photos": true, "x509certificates": true, "entitlements": true, "roles": true,
	"employeenumber": true, "costcenter": true, "organization": true, "division": true, "manager": true, "name.middlename": true,
	"name.honorificprefix": true, "name.honorificsuffix": true, "schemas": true, "id": true, "meta": true, "password": true,
}

// set sets one attribute at path to value (cleared when remove).
func (d *draft) set(path string, value json.RawMessage, remove bool) error {
	low := strings.ToLower(strings.TrimSpace(path))
	enterprise := strings.ToLower(SchemaEnterprise) + ":"
	low = strings.TrimPrefix(low, strings.ToLower(SchemaUser)+":")
	str := func() (*string, error) {
		var v string
		if err := json.Unmarshal(value, &v); err != nil {
			return nil, invalid("invalidValue", path+" is a string")
		}
		return &v, nil
	}
	var err error
	switch {
	case low == "active":
		var b Bool
		if remove {
			return invalid("mutability", "active cannot be removed")
		}
		if err := json.Unmarshal(value, &b); err != nil {
			return invalid("invalidValue", "active is true or false")
		}
		a := bool(b)
		d.active = &a
	case low == "username":
		d.userName, err = str()
	case low == "displayname":
		d.displayName, err = str()
	case low == "externalid":
		d.externalID, err = str()
	case low == "title":
		var v *string
		if v, err = str(); err == nil {
			d.profile.JobTitle = strings.TrimSpace(*v)
		}
	case low == "name.givenname" || low == "name.familyname":
		var v *string
		if v, err = str(); err == nil {
			if low == "name.givenname" {
				d.profile.FirstName = strings.TrimSpace(*v)
			} else {
				d.profile.LastName = strings.TrimSpace(*v)
			}
		}
	case low == "name.formatted":
		if !remove {
			d.displayName, err = str()
		}
	case low == "name":
		var n map[string]json.RawMessage
		if err := json.Unmarshal(value, &n); err != nil {
			return invalid("invalidValue", "name is an object")
		}
		return d.setAll("name.", n)
	case emailPath.MatchString(path) || low == "emails.value":
		if remove {
			return invalid("mutability", "a user keeps an e-mail address")
		}
		d.email, err = str()
	case low == "emails":
		var es []Email
		if err := json.Unmarshal(value, &es); err != nil {
			return invalid("invalidValue", "emails is a list of addresses")
		}
		r := User{Emails: es}
		if e := r.email(); e != "" {
			d.email = &e
		}
	case low == enterprise+"department" || low == "department":
		var v *string
		if v, err = str(); err == nil {
			d.profile.Department = strings.TrimSpace(*v)
		}
	case strings.HasPrefix(low, enterprise) || low == strings.TrimSuffix(enterprise, ":"):
		if low == strings.TrimSuffix(enterprise, ":") {
			var ext map[string]json.RawMessage
			if err := json.Unmarshal(value, &ext); err != nil {
				return invalid("invalidValue", "the enterprise extension is an object")
			}
			return d.setAll(enterprise, ext)
		}
		// Other enterprise attributes (manager, employeeNumber…) are not kept.
	case ignored[low] || ignored[strings.SplitN(low, "[", 2)[0]] || ignored[strings.SplitN(low, ".", 2)[0]]:
	default:
		return invalid("invalidPath", "Kanri has no attribute "+path)
	}
	return err
}

// Delete deprovisions a user: deactivated with their sessions ended, or
// deleted when the tenant says so; either way provisioning no longer
// finds them.
func (s *Service) Delete(ctx context.Context, tenantID, id, etag string) error {
	u, _, err := s.visible(ctx, tenantID, id)
	if err != nil {
		return err
	}
	if stale(etag, u.ETag) {
		return &Error{Status: 412, Detail: "the user changed since the version given (If-Match)"}
	}
	if admin, err := s.administers(ctx, tenantID, id); err != nil {
		return err
	} else if admin {
		return errAdministrator
	}
	c, err := s.Config(ctx, tenantID)
	if err != nil {
		return err
	}
	if c.DeleteUsers {
		if _, err := s.Users.Delete(ctx, tenantID, id, kanri.Seen{}); err != nil {
			return fromKanri(err)
		}
		// Deleted, the user is no one's: what provisioning kept goes.
		if err := links(s.Store, tenantID).Delete(ctx, kanri.SCIMUserID(id), ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
		return nil
	} else if u.IsActive {
		if _, err := s.Users.SetActive(ctx, tenantID, id, kanri.Seen{}, false); err != nil {
			return fromKanri(err)
		}
	}
	return s.setLink(ctx, tenantID, id, nil, true)
}
