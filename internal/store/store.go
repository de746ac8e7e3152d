// Package store gives the application tenant-scoped repositories over the
// document store port. Code reaches a tenant's data only through a tenant
// handle (store.Tenant(id).Users()), which fixes the partition key. Reads
// across partitions exist only as the explicitly named methods of
// Privileged; the console itself lists tenants from the operator's index in
// the _system partition (see internal/tenant), which needs none.
package store

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// Store is the entry point to Kanri's documents.
type Store struct {
	ds         docstore.Store
	types      *doctype.Set
	migrations *Migrations
	log        *slog.Logger
}

// New returns a Store over ds of the document types declared in types,
// with their upgrades. A repository of a type types does not declare
// panics: every type the code writes is declared (docs/architecture.md,
// "Document types").
func New(ds docstore.Store, log *slog.Logger, types *doctype.Set) *Store {
	if log == nil {
		log = slog.Default()
	}
	return &Store{ds: ds, types: types, migrations: MigrationsOf(types), log: log}
}

// Types returns the declared document types.
func (s *Store) Types() *doctype.Set { return s.types }

// Port returns the document store itself, for the infrastructure built
// over the port rather than over tenants' repositories (the scheduler's
// run documents and leases).
func (s *Store) Port() docstore.Store { return s.ds }

// Ping reports whether the underlying store can serve requests.
func (s *Store) Ping(ctx context.Context) error { return s.ds.Ping(ctx) }

// Tenant returns the handle through which one tenant's data is reached.
func (s *Store) Tenant(id string) Tenant { return Tenant{s: s, id: id} }

// System returns the handle of the _system partition, which holds the
// catalogs shared by every tenant.
func (s *Store) System() System { return System{s: s} }

// Privileged returns the cross-tenant operations reserved for the
// operator's staff.
func (s *Store) Privileged() Privileged { return Privileged{s: s} }

// Tenant is one tenant's partition in every container.
type Tenant struct {
	s  *Store
	id string
}

// ID returns the tenant's id.
func (t Tenant) ID() string { return t.id }

// Profile returns the tenant's own document (id = tenantId).
func (t Tenant) Profile(ctx context.Context) (*kanri.Tenant, error) {
	return t.Tenants().Get(ctx, t.id)
}

// Tenants returns the repository of the tenant document in its own
// partition; use Profile to read it.
func (t Tenant) Tenants() *Repo[kanri.Tenant, *kanri.Tenant] {
	return newRepo[kanri.Tenant](t.s, kanri.ContainerTenant, t.id, kanri.TypeTenant)
}

// Users returns the tenant's users.
func (t Tenant) Users() *Repo[kanri.User, *kanri.User] {
	return newRepo[kanri.User](t.s, kanri.ContainerAuth, t.id, kanri.TypeUser)
}

// Usernames returns the reservations that keep the tenant's usernames
// unique, with ids from kanri.UsernameID.
func (t Tenant) Usernames() *Repo[kanri.Username, *kanri.Username] {
	return newRepo[kanri.Username](t.s, kanri.ContainerAuth, t.id, kanri.TypeUsername)
}

// EmailAddresses returns the reservations that keep the e-mail addresses
// of the tenant's users unique, with ids from kanri.EmailAddressID.
func (t Tenant) EmailAddresses() *Repo[kanri.EmailAddress, *kanri.EmailAddress] {
	return newRepo[kanri.EmailAddress](t.s, kanri.ContainerAuth, t.id, kanri.TypeEmailAddress)
}

// UserIDByUsername returns the id of the tenant's user with the given
// username, by a point read of its reservation.
func (t Tenant) UserIDByUsername(ctx context.Context, username string) (string, error) {
	r, err := t.UsernameReservation(ctx, username)
	if err != nil {
		return "", err
	}
	return r.UserID, nil
}

// UsernameReservation reads the reservation of a username: at its id, or
// at the id it had before usernames were normalised (a non-ASCII name
// stored then), so that data written before stays readable.
func (t Tenant) UsernameReservation(ctx context.Context, username string) (*kanri.Username, error) {
	r, err := t.Usernames().Get(ctx, kanri.UsernameID(username))
	if legacy := kanri.LegacyUsernameID(username); kanri.IsCode(err, kanri.ENOTFOUND) && legacy != kanri.UsernameID(username) {
		return t.Usernames().Get(ctx, legacy)
	}
	return r, err
}

// Sessions returns the records of the tenant's users' signed-in sessions.
func (t Tenant) Sessions() *Repo[kanri.Session, *kanri.Session] {
	return newRepo[kanri.Session](t.s, kanri.ContainerAuth, t.id, kanri.TypeSession)
}

// RoleAssignments returns the tenant's role assignments.
func (t Tenant) RoleAssignments() *Repo[kanri.RoleAssignment, *kanri.RoleAssignment] {
	return newRepo[kanri.RoleAssignment](t.s, kanri.ContainerAuth, t.id, kanri.TypeRoleAssignment)
}

// TenantUsers returns the tenant's membership records.
func (t Tenant) TenantUsers() *Repo[kanri.TenantUser, *kanri.TenantUser] {
	return newRepo[kanri.TenantUser](t.s, kanri.ContainerTenant, t.id, kanri.TypeTenantUser)
}

// Domains returns the tenant's e-mail domains.
func (t Tenant) Domains() *Repo[kanri.Domain, *kanri.Domain] {
	return newRepo[kanri.Domain](t.s, kanri.ContainerTenant, t.id, kanri.TypeDomain)
}

// ServiceAssignments returns the services assigned to the tenant.
func (t Tenant) ServiceAssignments() *Repo[kanri.ServiceAssignment, *kanri.ServiceAssignment] {
	return newRepo[kanri.ServiceAssignment](t.s, kanri.ContainerServiceSetting, t.id, kanri.TypeServiceAssignment)
}

// ServiceUsage returns the tenant's monthly service usage.
func (t Tenant) ServiceUsage() *Repo[kanri.ServiceUsage, *kanri.ServiceUsage] {
	return newRepo[kanri.ServiceUsage](t.s, kanri.ContainerServiceSetting, t.id, kanri.TypeServiceUsage)
}

// Files returns the tenant's file metadata.
func (t Tenant) Files() *Repo[kanri.File, *kanri.File] {
	return newRepo[kanri.File](t.s, kanri.ContainerFiles, t.id, kanri.TypeFile)
}

// Folders returns the tenant's folders.
func (t Tenant) Folders() *Repo[kanri.Folder, *kanri.Folder] {
	return newRepo[kanri.Folder](t.s, kanri.ContainerFiles, t.id, kanri.TypeFolder)
}

// FolderNames returns the reservations that keep folder names unique
// among siblings, with ids from kanri.FolderNameID.
func (t Tenant) FolderNames() *Repo[kanri.FolderName, *kanri.FolderName] {
	return newRepo[kanri.FolderName](t.s, kanri.ContainerFiles, t.id, kanri.TypeFolderName)
}

// Uploads returns the tenant's resumable uploads in progress.
func (t Tenant) Uploads() *Repo[kanri.Upload, *kanri.Upload] {
	return newRepo[kanri.Upload](t.s, kanri.ContainerFiles, t.id, kanri.TypeUpload)
}

// FileStorage returns the repository of the tenant's storage account (id
// kanri.FileStorageID).
func (t Tenant) FileStorage() *Repo[kanri.FileStorage, *kanri.FileStorage] {
	return newRepo[kanri.FileStorage](t.s, kanri.ContainerFiles, t.id, kanri.TypeFileStorage)
}

// Channels returns the tenant's messaging channels.
func (t Tenant) Channels() *Repo[kanri.Channel, *kanri.Channel] {
	return newRepo[kanri.Channel](t.s, kanri.ContainerMessaging, t.id, kanri.TypeChannel)
}

// Messages returns the tenant's messages.
func (t Tenant) Messages() *Repo[kanri.Message, *kanri.Message] {
	return newRepo[kanri.Message](t.s, kanri.ContainerMessaging, t.id, kanri.TypeMessage)
}

// ChannelMembers returns the tenant's channel memberships.
func (t Tenant) ChannelMembers() *Repo[kanri.ChannelMember, *kanri.ChannelMember] {
	return newRepo[kanri.ChannelMember](t.s, kanri.ContainerMessaging, t.id, kanri.TypeChannelMember)
}

// ChannelNames returns the reservations that keep channel names unique in
// the tenant, with ids from kanri.ChannelNameID.
func (t Tenant) ChannelNames() *Repo[kanri.ChannelName, *kanri.ChannelName] {
	return newRepo[kanri.ChannelName](t.s, kanri.ContainerMessaging, t.id, kanri.TypeChannelName)
}

// Reactions returns the tenant's reactions to messages.
func (t Tenant) Reactions() *Repo[kanri.Reaction, *kanri.Reaction] {
	return newRepo[kanri.Reaction](t.s, kanri.ContainerMessaging, t.id, kanri.TypeReaction)
}

// ChannelDeletions returns the tenant's channels being deleted.
func (t Tenant) ChannelDeletions() *Repo[kanri.ChannelDeletion, *kanri.ChannelDeletion] {
	return newRepo[kanri.ChannelDeletion](t.s, kanri.ContainerMessaging, t.id, kanri.TypeChannelDeletion)
}

// APIKeys returns the tenant's API keys.
func (t Tenant) APIKeys() *Repo[kanri.APIKey, *kanri.APIKey] {
	return newRepo[kanri.APIKey](t.s, kanri.ContainerAPI, t.id, kanri.TypeAPIKey)
}

// APISettings returns the repository of the tenant's API settings (id
// kanri.APISettingsID).
func (t Tenant) APISettings() *Repo[kanri.APISettings, *kanri.APISettings] {
	return newRepo[kanri.APISettings](t.s, kanri.ContainerAPI, t.id, kanri.TypeAPISettings)
}

// APIUsage returns the tenant's API call log.
func (t Tenant) APIUsage() *Repo[kanri.APIUsage, *kanri.APIUsage] {
	return newRepo[kanri.APIUsage](t.s, kanri.ContainerAPI, t.id, kanri.TypeAPIUsage)
}

// APIUsageAggregates returns the tenant's monthly API usage.
func (t Tenant) APIUsageAggregates() *Repo[kanri.APIUsageAggregate, *kanri.APIUsageAggregate] {
	return newRepo[kanri.APIUsageAggregate](t.s, kanri.ContainerAPI, t.id, kanri.TypeAPIUsageAggregate)
}

// BackupJobs returns the tenant's backup jobs.
func (t Tenant) BackupJobs() *Repo[kanri.BackupJob, *kanri.BackupJob] {
	return newRepo[kanri.BackupJob](t.s, kanri.ContainerBackup, t.id, kanri.TypeBackupJob)
}

// BackupHistory returns the tenant's backup runs.
func (t Tenant) BackupHistory() *Repo[kanri.BackupHistory, *kanri.BackupHistory] {
	return newRepo[kanri.BackupHistory](t.s, kanri.ContainerBackup, t.id, kanri.TypeBackupHistory)
}

// BackupRestores returns the tenant's restores of archives.
func (t Tenant) BackupRestores() *Repo[kanri.BackupRestore, *kanri.BackupRestore] {
	return newRepo[kanri.BackupRestore](t.s, kanri.ContainerBackup, t.id, kanri.TypeBackupRestore)
}

// AuditLogs returns the tenant's audit records.
func (t Tenant) AuditLogs() *Repo[kanri.AuditLog, *kanri.AuditLog] {
	return newRepo[kanri.AuditLog](t.s, kanri.ContainerAudit, t.id, kanri.TypeAuditLog)
}

// Batch applies ops atomically in the tenant's partition of one container.
func (t Tenant) Batch(ctx context.Context, container string, ops []docstore.Op) ([]docstore.Result, error) {
	return t.s.ds.Container(container).Batch(ctx, t.id, ops)
}

// System is the _system partition.
type System struct{ s *Store }

// Services returns the service catalog.
func (y System) Services() *Repo[kanri.Service, *kanri.Service] {
	return newRepo[kanri.Service](y.s, kanri.ContainerServiceSetting, kanri.SystemTenantID, kanri.TypeService)
}

// ServiceHealth returns the results of the services' health checks, with
// ids from kanri.ServiceHealthID.
func (y System) ServiceHealth() *Repo[kanri.ServiceHealth, *kanri.ServiceHealth] {
	return newRepo[kanri.ServiceHealth](y.s, kanri.ContainerServiceSetting, kanri.SystemTenantID, kanri.TypeServiceHealth)
}

// DomainClaims returns the claims that keep a verified domain to one
// tenant, with ids from kanri.DomainClaimID.
func (y System) DomainClaims() *Repo[kanri.DomainClaim, *kanri.DomainClaim] {
	return newRepo[kanri.DomainClaim](y.s, kanri.ContainerTenant, kanri.SystemTenantID, kanri.TypeDomainClaim)
}

// CORSOrigins returns the index of the origins tenants list for their
// API, with ids from kanri.CORSOriginID.
func (y System) CORSOrigins() *Repo[kanri.CORSOrigin, *kanri.CORSOrigin] {
	return newRepo[kanri.CORSOrigin](y.s, kanri.ContainerAPI, kanri.SystemTenantID, kanri.TypeCORSOrigin)
}

// RoleDefinitions returns the roles each service offers.
func (y System) RoleDefinitions() *Repo[kanri.ServiceRoleDefinition, *kanri.ServiceRoleDefinition] {
	return newRepo[kanri.ServiceRoleDefinition](y.s, kanri.ContainerAuth, kanri.SystemTenantID, kanri.TypeServiceRoleDefinition)
}

// Privileged holds the operations that read across tenants. Only code
// serving the operator's staff may call them.
type Privileged struct{ s *Store }

// ListTenants returns one page of tenant documents from every partition,
// filtered by q.Where (q.Type is set here; ordering is not available across
// partitions).
func (p Privileged) ListTenants(ctx context.Context, q docstore.Query) ([]*kanri.Tenant, string, error) {
	return Across[kanri.Tenant](ctx, p, kanri.ContainerTenant, kanri.TypeTenant, q)
}

// Across returns one page of the documents of type typ in every partition
// of a container, filtered by q.Where: for the workers of a feature whose
// types the store has no named method for, like Of.
func Across[E any, P Entity[E]](ctx context.Context, p Privileged, container, typ string, q docstore.Query) ([]P, string, error) {
	q.Type = typ
	page, err := p.s.ds.Container(container).QueryAcrossPartitions(ctx, q)
	if err != nil {
		return nil, "", err
	}
	docs, err := newRepo[E, P](p.s, container, "", typ).decodeAll(page.Items)
	return docs, page.Continuation, err
}

// ServiceAssignments returns one page of the assignments of a service in
// every tenant.
func (p Privileged) ServiceAssignments(ctx context.Context, serviceID string, limit int, continuation string) ([]*kanri.ServiceAssignment, string, error) {
	return Across[kanri.ServiceAssignment](ctx, p, kanri.ContainerServiceSetting, kanri.TypeServiceAssignment, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("serviceId", serviceID)}, Limit: limit, Continuation: continuation,
	})
}

// ServiceUsage returns one page of every tenant's service usage in a
// month (period as 2026-01).
func (p Privileged) ServiceUsage(ctx context.Context, period string, limit int, continuation string) ([]*kanri.ServiceUsage, string, error) {
	return Across[kanri.ServiceUsage](ctx, p, kanri.ContainerServiceSetting, kanri.TypeServiceUsage, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("period", period)}, Limit: limit, Continuation: continuation,
	})
}

// VerifiedDomains returns one page of the verified domains of every
// tenant, for their scheduled re-check.
func (p Privileged) VerifiedDomains(ctx context.Context, limit int, continuation string) ([]*kanri.Domain, string, error) {
	return Across[kanri.Domain](ctx, p, kanri.ContainerTenant, kanri.TypeDomain, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("verified", true)}, Limit: limit, Continuation: continuation,
	})
}

// FindActiveTenantByName returns the active tenant with the given name
// (docs/data-model.md, "Tenants"), or ENOTFOUND.
func (p Privileged) FindActiveTenantByName(ctx context.Context, name string) (*kanri.Tenant, error) {
	docs, _, err := p.ListTenants(ctx, docstore.Query{Where: []docstore.Filter{
		docstore.Eq("name", name), docstore.Eq("status", kanri.TenantActive),
	}, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, docstore.ErrNotFound(fmt.Errorf("store: no active tenant is named %q", name))
	}
	return docs[0], nil
}

// UserCountChanges returns one page of the changes of userCount that are
// pending in any tenant, created before the given time (the repair of
// counts left wrong by a crash; see tenant.Service.RepairUserCounts).
func (p Privileged) UserCountChanges(ctx context.Context, before kanri.Time, continuation string) ([]*kanri.UserCountChange, string, error) {
	q := docstore.Query{
		Where:        []docstore.Filter{docstore.Lt("createdAt", before.String())},
		Limit:        100,
		Continuation: continuation,
	}
	return Across[kanri.UserCountChange](ctx, p, kanri.ContainerTenant, kanri.TypeUserCountChange, q)
}

// ExpiredUploads returns one page of the uploads of every tenant that
// expired before the given time, for the worker that gives their
// reservations back.
func (p Privileged) ExpiredUploads(ctx context.Context, before kanri.Time, continuation string) ([]*kanri.Upload, string, error) {
	return Across[kanri.Upload](ctx, p, kanri.ContainerFiles, kanri.TypeUpload, docstore.Query{
		Where: []docstore.Filter{docstore.Lt("expiresAt", before.String())}, Limit: 100, Continuation: continuation,
	})
}

// TrashedFiles returns one page of the files of every tenant that went to
// the trash before the given time, for the worker that empties it.
func (p Privileged) TrashedFiles(ctx context.Context, before kanri.Time, continuation string) ([]*kanri.File, string, error) {
	return Across[kanri.File](ctx, p, kanri.ContainerFiles, kanri.TypeFile, docstore.Query{
		Where: []docstore.Filter{docstore.Gt("deletedAt", ""), docstore.Lt("deletedAt", before.String())}, Limit: 100, Continuation: continuation,
	})
}

// ChannelDeletions returns one page of the channels of every tenant whose
// deletion is not finished, for the worker that finishes it.
func (p Privileged) ChannelDeletions(ctx context.Context, continuation string) ([]*kanri.ChannelDeletion, string, error) {
	return Across[kanri.ChannelDeletion](ctx, p, kanri.ContainerMessaging, kanri.TypeChannelDeletion, docstore.Query{Limit: 100, Continuation: continuation})
}

// DueBackupJobs returns one page of the active backup jobs of every tenant
// whose next run is at or before the given time, for the scheduler.
func (p Privileged) DueBackupJobs(ctx context.Context, at kanri.Time, continuation string) ([]*kanri.BackupJob, string, error) {
	return Across[kanri.BackupJob](ctx, p, kanri.ContainerBackup, kanri.TypeBackupJob, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("isActive", true), docstore.Gt("nextRunAt", ""), docstore.Lte("nextRunAt", at.String())},
		Limit: 100, Continuation: continuation,
	})
}

// BackupJobs returns one page of the backup jobs of every tenant, for the
// hourly report of overdue ones.
func (p Privileged) BackupJobs(ctx context.Context, continuation string) ([]*kanri.BackupJob, string, error) {
	return Across[kanri.BackupJob](ctx, p, kanri.ContainerBackup, kanri.TypeBackupJob, docstore.Query{Limit: 100, Continuation: continuation})
}

// RunningBackups returns one page of the backup runs of every tenant that
// are still marked running, for the sweep of runs a crash interrupted.
func (p Privileged) RunningBackups(ctx context.Context, continuation string) ([]*kanri.BackupHistory, string, error) {
	return Across[kanri.BackupHistory](ctx, p, kanri.ContainerBackup, kanri.TypeBackupHistory, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("status", kanri.BackupRunning)}, Limit: 100, Continuation: continuation,
	})
}

// RunningRestores returns one page of the restores of every tenant that
// are not finished, for the worker that finishes them.
func (p Privileged) RunningRestores(ctx context.Context, continuation string) ([]*kanri.BackupRestore, string, error) {
	return Across[kanri.BackupRestore](ctx, p, kanri.ContainerBackup, kanri.TypeBackupRestore, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("status", kanri.RestoreRunning)}, Limit: 100, Continuation: continuation,
	})
}

// Files returns one page of the files of every tenant, for the cleanup of
// files whose blob is gone.
func (p Privileged) Files(ctx context.Context, limit int, continuation string) ([]*kanri.File, string, error) {
	return Across[kanri.File](ctx, p, kanri.ContainerFiles, kanri.TypeFile, docstore.Query{Limit: limit, Continuation: continuation})
}

// Of returns a repository of documents of type typ in the tenant's
// partition of a container. It is for index documents that the domain does
// not expose through a named method.
func Of[E any, P Entity[E]](t Tenant, container, typ string) *Repo[E, P] {
	return newRepo[E, P](t.s, container, t.id, typ)
}

// Each passes every document of a tenant's partition whose type is
// declared to fn, once, with its declaration, and returns how many it
// passed: the walk of the erasure and the batch migration. Cosmos DB's
// dump passes a document written while it ran again, at its newer
// version; Each passes the first, so a caller that writes must do so at
// the ETag it was given and read again on a conflict. fn must not keep
// it.Body.
func (s *Store) Each(ctx context.Context, tenantID string, fn func(container string, t doctype.Type, it docstore.Item) error) (int, error) {
	var containers []string
	for _, sp := range s.types.Specs() {
		containers = append(containers, sp.Name)
	}
	seen := map[string]bool{}
	_, err := s.ds.Dump(ctx, tenantID, containers, func(container string, it docstore.Item) error {
		var hd struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(it.Body, &hd); err != nil {
			return fmt.Errorf("%s/%s: %w", container, it.ID, err)
		}
		t, ok := s.types.Lookup(container, hd.Type)
		key := container + "\x00" + it.ID
		if !ok || seen[key] {
			return nil
		}
		seen[key] = true
		return fn(container, t, it)
	})
	return len(seen), err
}
