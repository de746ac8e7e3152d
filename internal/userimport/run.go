package userimport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kanri/kanri/internal/kanri"
)

// errSuperseded stops a dry run or import whose document names another
// run (started again after it was taken for interrupted) or is gone.
var errSuperseded = errors.New("userimport: the run was superseded")

// execute runs the dry run (dry) or the import of the rows of im, writes
// its results and records how it ended. Its progress is written every
// beat by a goroutine of its own.
func (s *Service) execute(ctx context.Context, tenantID string, im *Import, rows []Row, dry bool) {
	var processed atomic.Int64
	var superseded atomic.Bool
	stop := s.heartbeat(ctx, tenantID, im, &processed, &superseded)
	results, counts, err := s.process(ctx, tenantID, im, rows, dry, &processed, &superseded)
	file := fileResult
	if dry {
		file = fileDryRun
	}
	if err == nil {
		err = s.writeResults(ctx, tenantID, im.ID, file, results)
	}
	stop()
	if superseded.Load() || errors.Is(err, errSuperseded) {
		return
	}
	if err != nil {
		s.Logger.Error("user import failed", "tenant", tenantID, "import", im.ID, "dryRun", dry, "err", err)
	}
	wctx := context.WithoutCancel(ctx)
	_, werr := s.repo(tenantID).Modify(wctx, im.ID, nil, func(cur *Import) error {
		if cur.Run != im.Run {
			return errSuperseded
		}
		now := kanri.NewTime(s.Now())
		cur.UpdatedAt, cur.Processed = now, int(processed.Load())
		switch {
		case err != nil && ctx.Err() != nil:
			cur.Status, cur.ErrorKey = Failed, "imports.error.interrupted"
		case err != nil:
			cur.Status, cur.ErrorKey = Failed, "imports.error.failed"
		case dry:
			cur.Status, cur.DryRun, cur.CheckedAt = Checked, counts, now
		default:
			cur.Status, cur.Result, cur.ImportedAt = Done, counts, now
		}
		return nil
	})
	if werr != nil && !errors.Is(werr, errSuperseded) && !kanri.IsCode(werr, kanri.ENOTFOUND) {
		s.Logger.Error("user import not recorded", "tenant", tenantID, "import", im.ID, "err", werr)
	}
}

// process checks each row and, unless dry, applies it. A dry run refuses
// the rows that would create users beyond the tenant's maxUsers; the
// import leaves that to the user service's count, which is exact when
// others create users meanwhile.
func (s *Service) process(ctx context.Context, tenantID string, im *Import, rows []Row, dry bool, processed *atomic.Int64, superseded *atomic.Bool) ([]Result, Counts, error) {
	var counts Counts
	t, err := s.Store.Tenant(tenantID).Profile(ctx)
	if err != nil {
		return nil, counts, err
	}
	room := t.MaxUsers - t.UserCount
	dup := newSeen()
	results := make([]Result, 0, len(rows))
	for _, row := range rows {
		if superseded.Load() {
			return nil, counts, errSuperseded
		}
		if err := ctx.Err(); err != nil {
			return nil, counts, err
		}
		p, err := s.check(ctx, t, im, row, dup)
		if err != nil {
			return nil, counts, err
		}
		switch {
		case dry && p.res.Outcome == Created && room <= 0:
			p.refuseRow(RowField, "error.user_limit")
		case dry && p.res.Outcome == Created:
			room--
		case !dry:
			if err := s.apply(ctx, t, p); err != nil {
				return nil, counts, err
			}
		}
		results = append(results, p.res)
		counts.add(p.res.Outcome)
		processed.Add(1)
	}
	return results, counts, nil
}

// heartbeat writes how many rows the run has done into its import every
// beat, until stop is called (which waits for it). A write that finds the
// import gone or run by another sets superseded and ends it.
func (s *Service) heartbeat(ctx context.Context, tenantID string, im *Import, processed *atomic.Int64, superseded *atomic.Bool) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(s.beat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			_, err := s.repo(tenantID).Modify(ctx, im.ID, nil, func(cur *Import) error {
				if cur.Run != im.Run {
					return errSuperseded
				}
				cur.Processed, cur.UpdatedAt = int(processed.Load()), kanri.NewTime(s.Now())
				return nil
			})
			if errors.Is(err, errSuperseded) || kanri.IsCode(err, kanri.ENOTFOUND) {
				superseded.Store(true)
				return
			}
			if err != nil && ctx.Err() == nil {
				s.Logger.Warn("user import: progress not written", "tenant", tenantID, "import", im.ID, "err", err)
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// writeResults stores results as one JSON object a line.
func (s *Service) writeResults(ctx context.Context, tenantID, id, file string, results []Result) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	_, err := s.blobs.Put(ctx, blobName(tenantID, id, file), &buf)
	return err
}

// read reads a whole blob of at most limit bytes.
func (s *Service) read(ctx context.Context, name string, limit int64) ([]byte, error) {
	r, err := s.blobs.NewRangeReader(ctx, name, 0, limit)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
