package tenant

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// ExpiryWork names the scheduled work of SuspendExpired (its slot
// documents and lease).
const ExpiryWork = "subscription-expiry"

// systemActor is who the expiry worker's records name.
var systemActor = audit.Actor{UserID: "system", UserName: "system"}

// SuspendExpired suspends every active tenant whose subscription has ended
// (its end date is past), once: each is suspended with the reason
// SuspendedByExpiry and recorded as tenant.suspend with the reason
// subscription_ended. It finds them in the operator's index, by the end
// date (one range of one index, however many tenants there are), and
// decides on the tenant document itself, at its version: of instances
// that run it at once, one suspends a tenant and the others find it
// suspended. A tenant renewed or suspended meanwhile is left as it is. It
// returns how many tenants it suspended.
//
// It is the work of the scheduler's Periodic ExpiryWork: once per slot
// across the instances (cmd/kanri runs it hourly), a tenant is suspended
// within a slot of its end.
func (s *Service) SuspendExpired(ctx context.Context) (int, error) {
	ctx = audit.WithActor(ctx, systemActor)
	now := s.Now()
	suspended, token := 0, ""
	for {
		page, next, err := listings(s.system()).Query(ctx, ExpiredQuery(now, token))
		if err != nil {
			return suspended, err
		}
		for _, l := range page {
			done, err := s.expire(ctx, l.ID)
			if err != nil {
				return suspended, err
			}
			if done {
				suspended++
			}
		}
		if next == "" {
			return suspended, nil
		}
		token = next
	}
}

// ExpiredQuery is the query of the operator's index (the _system
// partition of the tenant container) that finds the active tenants whose
// subscription ended by now: one range of the listing_ends index.
func ExpiredQuery(now time.Time, continuation string) docstore.Query {
	return docstore.Query{
		Type: kanri.TypeTenantListing,
		Where: []docstore.Filter{
			docstore.Eq("status", kanri.TenantActive),
			docstore.Gt("subscriptionEnd", ""),
			docstore.Lte("subscriptionEnd", kanri.FormatTime(now)),
		},
		OrderBy: "subscriptionEnd", Limit: 100, Continuation: continuation,
	}
}

// expire suspends the tenant if it is active and its subscription has
// ended, and reports whether it did.
func (s *Service) expire(ctx context.Context, id string) (bool, error) {
	return store.Retry(ctx, func() (bool, error) {
		t, err := s.Get(ctx, id)
		if kanri.IsCode(err, kanri.ENOTFOUND) {
			return false, nil // an index entry of no tenant
		} else if err != nil {
			return false, err
		}
		if t.IsPrivileged || t.Status != kanri.TenantActive || !t.SubscriptionEnded(s.Now()) {
			return false, nil
		}
		t.Status, t.SuspendedReason = kanri.TenantSuspended, kanri.SuspendedByExpiry
		if err := s.save(ctx, t); err != nil {
			return false, store.Raced(err) // another instance, or an edit: decide again
		}
		s.recordReason(ctx, t, "tenant.suspend", map[string]any{"status": kanri.TenantActive}, map[string]any{"status": t.Status}, kanri.ReasonSubscriptionEnded)
		s.Logger.Info("tenant suspended: its subscription ended", "tenant", t.ID, "end", t.Subscription.EndDate.String())
		return true, nil
	})
}
