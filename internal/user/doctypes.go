package user

import (
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the document types of users (docs/architecture.md,
// "Document types").
var DocTypes = []doctype.Type{
	{
		Name: kanri.TypeUser, Container: kanri.ContainerAuth, Of: &kanri.User{},
		Indexes: []doctype.Index{
			{Name: "user_username", Fields: []string{"username"}},
			{Name: "user_email", Fields: []string{"email"}},
			{Name: "user_display_name", Fields: []string{"displayName"}},
			{Name: "user_created", Fields: []string{"createdAt"}},
			{Name: "user_last_login", Fields: []string{"security.lastLoginAt"}},
			{Name: "user_active", Fields: []string{"isActive", "username"}},
			{Name: "user_search", Fields: []string{"searchTerms[]", "username"}},
			{Name: "user_locked", Fields: []string{"security.lockedUntil"}},
			{Name: "user_deleted", Fields: []string{"deletedAt"}},
		},
		Upgrades: []doctype.Upgrade{
			{From: "1.0", To: "1.1", Up: securityBlock},
			{From: "1.1", To: kanri.UserSchemaVersion, Up: ProfileBlock},
		},
		Backup:   doctype.InPart(kanri.PartUsers),
		Personal: doctype.Personal{Owner: "id", Data: []string{"username", "email", "displayName", "profile", "passwordHash", "security", "searchTerms"}},
		// Others' documents name the user by id (messages, files, the
		// audit trail): the user stays, without anything that says who
		// they were.
		Erasure: doctype.Erase(),
		Export:  []string{"username", "email", "displayName", "profile", "isActive", "createdAt", "security.lastLoginAt", "security.lastPasswordChangeAt", "security.twoFactorEnabled"},
	},
	{
		// A username's reservation: its id is derived from the username (a
		// digest of its normalised form).
		Name: kanri.TypeUsername, Container: kanri.ContainerAuth, Of: &kanri.Username{},
		Backup:   doctype.InPart(kanri.PartUsers),
		Personal: doctype.Personal{Owner: "userId", Data: []string{"id"}},
		Erasure:  doctype.Erase(),
	},
	{
		// An e-mail address's reservation: its id is derived from the address
		// (a digest).
		Name: kanri.TypeEmailAddress, Container: kanri.ContainerAuth, Of: &kanri.EmailAddress{},
		Backup:   doctype.InPart(kanri.PartUsers),
		Personal: doctype.Personal{Owner: "userId", Data: []string{"id"}},
		Erasure:  doctype.Erase(),
	},
	{
		Name: kanri.TypeTenantUser, Container: kanri.ContainerTenant, Of: &kanri.TenantUser{},
		Backup:   doctype.InPart(kanri.PartUsers),
		Personal: doctype.Personal{Owner: "userId", Data: []string{"userId", "role"}},
		Erasure:  doctype.Erase(),
		Export:   []string{"role", "assignedAt"},
	},
}

// Container is the auth container: users, their roles and sign-in
// records. Secrets are not indexed.
var Container = doctype.Container{Name: kanri.ContainerAuth, Indexing: docstore.IndexingPolicy{
	IncludedPaths: []string{"/*"},
	ExcludedPaths: []string{"/passwordHash/?", "/security/twoFactorSecret/?", "/security/twoFactorPending/?", "/security/recoveryCodes/*", "/_etag/?"},
}}
