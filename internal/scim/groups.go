package scim

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
)

// SchemaGroup is the Group resource's schema.
const SchemaGroup = "urn:ietf:params:scim:schemas:core:2.0:Group"

// GroupsMax is the most groups a tenant's provider pushes.
const GroupsMax = 200

// Group is the SCIM Group resource of a provider's group.
type Group struct {
	Schemas     []string `json:"schemas"`
	ID          string   `json:"id,omitempty"`
	ExternalID  string   `json:"externalId,omitempty"`
	DisplayName string   `json:"displayName"`
	Members     []Member `json:"members"`
	Meta        *Meta    `json:"meta,omitempty"`
}

// Member is one member of a group: a user's id.
type Member struct {
	Value   string `json:"value"`
	Display string `json:"display,omitempty"`
	Ref     string `json:"$ref,omitempty"`
}

func groups(st *store.Store, tenantID string) *store.Repo[kanri.SCIMGroup, *kanri.SCIMGroup] {
	return store.Of[kanri.SCIMGroup](st.Tenant(tenantID), kanri.ContainerAuth, kanri.TypeSCIMGroup)
}

func groupVersion(g *kanri.SCIMGroup) string { return `W/"` + strings.Trim(g.ETag, `"`) + `"` }

// groupResource returns the Group resource of g, at base (the Groups
// endpoint's URL); usersBase is the Users endpoint's.
func groupResource(g *kanri.SCIMGroup, base, usersBase string) *Group {
	r := &Group{Schemas: []string{SchemaGroup}, ID: g.ID, ExternalID: g.ExternalID, DisplayName: g.DisplayName, Members: []Member{},
		Meta: &Meta{ResourceType: "Group", Created: g.CreatedAt.String(), LastModified: g.UpdatedAt.String(), Location: base + "/" + g.ID, Version: groupVersion(g)}}
	for _, m := range g.Members {
		r.Members = append(r.Members, Member{Value: m, Ref: usersBase + "/" + m})
	}
	return r
}

var errNoGroup = &Error{Status: 404, Detail: "no such group"}

// Groups returns a tenant's groups by name, for its console page.
func (s *Service) Groups(ctx context.Context, tenantID string) ([]*kanri.SCIMGroup, error) {
	return groups(s.Store, tenantID).All(ctx, docstore.Query{OrderBy: "displayName", Limit: GroupsMax})
}

func (s *Service) group(ctx context.Context, tenantID, id string) (*kanri.SCIMGroup, error) {
	if !strings.HasPrefix(id, "group_") || docstore.CheckKey(tenantID, id) != nil {
		return nil, errNoGroup
	}
	g, err := groups(s.Store, tenantID).Get(ctx, id)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, errNoGroup
	}
	return g, err
}

// GetGroup returns a group's resource.
func (s *Service) GetGroup(ctx context.Context, tenantID, id, base, usersBase string) (*Group, error) {
	g, err := s.group(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	return groupResource(g, base, usersBase), nil
}

// groupFilter is the filter on groups Kanri answers.
var groupFilter = regexp.MustCompile(`(?i)^\s*(displayName|externalId)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$`)

// ListGroups returns the groups a filter names, or all, from startIndex
// at most count.
func (s *Service) ListGroups(ctx context.Context, tenantID, filter string, startIndex, count int, base, usersBase string) (int, []*Group, error) {
	all, err := s.Groups(ctx, tenantID)
	if err != nil {
		return 0, nil, err
	}
	if filter != "" {
		m := groupFilter.FindStringSubmatch(filter)
		if m == nil {
			return 0, nil, invalid("invalidFilter", `the filters answered are displayName eq "…" and externalId eq "…"`)
		}
		var value string
		if err := json.Unmarshal([]byte(`"`+m[2]+`"`), &value); err != nil {
			return 0, nil, invalid("invalidFilter", "the filter's value is not a valid string")
		}
		all = slices.DeleteFunc(all, func(g *kanri.SCIMGroup) bool {
			if strings.EqualFold(m[1], "displayName") {
				return !strings.EqualFold(g.DisplayName, value)
			}
			return g.ExternalID != value
		})
	}
	total := len(all)
	start := min(max(startIndex, 1)-1, total)
	all = all[start:min(start+max(min(count, MaxCount), 0), total)]
	out := make([]*Group, len(all))
	for i, g := range all {
		out[i] = groupResource(g, base, usersBase)
	}
	return total, out, nil
}

// members checks a group's members: users of the tenant, at most
// SCIMGroupMembersMax, each once.
func (s *Service) members(ctx context.Context, tenantID string, ms []Member) ([]string, error) {
	var ids []string
	for _, m := range ms {
		id := strings.TrimSpace(m.Value)
		if slices.Contains(ids, id) {
			continue
		}
		if _, _, err := s.visible(ctx, tenantID, id); err != nil {
			return nil, invalid("invalidValue", "member "+id+" is no user of this organisation")
		}
		ids = append(ids, id)
	}
	if len(ids) > kanri.SCIMGroupMembersMax {
		return nil, invalid("invalidValue", "a group has at most 1000 members")
	}
	return ids, nil
}

func checkName(name string) error {
	if n := utf8.RuneCountInString(strings.TrimSpace(name)); n == 0 || n > 200 || kanri.HasHidden(name, false) {
		return invalid("invalidValue", "displayName is 1 to 200 characters, without control characters")
	}
	return nil
}

// CreateGroup keeps a group the provider pushes; it grants nothing until
// the tenant's administrator maps it to roles.
func (s *Service) CreateGroup(ctx context.Context, tenantID string, r *Group, base, usersBase string) (*Group, error) {
	if err := checkName(r.DisplayName); err != nil {
		return nil, err
	}
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	all, err := s.Groups(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	if len(all) >= GroupsMax {
		return nil, &Error{Status: 409, Detail: "an organisation has at most 200 groups"}
	}
	for _, g := range all {
		if strings.EqualFold(g.DisplayName, strings.TrimSpace(r.DisplayName)) {
			return nil, &Error{Status: 409, SCIMType: "uniqueness", Detail: "a group has this displayName"}
		}
	}
	ids, err := s.members(ctx, tenantID, r.Members)
	if err != nil {
		return nil, err
	}
	now := kanri.NewTime(s.Now())
	g := &kanri.SCIMGroup{Doc: kanri.Doc{ID: "group_" + strings.ReplaceAll(uuid.NewString(), "-", "")},
		DisplayName: strings.TrimSpace(r.DisplayName), ExternalID: strings.TrimSpace(r.ExternalID), Members: ids, CreatedAt: now, UpdatedAt: now}
	if err := groups(s.Store, tenantID).Create(ctx, g); err != nil {
		return nil, err
	}
	s.Audit.Record(ctx, audit.Entry{TenantID: tenantID, Action: "scim.group_create", Resource: kanri.AuditResource{Type: kanri.AuditSCIMGroup, ID: g.ID, Name: g.DisplayName}})
	return groupResource(g, base, usersBase), nil
}

// groupChange changes a group with fn at etag (when given), then brings
// the roles of its members, before and after, in line.
func (s *Service) groupChange(ctx context.Context, tenantID, id, etag string, fn func(*kanri.SCIMGroup) error) (*kanri.SCIMGroup, error) {
	if _, err := s.group(ctx, tenantID, id); err != nil {
		return nil, err
	}
	var before []string
	g, err := groups(s.Store, tenantID).Modify(ctx, id, nil, func(g *kanri.SCIMGroup) error {
		if stale(etag, g.ETag) {
			return &Error{Status: 412, Detail: "the group changed since the version given (If-Match)"}
		}
		before = slices.Clone(g.Members)
		if err := fn(g); err != nil {
			return err
		}
		g.UpdatedAt = kanri.NewTime(s.Now())
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.Audit.Record(ctx, audit.Entry{TenantID: tenantID, Action: "scim.group_update", Resource: kanri.AuditResource{Type: kanri.AuditSCIMGroup, ID: g.ID, Name: g.DisplayName},
		Changes: audit.Diff(map[string]any{"members": len(before)}, map[string]any{"members": len(g.Members)})})
	return g, s.sync(ctx, tenantID, union(before, g.Members))
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// ReplaceGroup is a PUT.
func (s *Service) ReplaceGroup(ctx context.Context, tenantID, id, etag string, r *Group, base, usersBase string) (*Group, error) {
	if err := checkName(r.DisplayName); err != nil {
		return nil, err
	}
	ids, err := s.members(ctx, tenantID, r.Members)
	if err != nil {
		return nil, err
	}
	g, err := s.groupChange(ctx, tenantID, id, etag, func(g *kanri.SCIMGroup) error {
		g.DisplayName, g.ExternalID, g.Members = strings.TrimSpace(r.DisplayName), strings.TrimSpace(r.ExternalID), ids
		return nil
	})
	if err != nil {
		return nil, err
	}
	return groupResource(g, base, usersBase), nil
}

// memberFilter is a remove's path naming one member, as Okta sends it.
var memberFilter = regexp.MustCompile(`(?i)^members\[value eq "([^"]*)"\]$`)

// PatchGroup applies a PATCH: members added, removed (by a filtered path
// or a list of values, as Entra ID sends it) or replaced; displayName and
// externalId replaced.
func (s *Service) PatchGroup(ctx context.Context, tenantID, id, etag string, ops []Operation, base, usersBase string) (*Group, error) {
	if len(ops) == 0 {
		return nil, invalid("invalidValue", "a PATCH needs Operations")
	}
	type change struct {
		kind    string
		path    string
		members []Member
		name    *string
		ext     *string
	}
	var changes []change
	for _, op := range ops {
		kind := strings.ToLower(op.Op)
		if kind != "add" && kind != "replace" && kind != "remove" {
			return nil, invalid("invalidSyntax", "op is add, replace or remove, not "+op.Op)
		}
		path := strings.ToLower(strings.TrimSpace(op.Path))
		c := change{kind: kind, path: path}
		switch {
		case path == "members":
			if len(op.Value) > 0 && string(op.Value) != "null" {
				if err := json.Unmarshal(op.Value, &c.members); err != nil {
					return nil, invalid("invalidValue", "members is a list of {\"value\": user id}")
				}
			}
		case memberFilter.MatchString(op.Path) && kind == "remove":
			c.path, c.members = "members", []Member{{Value: memberFilter.FindStringSubmatch(op.Path)[1]}}
		case path == "displayname" || path == "externalid":
			var v string
			if err := json.Unmarshal(op.Value, &v); err != nil && kind != "remove" {
				return nil, invalid("invalidValue", op.Path+" is a string")
			}
			if path == "displayname" {
				if err := checkName(v); err != nil {
					return nil, err
				}
				c.name = &v
			} else {
				c.ext = &v
			}
		case path == "" && kind != "remove":
			var attrs struct {
				DisplayName *string  `json:"displayName"`
				ExternalID  *string  `json:"externalId"`
				Members     []Member `json:"members"`
			}
			if err := json.Unmarshal(op.Value, &attrs); err != nil {
				return nil, invalid("invalidValue", "an operation without a path carries an object of attributes")
			}
			if attrs.DisplayName != nil {
				if err := checkName(*attrs.DisplayName); err != nil {
					return nil, err
				}
			}
			c.name, c.ext = attrs.DisplayName, attrs.ExternalID
			if attrs.Members != nil {
				c.path, c.members = "members", attrs.Members
			}
		default:
			return nil, invalid("invalidPath", "Kanri has no group attribute "+op.Path)
		}
		if c.path == "members" && c.kind != "remove" {
			if _, err := s.members(ctx, tenantID, c.members); err != nil {
				return nil, err
			}
		}
		changes = append(changes, c)
	}
	g, err := s.groupChange(ctx, tenantID, id, etag, func(g *kanri.SCIMGroup) error {
		for _, c := range changes {
			if c.name != nil {
				g.DisplayName = strings.TrimSpace(*c.name)
			}
			if c.ext != nil {
				g.ExternalID = strings.TrimSpace(*c.ext)
			}
			if c.path != "members" {
				continue
			}
			var vals []string
			for _, m := range c.members {
				vals = append(vals, strings.TrimSpace(m.Value))
			}
			switch {
			case c.kind == "remove" && len(vals) == 0:
				g.Members = nil
			case c.kind == "remove":
				g.Members = slices.DeleteFunc(g.Members, func(m string) bool { return slices.Contains(vals, m) })
			case c.kind == "replace":
				g.Members = nil
				fallthrough
			default:
				g.Members = union(g.Members, vals)
			}
		}
		if len(g.Members) > kanri.SCIMGroupMembersMax {
			return invalid("invalidValue", "a group has at most 1000 members")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return groupResource(g, base, usersBase), nil
}

// DeleteGroup removes a group; its members lose the roles it gave.
func (s *Service) DeleteGroup(ctx context.Context, tenantID, id, etag string) error {
	g, err := s.group(ctx, tenantID, id)
	if err != nil {
		return err
	}
	if stale(etag, g.ETag) {
		return &Error{Status: 412, Detail: "the group changed since the version given (If-Match)"}
	}
	if err := groups(s.Store, tenantID).Delete(ctx, g.ID, g.ETag); err != nil {
		if kanri.IsCode(err, kanri.ESTALE) {
			return &Error{Status: 412, Detail: "the group changed meanwhile"}
		}
		return err
	}
	s.Audit.Record(ctx, audit.Entry{TenantID: tenantID, Action: "scim.group_delete", Resource: kanri.AuditResource{Type: kanri.AuditSCIMGroup, ID: g.ID, Name: g.DisplayName}})
	return s.sync(ctx, tenantID, g.Members)
}

// SetGroupRoles maps a group to roles ("service/role"), as the tenant's
// administrator sees it at etag; its members' roles follow. The roles
// are the catalog's of the tenant, never 全体管理者.
func (s *Service) SetGroupRoles(ctx context.Context, t *kanri.Tenant, id, etag string, roles []string) error {
	var clean []string
	for _, r := range roles {
		service, name, _ := strings.Cut(r, "/")
		d, ok := s.Roles.Catalog.Find(service, name)
		if !ok || d.PrivilegedOnly() {
			return kanri.Invalid(kanri.Fields{"roles": "scim.role_invalid"})
		}
		if !slices.Contains(clean, r) {
			clean = append(clean, r)
		}
	}
	if _, err := s.group(ctx, t.ID, id); err != nil {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	var before []string
	g, err := groups(s.Store, t.ID).Modify(ctx, id, nil, func(g *kanri.SCIMGroup) error {
		if etag != g.ETag {
			return kanri.Stale()
		}
		before, g.Roles, g.UpdatedAt = g.Roles, clean, kanri.NewTime(s.Now())
		return nil
	})
	if err != nil {
		return err
	}
	s.Audit.Record(ctx, audit.Entry{TenantID: t.ID, Action: "scim.group_roles", Resource: kanri.AuditResource{Type: kanri.AuditSCIMGroup, ID: g.ID, Name: g.DisplayName},
		Changes: audit.Diff(map[string]any{"roles": strings.Join(before, ",")}, map[string]any{"roles": strings.Join(clean, ",")})})
	return s.sync(ctx, t.ID, g.Members)
}

// Provisioned is who the assignments of groups' roles are by (Actor's
// user id).
const Provisioned = "scim"

// sync brings the roles that groups give each of users in line with the
// groups they are in: a role of a group they are in is assigned (by
// "scim"); one assigned by "scim" that no group of theirs gives any more
// is removed. Roles given by hand are never touched. A removal refused
// (the tenant's last administrator) is logged and left.
func (s *Service) sync(ctx context.Context, tenantID string, users []string) error {
	if len(users) == 0 {
		return nil
	}
	t, err := s.Store.Tenant(tenantID).Profile(ctx)
	if err != nil {
		return err
	}
	// The assignments are provisioning's, whoever's change led to them
	// (a mapping saved in the console, too): by Provisioned.
	a := Actor
	a.TenantID = tenantID
	ctx = audit.WithActor(ctx, a)
	for _, id := range users {
		in, err := groups(s.Store, tenantID).All(ctx, docstore.Query{Where: []docstore.Filter{docstore.ArrayContains("members", id)}, OrderBy: "displayName"})
		if err != nil {
			return err
		}
		want := map[string]bool{}
		for _, g := range in {
			for _, r := range g.Roles {
				want[r] = true
			}
		}
		held, err := s.Roles.ForUser(ctx, tenantID, id)
		if err != nil {
			return err
		}
		has := map[string]bool{}
		for _, ra := range held {
			key := ra.ServiceID + "/" + ra.RoleName
			has[key] = true
			if ra.AssignedBy == Provisioned && !want[key] {
				if err := s.Roles.Remove(ctx, role.Grant{Tenant: t, UserID: id, ServiceID: ra.ServiceID, RoleName: ra.RoleName}); err != nil {
					s.Logger.Warn("scim: a role no group gives was kept", "tenant", tenantID, "user", id, "role", key, "err", err)
				}
			}
		}
		for r := range want {
			if has[r] {
				continue
			}
			service, name, _ := strings.Cut(r, "/")
			if _, _, err := s.Roles.Assign(ctx, role.Grant{Tenant: t, UserID: id, ServiceID: service, RoleName: name}); err != nil {
				s.Logger.Warn("scim: a group's role was not given", "tenant", tenantID, "user", id, "role", r, "err", err)
			}
		}
	}
	return nil
}
