package store

import (
	"context"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// CreateWithin stores ops, which create one more of the tenant's things of
// a kind (channels, backup jobs) in container, only while count (which
// need read no more than limit of them) finds fewer than limit; otherwise
// it returns refused. The creations of a kind are serialised by a guard
// document of the kind in container, written in the same transaction at
// the version read: of creators racing for the last place, one wins and
// the others count again, so the limit holds exactly on every instance.
// Deletions need no guard (they only lower the count). It returns the
// results of ops.
func CreateWithin(ctx context.Context, ten Tenant, container, kind string, limit int, refused error, count func() (int, error), ops []docstore.Op) ([]docstore.Result, error) {
	guards := Of[kanri.LimitGuard](ten, container, kanri.TypeLimitGuard)
	id := "limit_guard_" + kind
	return Retry(ctx, func() ([]docstore.Result, error) {
		g, err := guards.Get(ctx, id)
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			// The first creation under a limit: make the guard, then read it.
			g = &kanri.LimitGuard{Doc: kanri.Doc{ID: id}}
			if err := guards.Create(ctx, g); err != nil && !kanri.IsCode(err, kanri.ECONFLICT) {
				return nil, err
			}
			return nil, LostRace(err)
		} else if err != nil {
			return nil, err
		}
		n, err := count()
		if err != nil {
			return nil, err
		}
		if n >= limit {
			return nil, refused
		}
		g.Version++
		guard, err := guards.Op(docstore.OpReplace, g) // at the version read
		if err != nil {
			return nil, err
		}
		res, err := ten.Batch(ctx, container, append([]docstore.Op{guard}, ops...))
		if err != nil {
			return nil, Raced(err)
		}
		return res[1:], nil
	})
}

// CountLimit returns a count setting (kanri.CountSetting) of the tenant's
// assignment of a service: 0, no limit, when it has none or the service
// is not assigned.
func CountLimit(ctx context.Context, ten Tenant, serviceID, key string) (int, error) {
	a, err := ten.ServiceAssignments().Get(ctx, kanri.AssignmentID(ten.ID(), serviceID))
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	return kanri.CountSetting(a.Config, key), nil
}
