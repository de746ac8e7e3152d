package apikey

import (
	"context"
	"slices"
	"strings"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

// Settings returns the tenant's API settings (none listed when never set).
func (s *Service) Settings(ctx context.Context, tenantID string) (*kanri.APISettings, error) {
	st, err := s.Store.Tenant(tenantID).APISettings().Get(ctx, kanri.APISettingsID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return &kanri.APISettings{Doc: kanri.Doc{ID: kanri.APISettingsID}}, nil
	}
	return st, err
}

// ParseOrigins reads the origins a person typed, one per line (or
// separated by spaces or commas), normalised and without repeats. It
// returns EINVALID naming the field when one is not an origin or there
// are too many.
func ParseOrigins(text string) ([]string, error) {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' || r == ' ' || r == ',' || r == '\t' }) {
		o := kanri.NormalizeOrigin(f)
		if o == "" {
			return nil, kanri.Invalid(kanri.Fields{"origins": "apikeys.bad_origin"})
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	if len(out) > kanri.MaxCORSOrigins {
		return nil, kanri.Invalid(kanri.Fields{"origins": "apikeys.too_many_origins"})
	}
	slices.Sort(out)
	return out, nil
}

// SetCORSOrigins saves the origins whose pages may call the tenant's API
// from a browser, as edited on the version at etag. Origins newly listed
// enter the operator-wide index (which answers browsers' preflight
// requests) before the settings are saved, and those no longer listed
// leave it after, so that a failure between the two never refuses an
// origin the tenant lists (an extra entry only lets a preflight through;
// the answer itself is still checked against the key's tenant).
func (s *Service) SetCORSOrigins(ctx context.Context, tenantID, etag string, origins []string) (*kanri.APISettings, error) {
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	cur, err := s.Settings(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	if etag != cur.ETag {
		return nil, kanri.Stale()
	}
	if slices.Equal(cur.CORSOrigins, origins) {
		return cur, nil // nothing changed: no new version, no record
	}
	for _, o := range origins {
		if !slices.Contains(cur.CORSOrigins, o) {
			if err := s.index(ctx, o, tenantID, true); err != nil {
				return nil, err
			}
		}
	}
	next := *cur
	next.CORSOrigins, next.UpdatedAt = origins, kanri.NewTime(s.Now())
	repo := s.Store.Tenant(tenantID).APISettings()
	if cur.ETag == "" {
		err = repo.Create(ctx, &next)
		if kanri.IsCode(err, kanri.ECONFLICT) {
			err = kanri.Stale() // made meanwhile
		}
	} else {
		err = repo.Replace(ctx, &next)
	}
	if err != nil {
		return nil, err
	}
	for _, o := range cur.CORSOrigins {
		if !slices.Contains(origins, o) {
			if err := s.index(ctx, o, tenantID, false); err != nil {
				s.Logger.Warn("a CORS origin no longer listed stays in the index", "origin", o, "tenant", tenantID, "err", err)
			}
		}
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID,
		Action:   "apikey.cors_update",
		Resource: kanri.AuditResource{Type: kanri.AuditAPIKey, ID: kanri.APISettingsID, Name: "CORS"},
		Changes:  audit.Diff(map[string]any{"corsOrigins": cur.CORSOrigins}, map[string]any{"corsOrigins": origins}),
	})
	return &next, nil
}

// index adds the tenant to (or removes it from) the origin's entry in the
// operator-wide index.
func (s *Service) index(ctx context.Context, origin, tenantID string, add bool) error {
	repo := s.Store.System().CORSOrigins()
	_, err := repo.Modify(ctx, kanri.CORSOriginID(origin), func() *kanri.CORSOrigin {
		return &kanri.CORSOrigin{Origin: origin}
	}, func(e *kanri.CORSOrigin) error {
		has := slices.Contains(e.Tenants, tenantID)
		switch {
		case add && !has:
			e.Tenants = append(e.Tenants, tenantID)
		case !add && has:
			e.Tenants = slices.DeleteFunc(e.Tenants, func(t string) bool { return t == tenantID })
		}
		return nil
	})
	return err
}

// OriginListed reports whether some tenant lists origin, for a browser's
// preflight request (which carries no key): one point read.
func (s *Service) OriginListed(ctx context.Context, origin string) (bool, error) {
	e, err := s.Store.System().CORSOrigins().Get(ctx, kanri.CORSOriginID(origin))
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return false, nil
	}
	return err == nil && e.Origin == origin && len(e.Tenants) > 0, err
}
