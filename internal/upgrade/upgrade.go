// Package upgrade runs the one-time upgrades of every tenant's data that a
// version brings (the users of earlier versions getting their e-mail
// address reserved, say), and records those done in one document, so that
// a start reads that document and nothing per tenant once they are all
// done.
package upgrade

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
)

// Upgrade is one named change of every tenant's data (app.Upgrade: the
// features offer theirs in their app.Feature).
type Upgrade = app.Upgrade

// tenantPage is how many tenants are listed at once.
const tenantPage = 100

// Runner runs upgrades over every tenant.
type Runner struct {
	app.Deps
	tenants *tenant.Service
}

// New returns a runner that lists the tenants through tenants.
func New(d app.Deps, tenants *tenant.Service) *Runner { return &Runner{Deps: d, tenants: tenants} }

// Run runs, in order, each of upgrades that is not recorded as done: over
// every tenant (deleted ones included), a page of tenants at a time, then
// records it as done. When every upgrade is recorded, Run reads that one
// document and nothing else. It is for the start of a process, before it
// serves: users created meanwhile by an earlier version (a rolling
// deploy) are upgraded by the next version's upgrades, not by these.
func (r *Runner) Run(ctx context.Context, upgrades []Upgrade) error {
	done, err := r.done(ctx)
	if err != nil {
		return err
	}
	for _, u := range upgrades {
		if _, ok := done[u.Name]; ok {
			continue
		}
		n, err := r.overTenants(ctx, u)
		if err != nil {
			return fmt.Errorf("upgrade %s: %w", u.Name, err)
		}
		if err := r.record(ctx, u.Name); err != nil {
			return fmt.Errorf("record upgrade %s: %w", u.Name, err)
		}
		r.Logger.Info("upgraded every tenant's data", "upgrade", u.Name, "tenants", n)
	}
	return nil
}

// Done returns the names of the upgrades recorded as done, sorted.
func (r *Runner) Done(ctx context.Context) ([]string, error) {
	done, err := r.done(ctx)
	return slices.Sorted(maps.Keys(done)), err
}

func (r *Runner) marker() *store.Repo[kanri.Upgrades, *kanri.Upgrades] {
	return store.Of[kanri.Upgrades](r.Store.Tenant(kanri.SystemTenantID), kanri.ContainerTenant, kanri.TypeUpgrades)
}

func (r *Runner) done(ctx context.Context) (map[string]kanri.Time, error) {
	m, err := r.marker().Get(ctx, kanri.UpgradesID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return m.Done, nil
}

// overTenants runs u over every tenant and returns how many there were. It
// records its position after each page of tenants, and starts from the
// one recorded, if any: a run cut short (a crash, a deploy) resumes with
// the page it was on, whose tenants u upgrades again, changing nothing.
func (r *Runner) overTenants(ctx context.Context, u Upgrade) (int, error) {
	n, token, err := 0, "", error(nil)
	if token, err = r.resumeAt(ctx, u.Name); err != nil {
		return 0, err
	}
	for {
		page, next, err := r.tenants.List(ctx, tenant.ListFilter{Status: "all", Limit: tenantPage, Continuation: token})
		if kanri.IsCode(err, kanri.EINVALID) && token != "" {
			// A position this store no longer reads (a store moved, a
			// token expired): start again, which changes nothing done.
			r.Logger.Warn("upgrade: its recorded position is no longer valid; starting again", "upgrade", u.Name, "err", err)
			token = ""
			continue
		}
		if err != nil {
			return n, err
		}
		for _, t := range page {
			if err := u.Tenant(ctx, t.ID); err != nil {
				return n, fmt.Errorf("tenant %s: %w", t.ID, err)
			}
			n++
		}
		if next == "" {
			return n, nil
		}
		token = next
		if err := r.setResume(ctx, u.Name, token); err != nil {
			return n, err
		}
	}
}

// resumeAt returns the position a run of the upgrade name stopped at, ""
// for none.
func (r *Runner) resumeAt(ctx context.Context, name string) (string, error) {
	m, err := r.marker().Get(ctx, kanri.UpgradesID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return m.Resumes[name], nil
}

// setResume records that a run of the upgrade name finished the tenants
// before token.
func (r *Runner) setResume(ctx context.Context, name, token string) error {
	_, err := r.marker().Modify(ctx, kanri.UpgradesID,
		func() *kanri.Upgrades { return &kanri.Upgrades{} },
		func(m *kanri.Upgrades) error {
			if m.Resumes == nil {
				m.Resumes = map[string]string{}
			}
			m.Resumes[name] = token
			return nil
		})
	return err
}

// record adds name to the upgrades done.
func (r *Runner) record(ctx context.Context, name string) error {
	_, err := r.marker().Modify(ctx, kanri.UpgradesID,
		func() *kanri.Upgrades { return &kanri.Upgrades{} },
		func(m *kanri.Upgrades) error {
			if m.Done == nil {
				m.Done = map[string]kanri.Time{}
			}
			if _, ok := m.Done[name]; !ok {
				m.Done[name] = kanri.NewTime(r.Now())
			}
			delete(m.Resumes, name)
			return nil
		})
	return err
}
