package kanri

import "slices"

// Audit statuses (docs/data-model.md, "Audit log").
const (
	AuditSuccess = "success"
	AuditFailure = "failure"
	AuditWarning = "warning"
)

// The types of audited resources: every AuditResource.Type a record
// holds is one of these, and the audit page offers them as its filter.
const (
	AuditTenant            = "Tenant"
	AuditUser              = "User"
	AuditRoleAssignment    = "RoleAssignment"
	AuditService           = "Service"
	AuditServiceAssignment = "ServiceAssignment"
	AuditAPIKey            = "APIKey"
	AuditDomain            = "Domain"
	AuditFile              = "File"
	AuditFolder            = "Folder"
	AuditBackupJob         = "BackupJob"
	AuditBackup            = "Backup"
	AuditMigration         = "Migration"
	AuditArchive           = "Archive"
	AuditIdentityProvider  = "IdentityProvider"
	AuditSCIMGroup         = "SCIMGroup"
	AuditUserImport        = "UserImport"
	AuditWebhook           = "Webhook"
	// The messaging service's records have named their resources by
	// their documents' types since it began; the stored records keep
	// these values.
	AuditChannel       = TypeChannel
	AuditChannelMember = TypeChannelMember
	AuditMessage       = TypeMessage
)

// auditResourceTypes is every type of audited resource, in the order the
// audit page offers them.
var auditResourceTypes = []string{
	AuditTenant, AuditUser, AuditRoleAssignment, AuditService, AuditServiceAssignment, AuditAPIKey, AuditDomain,
	AuditFile, AuditFolder, AuditChannel, AuditChannelMember, AuditMessage, AuditBackupJob, AuditBackup,
	AuditMigration, AuditArchive, AuditIdentityProvider, AuditSCIMGroup, AuditUserImport, AuditWebhook,
}

// AuditResourceTypes returns every type of audited resource, in the order
// the audit page offers them.
func AuditResourceTypes() []string { return slices.Clone(auditResourceTypes) }

// IsAuditResourceType reports whether typ is a declared type of audited
// resource (AuditResourceTypes).
func IsAuditResourceType(typ string) bool { return slices.Contains(auditResourceTypes, typ) }

// Reasons of the sign-in records (auth.login_failed, auth.lockout). A
// record stores the code; pages show it in the reader's language.
const (
	ReasonUnknownUser    = "unknown_user"
	ReasonAccountLocked  = "account_locked"
	ReasonWrongPassword  = "wrong_password"
	ReasonTooManyFailed  = "too_many_failed"
	ReasonUserInactive   = "user_inactive"
	ReasonTenantInactive = "tenant_inactive" // followed by ":" and the tenant's status
	ReasonChangedDuring  = "changed_during_sign_in"
	ReasonWrongCode      = "wrong_code"
	ReasonRecoveryCode   = "recovery_code"
	ReasonPasskey        = "passkey"         // signed in with a passkey
	ReasonPasskeyRefused = "passkey_refused" // its answer did not verify
	ReasonUnknownPasskey = "unknown_passkey" // no passkey of this server
	// ReasonPasskeyElsewhere: a right password whose second step is a
	// passkey, at an address where passkeys do not work.
	ReasonPasskeyElsewhere = "passkey_elsewhere"
)

// Reasons of the records of a tenant's subscription: suspended by the
// expiry worker when it ended, reactivated when the operator renewed it.
const (
	ReasonSubscriptionEnded   = "subscription_ended"
	ReasonSubscriptionRenewed = "subscription_renewed"
)

// AuditLog records one change or security event
// (docs/data-model.md, "Audit log"). It lives in the audit container and
// expires after 90 days unless its TTL is -1.
type AuditLog struct {
	Doc
	Timestamp Time          `json:"timestamp"`
	UserID    string        `json:"userId"`
	UserName  string        `json:"userName"`
	Action    string        `json:"action"`
	Resource  AuditResource `json:"resource"`
	Details   AuditDetails  `json:"details"`
	Metadata  AuditMetadata `json:"metadata"`
	Status    string        `json:"status"`
	TTL       int           `json:"ttl,omitempty"`
}

// AuditResource names the thing an audit record is about.
type AuditResource struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Name string `json:"name"`
}

// AuditDetails holds what changed. Secrets and password hashes never
// appear here.
type AuditDetails struct {
	Changes map[string]Change `json:"changes,omitempty"`
	Reason  string            `json:"reason,omitempty"`
}

// Change is the value of one field before and after a change.
type Change struct {
	Before any `json:"before"`
	After  any `json:"after"`
}

// AuditMetadata says where a request came from.
type AuditMetadata struct {
	IPAddress string `json:"ipAddress"`
	UserAgent string `json:"userAgent"`
	RequestID string `json:"requestId"`
	SessionID string `json:"sessionId,omitempty"`
	// Support, on what a support session did, names the staff member who
	// did it and why; the operator's log holds a copy of the record.
	Support *AuditSupport `json:"support,omitempty"`
	// TargetTenantID, on a record of the operator's log, is the other
	// tenant the record is about: what the operator's staff did there,
	// themselves or through support access. That tenant's own log holds
	// the record too; the operator's audit page filters by this field.
	TargetTenantID string `json:"targetTenantId,omitempty"`
}

// AuditSupport says who, of the operator's support staff, acted as the
// record's user, in which tenant and why.
type AuditSupport struct {
	TenantID  string `json:"tenantId"`
	StaffID   string `json:"staffId"`
	StaffName string `json:"staffName"`
	Reason    string `json:"reason"`
}
