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
	SettingsRead   = "settings.read"   // a tenant's settings and subscription
	SettingsUpdate = "settings.update" // a tenant's time zone, locale and feature flags
	UsersRead      = "users.read"
	UsersCreate    = "users.create"
	UsersUpdate    = "users.update"
	UsersDelete    = "users.delete"
	RolesRead      = "roles.read"
	RolesUpdate    = "roles.update"
	AuditRead      = "audit.read"
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

// catalog is built once; Catalog returns copies.
var catalog = buildCatalog()

func buildCatalog() []ServiceInfo {
	// Each service's permissions come in three tiers: read (viewers and
	// up), write (a tenant's administrators and up) and operator (the
	// operator's global administrators only: managing tenants, the
	// service catalog and which services a tenant gets).
	type svc struct {
		id, name, desc, category string
		read, write, operator    []string
		// member, when set, is a role between viewer and administrator:
		// read and these.
		member []string
	}
	services := []svc{
		{kanri.TenantManagementID, "テナント管理サービス", "テナントの追加・編集・停止・削除", "management",
			[]string{TenantsRead, DomainsRead, SettingsRead}, []string{DomainsCreate, DomainsUpdate, DomainsDelete, SettingsUpdate},
			[]string{TenantsCreate, TenantsUpdate, TenantsDelete}, nil},
		{kanri.AuthServiceID, "認証認可サービス", "ユーザー・ロール・監査ログの管理", "security",
			[]string{UsersRead, RolesRead, AuditRead}, []string{UsersCreate, UsersUpdate, UsersDelete, RolesUpdate}, nil, nil},
		{kanri.ServiceSettingID, "サービス設定サービス", "テナントへのサービス割り当てと設定", "management",
			[]string{ServicesRead}, nil, []string{ServicesUpdate, ServicesManage}, nil},
		{kanri.FileServiceID, "ファイル管理サービス", "ファイルのアップロード・ダウンロード・管理", "storage",
			[]string{FilesRead}, []string{FilesCreate, FilesUpdate, FilesDelete}, nil,
			[]string{FilesCreate}}, // a member uploads, and changes and trashes its own files (files.MayChange)
		{kanri.MessagingServiceID, "メッセージングサービス", "チャネルとメッセージ", "communication",
			[]string{ChannelsRead}, []string{ChannelsCreate, MessagesCreate, ChannelsUpdate, ChannelsDelete, MessagesDelete}, nil,
			[]string{ChannelsCreate, MessagesCreate}},
		{kanri.APIServiceID, "API利用サービス", "APIキーと利用状況", "integration",
			[]string{APIKeysRead}, []string{APIKeysCreate, APIKeysUpdate, APIKeysDelete}, nil, nil},
		{kanri.BackupServiceID, "バックアップサービス", "バックアップジョブと履歴", "operations",
			[]string{BackupsRead}, []string{BackupsCreate, BackupsUpdate, BackupsExecute, BackupsDelete}, nil, nil},
	}
	var out []ServiceInfo
	for _, s := range services {
		admin := slices.Concat(s.read, s.write)
		all := slices.Concat(admin, s.operator)
		roles := []Definition{
			{s.id, GlobalAdmin, "global_admin", "全テナントに対する全権限（管理会社のみ）", all},
			{s.id, Admin, "admin", "自テナント内の" + s.name + "の管理", admin},
		}
		if s.member != nil {
			roles = append(roles, Definition{s.id, Member, "member", "自テナント内の" + s.name + "への参加", slices.Concat(s.read, s.member)})
		}
		roles = append(roles, Definition{s.id, Viewer, "viewer", "自テナント内の" + s.name + "の閲覧", s.read})
		out = append(out, ServiceInfo{ID: s.id, Name: s.name, Description: s.desc, Category: s.category, Roles: roles})
	}
	return out
}

// Catalog returns the built-in services and their roles.
func Catalog() []ServiceInfo {
	out := make([]ServiceInfo, len(catalog))
	copy(out, catalog)
	return out
}

// Find returns the definition of a service's role.
func Find(serviceID, roleName string) (Definition, bool) {
	for _, s := range catalog {
		if s.ID != serviceID {
			continue
		}
		for _, d := range s.Roles {
			if d.RoleName == roleName {
				return d, true
			}
		}
	}
	return Definition{}, false
}

// AllPermissions lists every permission of the catalog.
func AllPermissions() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range catalog {
		for _, p := range s.Roles[0].Permissions {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// Set is a set of permissions.
type Set map[string]bool

// Has reports whether the set holds p.
func (s Set) Has(p string) bool { return s[p] }

// Effective returns the permissions granted by a user's assignments.
// Assignments of unknown roles grant nothing.
func Effective(assignments []*kanri.RoleAssignment) Set {
	set := Set{}
	for _, a := range assignments {
		if d, ok := Find(a.ServiceID, a.RoleName); ok {
			for _, p := range d.Permissions {
				set[p] = true
			}
		}
	}
	return set
}

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

// FindKey returns the definition of a service's role by its key
// (global_admin, admin or viewer), the form URLs use.
func FindKey(serviceID, key string) (Definition, bool) {
	for _, s := range catalog {
		if s.ID != serviceID {
			continue
		}
		for _, d := range s.Roles {
			if d.Key == key {
				return d, true
			}
		}
	}
	return Definition{}, false
}

// KeyOf returns the key (global_admin, admin, viewer) of a role by its
// stored name, for showing a recorded role name in the reader's language.
func KeyOf(roleName string) (string, bool) {
	for _, s := range catalog {
		for _, d := range s.Roles {
			if d.RoleName == roleName {
				return d.Key, true
			}
		}
	}
	return "", false
}
