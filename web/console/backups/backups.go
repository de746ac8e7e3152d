package backups

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/backup"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
	"github.com/kanri/kanri/web/live"
)

// nextRunsShown is how many of a schedule's next runs the job form shows.
const nextRunsShown = 5

// listBackups shows the tenant's backups page.
func (s *Pages) listBackups(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	loc, err := s.Backups.Location(ctx, t.ID)
	if err != nil {
		return err
	}
	v := views.BackupsView{Location: loc, Zone: loc.String()}
	jobs, _, err := s.Backups.Jobs(ctx, t.ID, 100, "")
	if err != nil {
		return err
	}
	for _, j := range jobs {
		row := views.BackupJobRow{Job: j}
		if j.IsActive {
			row.Next = []time.Time{j.NextRunAt.Time}
		}
		v.Jobs = append(v.Jobs, row)
	}
	alerts, err := s.Backups.Alerts(ctx, t.ID)
	if err != nil {
		return err
	}
	for _, a := range alerts {
		v.Alerts = append(v.Alerts, views.BackupAlert{Job: a.Job, Kind: a.Kind, Since: kanri.NewTime(a.Since)})
	}
	if v.ErasedAt, err = s.Erasure.LastErasure(ctx, t.ID); err != nil {
		return err
	}
	if v.Recent, _, err = s.Backups.Histories(ctx, t.ID, "", 5, ""); err != nil {
		return err
	}
	if v.Restore, err = s.Backups.LatestRestore(ctx, t.ID); err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.BackupsPage(s.backupsPage(c, "backups.title"), v))
}

// backupJobForm reads the job form.
func backupJobForm(c echo.Context) kanri.BackupJobInput {
	form, _ := c.FormParams()
	days, err := strconv.Atoi(strings.TrimSpace(c.FormValue("retentionDays")))
	if err != nil {
		days = 0
	}
	return kanri.BackupJobInput{
		Name: c.FormValue("name"), Description: c.FormValue("description"), Schedule: c.FormValue("schedule"),
		Parts: form["parts"], RetentionDays: days, IsActive: c.FormValue("isActive") == "1",
	}
}

// showBackupJobForm renders the job form with its next runs.
func (s *Pages) showBackupJobForm(c echo.Context, status int, j *kanri.BackupJob, in kanri.BackupJobInput, errs views.Errors) error {
	loc, err := s.Backups.Location(c.Request().Context(), httpkit.Tenant(c).ID)
	if err != nil {
		return err
	}
	f := views.BackupJobForm{Job: j, Input: in, Errors: errs, Location: loc, Next: s.Backups.NextRuns(in.Schedule, loc, nextRunsShown)}
	if errs["schedule"] != "" {
		f.ScheduleDetail = scheduleError(c.Request().Context(), in.Schedule)
	}
	title := "backups.new_job"
	if j != nil {
		title = "backups.edit_job_title"
	}
	return httpkit.Render(c, status, views.BackupJobFormPage(s.Page(c, title, "backups"), f))
}

// newBackupJob shows the form of a new job: daily at 03:00, everything,
// kept 30 days.
func (s *Pages) newBackupJob(c echo.Context) error {
	return s.showBackupJobForm(c, http.StatusOK, nil, kanri.BackupJobInput{
		Schedule: "0 3 * * *", Parts: kanri.AllBackupParts, RetentionDays: 30, IsActive: true,
	}, nil)
}

// backupJobFailed shows the form again with the input and its errors.
func (s *Pages) backupJobFailed(c echo.Context, j *kanri.BackupJob, in kanri.BackupJobInput, err error) error {
	status, errs := http.StatusUnprocessableEntity, views.Errors(kanri.ErrorFields(err))
	switch {
	case kanri.IsCode(err, kanri.ESTALE):
		status, errs = http.StatusConflict, views.Errors{"_form": "stale.title"}
	case kanri.IsCode(err, kanri.ECONFLICT) && j == nil:
		// The tenant has its most jobs: said on the form, input kept.
		status, errs = http.StatusConflict, views.Errors{"_form": httpkit.Message(c.Request().Context(), err, "error.title")}
	case !kanri.IsCode(err, kanri.EINVALID):
		return err
	}
	return s.showBackupJobForm(c, status, j, in, errs)
}

// createBackupJob adds a job.
func (s *Pages) createBackupJob(c echo.Context) error {
	t, in := httpkit.Tenant(c), backupJobForm(c)
	j, err := s.Backups.CreateJob(c.Request().Context(), t.ID, in)
	if err != nil {
		return s.backupJobFailed(c, nil, in, err)
	}
	return s.Report(c, views.BackupsPath(t.ID), "backups.job_created", j.Name)
}

// editBackupJob shows a job's form.
func (s *Pages) editBackupJob(c echo.Context) error {
	j, err := s.Backups.Job(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("job"))
	if err != nil {
		return err
	}
	in := kanri.BackupJobInput{Name: j.Name, Description: j.Description, Schedule: j.Schedule, Parts: j.Parts(), RetentionDays: j.RetentionDays, IsActive: j.IsActive}
	return s.showBackupJobForm(c, http.StatusOK, j, in, nil)
}

// updateBackupJob saves a job's form.
func (s *Pages) updateBackupJob(c echo.Context) error {
	ctx, t, in := c.Request().Context(), httpkit.Tenant(c), backupJobForm(c)
	j, err := s.Backups.UpdateJob(ctx, t.ID, c.Param("job"), in, console.Seen(c))
	if err == nil {
		return s.Report(c, views.BackupsPath(t.ID), "backups.job_updated", j.Name)
	}
	cur, gerr := s.Backups.Job(ctx, t.ID, c.Param("job"))
	if gerr != nil {
		return gerr
	}
	if kanri.IsCode(err, kanri.ESTALE) {
		cur.ETag = "" // the form shows what is there now; saving again overwrites it knowingly
	}
	return s.backupJobFailed(c, cur, in, err)
}

// pauseBackupJob and resumeBackupJob stop and restart a job's schedule.
func (s *Pages) pauseBackupJob(c echo.Context) error  { return s.setBackupJobActive(c, false) }
func (s *Pages) resumeBackupJob(c echo.Context) error { return s.setBackupJobActive(c, true) }

func (s *Pages) setBackupJobActive(c echo.Context, active bool) error {
	t := httpkit.Tenant(c)
	key := "backups.job_paused"
	if active {
		key = "backups.job_resumed"
	}
	return s.Action(c, key, views.BackupsPath(t.ID), func(seen kanri.Seen) (string, error) {
		j, err := s.Backups.SetActive(c.Request().Context(), t.ID, c.Param("job"), active, seen)
		if err != nil {
			return "", err
		}
		return j.Name, nil
	})
}

// deleteBackupJob removes a job; its runs and archives stay.
func (s *Pages) deleteBackupJob(c echo.Context) error {
	t := httpkit.Tenant(c)
	return s.Action(c, "backups.job_deleted", views.BackupsPath(t.ID), func(seen kanri.Seen) (string, error) {
		j, err := s.Backups.DeleteJob(c.Request().Context(), t.ID, c.Param("job"), seen)
		if err != nil {
			return "", err
		}
		return j.Name, nil
	})
}

// runBackupJob starts a backup of the job now.
func (s *Pages) runBackupJob(c echo.Context) error {
	t := httpkit.Tenant(c)
	h, err := s.Backups.RunNow(c.Request().Context(), t.ID, c.Param("job"))
	if err != nil {
		return err
	}
	return s.Report(c, views.BackupsPath(t.ID), "backups.run_started", h.JobName)
}

// scheduleError says in the person's language what is wrong with a
// schedule that does not parse (backup.ScheduleError), "" when nothing.
func scheduleError(ctx context.Context, spec string) string {
	key, args := backup.ScheduleError(spec)
	if key == "" {
		return ""
	}
	for i, a := range args {
		if k, ok := a.(string); ok && strings.HasPrefix(k, "backups.cron_") {
			args[i] = i18n.T(ctx, k) // the field's name
		}
	}
	return i18n.T(ctx, key, args...)
}

// schedulePreview answers the job form's schedule field with the next
// runs, or why the schedule does not parse.
func (s *Pages) schedulePreview(c echo.Context) error {
	spec := c.QueryParam("schedule")
	loc, err := s.Backups.Location(c.Request().Context(), httpkit.Tenant(c).ID)
	if err != nil {
		return err
	}
	next := s.Backups.NextRuns(spec, loc, nextRunsShown)
	detail := ""
	if next == nil && strings.TrimSpace(spec) != "" {
		detail = scheduleError(c.Request().Context(), spec)
	}
	return httpkit.Render(c, http.StatusOK, views.BackupSchedulePreview(next, loc, detail))
}

// listBackupRuns shows the tenant's runs, newest first, by status.
func (s *Pages) listBackupRuns(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	status := c.QueryParam("status")
	if status != "" && status != kanri.BackupRunning && status != kanri.BackupSuccess && status != kanri.BackupFailed {
		return kanri.Invalid(kanri.Fields{"status": "backups.error.status"})
	}
	loc, err := s.Backups.Location(ctx, t.ID)
	if err != nil {
		return err
	}
	path := views.BackupHistoryPath(t.ID)
	runs, pg, err := console.ListPage(c, path, 20, func(cont string, limit int) ([]*kanri.BackupHistory, string, error) {
		return s.Backups.Histories(ctx, t.ID, status, limit, cont)
	})
	if err != nil {
		return err
	}
	erasedAt, err := s.Erasure.LastErasure(ctx, t.ID)
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.BackupHistoryPage(s.backupsPage(c, "backups.history"), runs, pg, status, loc, erasedAt, c.Request().URL.RequestURI()))
}

// showBackupRun shows a run and its archive.
func (s *Pages) showBackupRun(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	h, err := s.Backups.History(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	loc, err := s.Backups.Location(ctx, t.ID)
	if err != nil {
		return err
	}
	v := views.BackupRunView{Run: h, Location: loc}
	if v.ErasedSince, err = s.erasedSince(c, h); err != nil {
		return err
	}
	if h.Restorable() {
		m, err := s.Backups.Archive(ctx, t.ID, h.ID)
		switch {
		case kanri.IsCode(err, kanri.EINVALID):
			v.Damaged = damagedText(c, err)
		case err != nil:
			return err
		default:
			vm := &views.BackupManifest{Consistency: m.Consistency, Kanri: m.Kanri, Files: m.Files.Count, FilesBytes: m.Files.Bytes, NewFiles: m.Files.New}
			for _, p := range m.Parts {
				vm.Parts = append(vm.Parts, views.BackupPart{Name: p.Name, Documents: p.Documents, Bytes: p.Bytes, SHA256: p.SHA256})
			}
			v.Manifest = vm
		}
	}
	return httpkit.Render(c, http.StatusOK, views.BackupRunPage(s.Page(c, "backups.run", "backups"), v))
}

// downloadBackup sends a run's archive as a tar file.
func (s *Pages) downloadBackup(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	h, err := s.Backups.History(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	if _, err := s.Backups.Archive(ctx, t.ID, h.ID); err != nil {
		return err
	}
	hd := c.Response().Header()
	hd.Set(echo.HeaderContentType, "application/x-tar")
	hd.Set(echo.HeaderContentDisposition, `attachment; filename="kanri-backup-`+t.Name+`-`+h.StartedAt.UTC().Format("20060102-150405")+`.tar"`)
	return s.Backups.Download(ctx, t.ID, h.ID, c.Response())
}

// restoreParts reads the chosen parts of a restore, all of the run's when
// none is chosen.
func restoreParts(c echo.Context, h *kanri.BackupHistory) []string {
	var chosen []string
	if c.Request().Method == http.MethodGet {
		chosen = c.QueryParams()["parts"]
	} else {
		form, _ := c.FormParams()
		chosen = form["parts"]
	}
	if len(chosen) == 0 {
		return h.Parts
	}
	return chosen
}

// dryRunPage is how many changed documents the restore page lists at once.
const dryRunPage = 50

// showRestore shows what restoring a run's archive would change, with the
// confirmation.
func (s *Pages) showRestore(c echo.Context) error {
	return s.renderRestore(c, http.StatusOK, "", nil)
}

func (s *Pages) renderRestore(c echo.Context, status int, confirm string, errs views.Errors) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	h, err := s.Backups.History(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	parts := restoreParts(c, h)
	offset, _ := strconv.Atoi(c.QueryParam("offset"))
	offset = max(offset, 0)
	at := func(off int) string {
		q := url.Values{"parts": parts}
		if off > 0 {
			q.Set("offset", strconv.Itoa(off))
		}
		return views.BackupRunPath(t.ID, h.ID) + "/restore?" + q.Encode()
	}
	fresh := c.Request().Method == http.MethodGet && c.QueryParam("fresh") == "1"
	dry, err := s.Backups.DryRun(ctx, t.ID, h.ID, parts, offset, dryRunPage, fresh)
	if err != nil {
		return err
	}
	if fresh {
		// Shown again, the page must not compare once more.
		return c.Redirect(http.StatusSeeOther, at(0))
	}
	loc, err := s.Backups.Location(ctx, t.ID)
	if err != nil {
		return err
	}
	v := views.BackupRestoreView{Run: h, Tenant: t, Parts: parts, Total: dry.Total, Offset: offset, Location: loc, Errors: errs, Confirm: confirm, ComputedAt: dry.ComputedAt,
		Running: dry.Status == backup.DryRunRunning, Phase: dry.Phase, Count: dry.Count, Of: dry.Of, SelfURL: at(offset)}
	if dry.Err != nil {
		v.Failed = damagedText(c, dry.Err)
	}
	if v.ErasedSince, err = s.erasedSince(c, h); err != nil {
		return err
	}
	for _, d := range dry.Parts {
		v.Diffs = append(v.Diffs, views.BackupDiff{Part: d.Part, Added: d.Added, Changed: d.Changed, Removed: d.Removed})
	}
	for _, ch := range dry.Changes {
		v.Changes = append(v.Changes, views.BackupChange(ch))
	}
	v.AgainURL = views.BackupRunPath(t.ID, h.ID) + "/restore?" + url.Values{"parts": parts, "fresh": {"1"}}.Encode()
	if offset+dryRunPage < dry.Total {
		v.NextURL = at(offset + dryRunPage)
	}
	if offset > 0 {
		v.PrevURL = at(max(0, offset-dryRunPage))
	}
	return httpkit.Render(c, status, views.BackupRestorePage(s.Page(c, "backups.restore_title", "backups"), v))
}

// restoreBackup restores the chosen parts of a run's archive once the
// tenant's name is typed to confirm.
func (s *Pages) restoreBackup(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	h, err := s.Backups.History(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	if confirm := strings.TrimSpace(c.FormValue("confirm")); confirm != t.Name {
		return s.renderRestore(c, http.StatusUnprocessableEntity, confirm, views.Errors{"confirm": "backups.error.confirm"})
	}
	if _, err := s.Backups.Restore(ctx, t.ID, h.ID, restoreParts(c, h)); err != nil {
		return err
	}
	return s.Report(c, views.BackupsPath(t.ID), "backups.restore_started", views.WhenIn(h.StartedAt.Time, t.Location()))
}

// retryRestore runs a failed restore again.
func (s *Pages) retryRestore(c echo.Context) error {
	t := httpkit.Tenant(c)
	if _, err := s.Backups.RetryRestore(c.Request().Context(), t.ID, c.Param("restore")); err != nil {
		return err
	}
	return s.Report(c, views.BackupsPath(t.ID), "backups.restore_retried")
}

// copyBackup restores a run's archive as a new tenant (the operator).
func (s *Pages) copyBackup(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	h, err := s.Backups.History(ctx, t.ID, c.Param("id"))
	if err != nil {
		return err
	}
	name := strings.TrimSpace(c.FormValue("name"))
	in := kanri.TenantInput{Name: name, DisplayName: t.DisplayName + " (" + views.WhenIn(h.StartedAt.Time, t.Location()) + ")", Plan: t.Plan, MaxUsers: t.MaxUsers}
	copied, _, err := s.Backups.RestoreAsNewTenant(ctx, t.ID, h.ID, in)
	if err != nil {
		return err
	}
	return s.Report(c, views.BackupsPath(copied.ID), "backups.copy_started", copied.Name)
}

// damagedText says why an archive cannot be read, with the detail.
func damagedText(c echo.Context, err error) string {
	msg := httpkit.Message(c.Request().Context(), err, "backups.error.damaged")
	var ke *kanri.Error
	if errors.As(err, &ke) && ke.Err != nil {
		msg += " (" + ke.Err.Error() + ")"
	}
	return msg
}

// backupEvents is the backups pages' stream of live updates: a "backup"
// event whenever a run of the tenant starts, progresses or ends, on which
// the page reloads its table of runs; and one at every (re)connect, so
// that what the page shows never depends on what a lost connection missed.
func (s *Pages) backupEvents(c echo.Context) error {
	ctx, t := c.Request().Context(), httpkit.Tenant(c)
	sub, err := s.live.Subscribe(ctx, t.ID, "")
	if err != nil {
		return err
	}
	handed := false // to the stream's run, which closes it
	defer func() {
		if !handed {
			sub.Close()
		}
	}()
	out := live.Start(c)
	if err := out.WriteString("event: backup\ndata: connected\n\n"); err != nil {
		return nil
	}
	v := s.live.Viewer(c)
	handed = true
	s.live.Run(ctx, out, func(ctx context.Context) {
		defer sub.Close()
		_ = s.live.Pump(ctx, v, t, role.BackupsRead, sub, out.WriteString, func(e *events.Event) error {
			if e.Topic != backup.Topic {
				return nil
			}
			return out.WriteString("event: backup\ndata: " + e.Kind + "\n\n") // fails only when the browser went
		})
	})
	return nil
}

// backupsPage is the page of the backup pages: with their live stream.
func (s *Pages) backupsPage(c echo.Context, title string) views.Page {
	p := s.Page(c, title, "backups")
	p.Live = views.BackupsPath(httpkit.Tenant(c).ID) + "/events"
	return p
}

// erasedSince reports whether the tenant erased someone after run h
// started: its archive holds their data (its restore erases them again).
func (s *Pages) erasedSince(c echo.Context, h *kanri.BackupHistory) (bool, error) {
	last, err := s.Erasure.LastErasure(c.Request().Context(), httpkit.Tenant(c).ID)
	return !last.IsZero() && h.StartedAt.Before(last), err
}
