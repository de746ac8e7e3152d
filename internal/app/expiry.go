package app

import (
	"context"
	"errors"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// errMoved stops Modify from writing a document that needs no move.
var errMoved = errors.New("moved already")

// MoveExpiryDays moves the expiry (at) of each of a tenant's documents in
// repo given as a date by an earlier version (the last second of that day
// in UTC, kanri.LegacyDayEnd) to the last second of that day in the
// tenant's time zone, as dates are read now: the body of the one-time
// upgrades of the services whose forms take expiry dates. The date shown
// stays the one typed, so it is not audited. Run again, it moves nothing.
func MoveExpiryDays[E any, P store.Entity[E]](ctx context.Context, d Deps, tenantID string, repo *store.Repo[E, P], at func(P) *kanri.Time) error {
	t, err := d.Store.Tenant(tenantID).Profile(ctx)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil
	} else if err != nil {
		return err
	}
	all, err := repo.All(ctx, docstore.Query{})
	if err != nil {
		return err
	}
	for _, doc := range all {
		day, ok := kanri.LegacyDayEnd(*at(doc))
		if !ok {
			continue
		}
		end, _ := kanri.DayEndIn(day, t.Location())
		if end.Equal(at(doc).Time) {
			continue // a tenant in UTC
		}
		_, err := repo.Modify(ctx, doc.Base().ID, nil, func(cur P) error {
			if d, ok := kanri.LegacyDayEnd(*at(cur)); !ok || d != day {
				return errMoved // moved, or changed, meanwhile
			}
			*at(cur) = end
			return nil
		})
		if err != nil && !errors.Is(err, errMoved) && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
	}
	return nil
}
