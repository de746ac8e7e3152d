package audit

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"

	"github.com/kanri/kanri/internal/kanri"
)

// csvHeader is the header row of the CSV export.
var csvHeader = []string{"timestamp", "action", "status", "userId", "userName", "resourceType", "resourceId", "resourceName", "changes", "reason", "ipAddress", "userAgent", "requestId", "targetTenantId"}

// WriteCSV writes every record that matches f, newest first, as CSV, or
// nothing when the actor may not use f (CheckFilter). Cells that a
// spreadsheet would run as a formula are prefixed with a quote.
func (l *Log) WriteCSV(ctx context.Context, w io.Writer, tenantID string, f Filter) error {
	if err := CheckFilter(ctx, tenantID, f); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	where, continuation := l.where(ctx, tenantID, f), ""
	for {
		if err := ctx.Err(); err != nil {
			return err // the client left, or the server is shutting down
		}
		recs, next, err := l.query(ctx, tenantID, where, 1000, continuation)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := cw.Write(csvRow(r)); err != nil {
				return err
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		if next == "" {
			return nil
		}
		continuation = next
	}
}

func csvRow(r *kanri.AuditLog) []string {
	changes := ""
	if len(r.Details.Changes) > 0 {
		b, _ := json.Marshal(r.Details.Changes)
		changes = string(b)
	}
	row := []string{
		r.Timestamp.String(), r.Action, r.Status, r.UserID, r.UserName,
		r.Resource.Type, r.Resource.ID, r.Resource.Name, changes, r.Details.Reason,
		r.Metadata.IPAddress, r.Metadata.UserAgent, r.Metadata.RequestID, r.Metadata.TargetTenantID,
	}
	for i, cell := range row {
		row[i] = defuse(cell)
	}
	return row
}

// defuse keeps spreadsheet programs from evaluating a cell (CSV injection).
func defuse(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
