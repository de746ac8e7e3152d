package tenant

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// ZoneHook is told that a tenant's time zone changed to loc, after the
// change is saved: the backups move their jobs' next runs with it. It must
// be safe to call again for the same change.
type ZoneHook func(ctx context.Context, tenantID string, loc *time.Location) error

// OnZoneChange has f called whenever a tenant's time zone changes. Call it
// while wiring the services, before they serve.
func (s *Service) OnZoneChange(f ZoneHook) { s.zoneHooks = append(s.zoneHooks, f) }

// UpdateSettings saves a tenant's settings (its time zone, default locale
// and feature flags) from its settings page, and records the change as
// tenant.update with each setting changed. Like Update, the edit is stale
// (ESTALE) only if the settings changed since the form was opened at etag:
// base holds them then (nil: any change of the tenant is a conflict). A
// deleted tenant's settings do not change. When the time zone changes, the
// zone hooks run (a failing hook is logged: the settings stay saved, and
// the backups read the zone again at their next run). Support access is
// changed only by the tenant's own users (OwnDecision; EFORBIDDEN).
func (s *Service) UpdateSettings(ctx context.Context, id, etag string, base *kanri.SettingsInput, in kanri.SettingsInput) (*kanri.Tenant, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	var zoneBefore string
	t, err := store.Retry(ctx, func() (*kanri.Tenant, error) {
		t, err := s.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := t.CheckOpen(); err != nil {
			return nil, err
		}
		if etag != "" && etag != t.ETag && (base == nil || kanri.SettingsInputOf(t) != *base) {
			return nil, kanri.Stale()
		}
		if cur := kanri.SettingsInputOf(t); (cur.SupportAccess != in.SupportAccess || cur.SupportChanges != in.SupportChanges) && !OwnDecision(ctx, id) {
			return nil, kanri.E(kanri.EFORBIDDEN, "settings.support_own")
		}
		before := settingsFields(t)
		zoneBefore = t.Location().String()
		in.Apply(&t.Settings)
		after := settingsFields(t)
		if len(audit.Diff(before, after)) == 0 {
			return t, nil
		}
		if err := s.save(ctx, t); err != nil {
			return nil, store.Raced(err)
		}
		s.record(ctx, t, "tenant.update", before, after)
		return t, nil
	})
	if err != nil {
		return nil, err
	}
	if loc := t.Location(); loc.String() != zoneBefore {
		for _, hook := range s.zoneHooks {
			if err := hook(ctx, t.ID, loc); err != nil {
				s.Logger.Error("a tenant's time zone changed, but a service did not follow it", "tenant", t.ID, "zone", loc.String(), "err", err)
			}
		}
	}
	return t, nil
}

// OwnDecision reports whether ctx's actor may decide what the tenant
// decides alone: whether and how the operator's support staff may open it
// (docs/security.md, "Support access"). Only the tenant's own users may,
// in their own sessions: never the operator's staff, who would use it,
// nor a support session.
func OwnDecision(ctx context.Context, tenantID string) bool {
	a := audit.ActorFrom(ctx)
	return a.TenantID == tenantID && a.Support == nil
}

// SetTimezone sets only the tenant's time zone: UpdateSettings with the
// other settings as they are.
func (s *Service) SetTimezone(ctx context.Context, id, zone string) (*kanri.Tenant, error) {
	t, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	in := kanri.SettingsInputOf(t)
	in.Timezone = zone
	return s.UpdateSettings(ctx, id, "", nil, in)
}

// settingsFields are the settings as the audit records them: one object,
// whose settings the audit page shows by their dotted paths
// (audit.field.settings.… names them), each that changed.
func settingsFields(t *kanri.Tenant) map[string]any {
	in := kanri.SettingsInputOf(t)
	return map[string]any{"settings": map[string]any{
		"timezone": in.Timezone,
		"locale":   in.Locale,
		"features": map[string]any{
			kanri.FeatureTwoFactorAuth:     in.TwoFactorAuth,
			"twoFactorEnforcement":         in.TwoFactorEnforcement,
			kanri.FeatureAPIAccess:         in.APIAccess,
			kanri.FeatureAdvancedReporting: in.AdvancedReporting,
			"supportAccess":                in.SupportAccess,
			"supportChanges":               in.SupportChanges,
		},
	}}
}
