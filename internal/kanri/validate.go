package kanri

import (
	"net/mail"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Field rules of the data model (spec §3.1.2) and the console.
const (
	TenantNameMin        = 3
	TenantNameMax        = 100
	TenantDisplayNameMax = 200
	MaxUsersMin          = 1
	MaxUsersMax          = 10000
	DefaultMaxUsers      = 100
	UsernameMax          = 254
	DisplayNameMax       = 200
	PasswordMin          = 12
	PasswordMax          = 72 // bcrypt reads at most 72 bytes
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
	return f.Err()
}

// UserInput is what an administrator enters for a user.
type UserInput struct {
	Username    string
	Email       string
	DisplayName string
	Password    string // only when creating
}

// Validate checks a new user (creating) or an edit.
func (in *UserInput) Validate(creating bool) error {
	in.Username, in.Email = strings.TrimSpace(in.Username), strings.TrimSpace(in.Email)
	in.DisplayName = strings.TrimSpace(in.DisplayName)
	f := Fields{}
	if creating {
		switch {
		case in.Username == "":
			f["username"] = "validation.required"
		case strings.IndexFunc(in.Username, unicode.IsSpace) >= 0 || strings.IndexFunc(in.Username, unicode.IsControl) >= 0:
			f["username"] = "validation.username_spaces"
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
	}
	return f.Err()
}

// CheckPassword applies the password policy: 12 to 72 bytes, with at
// least three of lower case, upper case, digits and symbols. It returns a
// translation key, or "" when the password is acceptable.
func CheckPassword(p string) string {
	if len(p) < PasswordMin || len(p) > PasswordMax {
		return "validation.password_length"
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
