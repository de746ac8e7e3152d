package auth

import (
	"context"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// Lockout policy (docs/security.md, "Sign-in").
const (
	MaxFailedAttempts = 5
	LockoutDuration   = 15 * time.Minute
)

// ErrSignIn is the error of a failed sign-in, so that a caller learns
// nothing about which part was wrong, nor whether the organisation or the
// user exists or is inactive. Two answers say more: a locked account says
// until when, whatever the password (a password checked during the lock
// would let a guesser go on guessing); and a correct password of a user
// whose organisation is closed says why (Tenant.ClosedMessage), so that
// they stop retrying into the lockout.
var ErrSignIn = kanri.E(kanri.EUNAUTHENTICATED, "login.failed")

// Service signs users in.
type Service struct {
	app.Deps
	hasher Hasher
	// sealer seals the TOTP secrets; two-factor sign-in needs it.
	sealer *Sealer
}

// New returns a sign-in service; h hashes and checks passwords.
func New(d app.Deps, h Hasher) *Service { return &Service{Deps: d, hasher: h} }

// SignIn checks a user's credentials in the named tenant, on the server
// as the browser sees it (rp), and says whether a second step follows.
// Failures count towards a lockout: the fifth in a row locks the account
// for 15 minutes. Every outcome is audited.
func (s *Service) SignIn(ctx context.Context, rp RelyingParty, tenantName, username, password string) (*kanri.User, *kanri.Tenant, bool, error) {
	t, u := s.lookup(ctx, strings.TrimSpace(tenantName), strings.TrimSpace(username))
	if u == nil {
		s.hasher.waste(password)
		target := kanri.PrivilegedTenantID // unknown tenant: the operator sees it
		if t != nil {
			target = t.ID
		}
		s.record(ctx, target, "auth.login_failed", kanri.AuditResource{Type: kanri.AuditUser, Name: username}, kanri.ReasonUnknownUser)
		return nil, nil, false, ErrSignIn
	}
	now := s.Now()
	res := kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username}
	// Count the attempt before checking the password, in an ETag-guarded
	// write: parallel guesses each take one of the five attempts, so none
	// can outrun the lockout.
	refused, locked := false, false
	u, err := s.update(ctx, t.ID, u.ID, func(u *kanri.User) bool {
		refused, locked = u.Locked(now), false
		if refused {
			return false
		}
		if !u.Security.LockedUntil.IsZero() {
			// A lock that has run out: the count that led to it (kept for
			// the user's page to show beside the lock) starts again.
			u.Security.FailedLoginAttempts, u.Security.LockedUntil = 0, kanri.Time{}
		}
		u.Security.FailedLoginAttempts++
		if u.Security.FailedLoginAttempts >= MaxFailedAttempts {
			u.Security.LockedUntil = kanri.NewTime(now.Add(LockoutDuration))
			locked = true
		}
		return true
	})
	if err != nil {
		return nil, nil, false, err
	}
	if refused {
		s.hasher.waste(password) // as long as any other answer
		s.record(ctx, t.ID, "auth.login_failed", res, kanri.ReasonAccountLocked)
		until := u.Security.LockedUntil.In(t.Location()).Format("2006-01-02 15:04 MST")
		return nil, nil, false, kanri.E(kanri.EUNAUTHENTICATED, "login.locked", until)
	}
	checked := u.PasswordHash
	ok := s.hasher.Check(checked, password)
	switch {
	case !ok:
		s.record(ctx, t.ID, "auth.login_failed", res, kanri.ReasonWrongPassword)
		if locked {
			s.record(ctx, t.ID, "auth.lockout", res, kanri.ReasonTooManyFailed)
		}
		return nil, nil, false, ErrSignIn
	case !u.IsActive || !u.DeletedAt.IsZero():
		s.record(ctx, t.ID, "auth.login_failed", res, kanri.ReasonUserInactive)
		return nil, nil, false, ErrSignIn
	case !t.OpenAt(now):
		s.record(ctx, t.ID, "auth.login_failed", res, kanri.ReasonTenantInactive+":"+t.Status)
		if err := s.uncount(ctx, t.ID, u.ID, checked, locked); err != nil {
			return nil, nil, false, err
		}
		return nil, nil, false, kanri.E(kanri.EFORBIDDEN, t.ClosedMessage(now))
	}
	// The right password of a tenant that signs in with its identity
	// providers: said, and not held against them.
	if refused, err := s.passwordRefused(ctx, t, u); err != nil || refused {
		if err == nil {
			err = s.uncount(ctx, t.ID, u.ID, checked, locked)
		}
		if err != nil {
			return nil, nil, false, err
		}
		return nil, nil, false, ErrSSORequired
	}
	// The right password: the attempts, and a lock this attempt's count
	// set, are cleared, unless the password was reset (or the user
	// deactivated) while it was being checked. When a second factor
	// follows, they are cleared by its success only: the password again
	// does not give a guesser of codes new attempts.
	second, err := s.SecondStep(ctx, t, u)
	if err != nil {
		return nil, nil, false, err
	}
	if second && !u.Security.TwoFactorEnabled && !rp.Usable() {
		// The second step would be a passkey, which this address cannot
		// use: said, and the right password not held against them.
		s.record(ctx, t.ID, "auth.login_failed", res, kanri.ReasonPasskeyElsewhere)
		if err := s.uncount(ctx, t.ID, u.ID, checked, locked); err != nil {
			return nil, nil, false, err
		}
		return nil, nil, false, kanri.E(kanri.EFORBIDDEN, "passkeys.only_elsewhere")
	}
	changed := false
	u, err = s.update(ctx, t.ID, u.ID, func(u *kanri.User) bool {
		if changed = u.PasswordHash != checked || !u.IsActive || !u.DeletedAt.IsZero(); changed {
			return false
		}
		if second {
			return false
		}
		u.Security.FailedLoginAttempts, u.Security.LockedUntil = 0, kanri.Time{}
		u.Security.LastLoginAt = kanri.NewTime(now)
		return true
	})
	if err != nil {
		return nil, nil, false, err
	}
	if changed {
		s.record(ctx, t.ID, "auth.login_failed", res, kanri.ReasonChangedDuring)
		return nil, nil, false, ErrSignIn
	}
	ctx = audit.WithActor(ctx, withUser(audit.ActorFrom(ctx), u, t.ID))
	if second {
		s.record(ctx, t.ID, "auth.password_verified", res, "")
	} else {
		s.record(ctx, t.ID, "auth.login", res, "")
	}
	return u, t, second, nil
}

// uncount takes back the attempt of a right password (checked: the hash
// it was checked against) that cannot sign in for a reason that is not a
// guesser's (a closed organisation, a passkey this address cannot use),
// and the lock its count set (locked).
func (s *Service) uncount(ctx context.Context, tenantID, userID, checked string, locked bool) error {
	_, err := s.update(ctx, tenantID, userID, func(u *kanri.User) bool {
		if u.PasswordHash != checked {
			return false
		}
		u.Security.FailedLoginAttempts = max(0, u.Security.FailedLoginAttempts-1)
		if locked { // the lock this attempt's count set
			u.Security.LockedUntil = kanri.Time{}
		}
		return true
	})
	return err
}

// lookup finds the tenant and the user by point reads of their name
// reservations; either may be nil.
func (s *Service) lookup(ctx context.Context, tenantName, username string) (*kanri.Tenant, *kanri.User) {
	if tenantName == "" || username == "" || len(tenantName) > kanri.TenantNameMax || len(username) > kanri.UsernameMax {
		return nil, nil
	}
	if docstore.CheckKey("x", kanri.UsernameID(username)) != nil {
		return nil, nil
	}
	t, err := s.TenantByName(ctx, tenantName)
	if err != nil {
		return nil, nil
	}
	ten := s.Store.Tenant(t.ID)
	name, err := ten.UsernameReservation(ctx, username)
	if err != nil {
		return t, nil
	}
	u, err := ten.Users().Get(ctx, name.UserID)
	if err != nil {
		return t, nil
	}
	return t, u
}

// TenantByName returns the tenant whose sign-in name is name (ENOTFOUND
// when none is).
func (s *Service) TenantByName(ctx context.Context, name string) (*kanri.Tenant, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > kanri.TenantNameMax || docstore.CheckKey("x", kanri.TenantNameID(name)) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	sys := s.Store.Tenant(kanri.SystemTenantID)
	res, err := store.Of[kanri.TenantName](sys, kanri.ContainerTenant, kanri.TypeTenantName).Get(ctx, kanri.TenantNameID(name))
	if err != nil {
		return nil, err
	}
	return s.Store.Tenant(res.TenantRef).Profile(ctx)
}

// update applies fn to the stored user and saves it if fn says so,
// retrying on concurrent changes so that no attempt is lost.
func (s *Service) update(ctx context.Context, tenantID, userID string, fn func(*kanri.User) bool) (*kanri.User, error) {
	users := s.Store.Tenant(tenantID).Users()
	return store.Retry(ctx, func() (*kanri.User, error) {
		u, err := users.Get(ctx, userID)
		if err != nil {
			return nil, err
		}
		if !fn(u) {
			return u, nil
		}
		if err := users.Replace(ctx, u); err != nil {
			return nil, store.Raced(err)
		}
		return u, nil
	})
}

func (s *Service) record(ctx context.Context, tenantID, action string, res kanri.AuditResource, reason string) {
	status := kanri.AuditSuccess
	if action == "auth.login_failed" || action == "auth.lockout" {
		status = kanri.AuditFailure
	}
	s.Audit.Record(ctx, audit.Entry{TenantID: tenantID, Action: action, Resource: res, Reason: reason, Status: status})
}

func withUser(a audit.Actor, u *kanri.User, tenantID string) audit.Actor {
	a.UserID, a.UserName, a.TenantID = u.ID, u.Username, tenantID
	return a
}

// SignOut ends one session of the user (its record goes, so the session's
// cookie, wherever it was copied, no longer signs in) and records it.
func (s *Service) SignOut(ctx context.Context, tenantID, userID, sessionID string) error {
	u, err := s.Store.Tenant(tenantID).Users().Get(ctx, userID)
	if err != nil {
		return err
	}
	if err := s.Store.Tenant(tenantID).Sessions().Delete(ctx, sessionID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
		return err
	}
	s.record(ctx, tenantID, "auth.logout", kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username}, "")
	return nil
}

// ChangePassword sets a user's own new password after checking the current
// one. It ends every other session of the user; the caller starts a new one
// for the current device.
func (s *Service) ChangePassword(ctx context.Context, tenantID, userID, current, next string) error {
	users := s.Store.Tenant(tenantID).Users()
	u, err := users.Get(ctx, userID)
	if err != nil {
		return err
	}
	if !s.hasher.Check(u.PasswordHash, current) {
		return kanri.Invalid(kanri.Fields{"current": "validation.current_password"})
	}
	if current == next {
		return kanri.Invalid(kanri.Fields{"password": "validation.password_unchanged"})
	}
	hash, err := s.hasher.Hash(next)
	if err != nil {
		return err
	}
	checked := u.PasswordHash
	stale := false
	u, err = s.update(ctx, tenantID, userID, func(u *kanri.User) bool {
		if stale = u.PasswordHash != checked; stale {
			return false
		}
		now := kanri.NewTime(s.Now())
		u.PasswordHash, u.Security.LastPasswordChangeAt, u.Security.SessionsValidAfter = hash, now, now
		return true
	})
	if err != nil {
		return err
	}
	if stale {
		return kanri.Stale()
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "user.password_change",
		Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username},
		Changes:  map[string]kanri.Change{"passwordChangedAt": {After: u.Security.LastPasswordChangeAt.String()}},
	})
	return nil
}
