package auth

import (
	"context"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// ReasonSSO, followed by ":" and the provider's name, is the reason of a
// sign-in with a tenant's identity provider; ReasonSSORequired that of a
// password or passkey refused because the tenant signs in with its
// providers only.
const (
	ReasonSSO         = "sso"
	ReasonSSORequired = "sso_required"
)

// ErrSSORequired is the error of a password or passkey sign-in in a
// tenant that requires single sign-on, to a user who is not one of its
// break-glass administrators.
var ErrSSORequired = kanri.E(kanri.EFORBIDDEN, "login.sso_required")

// Sealer returns the sealer of the service's secrets.
func (s *Service) Sealer() *Sealer { return s.sealer }

// SSOSettings returns the single sign-on settings of a tenant (the zero
// settings when it has none).
func (s *Service) SSOSettings(ctx context.Context, tenantID string) (*kanri.SSOSettings, error) {
	st, err := ssoSettings(s.Store, tenantID).Get(ctx, kanri.SSOSettingsID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return &kanri.SSOSettings{Doc: kanri.Doc{ID: kanri.SSOSettingsID}}, nil
	}
	return st, err
}

func ssoSettings(st *store.Store, tenantID string) *store.Repo[kanri.SSOSettings, *kanri.SSOSettings] {
	return store.Of[kanri.SSOSettings](st.Tenant(tenantID), kanri.ContainerAuth, kanri.TypeSSOSettings)
}

// passwordRefused reports whether the tenant t refuses u a sign-in without
// its providers (a password or a passkey alone), and records the refusal.
func (s *Service) passwordRefused(ctx context.Context, t *kanri.Tenant, u *kanri.User) (bool, error) {
	st, err := s.SSOSettings(ctx, t.ID)
	if err != nil {
		return false, err
	}
	if st.PasswordAllowed(u.ID) {
		return false, nil
	}
	s.record(ctx, t.ID, "auth.login_failed", kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username}, ReasonSSORequired)
	return true, nil
}

// ProviderSignIn signs u in to t once the tenant's identity provider
// named provider vouched for them (its ID token verified), and says
// whether Kanri's second step follows (ask: the tenant does not trust the
// provider's own). The user must be allowed in as with a password: active
// and in an open organisation; a lock of failed passwords does not keep
// out a user the provider signed in. Every outcome is audited.
func (s *Service) ProviderSignIn(ctx context.Context, t *kanri.Tenant, u *kanri.User, provider string, ask bool) (*kanri.User, bool, error) {
	now := s.Now()
	res := kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username}
	reason := ReasonSSO + ":" + provider
	switch {
	case !u.IsActive || !u.DeletedAt.IsZero():
		s.record(ctx, t.ID, "auth.login_failed", res, kanri.ReasonUserInactive)
		return nil, false, ErrSignIn
	case !t.OpenAt(now):
		s.record(ctx, t.ID, "auth.login_failed", res, kanri.ReasonTenantInactive+":"+t.Status)
		return nil, false, kanri.E(kanri.EFORBIDDEN, t.ClosedMessage(now))
	}
	second := false
	if ask {
		var err error
		if second, err = s.SecondStep(ctx, t, u); err != nil {
			return nil, false, err
		}
	}
	if !second {
		var err error
		if u, err = s.update(ctx, t.ID, u.ID, func(u *kanri.User) bool {
			u.Security.LastLoginAt = kanri.NewTime(now)
			return true
		}); err != nil {
			return nil, false, err
		}
	}
	ctx = audit.WithActor(ctx, withUser(audit.ActorFrom(ctx), u, t.ID))
	if second {
		s.record(ctx, t.ID, "auth.provider_verified", res, reason)
	} else {
		s.record(ctx, t.ID, "auth.login", res, reason)
	}
	return u, second, nil
}
