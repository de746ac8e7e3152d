package kanri

import (
	"strings"
	"sync"
	"time"
)

// Tenant statuses (docs/data-model.md, "Tenants").
const (
	TenantActive    = "active"
	TenantSuspended = "suspended"
	TenantDeleted   = "deleted"
)

// Tenant plans (docs/data-model.md, "Tenants"); PlanPrivileged is the
// operator's own plan.
const (
	PlanFree       = "free"
	PlanStandard   = "standard"
	PlanPremium    = "premium"
	PlanPrivileged = "privileged"
)

// Tenant is a customer organisation (tenant container;
// docs/data-model.md, "Tenants"). Its partition is its own id.
type Tenant struct {
	Doc
	Name         string         `json:"name"`
	DisplayName  string         `json:"displayName"`
	IsPrivileged bool           `json:"isPrivileged"`
	Status       string         `json:"status"`
	Plan         string         `json:"plan"`
	UserCount    int            `json:"userCount"`
	MaxUsers     int            `json:"maxUsers"`
	Metadata     TenantMetadata `json:"metadata"`
	Settings     TenantSettings `json:"settings"`
	CreatedAt    Time           `json:"createdAt"`
	UpdatedAt    Time           `json:"updatedAt"`
	CreatedBy    string         `json:"createdBy"`
	UpdatedBy    string         `json:"updatedBy,omitempty"`
	DeletedAt    Time           `json:"deletedAt"`
	DeletedBy    string         `json:"deletedBy,omitempty"`
	// Subscription holds the dates of the tenant's subscription; its plan and
	// maxUsers stay top-level fields (docs/data-model.md, "Tenants").
	Subscription Subscription `json:"subscription"`
	// SuspendedReason says why a suspended tenant is suspended:
	// SuspendedByOperator or SuspendedByExpiry; "" while it is not (and
	// for tenants suspended before the reason was kept, which count as the
	// operator's).
	SuspendedReason string `json:"suspendedReason,omitempty"`
}

// TenantSettings are a tenant's own settings
// (docs/settings.md, "Settings").
type TenantSettings struct {
	// Timezone is the IANA time zone the console shows the tenant's times
	// in and reads its backup schedules and subscription dates in; ""
	// means DefaultTimeZone.
	Timezone string `json:"timezone,omitempty"`
	// Locale is the default language of the tenant's users (one of Locales,
	// such as "ja-JP"): the console speaks it to a user who has not chosen a
	// language. "" follows each user's browser.
	Locale string `json:"locale,omitempty"`
	// Features switch parts of the product on and off for the tenant.
	Features TenantFeatures `json:"features"`
}

// Locales are the default languages a tenant may choose for its users.
var Locales = []string{"ja-JP", "en-US"}

// Language returns the console language ("ja", "en") of the tenant's
// locale, or "" when it has none.
func (s TenantSettings) Language() string {
	lang, _, _ := strings.Cut(s.Locale, "-")
	return strings.ToLower(lang)
}

// TenantFeatures are the feature flags of a tenant
// (docs/settings.md, "Settings"). A flag left out (nil) has its default, so
// tenants written before the flags existed keep what they had.
type TenantFeatures struct {
	// TwoFactorAuth makes two-factor sign-in available to the tenant's
	// users (default on).
	TwoFactorAuth *bool `json:"twoFactorAuth,omitempty"`
	// TwoFactorEnforcement says who must sign in with two factors:
	// TwoFactorOff (default), TwoFactorAdmins or TwoFactorEveryone. It
	// applies only while TwoFactorAuth is on.
	TwoFactorEnforcement string `json:"twoFactorEnforcement,omitempty"`
	// APIAccess lets the tenant's API keys call the API (default on): off,
	// every call is refused, whatever the api-service assignment says.
	APIAccess *bool `json:"apiAccess,omitempty"`
	// AdvancedReporting opens the tenant's usage analytics (default on):
	// the usage pages of its services and of its API keys. Its plan must
	// include it too (see role.Catalog.PlanAllows).
	AdvancedReporting *bool `json:"advancedReporting,omitempty"`
	// SupportAccess says whether the operator's support staff may open
	// the tenant as one of its users (docs/security.md, "Support
	// access"): SupportOn (default), SupportApproval (each session
	// approved by one of its administrators) or SupportOff.
	SupportAccess string `json:"supportAccess,omitempty"`
	// SupportChanges lets a support session change what its user could
	// (default off: support sessions only read).
	SupportChanges *bool `json:"supportChanges,omitempty"`
}

// Feature flag names: the keys of the settings form and of the plan
// table.
const (
	FeatureTwoFactorAuth     = "twoFactorAuth"
	FeatureAPIAccess         = "apiAccess"
	FeatureAdvancedReporting = "advancedReporting"
)

// Support access levels (TenantFeatures.SupportAccess).
const (
	SupportOn       = "on"
	SupportApproval = "approval"
	SupportOff      = "off"
)

// SupportLevels are the levels of support access, as the settings form
// offers them.
var SupportLevels = []string{SupportOn, SupportApproval, SupportOff}

// SupportNeedsApproval reports whether each support session of the tenant
// needs the approval of one of its administrators.
func (t *Tenant) SupportNeedsApproval() bool {
	return t.Settings.Features.SupportAccess == SupportApproval
}

// SupportAllowed reports whether the operator's support staff may open
// the tenant as one of its users.
func (t *Tenant) SupportAllowed() bool { return t.Settings.Features.SupportAccess != SupportOff }

// SupportWritable reports whether a support session of the tenant may
// change what its user could.
func (t *Tenant) SupportWritable() bool {
	f := t.Settings.Features.SupportChanges
	return f != nil && *f
}

// on reads a flag whose default is on.
func on(flag *bool) bool { return flag == nil || *flag }

// Flag returns a flag's value for storing: a flag once saved is stored
// as it is, never left to its default.
func Flag(v bool) *bool { return &v }

// APIAccessOn reports whether the tenant's API keys may call the API as
// far as its settings go (the api-service must be usable too).
func (t *Tenant) APIAccessOn() bool { return on(t.Settings.Features.APIAccess) }

// AdvancedReportingOn reports whether the tenant turned on its usage
// analytics (its plan must include them too).
func (t *Tenant) AdvancedReportingOn() bool { return on(t.Settings.Features.AdvancedReporting) }

// Enforcement levels of two-factor sign-in.
const (
	TwoFactorOff      = "off"
	TwoFactorAdmins   = "admins"
	TwoFactorEveryone = "everyone"
)

// TwoFactorAvailable reports whether the tenant's users may turn on
// two-factor sign-in.
func (t *Tenant) TwoFactorAvailable() bool {
	return on(t.Settings.Features.TwoFactorAuth)
}

// TwoFactorRequired reports whether a user of the tenant must sign in
// with two factors; admin says the user administers the tenant (holds an
// administrator role).
func (t *Tenant) TwoFactorRequired(admin bool) bool {
	if !t.TwoFactorAvailable() {
		return false
	}
	switch t.Settings.Features.TwoFactorEnforcement {
	case TwoFactorEveryone:
		return true
	case TwoFactorAdmins:
		return admin
	}
	return false
}

// Location returns the tenant's time zone: its setting, else
// DefaultTimeZone, else UTC when neither is known to this machine.
func (t *Tenant) Location() *time.Location { return zone(t.Settings.Timezone) }

// zone returns the time zone named, else DefaultTimeZone, else UTC when
// neither is known to this machine.
func zone(name string) *time.Location {
	for _, name := range []string{name, DefaultTimeZone} {
		if name == "" {
			continue
		}
		if loc, err := LoadZone(name); err == nil {
			return loc
		}
	}
	return time.UTC
}

// zones are the time zones loaded, by name: only those that exist, so at
// most the few hundred the time zone database has.
var zones sync.Map

// LoadZone is time.LoadLocation, kept: LoadLocation reads the zone's file
// each time (6 µs and 11 allocations on this project's test machine), and
// pages ask for the tenant's zone several times a request.
func LoadZone(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err == nil {
		zones.Store(name, loc)
	}
	return loc, err
}

// Why a tenant is suspended (Tenant.SuspendedReason).
const (
	SuspendedByOperator = "operator"
	SuspendedByExpiry   = "subscription_ended"
)

// ExpiryNotice is how long before its subscription ends a tenant's
// administrators are told so.
const ExpiryNotice = 14 * 24 * time.Hour

// Subscription holds the dates of a tenant's subscription
// (docs/settings.md, "Subscriptions"). Each is the start of a day in the
// tenant's time zone, stored as the instant; the zero Time (null) is no
// date. The subscription ends at EndDate: from then on the tenant is
// suspended (once, by the expiry worker) until the operator moves EndDate
// later. StartDate is informational.
type Subscription struct {
	StartDate Time `json:"startDate"`
	EndDate   Time `json:"endDate"`
}

// Ended reports whether the subscription has ended at now.
func (s Subscription) Ended(now time.Time) bool {
	return !s.EndDate.IsZero() && !now.Before(s.EndDate.Time)
}

// EndsSoon reports whether the subscription ends within ExpiryNotice of
// now (and has not ended yet).
func (s Subscription) EndsSoon(now time.Time) bool {
	end := s.EndDate
	return !end.IsZero() && now.Before(end.Time) && end.Sub(now) <= ExpiryNotice
}

// SubscriptionEnded reports whether the tenant's subscription has ended
// at now.
func (t *Tenant) SubscriptionEnded(now time.Time) bool { return t.Subscription.Ended(now) }

// OpenAt reports whether the tenant's people may sign in and work at now:
// it is active and its subscription has not ended. A subscription ends at
// its end date, whether the expiry worker has recorded the suspension yet
// or not.
func (t *Tenant) OpenAt(now time.Time) bool {
	return t.Status == TenantActive && (t.IsPrivileged || !t.SubscriptionEnded(now))
}

// ClosedMessage returns the message key that tells the tenant's people why
// they cannot sign in at now: its subscription ended, it is suspended, or
// it is deleted.
func (t *Tenant) ClosedMessage(now time.Time) string {
	switch {
	case t.Status == TenantDeleted:
		return "login.tenant_deleted"
	case t.SuspendedReason == SuspendedByExpiry || (!t.IsPrivileged && t.SubscriptionEnded(now)):
		return "login.subscription_ended"
	}
	return "login.tenant_suspended"
}

// SubscriptionEndsSoon reports whether the tenant's subscription ends
// within ExpiryNotice of now (and has not ended yet).
func (t *Tenant) SubscriptionEndsSoon(now time.Time) bool { return t.Subscription.EndsSoon(now) }

// DateLayout is the layout of the dates the console reads and shows
// (subscription dates).
const DateLayout = "2006-01-02"

// DateIn returns the start of the date s (DateLayout) in loc, or the zero
// Time for "".
func DateIn(s string, loc *time.Location) (Time, error) {
	d, err := parseDate(s)
	if err != nil || d.IsZero() {
		return Time{}, err
	}
	return NewTime(dayStart(d, loc)), nil
}

// DayEndIn returns the last second of the date s (DateLayout) in loc, or
// the zero Time for "": an expiry given as a date lasts to the end of that
// day where the tenant is (a day of 23 or 25 hours when the clocks change).
func DayEndIn(s string, loc *time.Location) (Time, error) {
	d, err := parseDate(s)
	if err != nil || d.IsZero() {
		return Time{}, err
	}
	return NewTime(dayStart(d.AddDate(0, 0, 1), loc).Add(-time.Second)), nil
}

// parseDate reads s (DateLayout, spaces around it ignored) as a date at
// midnight UTC, or the zero time for "".
func parseDate(s string) (time.Time, error) {
	if s = strings.TrimSpace(s); s == "" {
		return time.Time{}, nil
	}
	return time.Parse(DateLayout, s)
}

// LegacyDayEnd reports whether t is an expiry typed as a date by a version
// before dates were the tenant's days, which stored it as the last second
// of that day in UTC, and returns the date.
func LegacyDayEnd(t Time) (string, bool) {
	u := t.UTC()
	if t.IsZero() || u.Hour() != 23 || u.Minute() != 59 || u.Second() != 59 || u.Nanosecond() != 0 {
		return "", false
	}
	return u.Format(DateLayout), true
}

// dayStart returns the first instant of the calendar date of d (a date at
// midnight UTC) in loc. Where the clocks jump forward at midnight (Santiago,
// Beirut, Cairo) the day has no 00:00: it starts at the jump.
func dayStart(d time.Time, loc *time.Location) time.Time {
	y, m, day := d.Date()
	t := time.Date(y, m, day, 0, 0, 0, 0, loc)
	if t.Day() != day { // time.Date went back to the day before
		_, t = t.ZoneBounds()
	}
	return t
}

// DateOf returns the date of t in loc (DateLayout), or "" for the zero
// Time.
func DateOf(t Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format(DateLayout)
}

// TenantMetadata is free-form descriptive data about a tenant.
type TenantMetadata struct {
	Industry string `json:"industry,omitempty"`
	Country  string `json:"country,omitempty"`
}

// TenantIDFromName returns the id of the tenant with the given name
// ("tenant_" + the name as a slug:
// docs/data-model.md, "Ids and uniqueness").
func TenantIDFromName(name string) string { return "tenant_" + name }

// TenantUserID returns the id of a user's membership record.
func TenantUserID(userID string) string { return "tenant_user_" + strings.TrimPrefix(userID, "user_") }

// MemberRole is the membership role of a tenant's users
// (docs/data-model.md, "Tenants"); what a user may do comes from their role
// assignments.
const MemberRole = "member"

// TenantUser links a user to a tenant with a membership role
// (docs/data-model.md, "Tenants").
type TenantUser struct {
	Doc
	UserID     string `json:"userId"`
	Role       string `json:"role"`
	AssignedBy string `json:"assignedBy"`
	AssignedAt Time   `json:"assignedAt"`
}

// Domain is an e-mail domain a tenant owns
// (docs/data-model.md, "E-mail domains"). Its id is DomainID of the domain.
type Domain struct {
	Doc
	Domain            string `json:"domain"`
	Verified          bool   `json:"verified"`
	VerificationToken string `json:"verificationToken"`
	VerifiedAt        Time   `json:"verifiedAt"`
	CreatedAt         Time   `json:"createdAt"`
	// LastCheckedAt is when the record was last looked up.
	LastCheckedAt Time `json:"lastCheckedAt"`
	// LastCheckResult is what the last lookup found: found, missing (no
	// record), mismatch (another value) or lookup_failed (the DNS server
	// did not answer); empty before the first check.
	LastCheckResult string `json:"lastCheckResult,omitempty"`
	// RecordMissingSince is set when a scheduled re-check of a verified
	// domain no longer finds its record: the domain is flagged, not
	// unverified, until the record is back or the domain is removed.
	RecordMissingSince Time `json:"recordMissingSince"`
}

// DomainID returns the id of a domain's document: domain_example_com for
// example.com (docs/data-model.md, "Ids and uniqueness"; a domain name
// holds no underscores, so ids do not collide).
func DomainID(domain string) string { return "domain_" + strings.ReplaceAll(domain, ".", "_") }

// TypeDomainClaim is the type of the claim, in the _system partition of
// the tenant container, that gives a verified domain to one tenant.
const TypeDomainClaim = "domain_claim"

// DomainClaim records which tenant verified a domain. Its id is
// DomainClaimID.
type DomainClaim struct {
	Doc
	Domain  string `json:"domain"`
	OwnerID string `json:"ownerTenantId"`
	// Token is the verification token of the owner's domain document: a
	// claim whose owner deleted and re-added the domain (a new token) is
	// recognised as stale.
	Token     string `json:"verificationToken"`
	ClaimedAt Time   `json:"claimedAt"`
}

// DomainClaimID returns the id of a domain's claim.
func DomainClaimID(domain string) string { return "domain_claim_" + domain }

// TenantListing is the operator's index entry of a tenant: a copy of the
// fields the tenant list shows, kept in the _system partition of the
// tenant container so that the list can be searched, sorted and paged in
// one partition (Cosmos DB cannot sort across partitions). Its id is the
// tenant's id; the Tenant document stays the source of truth.
type TenantListing struct {
	Doc
	Name         string `json:"name"`
	NameLower    string `json:"nameLower"`
	DisplayName  string `json:"displayName"`
	IsPrivileged bool   `json:"isPrivileged"`
	Status       string `json:"status"`
	Plan         string `json:"plan"`
	UserCount    int    `json:"userCount"`
	MaxUsers     int    `json:"maxUsers"`
	CreatedAt    Time   `json:"createdAt"`
	UpdatedAt    Time   `json:"updatedAt"`
	// SubscriptionEnd is the tenant's Subscription.EndDate: the expiry
	// worker finds the tenants whose subscription ended by it.
	SubscriptionEnd Time `json:"subscriptionEnd"`
	// SuspendedReason and Timezone are the tenant's, so that the list says
	// why a tenant is suspended and shows its end date as the tenant's day.
	SuspendedReason string `json:"suspendedReason,omitempty"`
	Timezone        string `json:"timezone,omitempty"`
	// TenantETag is the ETag of the tenant document this entry was made
	// from, so that actions on the list are checked against what it shows.
	TenantETag string `json:"tenantEtag,omitempty"`
	// SearchTerms are the words a search finds the tenant by (Searchable),
	// kept by the repository.
	SearchTerms []string `json:"searchTerms,omitempty"`
}

// Location returns the tenant's time zone, as Tenant.Location does.
func (l *TenantListing) Location() *time.Location { return zone(l.Timezone) }

// TenantName reserves a tenant name among the tenants that are not deleted
// (docs/data-model.md, "Tenants"). Its id is TenantNameID(name), so the
// store's id uniqueness makes two tenants with one name impossible, even
// when both are created at once.
type TenantName struct {
	Doc
	TenantRef string `json:"tenantRef"`
	CreatedAt Time   `json:"createdAt"`
}

// TenantNameID returns the id of the reservation of a tenant name. Names
// are compared without regard to case.
func TenantNameID(name string) string { return "tenant_name_" + strings.ToLower(name) }

// PrivilegedTenantID is the id of the operator's own tenant
// (docs/data-model.md, "The operator's tenant").
const PrivilegedTenantID = "tenant_privileged"

// Types of the operator's index documents.
const (
	TypeTenantListing = "tenant_listing"
	TypeTenantName    = "tenant_name"
)

// TypeUserCountChange is the type of a pending change of userCount.
const TypeUserCountChange = "user_count_change"

// UserCountChange records a change of a tenant's userCount whose user write
// (the user's creation or deletion, in another container) may not have
// happened yet. It is written with the count in one transaction, in the
// tenant's partition of the tenant container, and removed once the user
// write is made; one left behind by a crash tells the repair which way to
// settle the count.
type UserCountChange struct {
	Doc
	UserID    string `json:"userId"`
	Delta     int    `json:"delta"` // +1 for a creation, -1 for a deletion
	CreatedAt Time   `json:"createdAt"`
}

// UserCountChangeID returns the id of the pending change of delta for the
// user.
func UserCountChangeID(userID string, delta int) string {
	if delta > 0 {
		return "ucc_add_" + userID
	}
	return "ucc_remove_" + userID
}

// CheckOpen returns nil while t may gain data, and the ECONFLICT error
// "error.tenant_deleted" once it is deleted
// (docs/data-model.md, "Soft deletion"): in a deleted tenant nothing is
// added, granted, verified, edited or reactivated; things are only taken
// away (a user deactivated or deleted, a key deactivated or revoked, an
// assignment suspended or ended).
func (t *Tenant) CheckOpen() error {
	if t.Status == TenantDeleted {
		return E(ECONFLICT, "error.tenant_deleted")
	}
	return nil
}
