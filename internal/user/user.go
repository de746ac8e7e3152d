// Package user manages a tenant's users: create, edit, deactivate,
// reactivate, delete, reset passwords and unlock
// (docs/data-model.md, "Users" and "Soft deletion").
package user

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/search"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
)

// Roles is what user management needs of role management.
type Roles interface {
	// GrantInitial makes the user the tenant's administrator if it has
	// none (a tenant's first user), and reports whether it did.
	GrantInitial(ctx context.Context, t *kanri.Tenant, userID string) (bool, error)
	// Demote applies ops, which may take away the user's administration,
	// as one batch in the tenant's auth partition, refusing to leave the
	// tenant without an active administrator.
	// lastAdminConfirmed says an operator confirmed leaving a customer
	// tenant without an administrator.
	Demote(ctx context.Context, tenantID, userID string, ops []docstore.Op, lastAdminConfirmed bool) ([]docstore.Result, error)
	// CheckChange refuses (EFORBIDDEN) a change of the user that the actor
	// of ctx may not make: only a global administrator changes a global
	// administrator.
	CheckChange(ctx context.Context, tenantID, userID string) error
}

// Service manages users.
type Service struct {
	app.Deps
	tenants *tenant.Service
	roles   Roles
	hasher  auth.Hasher
}

// New returns a user service that keeps tenants' user counts and asks
// roles about administrators; h hashes passwords.
func New(d app.Deps, tenants *tenant.Service, roles Roles, h auth.Hasher) *Service {
	return &Service{Deps: d, tenants: tenants, roles: roles, hasher: h}
}

// ListFilter selects users for the list page.
type ListFilter struct {
	Search       string // words that begin words of the username, e-mail or display name (package search)
	Status       string // "", active, inactive, locked or deleted
	Sort         string // username (the default), displayName, email, createdAt or lastLogin
	Desc         bool
	Limit        int
	Continuation string
}

// List returns one page of a tenant's users, sorted by username.
func (s *Service) List(ctx context.Context, tenantID string, f ListFilter) ([]*kanri.User, string, error) {
	notDeleted := notDeleted()
	var where []docstore.Filter
	where = append(where, search.Filters(f.Search)...)
	switch f.Status {
	case kanri.UserActive:
		where = append(where, notDeleted, docstore.Eq("isActive", true))
	case kanri.UserInactive:
		where = append(where, notDeleted, docstore.Eq("isActive", false))
	case kanri.UserLocked:
		where = append(where, notDeleted, docstore.Gt("security.lockedUntil", kanri.FormatTime(s.Now())))
	case kanri.UserDeleted:
		where = append(where, docstore.Ne("deletedAt", nil))
	default:
		where = append(where, notDeleted)
	}
	limit := f.Limit
	if limit <= 0 || limit > 100 {
		limit = 20
	}
	order := "username"
	switch f.Sort {
	case "displayName", "email", "createdAt":
		order = f.Sort
	case "lastLogin":
		order = "security.lastLoginAt"
	}
	return s.Store.Tenant(tenantID).Users().Query(ctx, docstore.Query{
		Where: where, OrderBy: order, Desc: f.Desc, Limit: limit, Continuation: f.Continuation,
	})
}

// Get returns one of a tenant's users.
func (s *Service) Get(ctx context.Context, tenantID, id string) (*kanri.User, error) {
	if !strings.HasPrefix(id, "user_") || docstore.CheckKey(tenantID, id) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.Store.Tenant(tenantID).Users().Get(ctx, id)
}

// Create adds a user to a tenant. It counts against the tenant's maxUsers
// and keeps userCount exact, also across a crash: the count is taken first
// with a record of the pending change, which is settled once the user is
// stored, reversed if the user cannot be, and repaired after a crash (see
// tenant.Service.ChangeUserCount). A tenant's first user becomes its
// administrator.
func (s *Service) Create(ctx context.Context, tenantID string, in kanri.UserInput) (*kanri.User, error) {
	if err := in.Validate(true); err != nil {
		return nil, err
	}
	var profile kanri.UserProfile
	if in.Profile != nil {
		profile = *in.Profile
		if err := kanri.CheckProfile(&profile); err != nil {
			return nil, err
		}
		profile.AvatarURL = ""
	}
	id := "user_" + uuid.NewString()
	t, err := s.tenants.ChangeUserCount(ctx, tenantID, id, +1)
	if err != nil {
		return nil, err
	}
	hash, err := s.hasher.Hash(in.Password)
	if err != nil {
		s.tenants.UndoUserCount(ctx, tenantID, id, +1)
		return nil, err
	}
	now := kanri.NewTime(s.Now())
	u := &kanri.User{
		Doc:          kanri.Doc{ID: id},
		Username:     in.Username,
		Email:        in.Email,
		PasswordHash: hash,
		DisplayName:  in.DisplayName,
		IsActive:     true,
		Security:     kanri.UserSecurity{LastPasswordChangeAt: now},
		Profile:      profile,
		CreatedAt:    now,
		UpdatedAt:    now,
		CreatedBy:    audit.ActorFrom(ctx).UserID,
		UpdatedBy:    audit.ActorFrom(ctx).UserID,
	}
	if err := s.insert(ctx, tenantID, u); err != nil {
		s.tenants.UndoUserCount(ctx, tenantID, id, +1)
		return nil, err
	}
	s.tenants.SettleUserCount(ctx, tenantID, id, +1)
	s.record(ctx, tenantID, u, "user.create", nil, userFields(u))
	// A tenant without an administrator (its first user) gets one. The user
	// exists either way; a failed grant is repaired by an operator (or, for
	// the operator's tenant, at the next start).
	if in.Provisioned {
		return u, nil
	}
	if _, err := s.roles.GrantInitial(ctx, t, u.ID); err != nil {
		s.Logger.Error("user not made administrator of a tenant without one", "tenant", tenantID, "user", u.ID, "err", err)
	}
	return u, nil
}

// notDeleted matches users that are not deleted (documents written before
// deletedAt existed lack the field).
func notDeleted() docstore.Filter {
	return docstore.Or(docstore.Eq("deletedAt", nil), docstore.Defined("deletedAt", false))
}

// insert stores the user with the reservations of its username and e-mail
// address, atomically.
func (s *Service) insert(ctx context.Context, tenantID string, u *kanri.User) error {
	ten := s.Store.Tenant(tenantID)
	res := &kanri.Username{Doc: kanri.Doc{ID: kanri.UsernameID(u.Username)}, UserID: u.ID}
	resOp, err := ten.Usernames().Op(docstore.OpCreate, res)
	if err != nil {
		return err
	}
	emailOp, err := ten.EmailAddresses().Op(docstore.OpCreate, &kanri.EmailAddress{Doc: kanri.Doc{ID: kanri.EmailAddressID(u.Email)}, UserID: u.ID})
	if err != nil {
		return err
	}
	userOp, err := ten.Users().Op(docstore.OpCreate, u)
	if err != nil {
		return err
	}
	results, err := ten.Batch(ctx, kanri.ContainerAuth, []docstore.Op{resOp, emailOp, userOp})
	if kanri.IsCode(err, kanri.ECONFLICT) {
		if _, rerr := ten.Usernames().Get(ctx, res.ID); rerr == nil {
			return kanri.Invalid(kanri.Fields{"username": "validation.username_taken"})
		}
		return kanri.Invalid(kanri.Fields{"email": "validation.email_taken"})
	}
	if err != nil {
		return err
	}
	u.ETag = results[2].ETag
	return nil
}

// emailOps returns the batch operations that move the user's e-mail
// reservation from the address before to the user's address now: nothing
// when it did not change (without regard to case).
func (s *Service) emailOps(ctx context.Context, ten store.Tenant, u *kanri.User, before string) ([]docstore.Op, error) {
	if kanri.EmailAddressID(before) == kanri.EmailAddressID(u.Email) {
		return nil, nil
	}
	take, err := ten.EmailAddresses().Op(docstore.OpCreate, &kanri.EmailAddress{Doc: kanri.Doc{ID: kanri.EmailAddressID(u.Email)}, UserID: u.ID})
	if err != nil {
		return nil, err
	}
	ops := []docstore.Op{take}
	if old, err := ten.EmailAddresses().Get(ctx, kanri.EmailAddressID(before)); err == nil && old.UserID == u.ID {
		ops = append(ops, docstore.Op{Kind: docstore.OpDelete, ID: old.ID, IfMatch: old.ETag})
	} else if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, err
	}
	return ops, nil
}

// IDByUsername returns the id of the tenant's user with the given
// username.
func (s *Service) IDByUsername(ctx context.Context, tenantID, username string) (string, error) {
	return s.Store.Tenant(tenantID).UserIDByUsername(ctx, username)
}

// Members returns one page of a tenant's membership records.
func (s *Service) Members(ctx context.Context, tenantID string, limit int, continuation string) ([]*kanri.TenantUser, string, error) {
	return s.Store.Tenant(tenantID).TenantUsers().Query(ctx, docstore.Query{Limit: limit, Continuation: continuation})
}
