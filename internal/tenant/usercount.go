package tenant

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// ChangeUserCount adds delta (+1 or -1) to the tenant's userCount for a
// user about to be created or deleted, refusing to go past maxUsers, and
// returns the tenant as saved. The user's membership record (TenantUser;
// docs/data-model.md, "Tenants") is created or removed with it. The count,
// the membership and a pending UserCountChange are written in one
// transaction of the tenant container: SettleUserCount removes the pending
// change once the user write (in the auth container) is made, UndoUserCount
// reverses count and membership if it was not, and RepairUserCounts does
// either for a change a crash left behind, so a user and its membership
// never disagree for longer than the repair's grace. It is exact under
// concurrent callers: each retry starts from the stored count.
func (s *Service) ChangeUserCount(ctx context.Context, id, userID string, delta int) (*kanri.Tenant, error) {
	ten := s.Store.Tenant(id)
	change := &kanri.UserCountChange{
		Doc: kanri.Doc{ID: kanri.UserCountChangeID(userID, delta)}, UserID: userID, Delta: delta, CreatedAt: kanri.NewTime(s.Now()),
	}
	changeOp, err := changes(ten).Op(docstore.OpCreate, change)
	if err != nil {
		return nil, err
	}
	memberOps, err := s.membershipOps(ctx, ten, userID, delta > 0)
	if err != nil {
		return nil, err
	}
	return store.Retry(ctx, func() (*kanri.Tenant, error) {
		t, err := ten.Profile(ctx)
		if err != nil {
			return nil, err
		}
		n := t.UserCount + delta
		if delta > 0 && t.Status == kanri.TenantDeleted {
			return nil, kanri.E(kanri.ECONFLICT, "error.tenant_deleted")
		}
		if delta > 0 && n > t.MaxUsers {
			return nil, kanri.E(kanri.ECONFLICT, "error.user_limit")
		}
		t.UserCount = max(0, n)
		err = s.saveWith(ctx, t, append([]docstore.Op{changeOp}, memberOps...)...)
		if kanri.IsCode(err, kanri.ECONFLICT) {
			return nil, kanri.Wrap(kanri.ECONFLICT, "error.busy", err) // a change of this user is pending
		}
		if err != nil {
			return nil, store.Raced(err)
		}
		return t, nil
	})
}

// SettleUserCount records that the user write counted by ChangeUserCount
// was made. If that fails, RepairUserCounts settles it later.
func (s *Service) SettleUserCount(ctx context.Context, id, userID string, delta int) {
	err := changes(s.Store.Tenant(id)).Delete(ctx, kanri.UserCountChangeID(userID, delta), "")
	if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
		s.Logger.Warn("pending userCount change not settled; the repair will", "tenant", id, "user", userID, "err", err)
	}
}

// UndoUserCount reverses a change of ChangeUserCount whose user write was
// not made. If that fails, RepairUserCounts reverses it later.
func (s *Service) UndoUserCount(ctx context.Context, id, userID string, delta int) {
	c, err := changes(s.Store.Tenant(id)).Get(ctx, kanri.UserCountChangeID(userID, delta))
	if err == nil {
		err = s.undo(ctx, c)
	}
	if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
		s.Logger.Warn("userCount not given back; the repair will", "tenant", id, "user", userID, "err", err)
	}
}

// membershipOps returns the operations that make the user's membership
// record exist (member) or not: none when it already is so.
func (s *Service) membershipOps(ctx context.Context, ten store.Tenant, userID string, member bool) ([]docstore.Op, error) {
	repo := ten.TenantUsers()
	cur, err := repo.Get(ctx, kanri.TenantUserID(userID))
	switch {
	case err != nil && !kanri.IsCode(err, kanri.ENOTFOUND):
		return nil, err
	case member && err != nil:
		op, err := repo.Op(docstore.OpUpsert, &kanri.TenantUser{
			Doc: kanri.Doc{ID: kanri.TenantUserID(userID)}, UserID: userID, Role: kanri.MemberRole,
			AssignedBy: audit.ActorFrom(ctx).UserID, AssignedAt: kanri.NewTime(s.Now()),
		})
		return []docstore.Op{op}, err
	case !member && err == nil:
		return []docstore.Op{{Kind: docstore.OpDelete, ID: cur.ID}}, nil
	}
	return nil, nil
}

// undo reverses the pending change c: its count, the membership and its
// record go in one transaction.
func (s *Service) undo(ctx context.Context, c *kanri.UserCountChange) error {
	ten := s.Store.Tenant(c.TenantID)
	return store.RetryErr(ctx, func() error {
		t, err := ten.Profile(ctx)
		if err != nil {
			return err
		}
		memberOps, err := s.membershipOps(ctx, ten, c.UserID, c.Delta < 0)
		if err != nil {
			return err
		}
		t.UserCount = max(0, t.UserCount-c.Delta)
		err = s.saveWith(ctx, t, append([]docstore.Op{{Kind: docstore.OpDelete, ID: c.ID, IfMatch: c.ETag}}, memberOps...)...)
		if !kanri.IsCode(err, kanri.ESTALE) {
			return err
		}
		if _, gerr := changes(ten).Get(ctx, c.ID); kanri.IsCode(gerr, kanri.ENOTFOUND) {
			return nil // settled or undone meanwhile
		}
		return store.LostRace(err)
	})
}

// RepairUserCounts settles the changes of userCount left pending for longer
// than olderThan (by a crash between a count and its user write), in every
// tenant: a change whose user write was made is removed, one whose write
// was not is reversed. Each repair is logged. It returns how many counts it
// corrected.
func (s *Service) RepairUserCounts(ctx context.Context, olderThan time.Duration) (int, error) {
	before := kanri.NewTime(s.Now().Add(-olderThan))
	fixed, token := 0, ""
	for {
		page, next, err := s.Store.Privileged().UserCountChanges(ctx, before, token)
		if err != nil {
			return fixed, err
		}
		for _, c := range page {
			u, err := s.Store.Tenant(c.TenantID).Users().Get(ctx, c.UserID)
			if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
				return fixed, err
			}
			// Users are never removed, only marked deleted.
			made := (c.Delta > 0 && err == nil) || (c.Delta < 0 && (err != nil || !u.DeletedAt.IsZero()))
			if made {
				err = changes(s.Store.Tenant(c.TenantID)).Delete(ctx, c.ID, c.ETag)
			} else if err = s.undo(ctx, c); err == nil {
				fixed++
				s.Logger.Warn("userCount repaired: a change a crash left pending was reversed",
					"tenant", c.TenantID, "user", c.UserID, "delta", c.Delta, "since", c.CreatedAt.String())
			}
			if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) && !kanri.IsCode(err, kanri.ESTALE) {
				return fixed, err
			}
		}
		if next == "" {
			return fixed, nil
		}
		token = next
	}
}

// RunRepair runs RepairUserCounts at once and then every interval until
// ctx ends, settling changes older than grace. It is a worker of the
// server's lifecycle.
func (s *Service) RunRepair(ctx context.Context, every, grace time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := s.RepairUserCounts(ctx, grace); err != nil && ctx.Err() == nil {
			s.Logger.Error("repair of user counts", "err", err)
		} else if n > 0 {
			s.Logger.Info("repaired user counts", "count", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func changes(ten store.Tenant) *store.Repo[kanri.UserCountChange, *kanri.UserCountChange] {
	return store.Of[kanri.UserCountChange](ten, kanri.ContainerTenant, kanri.TypeUserCountChange)
}

// SetUserCount stores userCount as given: for loading data and for tests.
// The console keeps the count with ChangeUserCount and its repair.
func (s *Service) SetUserCount(ctx context.Context, id string, n int) error {
	return store.RetryErr(ctx, func() error {
		t, err := s.Store.Tenant(id).Profile(ctx)
		if err != nil {
			return err
		}
		if t.UserCount == n {
			return nil
		}
		s.Logger.Warn("userCount repaired", "tenant", id, "was", t.UserCount, "now", n)
		t.UserCount = n
		return store.Raced(s.save(ctx, t))
	})
}
