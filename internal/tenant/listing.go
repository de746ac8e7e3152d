package tenant

import (
	"context"
	"slices"
	"strings"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/search"
	"github.com/kanri/kanri/internal/store"
)

// ListFilter selects tenants for the operator's list.
type ListFilter struct {
	Search       string // words that begin words of the name or display name (package search)
	Status       string // "" for all but deleted, or a status
	Sort         string // "name", "createdAt", "userCount"
	Desc         bool
	Limit        int
	Continuation string
}

// List returns one page of the operator's tenant index.
func (s *Service) List(ctx context.Context, f ListFilter) ([]*kanri.TenantListing, string, error) {
	var where []docstore.Filter
	where = append(where, search.Filters(f.Search)...)
	switch f.Status {
	case "":
		where = append(where, docstore.Ne("status", kanri.TenantDeleted))
	case "all":
	default:
		where = append(where, docstore.Eq("status", f.Status))
	}
	order := "nameLower"
	switch f.Sort {
	case "createdAt", "userCount", "status", "plan":
		order = f.Sort
	}
	limit := f.Limit
	if limit <= 0 || limit > 100 {
		limit = 20
	}
	return listings(s.system()).Query(ctx, docstore.Query{
		Where: where, OrderBy: order, Desc: f.Desc, Limit: limit, Continuation: f.Continuation,
	})
}

func listings(sys store.Tenant) *store.Repo[kanri.TenantListing, *kanri.TenantListing] {
	return store.Of[kanri.TenantListing](sys, kanri.ContainerTenant, kanri.TypeTenantListing)
}

// DisplayNames returns the display names of the tenants with the given
// ids, by id, from the operator's index: one query for a page of them.
func (s *Service) DisplayNames(ctx context.Context, ids []string) (map[string]string, error) {
	ls, err := listings(s.system()).ByIDs(ctx, slices.Compact(slices.Sorted(slices.Values(ids))), "")
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ls))
	for _, l := range ls {
		out[l.ID] = l.DisplayName
	}
	return out, nil
}

// syncListing writes the tenant's index entry from the tenant as stored
// now, guarded by the entry's ETag: when saves of the tenant race, the
// entry ends as the newest of them, never an older one written last. The
// index is derived data: a failure is logged, and the next save of the
// tenant repairs it.
func (s *Service) syncListing(ctx context.Context, t *kanri.Tenant) {
	if err := s.writeListingOf(ctx, t.ID); err != nil {
		s.Logger.Error("tenant index out of date", "tenant", t.ID, "err", err)
	}
}

// writeListingOf writes the index entry of the tenant id from the tenant
// as stored now, guarded by the entry's ETag.
func (s *Service) writeListingOf(ctx context.Context, id string) error {
	repo := listings(s.system())
	return store.RetryErr(ctx, func() error {
		cur, err := repo.Get(ctx, id)
		etag := ""
		switch {
		case err == nil:
			etag = cur.ETag
		case !kanri.IsCode(err, kanri.ENOTFOUND):
			return err
		}
		latest, err := s.Store.Tenant(id).Profile(ctx)
		if err != nil {
			return err
		}
		err = s.writeListing(ctx, latest, etag)
		if kanri.IsCode(err, kanri.ECONFLICT) {
			return store.LostRace(err) // an entry made meanwhile
		}
		return store.Raced(err)
	})
}

// writeListing writes the index entry of t, at the entry's etag ("": a new
// entry).
func (s *Service) writeListing(ctx context.Context, t *kanri.Tenant, etag string) error {
	l := &kanri.TenantListing{
		Doc:  kanri.Doc{ID: t.ID},
		Name: t.Name, NameLower: strings.ToLower(t.Name), DisplayName: t.DisplayName,
		IsPrivileged: t.IsPrivileged, Status: t.Status, Plan: t.Plan,
		UserCount: t.UserCount, MaxUsers: t.MaxUsers, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		SubscriptionEnd: t.Subscription.EndDate, SuspendedReason: t.SuspendedReason, Timezone: t.Settings.Timezone,
		TenantETag: t.ETag,
	}
	if etag == "" {
		return listings(s.system()).Create(ctx, l)
	}
	l.ETag = etag
	return listings(s.system()).Replace(ctx, l)
}

// UpgradeSearchTerms names the upgrade AddSearchTerms.
const UpgradeSearchTerms = "tenant-search-terms"

// AddSearchTerms writes again the operator's index entry of a tenant
// written before entries kept search terms (the repository adds them on
// write), so that a search of the tenant list finds it: a one-time upgrade
// for the upgrade runner. An entry changed meanwhile has its terms.
func (s *Service) AddSearchTerms(ctx context.Context, tenantID string) error {
	l, err := listings(s.system()).Get(ctx, tenantID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil
	} else if err != nil {
		return err
	}
	if len(l.SearchTerms) > 0 {
		return nil
	}
	if err := listings(s.system()).Replace(ctx, l); err != nil && !kanri.IsCode(err, kanri.ESTALE) {
		return err
	}
	return nil
}

// UpgradeListingSubscription names the upgrade RewriteListing.
const UpgradeListingSubscription = "tenant-listing-subscription"

// RewriteListing writes the operator's index entry of a tenant again from
// the tenant, so that entries written before they kept why a tenant is
// suspended and its time zone have both: a one-time upgrade for the
// upgrade runner. A tenant without a document has no entry to write.
func (s *Service) RewriteListing(ctx context.Context, tenantID string) error {
	if _, err := s.Store.Tenant(tenantID).Profile(ctx); kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil
	} else if err != nil {
		return err
	}
	return s.writeListingOf(ctx, tenantID)
}
