package kanri

import (
	"regexp"
	"slices"
	"strings"
)

// SettingsInput is what a tenant's administrator enters on the settings
// page.
type SettingsInput struct {
	Timezone             string
	Locale               string
	TwoFactorAuth        bool
	TwoFactorEnforcement string
	APIAccess            bool
	AdvancedReporting    bool
	SupportAccess        string
	SupportChanges       bool
}

// SettingsInputOf returns the settings of t as the settings form starts
// with them: unset flags at their defaults, no zone as DefaultTimeZone.
func SettingsInputOf(t *Tenant) SettingsInput {
	f := t.Settings.Features
	in := SettingsInput{
		Timezone: t.Settings.Timezone, Locale: t.Settings.Locale,
		TwoFactorAuth: on(f.TwoFactorAuth), TwoFactorEnforcement: f.TwoFactorEnforcement,
		APIAccess: on(f.APIAccess), AdvancedReporting: on(f.AdvancedReporting),
		SupportAccess: f.SupportAccess, SupportChanges: f.SupportChanges != nil && *f.SupportChanges,
	}
	if in.SupportAccess == "" {
		in.SupportAccess = SupportOn
	}
	if in.Timezone == "" {
		in.Timezone = DefaultTimeZone
	}
	if in.TwoFactorEnforcement == "" {
		in.TwoFactorEnforcement = TwoFactorOff
	}
	return in
}

// Validate normalises the input and checks it: a time zone this machine
// knows by its IANA name, a locale of Locales or none, an enforcement
// level of two-factor sign-in and a level of support access.
func (in *SettingsInput) Validate() error {
	in.Timezone, in.Locale = strings.TrimSpace(in.Timezone), strings.TrimSpace(in.Locale)
	f := Fields{}
	if !ValidTimeZone(in.Timezone) {
		f["timezone"] = "validation.timezone"
	}
	if in.Locale != "" && !slices.Contains(Locales, in.Locale) {
		f["locale"] = "validation.locale"
	}
	switch in.TwoFactorEnforcement {
	case "":
		in.TwoFactorEnforcement = TwoFactorOff
	case TwoFactorOff, TwoFactorAdmins, TwoFactorEveryone:
	default:
		f["twoFactorEnforcement"] = "validation.two_factor_enforcement"
	}
	switch in.SupportAccess {
	case "":
		in.SupportAccess = SupportOn
	case SupportOn, SupportApproval, SupportOff:
	default:
		f["supportAccess"] = "validation.support_access"
	}
	return f.Err()
}

// Apply writes the input into the tenant's settings. Every flag is stored
// as saved.
func (in SettingsInput) Apply(s *TenantSettings) {
	s.Timezone, s.Locale = in.Timezone, in.Locale
	s.Features.TwoFactorAuth = Flag(in.TwoFactorAuth)
	s.Features.TwoFactorEnforcement = in.TwoFactorEnforcement
	s.Features.APIAccess = Flag(in.APIAccess)
	s.Features.AdvancedReporting = Flag(in.AdvancedReporting)
	s.Features.SupportAccess = in.SupportAccess
	s.Features.SupportChanges = Flag(in.SupportChanges)
}

var zonePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9][A-Za-z0-9_+\-]*)*$`)

// ValidTimeZone reports whether name is an IANA time zone this machine
// knows (TimeZones, their older aliases, UTC). "Local", paths and other
// names are not.
func ValidTimeZone(name string) bool {
	if name == "" || name == "Local" || len(name) > 64 || !zonePattern.MatchString(name) {
		return false
	}
	_, err := LoadZone(name)
	return err == nil
}
