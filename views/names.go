package views

import (
	"context"

	"github.com/kanri/kanri/internal/i18n"
)

// The display names of stored names. Built-in services and roles are stored
// with the data model's Japanese names (docs/data-model.md, "Services" and
// "Roles"); they are shown in the page's language. Services added later
// show their stored name.

// translated returns the translation of key, or fallback when the catalog
// has no such key.
func translated(ctx context.Context, key, fallback string, args ...any) string {
	if i18n.Has(key) {
		return i18n.T(ctx, key, args...)
	}
	return fallback
}

// ServiceName returns the name of the service with the given id.
func ServiceName(ctx context.Context, id, stored string) string {
	return translated(ctx, "service."+id, stored)
}

// ServiceDescription returns the description of the service with the given
// id.
func ServiceDescription(ctx context.Context, id, stored string) string {
	return translated(ctx, "service."+id+".description", stored)
}

// RoleName returns the name of a role by its key (global_admin, admin,
// viewer).
func RoleName(ctx context.Context, key, stored string) string {
	return translated(ctx, "role."+key, stored)
}

// RoleDescription returns the description of a role of a service.
func RoleDescription(ctx context.Context, serviceID, serviceName, key, stored string) string {
	return translated(ctx, "role."+key+".description", stored, ServiceName(ctx, serviceID, serviceName))
}

// ResourceType returns the name of a type of audited resource.
func ResourceType(ctx context.Context, typ string) string {
	return translated(ctx, "resource."+typ, typ)
}
