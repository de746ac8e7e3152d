// Package role holds the built-in service catalog, the roles each service
// offers and their dot-notation permissions (docs/roles.md), and manages
// role assignments (docs/data-model.md, "Roles").
package role

import (
	"slices"

	"github.com/kanri/kanri/internal/kanri"
)

// Role names of the data model (docs/data-model.md, "Roles").
const (
	GlobalAdmin = "全体管理者" // global admin: every tenant; only in the privileged tenant
	Admin       = "管理者"   // a tenant's administrator
	Viewer      = "閲覧者"   // read-only
	Member      = "メンバー"  // takes part (messaging: posts, reacts, creates channels)
)

// Permissions, in dot notation: resource.action.
const (
	TenantsRead    = "tenants.read"
	TenantsCreate  = "tenants.create"
	TenantsUpdate  = "tenants.update"
	TenantsDelete  = "tenants.delete"
	MigrationsRun  = "migrations.run"  // dry-run, run and roll back batch migrations of every tenant's documents
	SettingsRead   = "settings.read"   // a tenant's settings and subscription
	SettingsUpdate = "settings.update" // a tenant's time zone, locale and feature flags
	UsersRead      = "users.read"
	UsersCreate    = "users.create"
	UsersUpdate    = "users.update"
	UsersDelete    = "users.delete"
	UsersErase     = "users.erase"  // erase a person's data for good (GDPR Art. 17)
	UsersExport    = "users.export" // export a person's data (GDPR Art. 15 and 20)
	RolesRead      = "roles.read"
	RolesUpdate    = "roles.update"
	AuditRead      = "audit.read"
	SupportAccess  = "support.access"  // open another tenant as one of its users (support access)
	SSOManage      = "sso.manage"      // a tenant's identity providers, sign-in rules and provisioning token (who signs in as whom)
	ServicesRead   = "services.read"   // a tenant's services, their status and usage
	ServicesUpdate = "services.update" // assign, suspend and configure a tenant's services
	ServicesManage = "services.manage" // the service catalog
	DomainsRead    = "domains.read"
	DomainsCreate  = "domains.create"
	DomainsUpdate  = "domains.update" // verify
	DomainsDelete  = "domains.delete"
	FilesRead      = "files.read"
	FilesCreate    = "files.create"
	FilesUpdate    = "files.update"
	FilesDelete    = "files.delete"
	ChannelsRead   = "channels.read"
	ChannelsCreate = "channels.create"
	ChannelsUpdate = "channels.update"
	ChannelsDelete = "channels.delete"
	MessagesCreate = "messages.create" // post, edit and delete one's own, react, join (leaving and read marks need only channels.read)
	MessagesDelete = "messages.delete" // delete anyone's message (audited)
	APIKeysRead    = "apikeys.read"
	APIKeysCreate  = "apikeys.create"
	APIKeysUpdate  = "apikeys.update" // deactivate, reactivate, rotate
	APIKeysDelete  = "apikeys.delete" // revoke
	BackupsRead    = "backups.read"
	BackupsCreate  = "backups.create"
	BackupsUpdate  = "backups.update"
	BackupsExecute = "backups.execute"
	BackupsDelete  = "backups.delete"
)

// Definition is one role of one service.
type Definition struct {
	ServiceID   string
	RoleName    string
	Key         string // global_admin, admin or viewer: the id suffix
	Description string
	Permissions []string
}

// ID returns the definition's document id (docs/data-model.md, "Roles").
func (d Definition) ID() string { return "service_role_" + d.ServiceID + "_" + d.Key }

// PrivilegedOnly reports whether the role may be held only by users of the
// operator's tenant.
func (d Definition) PrivilegedOnly() bool { return d.RoleName == GlobalAdmin }

// ServiceInfo is one service of the catalog.
type ServiceInfo struct {
	ID          string
	Name        string
	Description string
	Category    string
	Roles       []Definition
}

// Offer is one service of the catalog as the feature that provides it
// declares it: its permissions in three tiers, read (viewers and up), write
// (a tenant's administrators and up) and operator (the operator's global
// administrators only: managing tenants, the service catalog and which
// services a tenant gets), and the lowest plan that includes it.
type Offer struct {
	ID, Name, Description, Category string
	Read, Write, Operator           []string
	// Member, when set, is a role between viewer and administrator: Read
	// and these.
	Member []string
	// Plan is the lowest plan that includes the service and its
	// permissions ("" for every plan).
	Plan string
	// Config are the typed settings of its assignments: the limits the
	// service enforces.
	Config []kanri.ConfigField
}

// roles returns the offer's role definitions: 全体管理者, 管理者, メンバー
// when it has one, and 閲覧者.
func (o Offer) roles() []Definition {
	admin := slices.Concat(o.Read, o.Write)
	all := slices.Concat(admin, o.Operator)
	roles := []Definition{
		{o.ID, GlobalAdmin, "global_admin", "全テナントに対する全権限（管理会社のみ）", all},
		{o.ID, Admin, "admin", "自テナント内の" + o.Name + "の管理", admin},
	}
	if o.Member != nil {
		roles = append(roles, Definition{o.ID, Member, "member", "自テナント内の" + o.Name + "への参加", slices.Concat(o.Read, o.Member)})
	}
	return append(roles, Definition{o.ID, Viewer, "viewer", "自テナント内の" + o.Name + "の閲覧", o.Read})
}

// AuthOffer is the authentication and authorisation service: users, their
// roles and the audit log.
var AuthOffer = Offer{
	ID: kanri.AuthServiceID, Name: "認証認可サービス", Description: "ユーザー・ロール・監査ログの管理", Category: "security",
	Read:     []string{UsersRead, RolesRead, AuditRead},
	Write:    []string{UsersCreate, UsersUpdate, UsersDelete, UsersErase, UsersExport, RolesUpdate, SSOManage},
	Operator: []string{SupportAccess},
}

// Catalog is Kanri's own services and the roles they offer, built once by
// the composition root from the offers of its features.
type Catalog struct {
	services    []ServiceInfo
	config      map[string][]kanri.ConfigField // each service's typed settings
	permService map[string]string              // each permission's service
	plans       map[string]string              // the plan each service needs, when not every plan
}

// NewCatalog returns the catalog of the offers, in their order. It panics
// when two offers share an id or a permission: the features' declarations
// are wrong.
func NewCatalog(offers ...Offer) *Catalog {
	c := &Catalog{permService: map[string]string{}, plans: map[string]string{}, config: map[string][]kanri.ConfigField{}}
	for _, o := range offers {
		if _, ok := c.find(o.ID); ok {
			panic("role: two offers of service " + o.ID)
		}
		roles := o.roles()
		for _, p := range roles[0].Permissions { // 全体管理者 holds all of them
			if other, ok := c.permService[p]; ok {
				panic("role: permission " + p + " offered by " + other + " and " + o.ID)
			}
			c.permService[p] = o.ID
		}
		if o.Plan != "" {
			c.plans[o.ID] = o.Plan
		}
		c.config[o.ID] = o.Config
		c.services = append(c.services, ServiceInfo{ID: o.ID, Name: o.Name, Description: o.Description, Category: o.Category, Roles: roles})
	}
	return c
}

// Services returns the catalog's services and their roles.
func (c *Catalog) Services() []ServiceInfo { return slices.Clone(c.services) }

// Has reports whether id is one of Kanri's own services.
func (c *Catalog) Has(id string) bool {
	_, ok := c.find(id)
	return ok
}

func (c *Catalog) find(id string) (ServiceInfo, bool) {
	for _, s := range c.services {
		if s.ID == id {
			return s, true
		}
	}
	return ServiceInfo{}, false
}

// ConfigFields returns the typed settings of a service (none for one of
// Kanri's services without settings), and whether it is one of Kanri's:
// a service that is not takes its config as free JSON.
func (c *Catalog) ConfigFields(serviceID string) ([]kanri.ConfigField, bool) {
	fs, ok := c.config[serviceID]
	return fs, ok
}

// Find returns the definition of a service's role.
func (c *Catalog) Find(serviceID, roleName string) (Definition, bool) {
	s, _ := c.find(serviceID)
	for _, d := range s.Roles {
		if d.RoleName == roleName {
			return d, true
		}
	}
	return Definition{}, false
}

// FindKey returns the definition of a service's role by its key
// (global_admin, admin or viewer), the form URLs use.
func (c *Catalog) FindKey(serviceID, key string) (Definition, bool) {
	s, _ := c.find(serviceID)
	for _, d := range s.Roles {
		if d.Key == key {
			return d, true
		}
	}
	return Definition{}, false
}

// AllPermissions lists every permission of the catalog.
func (c *Catalog) AllPermissions() []string {
	var out []string
	for _, s := range c.services {
		out = append(out, s.Roles[0].Permissions...)
	}
	return out
}

// Effective returns the permissions granted by a user's assignments.
// Assignments of unknown roles grant nothing.
func (c *Catalog) Effective(assignments []*kanri.RoleAssignment) Set {
	set := Set{}
	for _, a := range assignments {
		if d, ok := c.Find(a.ServiceID, a.RoleName); ok {
			for _, p := range d.Permissions {
				set[p] = true
			}
		}
	}
	return set
}

// roleKeys are the keys of the role names, the same in every service.
var roleKeys = map[string]string{GlobalAdmin: "global_admin", Admin: "admin", Member: "member", Viewer: "viewer"}

// KeyOf returns the key (global_admin, admin, viewer) of a role by its
// stored name, for showing a recorded role name in the reader's language.
func KeyOf(roleName string) (string, bool) {
	k, ok := roleKeys[roleName]
	return k, ok
}

// Set is a set of permissions.
type Set map[string]bool

// Has reports whether the set holds p.
func (s Set) Has(p string) bool { return s[p] }

// adminRole returns the role of the auth service that makes a user an
// administrator of t: 全体管理者 in the operator's tenant, where it is the
// only role that reaches every tenant, and 管理者 in the others.
func adminRole(t *kanri.Tenant) string {
	if t.IsPrivileged {
		return GlobalAdmin
	}
	return Admin
}

// IsAdminRole reports whether holding the role makes a user an
// administrator of t, the role the last-administrator rule protects.
func IsAdminRole(t *kanri.Tenant, serviceID, roleName string) bool {
	return serviceID == kanri.AuthServiceID && roleName == adminRole(t)
}
