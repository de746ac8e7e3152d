package docstore

import (
	"time"

	"github.com/kanri/kanri/internal/kanri"
)

// Container names: one per service of the data model (spec §1.1) plus the
// audit container of ADR 003.
const (
	Auth           = "auth"
	Tenant         = "tenant"
	ServiceSetting = "service-setting"
	Files          = "file-service"
	Messaging      = "messaging-service"
	API            = "api-service"
	Backup         = "backup-service"
	Audit          = "audit"
)

// DatabaseName is the Cosmos DB database of the data model (spec §1.1).
const DatabaseName = "management-app"

// Specs returns the containers Kanri uses, with the indexing policies and
// TTLs of the spec.
//
// Containers that hold several entity types get no default TTL: a container
// default would also expire the types that must live forever (API keys beside
// API usage, channels beside messages). Those entities set their own "ttl"
// instead (kanri.TTLAPIUsage and friends). The audit container holds only
// audit records, so the 90-day default of ADR 003 applies to it directly.
func Specs() []Spec {
	return []Spec{
		{Name: Auth, Indexing: IndexingPolicy{
			IncludedPaths: []string{"/*"},
			ExcludedPaths: []string{"/passwordHash/?", "/security/twoFactorSecret/?", "/security/twoFactorPending/?", "/security/recoveryCodes/*", "/_etag/?"},
		}, Indexes: []Index{
			{"user_username", kanri.TypeUser, []string{"username"}},
			{"user_email", kanri.TypeUser, []string{"email"}},
			{"user_display_name", kanri.TypeUser, []string{"displayName"}},
			{"user_created", kanri.TypeUser, []string{"createdAt"}},
			{"user_last_login", kanri.TypeUser, []string{"security.lastLoginAt"}},
			{"user_active", kanri.TypeUser, []string{"isActive", "username"}},
			{"user_search", kanri.TypeUser, []string{"searchTerms[]", "username"}},
			{"user_locked", kanri.TypeUser, []string{"security.lockedUntil"}},
			{"user_deleted", kanri.TypeUser, []string{"deletedAt"}},
			{"ra_user", kanri.TypeRoleAssignment, []string{"userId", "serviceId"}},
			{"session_user", kanri.TypeSession, []string{"userId", "createdAt"}},
			{"ra_role", kanri.TypeRoleAssignment, []string{"serviceId", "roleName", "assignedAt"}},
		}},
		{Name: Tenant, Indexing: IndexingPolicy{
			IncludedPaths: []string{"/*"},
			ExcludedPaths: []string{"/metadata/*", "/_etag/?"},
		}, Indexes: []Index{
			{"listing_name", kanri.TypeTenantListing, []string{"nameLower"}},
			{"listing_status_name", kanri.TypeTenantListing, []string{"status", "nameLower"}},
			{"listing_created", kanri.TypeTenantListing, []string{"createdAt"}},
			{"listing_users", kanri.TypeTenantListing, []string{"userCount"}},
			{"listing_status", kanri.TypeTenantListing, []string{"status"}},
			{"listing_plan", kanri.TypeTenantListing, []string{"plan"}},
			{"listing_search", kanri.TypeTenantListing, []string{"searchTerms[]", "nameLower"}},
			{"listing_ends", kanri.TypeTenantListing, []string{"status", "subscriptionEnd"}}, // the expiry worker's
			{"domain_name", kanri.TypeDomain, []string{"domain"}},
		}},
		{Name: ServiceSetting, Indexing: defaultIndexing(), Indexes: []Index{
			{"assignment_service_status", kanri.TypeServiceAssignment, []string{"serviceId", "status"}},
			{"assignment_service", kanri.TypeServiceAssignment, []string{"serviceId"}},
			{"usage_period_service", kanri.TypeServiceUsage, []string{"period", "serviceId"}},
			{"service_name", kanri.TypeService, []string{"name"}},
			{"health_service", kanri.TypeServiceHealth, []string{"serviceId"}},
		}},
		{Name: Files, Indexing: defaultIndexing(), Indexes: []Index{
			{"file_folder_name", kanri.TypeFile, []string{"folderId", "deletedAt", "nameKey"}},
			{"file_folder_size", kanri.TypeFile, []string{"folderId", "deletedAt", "size"}},
			{"file_folder_uploaded", kanri.TypeFile, []string{"folderId", "deletedAt", "uploadedAt"}},
			{"file_uploaded", kanri.TypeFile, []string{"uploadedAt"}},
			{"file_trash", kanri.TypeFile, []string{"deletedAt"}},
			{"file_search", kanri.TypeFile, []string{"searchTerms[]", "nameKey"}},
			{"folder_parent_name", kanri.TypeFolder, []string{"parentFolderId", "nameKey"}},
			{"folder_path", kanri.TypeFolder, []string{"path"}},
			{"upload_expires", kanri.TypeUpload, []string{"expiresAt"}},
			{"upload_open", kanri.TypeUpload, []string{"completedAt", "expiresAt"}}, // uploads in progress (files.Unfinished)
		}},
		{Name: Messaging, Indexing: defaultIndexing(), Indexes: []Index{
			{"channel_name", kanri.TypeChannel, []string{"name"}},
			{"channel_browse", kanri.TypeChannel, []string{"isPrivate", "archived", "name"}},
			{"channel_search", kanri.TypeChannel, []string{"searchTerms[]", "name"}},
			{"message_channel_sent", kanri.TypeMessage, []string{"channelId", "sentAt"}},
			{"message_channel_seq", kanri.TypeMessage, []string{"channelId", "seq"}},
			{"message_search", kanri.TypeMessage, []string{"channelId", "searchTerms[]", "sentAt"}},
			{"member_user", kanri.TypeChannelMember, []string{"userId", "channelId"}},
			{"member_channel", kanri.TypeChannelMember, []string{"channelId", "userId"}},
			{"member_channel_role", kanri.TypeChannelMember, []string{"channelId", "role", "userId"}},
			{"reaction_channel_message", kanri.TypeReaction, []string{"channelId", "messageSentAt"}},
			{"reaction_message", kanri.TypeReaction, []string{"messageId"}},
		}},
		{Name: API, Indexing: IndexingPolicy{
			IncludedPaths: []string{"/*"},
			ExcludedPaths: []string{"/keyHash/?", "/_etag/?"},
		}, Indexes: []Index{
			{"usage_key_time", kanri.TypeAPIUsage, []string{"apiKeyId", "timestamp"}},
			{"usage_time", kanri.TypeAPIUsage, []string{"timestamp"}},
			{"usage_status_time", kanri.TypeAPIUsage, []string{"statusCode", "timestamp"}},
			{"usage_key_status_time", kanri.TypeAPIUsage, []string{"apiKeyId", "statusCode", "timestamp"}},
			{"key_prefix", kanri.TypeAPIKey, []string{"keyPrefix"}},
		}},
		{Name: Backup, Indexing: defaultIndexing(), Indexes: []Index{
			{"history_job_started", kanri.TypeBackupHistory, []string{"jobId", "startedAt"}},
			{"history_started", kanri.TypeBackupHistory, []string{"startedAt"}},
			{"history_status_started", kanri.TypeBackupHistory, []string{"status", "startedAt"}},
			{"job_name", kanri.TypeBackupJob, []string{"name"}},
			{"job_due", kanri.TypeBackupJob, []string{"isActive", "nextRunAt"}},
			{"restore_status", kanri.TypeBackupRestore, []string{"status", "startedAt"}},
			{"restore_started", kanri.TypeBackupRestore, []string{"startedAt"}},
		}},
		{Name: Audit, DefaultTTL: kanri.TTLAuditLog * time.Second, Indexing: IndexingPolicy{
			IncludedPaths: []string{"/*"},
			ExcludedPaths: []string{"/details/*", "/metadata/*", "/_etag/?"},
			CompositeIndexes: [][]string{
				{"/tenantId", "-/timestamp"},
				{"/tenantId", "/userId", "-/timestamp"},
			},
		}, Indexes: []Index{
			{"audit_time", kanri.TypeAuditLog, []string{"timestamp"}},
			{"audit_user_time", kanri.TypeAuditLog, []string{"userId", "timestamp"}},
			{"audit_username_time", kanri.TypeAuditLog, []string{"userName", "timestamp"}},
			{"audit_type_time", kanri.TypeAuditLog, []string{"resource.type", "timestamp"}},
			{"audit_action_time", kanri.TypeAuditLog, []string{"action", "timestamp"}},
			{"audit_resource_time", kanri.TypeAuditLog, []string{"resource.id", "timestamp"}},
		}},
	}
}

// defaultIndexing is the general policy of spec §11.1: everything but
// free-form metadata.
func defaultIndexing() IndexingPolicy {
	return IndexingPolicy{
		IncludedPaths: []string{"/*"},
		ExcludedPaths: []string{"/metadata/*", "/_etag/?"},
	}
}
