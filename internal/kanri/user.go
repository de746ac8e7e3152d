package kanri

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/cases"
)

// UserSchemaVersion is the current version of the User document. Version
// 1.0 is the data model's original shape; 1.1 adds the security block; 1.2
// adds the profile block (docs/data-model.md, "Schema versions").
const UserSchemaVersion = "1.2"

// User is a person who signs in to one tenant (auth container;
// docs/data-model.md, "Users").
type User struct {
	Doc
	Username     string       `json:"username"`
	Email        string       `json:"email"`
	PasswordHash string       `json:"passwordHash"`
	DisplayName  string       `json:"displayName"`
	IsActive     bool         `json:"isActive"`
	Security     UserSecurity `json:"security"`
	Profile      UserProfile  `json:"profile"`
	CreatedAt    Time         `json:"createdAt"`
	UpdatedAt    Time         `json:"updatedAt"`
	CreatedBy    string       `json:"createdBy,omitempty"`
	UpdatedBy    string       `json:"updatedBy,omitempty"`
	// DeletedAt is set when the user was deleted (a soft delete: the user
	// is also inactive and keeps no role assignments).
	DeletedAt Time   `json:"deletedAt"`
	DeletedBy string `json:"deletedBy,omitempty"`
	// SearchTerms are the words a search finds the user by (Searchable),
	// kept by the repository.
	SearchTerms []string `json:"searchTerms,omitempty"`
}

// User statuses as the console shows and filters them.
const (
	UserActive   = "active"
	UserInactive = "inactive"
	UserLocked   = "locked"
	UserDeleted  = "deleted"
)

// Status returns the user's status at now.
func (u *User) Status(now time.Time) string {
	switch {
	case !u.DeletedAt.IsZero():
		return UserDeleted
	case !u.IsActive:
		return UserInactive
	case u.Locked(now):
		return UserLocked
	}
	return UserActive
}

// State is the part of the user that the account actions (deactivate,
// reactivate, delete) depend on, for Seen: whether it is active and
// whether it is deleted. A lockout, or its end at a sign-in, changes
// neither: an administrator deactivating an account under attack is not
// told the account changed.
func (u *User) State() string {
	p := u.Profile
	sum := sha256.Sum256([]byte(strings.Join([]string{p.FirstName, p.LastName, p.PhoneNumber, p.Department, p.JobTitle, p.AvatarURL}, "\x00")))
	return fmt.Sprintf("active=%t deleted=%t profile=%x", u.IsActive, !u.DeletedAt.IsZero(), sum[:6])
}

// Locked reports whether the user is locked out at now.
func (u *User) Locked(now time.Time) bool {
	return !u.Security.LockedUntil.IsZero() && now.Before(u.Security.LockedUntil.Time)
}

// UserProfile describes the person (docs/data-model.md, "Users").
// PhoneNumber is stored in E.164 form ("+819012345678").
type UserProfile struct {
	FirstName   string `json:"firstName"`
	LastName    string `json:"lastName"`
	PhoneNumber string `json:"phoneNumber"`
	Department  string `json:"department"`
	JobTitle    string `json:"jobTitle"`
	AvatarURL   string `json:"avatarUrl"`
}

// ProfileMax is the longest a profile's text field may be (runes).
const ProfileMax = 100

// CheckProfile normalises a profile as edited (trimmed fields, the phone
// number in E.164) and returns its field errors.
func CheckProfile(p *UserProfile) error {
	f := Fields{}
	for name, v := range map[string]*string{"firstName": &p.FirstName, "lastName": &p.LastName, "department": &p.Department, "jobTitle": &p.JobTitle} {
		*v = strings.TrimSpace(*v)
		switch {
		case utf8.RuneCountInString(*v) > ProfileMax:
			f[name] = "validation.too_long"
		case HasHidden(*v, false):
			f[name] = "validation.hidden_chars"
		}
	}
	if phone, ok := NormalPhone(p.PhoneNumber); ok {
		p.PhoneNumber = phone
	} else {
		f["phoneNumber"] = "validation.phone"
	}
	return f.Err()
}

// NormalPhone returns a phone number in E.164 form: a "+", the country
// code and the number, 8 to 15 digits in all; spaces, hyphens, dots and
// brackets people type are removed. "" is no number, and fine.
func NormalPhone(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", true
	}
	if !strings.HasPrefix(s, "+") {
		return "", false
	}
	var b strings.Builder
	b.WriteByte('+')
	for _, r := range s[1:] {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')':
		default:
			return "", false
		}
	}
	out := b.String()
	if n := len(out) - 1; n < 8 || n > 15 || out[1] == '0' {
		return "", false
	}
	return out, true
}

// UserSecurity holds sign-in state (docs/data-model.md, "Users"). It never
// leaves the server.
type UserSecurity struct {
	LastLoginAt          Time `json:"lastLoginAt"`
	LastPasswordChangeAt Time `json:"lastPasswordChangeAt"`
	FailedLoginAttempts  int  `json:"failedLoginAttempts"`
	LockedUntil          Time `json:"lockedUntil"`
	TwoFactorEnabled     bool `json:"twoFactorEnabled"`
	// TwoFactorSecret is the TOTP secret, sealed (AES-GCM with the key of
	// the configuration, bound to the user's id): never indexed, never
	// shown again after enrolment, never exported in clear.
	TwoFactorSecret string `json:"twoFactorSecret,omitempty"`
	// TwoFactorPending is the sealed secret of an enrolment not yet
	// confirmed by a first code.
	TwoFactorPending string `json:"twoFactorPending,omitempty"`
	// TwoFactorStep is the TOTP time step of the last code accepted: a
	// code of that step or an earlier one is refused (no replay).
	TwoFactorStep int64 `json:"twoFactorStep,omitempty"`
	// RecoveryCodes are the keyed digests (HMAC-SHA256) of the single-use recovery
	// codes left.
	RecoveryCodes []string `json:"recoveryCodes,omitempty"`
	// SessionsValidAfter ends every session begun before it: signing out
	// and a password reset set it.
	SessionsValidAfter Time `json:"sessionsValidAfter"`
}

// RoleAssignment grants a user one role of one service
// (docs/data-model.md, "Roles").
type RoleAssignment struct {
	Doc
	UserID     string `json:"userId"`
	ServiceID  string `json:"serviceId"`
	RoleName   string `json:"roleName"`
	AssignedBy string `json:"assignedBy"`
	AssignedAt Time   `json:"assignedAt"`
	CreatedAt  Time   `json:"createdAt"`
}

// RoleAssignmentID returns the deterministic id that makes a second
// assignment of the same role impossible
// (docs/data-model.md, "Ids and uniqueness").
func RoleAssignmentID(userID, serviceID, roleName string) string {
	return "ra_" + userID + "_" + serviceID + "_" + roleName
}

// ServiceRoleDefinition describes one role a service offers and the
// permissions it grants (docs/data-model.md, "Roles"). It lives in the
// _system partition.
type ServiceRoleDefinition struct {
	Doc
	ServiceID   string   `json:"serviceId"`
	RoleName    string   `json:"roleName"`
	Description string   `json:"description"`
	Permissions []string `json:"permissions"`
	UpdatedAt   Time     `json:"updatedAt"`
}

// TypeUsername is the type of username reservations.
const TypeUsername = "username"

// Username reserves a username within a tenant. It lives beside the user in
// the auth container and is written in the same transactional batch, so two
// users can never share a username, and sign-in finds a user by a point
// read. Its id is UsernameID(username).
type Username struct {
	Doc
	UserID string `json:"userId"`
}

// UsernameID returns the id of the reservation of a username: a hash, so
// that any username (with "/" or "#", or 254 bytes long) makes a valid id.
// Usernames are compared without regard to case.
func UsernameID(username string) string {
	sum := sha256.Sum256([]byte(cases.Fold().String(NormalUsername(username)))) // a Caser is not to be shared
	return "username_" + hex.EncodeToString(sum[:])
}

// LegacyUsernameID returns the id a username's reservation had before
// usernames were normalised (lower case only). It is the same as
// UsernameID for ASCII names; a non-ASCII name stored before is still
// found (signed in, deleted) through it.
func LegacyUsernameID(username string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(username)))
	return "username_" + hex.EncodeToString(sum[:])
}

// TypeEmailAddress is the type of e-mail address reservations.
const TypeEmailAddress = "email_address"

// EmailAddress reserves an e-mail address within a tenant, as Username
// does a username: written in the same transactional batch as the user, so
// that two users of a tenant never share an address. Its id is
// EmailAddressID(email).
type EmailAddress struct {
	Doc
	UserID string `json:"userId"`
}

// EmailAddressID returns the id of the reservation of an e-mail address,
// compared without regard to case.
func EmailAddressID(email string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	return "email_" + hex.EncodeToString(sum[:])
}

// TypeAdminGuard is the type of a tenant's administrator guard.
const TypeAdminGuard = "admin_guard"

// AdminGuardID is the id of a tenant's administrator guard.
const AdminGuardID = "admin_guard"

// AdminGuard serialises the changes that can take away a tenant's
// administrator (removing the role, deactivating or deleting the user):
// each writes the guard, at the version it read, in the same transactional
// batch as the change, so two such changes cannot both pass the "another
// administrator remains" check.
type AdminGuard struct {
	Doc
	Version int `json:"version"`
}

// UserModificationRequest is a partial update of a user (the API's PATCH):
// a field sent (not nil) is changed, a field left out keeps its value.
type UserModificationRequest struct {
	Email       *string              `json:"email"`
	DisplayName *string              `json:"displayName"`
	Profile     *ProfileModification `json:"profile"`
}

// ProfileModification is a partial update of a user's profile: a field
// sent (not nil) is changed.
type ProfileModification struct {
	FirstName   *string `json:"firstName"`
	LastName    *string `json:"lastName"`
	PhoneNumber *string `json:"phoneNumber"`
	Department  *string `json:"department"`
	JobTitle    *string `json:"jobTitle"`
}

// Patch returns in with the fields of r applied.
func (r UserModificationRequest) Patch(in UserInput) UserInput {
	if r.Email != nil {
		in.Email = *r.Email
	}
	if r.DisplayName != nil {
		in.DisplayName = *r.DisplayName
	}
	if p := r.Profile; p != nil && in.Profile != nil {
		next := *in.Profile
		for _, f := range []struct{ from, to *string }{
			{p.FirstName, &next.FirstName}, {p.LastName, &next.LastName}, {p.PhoneNumber, &next.PhoneNumber},
			{p.Department, &next.Department}, {p.JobTitle, &next.JobTitle},
		} {
			if f.from != nil {
				*f.to = *f.from
			}
		}
		in.Profile = &next
	}
	return in
}
