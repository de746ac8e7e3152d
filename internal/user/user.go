// Package user manages a tenant's users: create, edit, deactivate,
// reactivate, delete, reset passwords and unlock (spec §2.1, §2.2.5).
package user

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
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
	"github.com/kanri/kanri/internal/upgrade"
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

// Update changes a user's e-mail and display name.
//
// The edit is stale (ESTALE) when the user is no longer at etag (if one is
// given) and the fields the form edits changed since it was opened: base
// holds their values then (nil: any change is a conflict). Other changes,
// such as the bookkeeping of a sign-in, do not make the edit stale.
func (s *Service) Update(ctx context.Context, tenantID, id, etag string, base *kanri.UserInput, in kanri.UserInput) (*kanri.User, error) {
	if err := in.Validate(false); err != nil {
		return nil, err
	}
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	if in.Profile != nil {
		if err := kanri.CheckProfile(in.Profile); err != nil {
			return nil, err
		}
	}
	return s.change(ctx, tenantID, id, kanri.Seen{}, "user.update", func(u *kanri.User) error {
		if etag != "" && etag != u.ETag && (base == nil || u.Email != base.Email || u.DisplayName != base.DisplayName ||
			(base.Profile != nil && u.Profile != *base.Profile)) {
			return kanri.Stale()
		}
		u.Email, u.DisplayName = in.Email, in.DisplayName
		setProfile(u, in.Profile)
		return nil
	})
}

// setProfile sets u's profile to p, keeping its avatar; a nil p changes
// nothing.
func setProfile(u *kanri.User, p *kanri.UserProfile) {
	if p != nil {
		next := *p
		next.AvatarURL = u.Profile.AvatarURL
		u.Profile = next
	}
}

// Patch applies a partial update onto the user as stored. match is the
// caller's precondition on the version read (an HTTP If-Match, say): it
// returns the ETag the change must be made at, or "" when the caller named
// none; then the change is guarded by the version read and, when another
// write came first, made again on the newer version. A version the caller
// named that is no longer current is ESTALE.
func (s *Service) Patch(ctx context.Context, tenantID, id string, r kanri.UserModificationRequest, match func(etag string) (string, error)) (*kanri.User, error) {
	cur, err := s.Get(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	named, err := match(cur.ETag)
	if err != nil {
		return nil, err
	}
	if named != "" {
		profile := cur.Profile
		base := kanri.UserInput{Username: cur.Username, Email: cur.Email, DisplayName: cur.DisplayName, Profile: &profile}
		in := r.Patch(base)
		if r.Profile == nil {
			in.Profile = nil
		}
		return s.Update(ctx, tenantID, cur.ID, named, &base, in)
	}
	// No version named: the patch applies to the version current at each
	// attempt, so that a write that came first costs one retry of change
	// (and no more: applied again, the patch has nothing to be stale on).
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	return s.change(ctx, tenantID, cur.ID, kanri.Seen{}, "user.update", func(u *kanri.User) error {
		profile := u.Profile
		base := InputOf(u)
		base.Profile = &profile
		in := r.Patch(base)
		if err := in.Validate(false); err != nil {
			return err
		}
		if r.Profile != nil {
			if err := kanri.CheckProfile(in.Profile); err != nil {
				return err
			}
			setProfile(u, in.Profile)
		}
		u.Email, u.DisplayName = in.Email, in.DisplayName
		return nil
	})
}

// SetActive deactivates or reactivates a user as seen. Nobody can
// deactivate themselves.
func (s *Service) SetActive(ctx context.Context, tenantID, id string, seen kanri.Seen, active bool) (*kanri.User, error) {
	action := "user.deactivate"
	if active {
		action = "user.reactivate"
		if err := s.TenantOpen(ctx, tenantID); err != nil {
			return nil, err
		}
	}
	return s.changeWith(ctx, tenantID, id, seen, action, !active, func(u *kanri.User) error {
		if !active && u.ID == audit.ActorFrom(ctx).UserID {
			return kanri.E(kanri.EFORBIDDEN, "error.self_deactivate")
		}
		if u.IsActive && !active {
			// Its sessions end: a reactivation does not bring them back.
			u.Security.SessionsValidAfter = kanri.NewTime(s.Now())
		}
		u.IsActive = active
		return nil
	})
}

// Unlock clears a user's lockout and failed sign-ins.
func (s *Service) Unlock(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.User, error) {
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	return s.change(ctx, tenantID, id, seen, "user.unlock", func(u *kanri.User) error {
		u.Security.FailedLoginAttempts, u.Security.LockedUntil = 0, kanri.Time{}
		return nil
	})
}

// ResetPassword sets a new password chosen by an administrator, and clears
// the lockout.
func (s *Service) ResetPassword(ctx context.Context, tenantID, id string, seen kanri.Seen, password string) (*kanri.User, error) {
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return nil, err
	}
	return s.change(ctx, tenantID, id, seen, "user.password_reset", func(u *kanri.User) error {
		u.PasswordHash = hash
		u.Security.LastPasswordChangeAt = kanri.NewTime(s.Now())
		u.Security.SessionsValidAfter = u.Security.LastPasswordChangeAt // sessions end
		u.Security.FailedLoginAttempts, u.Security.LockedUntil = 0, kanri.Time{}
		return nil
	})
}

// EndSessions ends every session of a user, on every device: their
// records go, and sessions begun before now no longer sign in (which also
// ends one whose record is being written at this moment).
func (s *Service) EndSessions(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.User, error) {
	u, err := s.change(ctx, tenantID, id, seen, "user.sessions_end", func(u *kanri.User) error {
		u.Security.SessionsValidAfter = kanri.NewTime(s.Now())
		return nil
	})
	if err != nil {
		return nil, err
	}
	repo := s.Store.Tenant(tenantID).Sessions()
	rs, err := repo.All(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("userId", id)}, OrderBy: "createdAt", Limit: 100})
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if err := repo.Delete(ctx, r.ID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return nil, err
		}
	}
	return u, nil
}

// UpdateProfile changes a user's profile as seen: the user's own, or any
// user's for an administrator (the caller checks which). The avatar is
// not the form's.
func (s *Service) UpdateProfile(ctx context.Context, tenantID, id string, seen kanri.Seen, in kanri.UserProfile) (*kanri.User, error) {
	if err := kanri.CheckProfile(&in); err != nil {
		return nil, err
	}
	return s.change(ctx, tenantID, id, seen, "user.profile_update", func(u *kanri.User) error {
		in.AvatarURL = u.Profile.AvatarURL
		u.Profile = in
		return nil
	})
}

// SetAvatar records the URL of a user's avatar ("" for none).
func (s *Service) SetAvatar(ctx context.Context, tenantID, id string, seen kanri.Seen, url string) (*kanri.User, error) {
	return s.change(ctx, tenantID, id, seen, "user.avatar_update", func(u *kanri.User) error {
		u.Profile.AvatarURL = url
		return nil
	})
}

// ResetTwoFactor turns a user's two-factor sign-in off (a lost phone:
// they enrol again) and ends every session of theirs.
func (s *Service) ResetTwoFactor(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.User, error) {
	return s.change(ctx, tenantID, id, seen, "user.2fa_reset", func(u *kanri.User) error {
		if !u.Security.TwoFactorEnabled && u.Security.TwoFactorPending == "" {
			return kanri.E(kanri.ECONFLICT, "twofactor.not_enabled")
		}
		auth.ClearTwoFactor(u)
		u.Security.SessionsValidAfter = kanri.NewTime(s.Now())
		return nil
	})
}

// Delete soft-deletes a user: inactive, marked deleted, username freed and
// role assignments removed (spec §2.2.5). Nobody can delete themselves.
//
// The count is given up first, with a record of the pending change, as in
// Create: a crash between the two writes never leaves a phantom user.
func (s *Service) Delete(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.User, error) {
	// Refuse what will be refused before the count moves.
	if _, err := s.changeable(ctx, tenantID, id, seen); err != nil {
		return nil, err
	}
	if id == audit.ActorFrom(ctx).UserID {
		return nil, kanri.E(kanri.EFORBIDDEN, "error.self_delete")
	}
	if _, err := s.tenants.ChangeUserCount(ctx, tenantID, id, -1); err != nil {
		return nil, err
	}
	u, err := store.Retry(ctx, func() (*kanri.User, error) { return s.deleteOnce(ctx, tenantID, id, seen) })
	if err != nil {
		s.tenants.UndoUserCount(ctx, tenantID, id, -1)
		return nil, err
	}
	s.tenants.SettleUserCount(ctx, tenantID, id, -1)
	return u, nil
}

// deleteOnce is one attempt of Delete.
func (s *Service) deleteOnce(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.User, error) {
	u, err := s.changeable(ctx, tenantID, id, seen)
	if err != nil {
		return nil, err
	}
	actor := audit.ActorFrom(ctx) // Delete refused deleting oneself already
	before := userFields(u)
	now := kanri.NewTime(s.Now())
	u.IsActive, u.DeletedAt, u.DeletedBy, u.UpdatedAt, u.UpdatedBy = false, now, actor.UserID, now, actor.UserID
	ten := s.Store.Tenant(tenantID)
	userOp, err := ten.Users().Op(docstore.OpReplace, u)
	if err != nil {
		return nil, err
	}
	ops := []docstore.Op{userOp}
	if r, err := ten.UsernameReservation(ctx, u.Username); err == nil && r.UserID == u.ID {
		ops = append(ops, docstore.Op{Kind: docstore.OpDelete, ID: r.ID, IfMatch: r.ETag})
	}
	if r, err := ten.EmailAddresses().Get(ctx, kanri.EmailAddressID(u.Email)); err == nil && r.UserID == u.ID {
		ops = append(ops, docstore.Op{Kind: docstore.OpDelete, ID: r.ID, IfMatch: r.ETag})
	}
	results, err := s.roles.Demote(ctx, tenantID, u.ID, ops, seen.LastAdmin)
	if kanri.IsCode(err, kanri.ESTALE) {
		return nil, store.LostRace(err)
	}
	if err != nil {
		return nil, err
	}
	u.ETag = results[0].ETag
	if err := s.removeRoleAssignments(ctx, ten, u.ID); err != nil {
		s.Logger.Error("role assignments of a deleted user remain", "tenant", tenantID, "user", u.ID, "err", err)
	}
	// The record holds the user's fields only: the number of role
	// assignments removed is no field of the user.
	s.record(ctx, tenantID, u, "user.delete", before, userFields(u))
	return u, nil
}

// removeRoleAssignments deletes every role assignment of a user.
func (s *Service) removeRoleAssignments(ctx context.Context, ten store.Tenant, userID string) error {
	ras, err := ten.RoleAssignments().All(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("userId", userID)}})
	if err != nil {
		return err
	}
	for _, ra := range ras {
		if err := ten.RoleAssignments().Delete(ctx, ra.ID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
	}
	return nil
}

// changeable returns a user that is not deleted, that the actor may
// change, and that has not changed since seen.
func (s *Service) changeable(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.User, error) {
	u, err := s.Get(ctx, tenantID, id)
	switch {
	case err != nil:
		return nil, err
	case !u.DeletedAt.IsZero():
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	if err := s.roles.CheckChange(ctx, tenantID, u.ID); err != nil {
		return nil, err
	}
	if seen.Stale(u.ETag, u.State()) {
		return nil, kanri.Stale()
	}
	return u, nil
}

// change applies fn to the user as seen, saves it and records action.
func (s *Service) change(ctx context.Context, tenantID, id string, seen kanri.Seen, action string, fn func(*kanri.User) error) (*kanri.User, error) {
	return s.changeWith(ctx, tenantID, id, seen, action, false, fn)
}

// changeWith is change for a change that may take away the user's
// administration (demotes), which goes through the role service's guard.
func (s *Service) changeWith(ctx context.Context, tenantID, id string, seen kanri.Seen, action string, demotes bool, fn func(*kanri.User) error) (*kanri.User, error) {
	return store.Retry(ctx, func() (*kanri.User, error) { return s.changeOnce(ctx, tenantID, id, seen, action, demotes, fn) })
}

// changeOnce is one attempt of changeWith.
func (s *Service) changeOnce(ctx context.Context, tenantID, id string, seen kanri.Seen, action string, demotes bool, fn func(*kanri.User) error) (*kanri.User, error) {
	u, err := s.changeable(ctx, tenantID, id, seen)
	if err != nil {
		return nil, err
	}
	before, email := userFields(u), u.Email
	was, err := json.Marshal(u)
	if err != nil {
		return nil, err
	}
	if err := fn(u); err != nil {
		return nil, err
	}
	if now, err := json.Marshal(u); err == nil && bytes.Equal(was, now) {
		return u, nil // a change that changes nothing writes nothing: the version stays, nothing to audit
	}
	u.UpdatedAt, u.UpdatedBy = kanri.NewTime(s.Now()), audit.ActorFrom(ctx).UserID
	ten := s.Store.Tenant(tenantID)
	emailOps, err := s.emailOps(ctx, ten, u, email)
	if err != nil {
		return nil, err
	}
	if len(emailOps) > 0 {
		var op docstore.Op
		var results []docstore.Result
		if op, err = ten.Users().Op(docstore.OpReplace, u); err == nil {
			results, err = ten.Batch(ctx, kanri.ContainerAuth, append([]docstore.Op{op}, emailOps...))
		}
		if kanri.IsCode(err, kanri.ECONFLICT) {
			return nil, kanri.Invalid(kanri.Fields{"email": "validation.email_taken"})
		}
		if err == nil {
			u.ETag = results[0].ETag
		}
	} else if demotes {
		var op docstore.Op
		var results []docstore.Result
		if op, err = s.Store.Tenant(tenantID).Users().Op(docstore.OpReplace, u); err == nil {
			if results, err = s.roles.Demote(ctx, tenantID, u.ID, []docstore.Op{op}, seen.LastAdmin); err == nil {
				u.ETag = results[0].ETag
			}
		}
	} else {
		err = s.Store.Tenant(tenantID).Users().Replace(ctx, u)
	}
	if kanri.IsCode(err, kanri.ESTALE) {
		// Another write (a sign-in, say) came first: store.Retry runs the
		// attempt again on the newer version. A stale change as the person
		// saw it is reported by changeable instead.
		return nil, store.LostRace(err)
	}
	if err != nil {
		return nil, err
	}
	s.record(ctx, tenantID, u, action, before, userFields(u))
	return u, nil
}

func (s *Service) record(ctx context.Context, tenantID string, u *kanri.User, action string, before, after map[string]any) {
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID,
		Action:   action,
		Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username},
		Changes:  audit.Diff(before, after),
	})
}

// InputOf returns the fields of u that the edit form changes, as the form
// starts with them.
func InputOf(u *kanri.User) kanri.UserInput {
	return kanri.UserInput{Email: u.Email, DisplayName: u.DisplayName}
}

// userFields are the audited fields of a user: never the password hash.
func userFields(u *kanri.User) map[string]any {
	return map[string]any{
		"username": u.Username, "email": u.Email, "displayName": u.DisplayName, "isActive": u.IsActive,
		"locked": !u.Security.LockedUntil.IsZero(), "deleted": !u.DeletedAt.IsZero(),
		"passwordChangedAt": u.Security.LastPasswordChangeAt.String(),
		"firstName":         u.Profile.FirstName, "lastName": u.Profile.LastName, "phoneNumber": u.Profile.PhoneNumber,
		"department": u.Profile.Department, "jobTitle": u.Profile.JobTitle,
	}
}

// IDByUsername returns the id of the tenant's user with the given
// username.
func (s *Service) IDByUsername(ctx context.Context, tenantID, username string) (string, error) {
	return s.Store.Tenant(tenantID).UserIDByUsername(ctx, username)
}

// reserveChunk reserves the addresses of up to 100 users in one batch (one
// at a time when the batch meets a taken address), then gives back those
// of users who changed address or were deleted meanwhile. It returns how
// many it reserved.
func (s *Service) reserveChunk(ctx context.Context, ten store.Tenant, users []*kanri.User) (int, error) {
	var ops []docstore.Op
	for _, u := range users {
		op, err := ten.EmailAddresses().Op(docstore.OpCreate, &kanri.EmailAddress{Doc: kanri.Doc{ID: kanri.EmailAddressID(u.Email)}, UserID: u.ID})
		if err != nil {
			return 0, err
		}
		ops = append(ops, op)
	}
	var mine []*kanri.User
	if _, err := ten.Batch(ctx, kanri.ContainerAuth, ops); err == nil {
		mine = users
	} else if kanri.IsCode(err, kanri.ECONFLICT) {
		for _, u := range users {
			err := ten.EmailAddresses().Create(ctx, &kanri.EmailAddress{Doc: kanri.Doc{ID: kanri.EmailAddressID(u.Email)}, UserID: u.ID})
			switch {
			case err == nil:
				mine = append(mine, u)
			case kanri.IsCode(err, kanri.ECONFLICT):
				if cur, gerr := ten.EmailAddresses().Get(ctx, kanri.EmailAddressID(u.Email)); gerr == nil && cur.UserID != u.ID {
					s.Logger.Warn("two users share an e-mail address; only the first keeps it reserved", "tenant", ten.ID(), "user", u.ID, "holder", cur.UserID)
				}
			default:
				return 0, err
			}
		}
	} else {
		return 0, err
	}
	// The users may have changed address or been deleted since they were
	// read: then the reservation is not theirs.
	ids := make([]string, len(mine))
	for i, u := range mine {
		ids[i] = u.ID
	}
	now, err := ten.Users().ByIDs(ctx, ids, "")
	if err != nil {
		return 0, err
	}
	current := map[string]*kanri.User{}
	for _, u := range now {
		current[u.ID] = u
	}
	n := 0
	for _, u := range mine {
		if cur := current[u.ID]; cur != nil && cur.DeletedAt.IsZero() && kanri.EmailAddressID(cur.Email) == kanri.EmailAddressID(u.Email) {
			n++
			continue
		}
		if err := ten.EmailAddresses().Delete(ctx, kanri.EmailAddressID(u.Email), ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return 0, err
		}
	}
	return n, nil
}

// migrationEmails marks a tenant whose users' e-mail addresses are all
// reserved, by the upgrade UpgradeEmails.
const migrationEmails = "migration_email_addresses"

// migrationMemberships marks a tenant whose users all have their
// membership record, by the upgrade UpgradeMemberships.
const migrationMemberships = "migration_memberships"

// Names of the upgrades of users written by earlier versions.
const (
	UpgradeEmails      = "user-email-addresses"
	UpgradeMemberships = "user-memberships"
	UpgradeSearchTerms = "user-search-terms"
)

// Upgrades returns the one-time upgrades that bring the users created by
// earlier versions up to what this one keeps for every user, for the
// upgrade runner: their e-mail address reserved (two such users of one
// tenant sharing an address cannot both keep it reserved: the second is
// logged, for an administrator to correct), and their membership record
// (TenantUser). Each also marks a tenant it finished, so that an upgrade
// cut short resumes where it stopped.
func (s *Service) Upgrades() []upgrade.Upgrade {
	return []upgrade.Upgrade{
		{Name: UpgradeEmails, Tenant: s.reserveEmails},
		{Name: UpgradeMemberships, Tenant: s.addMemberships},
		{Name: UpgradeSearchTerms, Tenant: s.addSearchTerms},
	}
}

// addSearchTerms writes again, a page at a time, every user of a tenant
// written before users kept search terms: the repository adds them on
// write, and the search index finds the user from then on. A user changed
// meanwhile got its terms with that change.
func (s *Service) addSearchTerms(ctx context.Context, tenantID string) error {
	users := s.Store.Tenant(tenantID).Users()
	q := docstore.Query{Where: []docstore.Filter{docstore.Defined(search.Field, false)}, Limit: 100}
	for {
		page, next, err := users.Query(ctx, q)
		if err != nil {
			return err
		}
		for _, u := range page {
			if err := users.Replace(ctx, u); err != nil && !kanri.IsCode(err, kanri.ESTALE) && !kanri.IsCode(err, kanri.ENOTFOUND) {
				return err
			}
		}
		if next == "" {
			return nil
		}
		q.Continuation = next
	}
}

// addMemberships gives every counted (not deleted) user of a tenant that
// has none its membership record.
func (s *Service) addMemberships(ctx context.Context, tenantID string) error {
	ten := s.Store.Tenant(tenantID)
	marks := store.Of[kanri.Migration](ten, kanri.ContainerTenant, kanri.TypeMigration)
	if _, err := marks.Get(ctx, migrationMemberships); err == nil {
		return nil
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		return err
	}
	q := docstore.Query{Where: []docstore.Filter{notDeleted()}, Limit: 100}
	added := 0
	for {
		users, next, err := ten.Users().Query(ctx, q)
		if err != nil {
			return err
		}
		// The page's existing memberships, in one query.
		ids := make([]string, len(users))
		for i, u := range users {
			ids[i] = kanri.TenantUserID(u.ID)
		}
		existing, err := ten.TenantUsers().ByIDs(ctx, ids, "")
		if err != nil {
			return err
		}
		has := map[string]bool{}
		for _, m := range existing {
			has[m.UserID] = true
		}
		var ops []docstore.Op
		for _, u := range users {
			if has[u.ID] {
				continue
			}
			op, err := ten.TenantUsers().Op(docstore.OpUpsert, &kanri.TenantUser{
				Doc: kanri.Doc{ID: kanri.TenantUserID(u.ID)}, UserID: u.ID, Role: kanri.MemberRole,
				AssignedBy: u.CreatedBy, AssignedAt: u.CreatedAt,
			})
			if err != nil {
				return err
			}
			ops = append(ops, op)
		}
		if len(ops) > 0 {
			if _, err := ten.Batch(ctx, kanri.ContainerTenant, ops); err != nil {
				return err
			}
			added += len(ops)
		}
		if next == "" {
			break
		}
		q.Continuation = next
	}
	if added > 0 {
		s.Logger.Info("added the membership records of existing users", "tenant", tenantID, "count", added)
	}
	err := marks.Create(ctx, &kanri.Migration{Doc: kanri.Doc{ID: migrationMemberships}, DoneAt: kanri.NewTime(s.Now())})
	if kanri.IsCode(err, kanri.ECONFLICT) {
		return nil // another instance finished it
	}
	return err
}

// Members returns one page of a tenant's membership records.
func (s *Service) Members(ctx context.Context, tenantID string, limit int, continuation string) ([]*kanri.TenantUser, string, error) {
	return s.Store.Tenant(tenantID).TenantUsers().Query(ctx, docstore.Query{Limit: limit, Continuation: continuation})
}

func (s *Service) reserveEmails(ctx context.Context, tenantID string) error {
	ten := s.Store.Tenant(tenantID)
	marks := store.Of[kanri.Migration](ten, kanri.ContainerAuth, kanri.TypeMigration)
	if _, err := marks.Get(ctx, migrationEmails); err == nil {
		return nil
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		return err
	}
	q := docstore.Query{Where: []docstore.Filter{notDeleted()}, Limit: docstore.MaxPageSize}
	reserved := 0
	for {
		users, next, err := ten.Users().Query(ctx, q)
		if err != nil {
			return err
		}
		for chunk := range slices.Chunk(users, 100) {
			n, err := s.reserveChunk(ctx, ten, chunk)
			if err != nil {
				return err
			}
			reserved += n
		}
		if next == "" {
			break
		}
		q.Continuation = next
	}
	if reserved > 0 {
		s.Logger.Info("reserved the e-mail addresses of existing users", "tenant", tenantID, "count", reserved)
	}
	err := marks.Create(ctx, &kanri.Migration{Doc: kanri.Doc{ID: migrationEmails}, DoneAt: kanri.NewTime(s.Now())})
	if kanri.IsCode(err, kanri.ECONFLICT) {
		return nil // another instance finished it
	}
	return err
}
