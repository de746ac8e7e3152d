// Package backup backs up a tenant's data into the blob store on a
// schedule, keeps the archives for a job's retention, and restores them,
// into the tenant or into a new one.
//
// An archive is a folder of blobs (see archive.go and docs/backups.md): a
// manifest, written last, and one gzip-compressed NDJSON file per part.
// File contents are kept once per tenant under their SHA-256, so an
// archive references what an earlier one already kept.
//
// Runs are claimed through the scheduler (one instance runs each slot of a
// job), and a tenant has one backup or restore at a time: both hold the
// tenant's "backup" lease while they run.
package backup

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/schedule"
	"github.com/kanri/kanri/internal/seal"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
)

// Limits of a job's fields.
const (
	maxName        = 100
	maxDescription = 500
	maxRetention   = 3650
)

// leaseName is the tenant's lease that backups and restores hold.
const leaseName = "backup"

// leaseTerm is how long a backup or restore's lease lasts unless renewed;
// a crashed instance's run is taken over (and marked failed) after it.
const leaseTerm = 2 * time.Minute

// Service manages a tenant's backup jobs, runs and restores.
type Service struct {
	app.Deps
	blobs   *blob.Bucket
	sched   *schedule.Scheduler
	bus     events.Bus
	tenants *tenant.Service
	// keys seal the archives and open them.
	keys *seal.Keys
	// dump reads a partition for an archive (the store's Dump).
	dump    func(ctx context.Context, pk string, containers []string, fn func(string, docstore.Item) error) (bool, error)
	mu      sync.Mutex
	bg      context.Context
	running sync.WaitGroup
	// dryRunning are the dry runs this instance computes; a page waits
	// dryRunWait for one it started; each writes its progress every
	// dryRunBeat.
	dryRunning dryRunning
	dryRunWait time.Duration
	dryRunBeat time.Duration
	// beforePart, when set, is called before each part's documents are
	// restored (tests interrupt restores with it).
	beforePart func(part string) error
	// restored are called after a restore's documents are written (see
	// OnRestored).
	restored []func(ctx context.Context, tenantID, sourceID string) error
}

// OnRestored has fn called after each restore has written its documents
// into tenantID from an archive of sourceID (the same tenant, or the
// tenant restored into a new one), before it counts the users and the
// storage: erasure applies the tenant's erasure list again with it. fn is
// called again when a restore is attempted again, so it must converge.
func (s *Service) OnRestored(fn func(ctx context.Context, tenantID, sourceID string) error) {
	s.restored = append(s.restored, fn)
}

// New returns the backup service over d, keeping archives in blobs,
// sealed with keys.
func New(d app.Deps, blobs *blob.Bucket, keys *seal.Keys, sched *schedule.Scheduler, bus events.Bus, tenants *tenant.Service) *Service {
	s := &Service{Deps: d, blobs: blobs, keys: keys, sched: sched, bus: bus, tenants: tenants, dump: d.Store.Port().Dump, bg: context.Background(), dryRunWait: dryRunWait, dryRunBeat: time.Second}
	tenants.OnZoneChange(s.Reschedule)
	return s
}

// Run is the backups' worker: it runs due backups every poll, marks failed
// the runs a stopped instance left, and finishes interrupted restores,
// until ctx ends; then it cancels the backups and restores running in the
// background and waits for them.
func (s *Service) Run(ctx context.Context, poll time.Duration) error {
	s.mu.Lock()
	s.bg = ctx
	s.mu.Unlock()
	defer s.running.Wait()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if _, err := s.FailAbandoned(ctx, false); err != nil && ctx.Err() == nil {
			s.Logger.Error("backups: sweep of interrupted runs", "err", err)
		}
		if err := s.ResumeRestores(ctx); err != nil && ctx.Err() == nil {
			s.Logger.Error("backups: finishing interrupted restores", "err", err)
		}
		if err := s.RunDue(ctx); err != nil && ctx.Err() == nil {
			s.Logger.Error("backups: due runs", "err", err)
		}
		if err := s.reportOverdue(ctx); err != nil && ctx.Err() == nil {
			s.Logger.Error("backups: report of overdue jobs", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func newID(prefix string) string { return prefix + strings.ReplaceAll(uuid.NewString(), "-", "") }

// Location returns the time zone the tenant's schedules are read in.
func (s *Service) Location(ctx context.Context, tenantID string) (*time.Location, error) {
	t, err := s.Store.Tenant(tenantID).Profile(ctx)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return (&kanri.Tenant{}).Location(), nil
	}
	if err != nil {
		return nil, err
	}
	return t.Location(), nil
}

// Reschedule moves the next run of every job of the tenant to its
// schedule read in loc: the tenants service calls it when the tenant's
// time zone changes. Running it again changes nothing.
func (s *Service) Reschedule(ctx context.Context, tenantID string, loc *time.Location) error {
	jobs, err := s.allJobs(ctx, tenantID)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if _, err := s.Store.Tenant(tenantID).BackupJobs().Modify(ctx, j.ID, nil, func(j *kanri.BackupJob) error {
			j.NextRunAt = s.nextRun(j, loc)
			return nil
		}); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
	}
	return nil
}

// check normalises in and returns its field errors, with the parsed
// schedule.
func check(in *Input) (*schedule.Cron, error) {
	in.Name, in.Description, in.Schedule = strings.TrimSpace(in.Name), strings.TrimSpace(in.Description), strings.TrimSpace(in.Schedule)
	f := kanri.Fields{}
	switch {
	case in.Name == "":
		f["name"] = "validation.required"
	case utf8.RuneCountInString(in.Name) > maxName:
		f["name"] = "validation.too_long"
	case kanri.HasHidden(in.Name, false):
		f["name"] = "validation.hidden_chars"
	}
	switch {
	case utf8.RuneCountInString(in.Description) > maxDescription:
		f["description"] = "validation.too_long"
	case kanri.HasHidden(in.Description, true):
		f["description"] = "validation.hidden_chars"
	}
	cron, err := schedule.ParseCron(in.Schedule)
	if err != nil {
		f["schedule"] = "backups.error.schedule"
	}
	if parts := kanri.BackupParts(strings.Join(in.Parts, ",")); len(parts) == 0 || len(parts) != len(in.Parts) {
		f["parts"] = "backups.error.parts"
	}
	if in.RetentionDays < 1 || in.RetentionDays > maxRetention {
		f["retentionDays"] = "backups.error.retention"
	}
	return cron, f.Err()
}

// Input is what the job form edits.
type Input = kanri.BackupJobInput

// cronFields are the fields of a schedule, in order, with their ranges
// and the names they also take.
var cronFields = []struct {
	name     string
	min, max int
	names    []string
}{
	{"minute", 0, 59, nil},
	{"hour", 0, 23, nil},
	{"day", 1, 31, nil},
	{"month", 1, 12, []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}},
	{"weekday", 0, 7, []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}},
}

// ScheduleError explains why a schedule does not parse, as a message key
// of the catalog and its arguments ("" when it parses): which field holds
// what it cannot take, rather than the cron library's English.
func ScheduleError(spec string) (string, []any) {
	if _, err := schedule.ParseCron(spec); err == nil {
		return "", nil
	}
	fields := strings.Fields(spec)
	if len(fields) != len(cronFields) {
		return "backups.cron_fields", []any{len(fields)}
	}
	for i, field := range fields {
		f := cronFields[i]
		for _, part := range strings.Split(field, ",") {
			rng, step, stepped := strings.Cut(part, "/")
			if stepped {
				if n, err := strconv.Atoi(step); err != nil || n < 1 {
					return "backups.cron_step", []any{part, "backups.cron_" + f.name}
				}
			}
			if rng == "*" {
				continue
			}
			vals := []string{rng}
			if lo, hi, ranged := strings.Cut(rng, "-"); ranged {
				vals = []string{lo, hi}
			}
			for _, v := range vals {
				if slices.Contains(f.names, strings.ToLower(v)) {
					continue
				}
				n, err := strconv.Atoi(v)
				if err != nil {
					return "backups.cron_value", []any{v, "backups.cron_" + f.name}
				}
				if n < f.min || n > f.max {
					return "backups.cron_range", []any{n, "backups.cron_" + f.name, f.min, f.max}
				}
			}
		}
	}
	return "backups.cron_other", nil
}

// NextRuns returns the next n times the schedule runs after now, in loc;
// nil when it does not parse.
func (s *Service) NextRuns(spec string, loc *time.Location, n int) []time.Time {
	c, err := schedule.ParseCron(spec)
	if err != nil {
		return nil
	}
	return c.NextN(s.Now(), loc, n)
}

// nextRun returns the job's next run after now: zero when it is paused.
func (s *Service) nextRun(j *kanri.BackupJob, loc *time.Location) kanri.Time {
	c, err := schedule.ParseCron(j.Schedule)
	if err != nil || !j.IsActive {
		return kanri.Time{}
	}
	return kanri.NewTime(c.Next(s.Now(), loc))
}

func jobFields(j *kanri.BackupJob) map[string]any {
	return map[string]any{
		"name": j.Name, "description": j.Description, "schedule": j.Schedule, "target": j.Target,
		"retentionDays": j.RetentionDays, "isActive": j.IsActive,
	}
}

func (s *Service) recordJob(ctx context.Context, tenantID string, j *kanri.BackupJob, action string, before, after map[string]any) {
	s.Audit.Change(ctx, tenantID, action, kanri.AuditResource{Type: kanri.AuditBackupJob, ID: j.ID, Name: j.Name}, before, after)
}

// CreateJob adds a job.
func (s *Service) CreateJob(ctx context.Context, tenantID string, in Input) (*kanri.BackupJob, error) {
	if _, err := check(&in); err != nil {
		return nil, err
	}
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	loc, err := s.Location(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	now := kanri.NewTime(s.Now())
	j := &kanri.BackupJob{
		Doc:  kanri.Doc{ID: newID("job_")},
		Name: in.Name, Description: in.Description, Schedule: strings.Join(strings.Fields(in.Schedule), " "),
		Target: kanri.BackupTarget(in.Parts), RetentionDays: in.RetentionDays, IsActive: in.IsActive,
		CreatedBy: audit.ActorFrom(ctx).UserID, CreatedAt: now, UpdatedAt: now,
	}
	j.NextRunAt = s.nextRun(j, loc)
	ten := s.Store.Tenant(tenantID)
	limit, err := store.CountLimit(ctx, ten, kanri.BackupServiceID, "maxJobs")
	if err != nil {
		return nil, err
	}
	jobs := ten.BackupJobs()
	if limit == 0 {
		err = jobs.Create(ctx, j)
	} else {
		var op docstore.Op
		var res []docstore.Result
		if op, err = jobs.Op(docstore.OpCreate, j); err == nil {
			res, err = store.CreateWithin(ctx, ten, kanri.ContainerBackup, "backup_jobs", limit, kanri.E(kanri.ECONFLICT, "backups.limit_reached", limit),
				func() (int, error) {
					js, _, err := jobs.Query(ctx, docstore.Query{Limit: limit})
					return len(js), err
				}, []docstore.Op{op})
		}
		if err == nil {
			j.ETag = res[0].ETag
		}
	}
	if err != nil {
		return nil, err
	}
	s.recordJob(ctx, tenantID, j, "backup_job.create", nil, jobFields(j))
	return j, nil
}

// Job returns one job.
func (s *Service) Job(ctx context.Context, tenantID, id string) (*kanri.BackupJob, error) {
	if !strings.HasPrefix(id, "job_") {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.Store.Tenant(tenantID).BackupJobs().Get(ctx, id)
}

// UpdateJob changes a job as seen.
func (s *Service) UpdateJob(ctx context.Context, tenantID, id string, in Input, seen kanri.Seen) (*kanri.BackupJob, error) {
	if _, err := check(&in); err != nil {
		return nil, err
	}
	return s.changeJob(ctx, tenantID, id, seen, "backup_job.update", func(j *kanri.BackupJob) {
		j.Name, j.Description, j.Schedule = in.Name, in.Description, strings.Join(strings.Fields(in.Schedule), " ")
		j.Target, j.RetentionDays, j.IsActive = kanri.BackupTarget(in.Parts), in.RetentionDays, in.IsActive
	})
}

// SetActive pauses (false) or resumes (true) a job.
func (s *Service) SetActive(ctx context.Context, tenantID, id string, active bool, seen kanri.Seen) (*kanri.BackupJob, error) {
	action := "backup_job.pause"
	if active {
		action = "backup_job.resume"
	}
	return s.changeJob(ctx, tenantID, id, seen, action, func(j *kanri.BackupJob) { j.IsActive = active })
}

func (s *Service) changeJob(ctx context.Context, tenantID, id string, seen kanri.Seen, action string, change func(*kanri.BackupJob)) (*kanri.BackupJob, error) {
	loc, err := s.Location(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	j, err := s.Job(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if seen.Stale(j.ETag, j.State()) {
		return nil, kanri.Stale()
	}
	before := jobFields(j)
	change(j)
	j.UpdatedAt = kanri.NewTime(s.Now())
	j.NextRunAt = s.nextRun(j, loc)
	if err := s.Store.Tenant(tenantID).BackupJobs().Replace(ctx, j); err != nil {
		if kanri.IsCode(err, kanri.ESTALE) {
			return nil, kanri.Stale()
		}
		return nil, err
	}
	s.recordJob(ctx, tenantID, j, action, before, jobFields(j))
	return j, nil
}

// DeleteJob removes a job. Its history and archives stay until their own
// retention: they are what a restore needs.
func (s *Service) DeleteJob(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.BackupJob, error) {
	j, err := s.Job(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if seen.Stale(j.ETag, j.State()) {
		return nil, kanri.Stale()
	}
	if err := s.Store.Tenant(tenantID).BackupJobs().Delete(ctx, j.ID, j.ETag); err != nil {
		if kanri.IsCode(err, kanri.ESTALE) {
			return nil, kanri.Stale()
		}
		return nil, err
	}
	s.recordJob(ctx, tenantID, j, "backup_job.delete", jobFields(j), nil)
	return j, nil
}

// Jobs returns one page of the tenant's jobs by name.
func (s *Service) Jobs(ctx context.Context, tenantID string, limit int, continuation string) ([]*kanri.BackupJob, string, error) {
	return s.Store.Tenant(tenantID).BackupJobs().Query(ctx, docstore.Query{OrderBy: "name", Limit: limit, Continuation: continuation})
}

// allJobs returns every job of the tenant (a tenant has a handful).
func (s *Service) allJobs(ctx context.Context, tenantID string) ([]*kanri.BackupJob, error) {
	return s.Store.Tenant(tenantID).BackupJobs().All(ctx, docstore.Query{OrderBy: "name", Limit: docstore.MaxPageSize})
}

// Alert is something about a tenant's backups that needs a person: a job
// whose last run failed, or that has not succeeded for longer than twice
// its schedule's interval.
type Alert struct {
	Job *kanri.BackupJob
	// Kind is "failed" or "overdue".
	Kind string
	// Since is the last success (zero when there never was one).
	Since time.Time
}

// Alerts returns the tenant's backup alerts.
func (s *Service) Alerts(ctx context.Context, tenantID string) ([]Alert, error) {
	jobs, err := s.allJobs(ctx, tenantID)
	if err != nil || len(jobs) == 0 {
		return nil, err // no jobs, no alerts: the tenant's time zone is not read
	}
	loc, err := s.Location(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	var out []Alert
	for _, j := range jobs {
		if a, ok := s.alertOf(j, loc); ok {
			out = append(out, a)
		}
	}
	return out, nil
}

func (s *Service) alertOf(j *kanri.BackupJob, loc *time.Location) (Alert, bool) {
	if j.LastStatus == kanri.BackupFailed {
		return Alert{Job: j, Kind: "failed", Since: j.LastSuccessAt.Time}, true
	}
	if !j.IsActive {
		return Alert{}, false
	}
	c, err := schedule.ParseCron(j.Schedule)
	if err != nil {
		return Alert{}, false
	}
	since := j.LastSuccessAt.Time
	if since.IsZero() {
		since = j.CreatedAt.Time
	}
	if gap := c.Interval(since, loc); gap > 0 && s.Now().Sub(since) > 2*gap {
		return Alert{Job: j, Kind: "overdue", Since: j.LastSuccessAt.Time}, true
	}
	return Alert{}, false
}

// AlertsOf returns the backup alerts of the tenants ids (a page of the
// operator's tenant list), by tenant id: one query of each tenant's jobs,
// a few tenants at a time.
func (s *Service) AlertsOf(ctx context.Context, ids []string) (map[string][]Alert, error) {
	out := make(map[string][]Alert, len(ids))
	var mu sync.Mutex
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, id := range ids {
		g.Go(func() error {
			as, err := s.Alerts(ctx, id)
			if err != nil || len(as) == 0 {
				return err
			}
			mu.Lock()
			out[id] = as
			mu.Unlock()
			return nil
		})
	}
	return out, g.Wait()
}

// String is the alert for logs.
func (a Alert) String() string { return fmt.Sprintf("%s: %s", a.Job.Name, a.Kind) }

// reportOverdue logs at error level, once an hour across instances, every
// job that failed or has not succeeded for more than twice its schedule's
// interval, so that the operator's alerting hears of it.
func (s *Service) reportOverdue(ctx context.Context) error {
	ok, err := s.sched.Claim(ctx, schedule.System, "backup-report", s.Now().Truncate(time.Hour))
	if err != nil || !ok {
		return err
	}
	locs := map[string]*time.Location{} // one read of each tenant, not of each job
	next := ""
	for {
		jobs, n, err := s.Store.Privileged().BackupJobs(ctx, next)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			loc := locs[j.TenantID]
			if loc == nil {
				if loc, err = s.Location(ctx, j.TenantID); err != nil {
					return err
				}
				locs[j.TenantID] = loc
			}
			if a, ok := s.alertOf(j, loc); ok {
				s.Logger.Error("backup job needs attention", "tenant", j.TenantID, "job", j.ID, "name", j.Name, "alert", a.Kind, "lastSuccess", j.LastSuccessAt)
			}
		}
		if next = n; next == "" {
			return nil
		}
	}
}
