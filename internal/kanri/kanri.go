// Package kanri holds Kanri's domain: the documents of the data model, their
// validation rules and the application's typed errors. It imports nothing but
// the standard library; stores, services and the web layer build on it.
package kanri

// Document types, stored in every document's "type" field.
const (
	TypeUser                  = "user"
	TypeRoleAssignment        = "role_assignment"
	TypeServiceRoleDefinition = "service_role_definition"
	TypeTenant                = "tenant"
	TypeTenantUser            = "tenant_user"
	TypeDomain                = "domain"
	TypeService               = "service"
	TypeServiceAssignment     = "service_assignment"
	TypeServiceUsage          = "service_usage"
	TypeFile                  = "file"
	TypeFolder                = "folder"
	TypeChannel               = "channel"
	TypeMessage               = "message"
	TypeChannelMember         = "channel_member"
	TypeAPIKey                = "api_key"
	TypeAPIUsage              = "api_usage"
	TypeAPIUsageAggregate     = "api_usage_aggregate"
	TypeBackupJob             = "backup_job"
	TypeBackupHistory         = "backup_history"
	TypeAuditLog              = "audit_log"
)

// SystemTenantID is the partition that holds system-wide catalogs such as
// services and role definitions (docs/data-model.md, "Containers").
const SystemTenantID = "_system"

// Retention periods, in seconds, for documents that expire
// (docs/data-model.md, "Retention"). A document's ttl of -1 keeps it
// forever.
const (
	TTLAuditLog      = 90 * 24 * 60 * 60
	TTLAPIUsage      = 90 * 24 * 60 * 60
	TTLMessage       = 365 * 24 * 60 * 60
	TTLBackupHistory = 365 * 24 * 60 * 60
)

// Doc holds the fields every stored document has. Every entity embeds it.
type Doc struct {
	// ID is unique within the document's partition.
	ID string `json:"id"`
	// TenantID is the partition key.
	TenantID string `json:"tenantId"`
	// Type discriminates the entities that share a container.
	Type string `json:"type"`
	// SchemaVersion is the version of the document's shape
	// (docs/data-model.md, "Schema versions").
	SchemaVersion string `json:"schemaVersion"`
	// ETag is the store's version of the document as it was read. It is
	// not part of the stored body; repositories fill it in and check it on
	// replace.
	ETag string `json:"-"`
}

// Document is implemented by every entity through its embedded Doc.
type Document interface {
	Base() *Doc
}

// Base returns the document's common fields.
func (d *Doc) Base() *Doc { return d }

// Expiring is implemented by documents that expire by default: TTLField
// returns the document's ttl field and its default in seconds.
type Expiring interface {
	TTLField() (field *int, def int)
}

// TTLField implements Expiring.
func (a *AuditLog) TTLField() (*int, int) { return &a.TTL, TTLAuditLog }

// TTLField implements Expiring.
func (u *APIUsage) TTLField() (*int, int) { return &u.TTL, TTLAPIUsage }

// TTLField implements Expiring.
func (m *Message) TTLField() (*int, int) { return &m.TTL, TTLMessage }

// TTLField implements Expiring.
func (h *BackupHistory) TTLField() (*int, int) { return &h.TTL, TTLBackupHistory }

// Searchable is implemented by documents that a search box finds:
// SearchFields returns the field that keeps the document's search terms
// and the texts they are made of. The repository fills the field on every
// write (see package search), so the terms never lag the texts.
type Searchable interface {
	SearchFields() (terms *[]string, texts []string)
}

// SearchFields implements Searchable: a user is found by username, e-mail
// and display name.
func (u *User) SearchFields() (*[]string, []string) {
	return &u.SearchTerms, []string{u.Username, u.Email, u.DisplayName}
}

// SearchFields implements Searchable: a tenant is found by name and
// display name.
func (l *TenantListing) SearchFields() (*[]string, []string) {
	return &l.SearchTerms, []string{l.Name, l.DisplayName}
}

// Seen is what a person saw of a document when they asked for a change: its
// ETag, and its state as far as the change depends on it. The change is
// stale when the document moved past the ETag and that state changed too;
// other changes of the document (the bookkeeping of a sign-in, a user count)
// do not stand in its way.
type Seen struct {
	ETag  string
	State string
	// LastAdmin says the person was told that the change leaves the
	// tenant without an active administrator, and confirmed it (only the
	// operator's global administrators may, on a customer tenant).
	LastAdmin bool
}

// Stale reports whether a document now at etag, in state, changed since it
// was seen in a way the change depends on. Without an ETag nothing is
// checked; without a State any change is stale.
func (s Seen) Stale(etag, state string) bool {
	return s.ETag != "" && s.ETag != etag && (s.State == "" || s.State != state)
}

// TypeUpgrades is the type of the record of the upgrades done over every
// tenant.
const TypeUpgrades = "upgrades"

// UpgradesID is the id of the one Upgrades document, in the _system
// partition of the tenant container.
const UpgradesID = "upgrades"

// Precondition decides, on a document as read, which version a change
// applies to: only the version read when conditional (a change made since
// is stale), else the version current when the change is written; or it
// refuses the change (a precondition the request named does not hold, a
// right it lacks).
type Precondition[T any] func(doc T) (conditional bool, err error)

// Upgrades records which one-time upgrades of every tenant's data are
// done, by name, and when they finished; and, for one under way, where
// its run stands: the list of tenants' position after the last page of
// tenants it finished, so that a run cut short resumes there.
type Upgrades struct {
	Doc
	Done    map[string]Time   `json:"done"`
	Resumes map[string]string `json:"resumes,omitempty"`
}
