package webhook

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// TypeAuditFiles is the document type of a tenant's daily audit files'
// setting: one document, AuditFilesID, in the API container.
const TypeAuditFiles = "audit_files"

// AuditFilesID is the id of a tenant's AuditFiles.
const AuditFilesID = "audit_files"

// dayLayout names a day's file, in UTC.
const dayLayout = time.DateOnly

// auditFilesRetention is how long a day's file is kept: as long as the
// audit log keeps its records.
const auditFilesRetention = kanri.TTLAuditLog * time.Second

// AuditFiles says whether a tenant's audit log is written, a day at a
// time, as NDJSON files to the blob store, for its SIEM to collect
// (TypeAuditFiles).
type AuditFiles struct {
	kanri.Doc
	Enabled bool `json:"enabled"`
	// Written is the last day (UTC, 2006-01-02) whose file is written:
	// a run writes the days after it that are over.
	Written   string     `json:"written"`
	UpdatedAt kanri.Time `json:"updatedAt"`
}

// AuditFile is one day's file.
type AuditFile struct {
	Day     string
	Size    int64
	Written time.Time
}

func (s *Service) auditFiles(tenantID string) *store.Repo[AuditFiles, *AuditFiles] {
	return store.Of[AuditFiles](s.Store.Tenant(tenantID), kanri.ContainerAPI, TypeAuditFiles)
}

// auditFileName is the blob of a tenant's file of day.
func auditFileName(tenantID, day string) string {
	return "auditfiles/" + tenantID + "/" + day + ".ndjson"
}

// day returns t's day in UTC, as files are named.
func day(t time.Time) string { return t.UTC().Format(dayLayout) }

// AuditFilesOf returns a tenant's setting (disabled when never set).
func (s *Service) AuditFilesOf(ctx context.Context, tenantID string) (*AuditFiles, error) {
	a, err := s.auditFiles(tenantID).Get(ctx, AuditFilesID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return &AuditFiles{Doc: kanri.Doc{ID: AuditFilesID}}, nil
	}
	return a, err
}

// SetAuditFiles turns a tenant's daily audit files on or off, if the
// setting is still as seen. Turned on, the first file is today's, written
// when the day is over; turned off, the files written stay until they
// expire.
func (s *Service) SetAuditFiles(ctx context.Context, tenantID string, on bool, seen kanri.Seen) (*AuditFiles, error) {
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	changed := false
	a, err := s.auditFiles(tenantID).Modify(ctx, AuditFilesID, func() *AuditFiles { return &AuditFiles{} }, func(a *AuditFiles) error {
		if a.ETag != "" && seen.Stale(a.ETag, filesState(a)) {
			return kanri.Stale()
		}
		if a.Enabled == on {
			return nil
		}
		changed = true
		a.Enabled, a.UpdatedAt = on, kanri.NewTime(s.Now())
		if on && (a.Written == "" || a.Written < day(s.Now().AddDate(0, 0, -1))) {
			a.Written = day(s.Now().AddDate(0, 0, -1))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if changed {
		action := "auditfiles.disable"
		if on {
			action = "auditfiles.enable"
		}
		s.Audit.Change(ctx, tenantID, action, kanri.AuditResource{Type: kanri.AuditWebhook, ID: AuditFilesID, Name: "audit files"},
			map[string]any{"enabled": !on}, map[string]any{"enabled": on})
	}
	return a, nil
}

// filesState is the setting's state, for kanri.Seen.
func filesState(a *AuditFiles) string {
	if a.Enabled {
		return "enabled"
	}
	return "disabled"
}

// ListAuditFiles returns a tenant's files, newest first.
func (s *Service) ListAuditFiles(ctx context.Context, tenantID string) ([]AuditFile, error) {
	var out []AuditFile
	for info, err := range s.blobs.List(ctx, "auditfiles/"+tenantID+"/") {
		if err != nil {
			return nil, err
		}
		d := strings.TrimSuffix(info.Name[strings.LastIndex(info.Name, "/")+1:], ".ndjson")
		out = append(out, AuditFile{Day: d, Size: info.Size, Written: info.ModTime})
	}
	slices.SortFunc(out, func(a, b AuditFile) int { return strings.Compare(b.Day, a.Day) })
	return out, nil
}

// OpenAuditFile opens a tenant's file of day (2006-01-02); ENOTFOUND when
// there is none.
func (s *Service) OpenAuditFile(ctx context.Context, tenantID, d string) (io.ReadCloser, error) {
	if _, err := time.Parse(dayLayout, d); err != nil || docstore.CheckKey(tenantID, d) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.blobs.NewRangeReader(ctx, auditFileName(tenantID, d), 0, -1)
}

// WriteAuditFiles writes, for every tenant that turned its files on, the
// file of each day that is over (by Settle) since its last, and deletes
// the files older than the audit log's retention: the periodic work, once
// across the instances.
func (s *Service) WriteAuditFiles(ctx context.Context) error {
	token := ""
	for {
		page, next, err := store.Across[AuditFiles](ctx, s.Store.Privileged(), kanri.ContainerAPI, TypeAuditFiles, docstore.Query{
			Where: []docstore.Filter{docstore.Eq("enabled", true)}, Limit: 100, Continuation: token,
		})
		if err != nil {
			return err
		}
		for _, a := range page {
			if err := s.writeDays(ctx, a); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		token = next
	}
}

// writeDays writes a tenant's files of the days over since a.Written.
func (s *Service) writeDays(ctx context.Context, a *AuditFiles) error {
	now := s.Now()
	last, err := time.Parse(dayLayout, a.Written)
	if err != nil {
		last = now.AddDate(0, 0, -2)
	}
	oldest := now.Add(-auditFilesRetention)
	for d := last.AddDate(0, 0, 1); !d.AddDate(0, 0, 1).Add(s.Settle).After(now); d = d.AddDate(0, 0, 1) {
		if d.AddDate(0, 0, 1).Before(oldest) {
			continue // its records are gone
		}
		if err := s.writeDay(ctx, a.TenantID, d); err != nil {
			return err
		}
		name := day(d)
		if _, err := s.auditFiles(a.TenantID).Modify(ctx, AuditFilesID, nil, func(cur *AuditFiles) error {
			if cur.Written < name {
				cur.Written = name
			}
			return nil
		}); err != nil {
			return err
		}
	}
	for f, err := range s.blobs.List(ctx, "auditfiles/"+a.TenantID+"/") {
		if err != nil {
			return err
		}
		if f.Name < auditFileName(a.TenantID, day(oldest)) {
			if err := s.blobs.Delete(ctx, f.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeDay writes the file of a tenant's records of the day that begins
// at from: one Event per line, oldest first. Written again, it is
// replaced whole.
func (s *Service) writeDay(ctx context.Context, tenantID string, from time.Time) error {
	pr, pw := io.Pipe()
	go func() {
		enc := json.NewEncoder(pw)
		q := docstore.Query{
			Where: []docstore.Filter{
				docstore.Gte("timestamp", kanri.FormatTime(from)), docstore.Lt("timestamp", kanri.FormatTime(from.AddDate(0, 0, 1))),
			},
			OrderBy: "timestamp", Limit: 1000,
		}
		for {
			recs, next, err := s.Store.Tenant(tenantID).AuditLogs().Query(ctx, q)
			if err != nil {
				pw.CloseWithError(err)
				return
			}
			for _, r := range recs {
				if hidden(tenantID, r) {
					continue
				}
				if err := enc.Encode(eventOf(r)); err != nil {
					pw.CloseWithError(err)
					return
				}
			}
			if next == "" {
				pw.Close()
				return
			}
			q.Continuation = next
		}
	}()
	_, err := s.blobs.Put(ctx, auditFileName(tenantID, day(from)), pr)
	pr.CloseWithError(err) // stops the writer if Put gave up
	return err
}

// ForgetAuditFiles deletes a tenant's files, to be written again from its
// audit log as it is now, by the next run: after an erasure, which
// pseudonymises the person in the records.
func (s *Service) ForgetAuditFiles(ctx context.Context, tenantID string) error {
	a, err := s.auditFiles(tenantID).Get(ctx, AuditFilesID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil
	} else if err != nil {
		return err
	}
	for f, err := range s.blobs.List(ctx, "auditfiles/"+tenantID+"/") {
		if err != nil {
			return err
		}
		if err := s.blobs.Delete(ctx, f.Name); err != nil {
			return err
		}
	}
	_, err = s.auditFiles(tenantID).Modify(ctx, a.ID, nil, func(cur *AuditFiles) error {
		cur.Written = day(s.Now().Add(-auditFilesRetention))
		return nil
	})
	return err
}
