package kanri

import (
	"net/mail"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Field rules of the data model (docs/data-model.md, "Tenants" and "Users")
// and the console.
const (
	TenantNameMin        = 3
	TenantNameMax        = 100
	TenantDisplayNameMax = 200
	MaxUsersMin          = 1
	MaxUsersMax          = 10000
	DefaultMaxUsers      = 100
	UsernameMax          = 254
	DisplayNameMax       = 200
	PasswordMin          = 12 // characters, as a person counts them (runes)
	PasswordMaxBytes     = 72 // bcrypt reads at most 72 bytes of UTF-8
)

var (
	tenantNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	countryPattern    = regexp.MustCompile(`^[A-Z]{2}$`)
)

// Fields collects per-field validation messages. Message keys are
// translation keys; the web layer translates them.
type Fields map[string]string

// Err returns an EINVALID error carrying the messages, or nil if there are
// none.
func (f Fields) Err() error {
	if len(f) == 0 {
		return nil
	}
	return Invalid(f)
}

// TenantInput is what an operator enters for a tenant.
type TenantInput struct {
	Name        string
	DisplayName string
	Plan        string
	MaxUsers    int
	Industry    string
	Country     string
	// StartDate and EndDate are the subscription's dates (DateLayout, in
	// the tenant's time zone), "" for none.
	StartDate string
	EndDate   string
}

// Validate checks the input of a new tenant, or of an edit when creating
// is false (the name cannot change then and is not checked).
func (in *TenantInput) Validate(creating bool) error {
	in.Name, in.DisplayName = strings.TrimSpace(in.Name), strings.TrimSpace(in.DisplayName)
	in.Industry, in.Country = strings.TrimSpace(in.Industry), strings.ToUpper(strings.TrimSpace(in.Country))
	f := Fields{}
	if creating {
		switch n := len(in.Name); {
		case n == 0:
			f["name"] = "validation.required"
		case n < TenantNameMin || n > TenantNameMax:
			f["name"] = "validation.tenant_name_length"
		case !tenantNamePattern.MatchString(in.Name):
			f["name"] = "validation.tenant_name_chars"
		}
	}
	switch n := utf8.RuneCountInString(in.DisplayName); {
	case n == 0:
		f["displayName"] = "validation.required"
	case n > TenantDisplayNameMax:
		f["displayName"] = "validation.display_name_length"
	}
	switch in.Plan {
	case PlanFree, PlanStandard, PlanPremium:
	default:
		f["plan"] = "validation.plan"
	}
	if in.MaxUsers < MaxUsersMin || in.MaxUsers > MaxUsersMax {
		f["maxUsers"] = "validation.max_users"
	}
	if utf8.RuneCountInString(in.Industry) > 100 {
		f["industry"] = "validation.too_long"
	}
	if in.Country != "" && !countryPattern.MatchString(in.Country) {
		f["country"] = "validation.country"
	}
	in.StartDate, in.EndDate = strings.TrimSpace(in.StartDate), strings.TrimSpace(in.EndDate)
	for name, v := range map[string]string{"startDate": in.StartDate, "endDate": in.EndDate} {
		if _, err := DateIn(v, time.UTC); err != nil {
			f[name] = "validation.date"
		}
	}
	if f["startDate"] == "" && f["endDate"] == "" && in.StartDate != "" && in.EndDate != "" && in.EndDate <= in.StartDate {
		f["endDate"] = "validation.end_before_start"
	}
	return f.Err()
}

// UserInput is what an administrator enters for a user.
type UserInput struct {
	Username    string
	Email       string
	DisplayName string
	Password    string // only when creating
	// Profile, when not nil, is the profile an edit sets (the API's
	// PATCH); the console edits the profile with its own form.
	Profile *UserProfile
	// Provisioned says an identity provider makes the user (single
	// sign-on, SCIM): never the first administrator of a tenant that has
	// none, which only a person in Kanri makes.
	Provisioned bool
}

// Validate checks a new user (creating) or an edit.
func (in *UserInput) Validate(creating bool) error {
	in.Username, in.Email = NormalUsername(in.Username), strings.TrimSpace(in.Email)
	in.DisplayName = strings.TrimSpace(in.DisplayName)
	f := Fields{}
	if creating {
		switch {
		case in.Username == "":
			f["username"] = "validation.required"
		case strings.IndexFunc(in.Username, unicode.IsSpace) >= 0:
			f["username"] = "validation.username_spaces"
		case strings.IndexFunc(in.Username, hidden) >= 0:
			f["username"] = "validation.hidden_chars"
		case len(in.Username) > UsernameMax:
			f["username"] = "validation.username"
		}
		if msg := CheckPassword(in.Password); msg != "" {
			f["password"] = msg
		}
	}
	if in.Email == "" {
		f["email"] = "validation.required"
	} else if a, err := mail.ParseAddress(in.Email); err != nil || a.Address != in.Email || len(in.Email) > UsernameMax {
		f["email"] = "validation.email"
	}
	switch n := utf8.RuneCountInString(in.DisplayName); {
	case n == 0:
		f["displayName"] = "validation.required"
	case n > DisplayNameMax:
		f["displayName"] = "validation.display_name_length"
	case strings.IndexFunc(in.DisplayName, hidden) >= 0:
		f["displayName"] = "validation.hidden_chars"
	}
	return f.Err()
}

// NormalUsername returns a username as it is stored: without surrounding
// spaces and in Unicode normalisation form KC, so that a name typed with
// decomposed accents (café as e and U+0301) or full-width letters (ａｄｍｉｎ)
// is the name written the usual way. Usernames are compared case-folded
// besides (UsernameID).
func NormalUsername(name string) string {
	return norm.NFKC.String(strings.TrimSpace(name))
}

// hidden reports whether r is a character that must not be in a name: a
// control character (NUL, ESC, CR, LF, tab…) or a bidirectional mark,
// embedding, override or isolate, which make a name read differently
// from what it is.
func hidden(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r == '\u061c', r == '\u200e', r == '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// HasHidden reports whether s holds a character that hidden refuses,
// newlines and tabs apart when text is true (a message, a description).
func HasHidden(s string, text bool) bool {
	return strings.IndexFunc(s, func(r rune) bool { return hidden(r) && !(text && (r == '\n' || r == '\t')) }) >= 0
}

// CheckPassword applies the password policy: at least 12 characters as a
// person counts them (runes: an emoji, an accented letter or a kanji is
// one), at most 72 bytes of UTF-8 (what bcrypt reads), with at least three
// of lower case, upper case, digits and symbols. It returns a translation
// key, or "" when the password is acceptable.
func CheckPassword(p string) string {
	if utf8.RuneCountInString(p) < PasswordMin {
		return "validation.password_short"
	}
	if len(p) > PasswordMaxBytes {
		return "validation.password_bytes"
	}
	var classes [4]bool
	for _, r := range p {
		switch {
		case unicode.IsLower(r):
			classes[0] = true
		case unicode.IsUpper(r):
			classes[1] = true
		case unicode.IsDigit(r):
			classes[2] = true
		default:
			classes[3] = true
		}
	}
	n := 0
	for _, c := range classes {
		if c {
			n++
		}
	}
	if n < 3 {
		return "validation.password_classes"
	}
	return ""
}
