package user

import (
	"context"
	"slices"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/search"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/upgrade"
)

// reserveChunk reserves the addresses of up to docstore.MaxBatchOps
// users in one batch (one at a time when the batch meets a taken
// address), then gives back those of users who changed address or were
// deleted meanwhile. It returns how many it reserved.
func (s *Service) reserveChunk(ctx context.Context, ten store.Tenant, users []*kanri.User) (int, error) {
	var ops []docstore.Op
	for _, u := range users {
		op, err := ten.EmailAddresses().Op(docstore.OpCreate, &kanri.EmailAddress{Doc: kanri.Doc{ID: kanri.EmailAddressID(u.Email)}, UserID: u.ID})
		if err != nil {
			return 0, err
		}
		ops = append(ops, op)
	}
	var mine []*kanri.User
	if _, err := ten.Batch(ctx, kanri.ContainerAuth, ops); err == nil {
		mine = users
	} else if kanri.IsCode(err, kanri.ECONFLICT) {
		for _, u := range users {
			err := ten.EmailAddresses().Create(ctx, &kanri.EmailAddress{Doc: kanri.Doc{ID: kanri.EmailAddressID(u.Email)}, UserID: u.ID})
			switch {
			case err == nil:
				mine = append(mine, u)
			case kanri.IsCode(err, kanri.ECONFLICT):
				if cur, gerr := ten.EmailAddresses().Get(ctx, kanri.EmailAddressID(u.Email)); gerr == nil && cur.UserID != u.ID {
					s.Logger.Warn("two users share an e-mail address; only the first keeps it reserved", "tenant", ten.ID(), "user", u.ID, "holder", cur.UserID)
				}
			default:
				return 0, err
			}
		}
	} else {
		return 0, err
	}
	// The users may have changed address or been deleted since they were
	// read: then the reservation is not theirs.
	ids := make([]string, len(mine))
	for i, u := range mine {
		ids[i] = u.ID
	}
	now, err := ten.Users().ByIDs(ctx, ids, "")
	if err != nil {
		return 0, err
	}
	current := map[string]*kanri.User{}
	for _, u := range now {
		current[u.ID] = u
	}
	n := 0
	for _, u := range mine {
		if cur := current[u.ID]; cur != nil && cur.DeletedAt.IsZero() && kanri.EmailAddressID(cur.Email) == kanri.EmailAddressID(u.Email) {
			n++
			continue
		}
		if err := ten.EmailAddresses().Delete(ctx, kanri.EmailAddressID(u.Email), ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return 0, err
		}
	}
	return n, nil
}

// Names of the upgrades of users written by earlier versions.
const (
	UpgradeEmails      = "user-email-addresses"
	UpgradeMemberships = "user-memberships"
	UpgradeSearchTerms = "user-search-terms"
)

// Upgrades returns the one-time upgrades that bring the users created by
// earlier versions up to what this one keeps for every user, for the
// upgrade runner: their e-mail address reserved (two such users of one
// tenant sharing an address cannot both keep it reserved: the second is
// logged, for an administrator to correct), and their membership record
// (TenantUser). The runner resumes an upgrade cut short at the page of
// tenants it was on.
func (s *Service) Upgrades() []upgrade.Upgrade {
	return []upgrade.Upgrade{
		{Name: UpgradeEmails, Tenant: s.reserveEmails},
		{Name: UpgradeMemberships, Tenant: s.addMemberships},
		{Name: UpgradeSearchTerms, Tenant: s.addSearchTerms},
	}
}

// addSearchTerms writes again, a page at a time, every user of a tenant
// written before users kept search terms: the repository adds them on
// write, and the search index finds the user from then on. A user changed
// meanwhile got its terms with that change.
func (s *Service) addSearchTerms(ctx context.Context, tenantID string) error {
	users := s.Store.Tenant(tenantID).Users()
	q := docstore.Query{Where: []docstore.Filter{docstore.Defined(search.Field, false)}, Limit: 100}
	for {
		page, next, err := users.Query(ctx, q)
		if err != nil {
			return err
		}
		for _, u := range page {
			if err := users.Replace(ctx, u); err != nil && !kanri.IsCode(err, kanri.ESTALE) && !kanri.IsCode(err, kanri.ENOTFOUND) {
				return err
			}
		}
		if next == "" {
			return nil
		}
		q.Continuation = next
	}
}

// addMemberships gives every counted (not deleted) user of a tenant that
// has none its membership record.
func (s *Service) addMemberships(ctx context.Context, tenantID string) error {
	ten := s.Store.Tenant(tenantID)
	q := docstore.Query{Where: []docstore.Filter{notDeleted()}, Limit: docstore.MaxBatchOps} // a page, one batch
	added := 0
	for {
		users, next, err := ten.Users().Query(ctx, q)
		if err != nil {
			return err
		}
		// The page's existing memberships, in one query.
		ids := make([]string, len(users))
		for i, u := range users {
			ids[i] = kanri.TenantUserID(u.ID)
		}
		existing, err := ten.TenantUsers().ByIDs(ctx, ids, "")
		if err != nil {
			return err
		}
		has := map[string]bool{}
		for _, m := range existing {
			has[m.UserID] = true
		}
		var ops []docstore.Op
		for _, u := range users {
			if has[u.ID] {
				continue
			}
			op, err := ten.TenantUsers().Op(docstore.OpUpsert, &kanri.TenantUser{
				Doc: kanri.Doc{ID: kanri.TenantUserID(u.ID)}, UserID: u.ID, Role: kanri.MemberRole,
				AssignedBy: u.CreatedBy, AssignedAt: u.CreatedAt,
			})
			if err != nil {
				return err
			}
			ops = append(ops, op)
		}
		if len(ops) > 0 {
			if _, err := ten.Batch(ctx, kanri.ContainerTenant, ops); err != nil {
				return err
			}
			added += len(ops)
		}
		if next == "" {
			break
		}
		q.Continuation = next
	}
	if added > 0 {
		s.Logger.Info("added the membership records of existing users", "tenant", tenantID, "count", added)
	}
	return nil
}

func (s *Service) reserveEmails(ctx context.Context, tenantID string) error {
	ten := s.Store.Tenant(tenantID)
	q := docstore.Query{Where: []docstore.Filter{notDeleted()}, Limit: docstore.MaxPageSize}
	reserved := 0
	for {
		users, next, err := ten.Users().Query(ctx, q)
		if err != nil {
			return err
		}
		for chunk := range slices.Chunk(users, docstore.MaxBatchOps) {
			n, err := s.reserveChunk(ctx, ten, chunk)
			if err != nil {
				return err
			}
			reserved += n
		}
		if next == "" {
			break
		}
		q.Continuation = next
	}
	if reserved > 0 {
		s.Logger.Info("reserved the e-mail addresses of existing users", "tenant", tenantID, "count", reserved)
	}
	return nil
}
