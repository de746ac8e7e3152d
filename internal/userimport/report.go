package userimport

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kanri/kanri/internal/export"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
)

// Page is one page of a dry run's or an import's results.
type Page struct {
	Results []Result
	// Total is how many results match the outcome asked for.
	Total int
}

// resultsFile returns the file of the import's results: the import's
// when it ran, else its dry run's; ENOTFOUND when it has none yet.
func resultsFile(im *Import) (string, error) {
	switch {
	case im.Status == Done:
		return fileResult, nil
	case !im.CheckedAt.IsZero():
		return fileDryRun, nil
	}
	return "", kanri.E(kanri.ENOTFOUND, "error.not_found")
}

// Results returns the results of an import (or of its dry run, until it
// ran) whose outcome is outcome ("" for all), limit from offset.
func (s *Service) Results(ctx context.Context, tenantID string, im *Import, outcome string, offset, limit int) (Page, error) {
	var page Page
	err := s.eachResult(ctx, tenantID, im, func(r Result) error {
		if outcome != "" && r.Outcome != outcome {
			return nil
		}
		if page.Total >= offset && len(page.Results) < limit {
			page.Results = append(page.Results, r)
		}
		page.Total++
		return nil
	})
	return page, err
}

// eachResult calls fn with each result of the import, in the file's order.
func (s *Service) eachResult(ctx context.Context, tenantID string, im *Import, fn func(Result) error) error {
	file, err := resultsFile(im)
	if err != nil {
		return err
	}
	r, err := s.blobs.NewRangeReader(ctx, blobName(tenantID, im.ID, file), 0, -1)
	if err != nil {
		return err
	}
	defer r.Close()
	dec := json.NewDecoder(bufio.NewReader(r))
	for {
		var res Result
		if err := dec.Decode(&res); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if err := fn(res); err != nil {
			return err
		}
	}
}

// reportHeader is the header row of a report.
var reportHeader = []string{"line", ColUsername, ColEmail, "outcome", "changes", "reasons"}

// WriteReport writes the results of an import (or of its dry run) as CSV,
// its outcomes and reasons in the language of ctx.
func (s *Service) WriteReport(ctx context.Context, w io.Writer, tenantID string, im *Import) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(reportHeader); err != nil {
		return err
	}
	err := s.eachResult(ctx, tenantID, im, func(r Result) error {
		return cw.Write([]string{
			strconv.Itoa(r.Line), export.Defuse(r.Username), export.Defuse(r.Email), i18n.T(ctx, "imports.outcome_"+r.Outcome),
			strings.Join(r.Changes, " "), export.Defuse(Reasons(ctx, r)),
		})
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// Reasons says in the language of ctx why a row was refused (or what of
// it was not done): each column's reason, in the columns' order.
func Reasons(ctx context.Context, r Result) string {
	fields := make([]string, 0, len(r.Errors))
	for f := range r.Errors {
		fields = append(fields, f)
	}
	order := append([]string{RowField}, columns...)
	slices.SortFunc(fields, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
	parts := make([]string, len(fields))
	for i, f := range fields {
		msg := i18n.T(ctx, r.Errors[f])
		if f != RowField {
			msg = f + ": " + msg
		}
		parts[i] = msg
	}
	return strings.Join(parts, " ")
}
