// Package wiring builds Kanri's core services over one store: those that
// several features call, which a feature's Start (cmd/kanri/features)
// receives. It is the one constructor that cmd/kanri and the tests share.
package wiring

import (
	"context"
	"crypto/rand"
	"log/slog"
	"time"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/archive"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/catalog"
	"github.com/kanri/kanri/internal/emaildomain"
	"github.com/kanri/kanri/internal/erasure"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/export"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/pause"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/schedule"
	"github.com/kanri/kanri/internal/scim"
	"github.com/kanri/kanri/internal/seal"
	"github.com/kanri/kanri/internal/sso"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/support"
	"github.com/kanri/kanri/internal/telemetry"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/user"
	"github.com/kanri/kanri/internal/userimport"
	"github.com/kanri/kanri/internal/webhook"
)

// Set is every application service, as the handlers and workers call them.
type Set struct {
	// Deps are the store, audit log, logger and clock the services share.
	Deps app.Deps
	// Metrics count what the server does, for its operators (nil counts
	// nothing): the services tell of theirs through the audit log's and
	// the scheduler's observers, the HTTP layer of its own.
	Metrics *telemetry.Metrics
	Tenants *tenant.Service
	Users   *user.Service
	Auth    *auth.Service
	Roles   *role.Service
	// Catalog is the service catalog, the tenants' service assignments
	// and their usage.
	Catalog *catalog.Service
	// Domains are the tenants' e-mail domains.
	Domains *emaildomain.Service
	// Keys are the tenants' API keys; Limiter holds their rate limits and
	// Usage logs their calls.
	Keys    *apikey.Service
	Limiter *apikey.Limiter
	Usage   *apikey.Recorder
	// Files are the tenants' files and folders.
	Files *files.Service
	// Messaging is the tenants' channels and messages.
	Messaging *messaging.Service
	// Events carry what happens in a tenant to its open pages.
	Events events.Bus
	// Scheduler claims the runs of work that must happen once across
	// instances.
	Scheduler *schedule.Scheduler
	// Backups are the tenants' backup jobs, archives and restores.
	Backups *backup.Service
	// Erasure erases and exports a person's data; every restore applies
	// the tenant's erasure list again.
	Erasure *erasure.Service
	// Archives move the tenants' records to the blob store's archive tier
	// before they expire; an erasure reaches them too.
	Archives *archive.Service
	// Support opens a tenant to the operator's support staff as one of its
	// users.
	Support *support.Service
	// SSO signs the tenants' users in with their own identity providers.
	SSO *sso.Service
	// SCIM provisions the tenants' users from their identity providers.
	SCIM *scim.Service
	// Imports import the tenants' users from CSV files; Exports write
	// their lists as CSV and JSON.
	Imports *userimport.Service
	Exports *export.Service
	// Webhooks send the tenants' audit records to the endpoints they
	// register.
	Webhooks *webhook.Service
}

// Options are the settings of the services.
type Options struct {
	// Roles is the catalog of Kanri's services and their roles, from the
	// features' offers (features.Roles).
	Roles *role.Catalog
	// Hasher hashes passwords (bcrypt cost 12 in production; lower in
	// tests that do not test bcrypt).
	Hasher auth.Hasher
	// DNSServer is the server domain verification asks ("" for the
	// system's).
	DNSServer string
	// UsageQueue is how many API calls may wait to be logged; more are
	// counted as lost.
	UsageQueue int
	// UsageFlush is how long a logged API call may wait to be written (0:
	// the recorder's default).
	UsageFlush time.Duration
	// Blobs store the contents of files.
	Blobs *blob.Bucket
	// ArchiveKeys seal the backup archives; when nil, a key of this
	// process (its archives do not outlive it: for tests).
	ArchiveKeys *seal.Keys
	// Events carry what happens in a tenant to its open pages, on every
	// instance; an in-process bus when nil (one instance).
	Events events.Bus
	// Scheduler claims runs and leases; when nil, one over st named after
	// the host and process.
	Scheduler *schedule.Scheduler
	// TwoFactorKey seals the TOTP secrets (32 bytes); when nil, a random
	// key of this process (enrolments do not outlive it: for tests).
	TwoFactorKey []byte
	// RepairGrace is how old a pending change of a user count must be
	// before the repair settles it; HealthInterval how often the catalog's
	// services are checked, DomainRecheck how often verified domains are
	// looked up again (0: never).
	RepairGrace, HealthInterval, DomainRecheck time.Duration
	// SSOAllowPrivate lets the tenants' identity providers be at
	// loopback and private addresses, over plain HTTP: for local testing
	// only (sso.NewClient).
	SSOAllowPrivate bool
	// WebhookAllowPrivate lets the tenants' webhook endpoints be at
	// loopback and private addresses, over plain HTTP: for local testing
	// only (netguard).
	WebhookAllowPrivate bool
	// Metrics count what the services do (sign-ins, audit records,
	// scheduled runs); nil counts nothing.
	Metrics *telemetry.Metrics
}

// New builds every service over st. A nil log is slog.Default and a nil
// now is time.Now. It reads and writes nothing: seeding the catalog and
// bootstrapping are the caller's steps.
func New(st *store.Store, log *slog.Logger, now func() time.Time, o Options) *Set {
	d := app.NewDeps(st, log, now)
	if o.Metrics != nil {
		d.Audit.Observe(func(e audit.Entry) { o.Metrics.Audited(e.Action) })
	}
	s := &Set{Deps: d, Metrics: o.Metrics, Tenants: tenant.New(d), Roles: role.New(d, o.Roles), Catalog: catalog.New(d, o.Roles), Keys: apikey.New(d)}
	s.Users = user.New(d, s.Tenants, s.Roles, o.Hasher)
	s.Auth = auth.New(d, o.Hasher)
	key := o.TwoFactorKey
	if key == nil {
		key = make([]byte, 32)
		rand.Read(key)
	}
	sealer, err := auth.NewSealer(key)
	if err != nil {
		panic(err) // the caller checked the key's length
	}
	s.Auth.SetSealer(sealer)
	s.Tenants.RepairGrace, s.Catalog.HealthInterval = o.RepairGrace, o.HealthInterval
	s.Domains = emaildomain.New(d, emaildomain.NewResolver(o.DNSServer))
	s.Domains.RecheckInterval = o.DomainRecheck
	s.Limiter = apikey.NewLimiter(st, d.Now)
	s.Usage = apikey.NewRecorder(st, s.Keys, s.Catalog, d.Logger, o.UsageQueue)
	s.Files = files.New(d, o.Blobs, s.Catalog)
	s.Events = o.Events
	if s.Events == nil {
		s.Events = events.NewLocal()
	}
	s.Messaging = messaging.New(d, s.Events, s.Files)
	d.Audit.Observe(tellStreams(s.Events, d.Logger))
	s.Scheduler = o.Scheduler
	if s.Scheduler == nil {
		s.Scheduler = schedule.New(st.Port(), schedule.InstanceName(), clock{d.Now})
	}
	if o.Metrics != nil {
		s.Scheduler.CountRuns(o.Metrics.ScheduledRun)
	}
	keys := o.ArchiveKeys
	if keys == nil {
		keys = seal.Generated()
	}
	s.Backups = backup.New(d, o.Blobs, keys, s.Scheduler, s.Events, s.Tenants)
	s.Erasure = erasure.New(d, s.Users, s.Keys, s.Files, o.Blobs)
	s.Backups.OnRestored(s.Erasure.Reapply)
	s.Archives = archive.New(d, s.Tenants, o.Blobs, keys, s.Scheduler)
	s.Support = &support.Service{Deps: d, Tenants: s.Tenants, Users: s.Users, Auth: s.Auth, Roles: s.Roles}
	s.SSO = sso.New(d, s.Tenants, s.Users, s.Auth, s.Roles, s.Domains, sso.NewClient(o.SSOAllowPrivate))
	s.SSO.AllowInsecure = o.SSOAllowPrivate
	s.SCIM = scim.New(d, s.Users, s.Roles)
	s.Erasure.OnErased(s.Archives.Erased)
	s.Imports = userimport.New(d, s.Users, s.Roles, o.Blobs)
	s.Exports = export.New(st, s.Users, d.Audit)
	s.Webhooks = webhook.New(d, sealer, o.Blobs, o.WebhookAllowPrivate)
	// The daily audit files hold people's names as the records held them:
	// an erasure has them written again from the pseudonymised records.
	s.Erasure.OnErased(func(ctx context.Context, tenantID string, _ erasure.Person) error {
		return s.Webhooks.ForgetAuditFiles(ctx, tenantID)
	})
	// An import's file and results name people: an erasure deletes the
	// tenant's imports.
	s.Erasure.OnErased(func(ctx context.Context, tenantID string, _ erasure.Person) error {
		return s.Imports.Forget(ctx, tenantID)
	})
	// A restore's dry run lists changed documents by name: an erasure
	// deletes the tenant's.
	s.Erasure.OnErased(func(ctx context.Context, tenantID string, _ erasure.Person) error {
		return s.Backups.ForgetDryRuns(ctx, tenantID)
	})
	if o.UsageFlush > 0 {
		s.Usage.FlushEvery = o.UsageFlush
	}
	return s
}

// clock is the scheduler's clock over the services' now: it waits, on
// the system's timers, for as long as until is ahead of now.
type clock struct{ now func() time.Time }

func (c clock) Now() time.Time { return c.now() }

func (c clock) Sleep(ctx context.Context, until time.Time) error {
	return pause.For(ctx, until.Sub(c.now()))
}
