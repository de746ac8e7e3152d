package user

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

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

// ResetTwoFactor turns a user's two-factor sign-in off and removes their
// passkeys (a lost phone: they enrol again), and ends every session of
// theirs.
func (s *Service) ResetTwoFactor(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.User, error) {
	keys, err := auth.CountPasskeys(ctx, s.Store, tenantID, id)
	if err != nil {
		return nil, err
	}
	u, err := s.change(ctx, tenantID, id, seen, "user.2fa_reset", func(u *kanri.User) error {
		if !u.Security.TwoFactorEnabled && u.Security.TwoFactorPending == "" && keys == 0 {
			return kanri.E(kanri.ECONFLICT, "twofactor.not_enabled")
		}
		auth.ClearTwoFactor(u)
		u.Security.SessionsValidAfter = kanri.NewTime(s.Now())
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, err := auth.RemovePasskeys(ctx, s.Store, tenantID, id); err != nil {
		return nil, err
	}
	return u, nil
}

// Delete soft-deletes a user: inactive, marked deleted, username freed and
// role assignments removed (docs/data-model.md, "Soft deletion"). Nobody
// can delete themselves.
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
	s.Audit.Change(ctx, tenantID, action, kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username}, before, after)
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
