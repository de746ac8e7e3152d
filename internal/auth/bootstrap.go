package auth

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

// TenantCreator returns the operator's tenant, creating it with its index
// entries if needed; tenant.Service implements it.
type TenantCreator interface {
	EnsurePrivileged(ctx context.Context) (*kanri.Tenant, error)
}

// UserCreator adds a user to a tenant; user.Service implements it.
type UserCreator interface {
	Create(ctx context.Context, tenantID string, in kanri.UserInput) (*kanri.User, error)
	IDByUsername(ctx context.Context, tenantID, username string) (string, error)
}

// RoleGranter makes a user the administrator of a tenant; role.Service
// implements it.
type RoleGranter interface {
	GrantInitial(ctx context.Context, t *kanri.Tenant, userID string) (bool, error)
	HasGlobalAdmin(ctx context.Context) (bool, error)
}

// Bootstrap makes sure the operator's tenant and its first administrator
// exist (docs/data-model.md, "The operator's tenant"). On a store that has
// them it changes nothing; a start that stopped between the two steps is
// completed. Without a password it generates one and returns it, for the
// caller to show once.
func Bootstrap(ctx context.Context, tenants TenantCreator, users UserCreator, roles RoleGranter, email, password string) (generated string, created bool, err error) {
	ctx = audit.WithActor(ctx, audit.Actor{UserID: "system", UserName: "system", RequestID: "bootstrap-" + time.Now().UTC().Format("20060102T150405")})
	t, err := tenants.EnsurePrivileged(ctx)
	if err != nil {
		return "", false, err
	}
	// Bootstrapped before (also by another instance starting now): make
	// sure no start stopped between creating the administrator and
	// granting their roles. Nothing here trusts userCount, which a crash
	// may have left off until the repair.
	if ok, err := roles.HasGlobalAdmin(ctx); err != nil || ok {
		return "", false, err
	}
	if id, err := users.IDByUsername(ctx, t.ID, email); err == nil {
		_, err = roles.GrantInitial(ctx, t, id)
		return "", false, err
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		return "", false, err
	}
	if password == "" {
		if password, err = GeneratePassword(); err != nil {
			return "", false, err
		}
		generated = password
	}
	_, err = users.Create(ctx, t.ID, kanri.UserInput{Username: email, Email: email, DisplayName: "Administrator", Password: password})
	if taken(err) {
		// Another instance starting at the same time created them; its
		// password (generated or given) is the one that counts, and
		// creating them made them administrator (or its next start will).
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return generated, true, nil
}

// taken reports whether err says the username is taken.
func taken(err error) bool {
	return kanri.IsCode(err, kanri.EINVALID) && kanri.ErrorFields(err)["username"] == "validation.username_taken"
}
