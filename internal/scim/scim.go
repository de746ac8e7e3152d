// Package scim provisions a tenant's users from its identity provider by
// SCIM 2.0 (RFC 7643, RFC 7644; docs/sso.md, "Provisioning"): the
// tenant's bearer token, and the Users resource over Kanri's users, with
// the quirks of Microsoft Entra ID's and Okta's requests.
package scim

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/user"
)

// TokenPrefix starts every provisioning token.
const TokenPrefix = "kscim_"

// RotationGrace is how long a rotated token keeps working.
const RotationGrace = time.Hour

// Actor is who provisioning's changes are by, in the audit log.
var Actor = audit.Actor{UserID: Provisioned, UserName: "SCIM provisioning"}

// Service keeps the tenants' provisioning tokens and serves provisioning.
type Service struct {
	app.Deps
	Users *user.Service
	Roles *role.Service
}

// New returns the service.
func New(d app.Deps, users *user.Service, roles *role.Service) *Service {
	return &Service{Deps: d, Users: users, Roles: roles}
}

func configs(st *store.Store, tenantID string) *store.Repo[kanri.SCIMConfig, *kanri.SCIMConfig] {
	return store.Of[kanri.SCIMConfig](st.Tenant(tenantID), kanri.ContainerAuth, kanri.TypeSCIMConfig)
}

func links(st *store.Store, tenantID string) *store.Repo[kanri.SCIMUser, *kanri.SCIMUser] {
	return store.Of[kanri.SCIMUser](st.Tenant(tenantID), kanri.ContainerAuth, kanri.TypeSCIMUser)
}

// Config returns a tenant's provisioning settings (the zero settings,
// without a token, when it has none).
func (s *Service) Config(ctx context.Context, tenantID string) (*kanri.SCIMConfig, error) {
	c, err := configs(s.Store, tenantID).Get(ctx, kanri.SCIMConfigID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return &kanri.SCIMConfig{Doc: kanri.Doc{ID: kanri.SCIMConfigID}}, nil
	}
	return c, err
}

func digest(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// NewToken gives the tenant a new bearer token, returned once, on the
// settings as seen at etag (a form sent twice, by a reload, is stale and
// makes no second token); a token it replaces keeps working for
// RotationGrace. The operator's tenant is provisioned by no provider: its
// staff hold every tenant.
func (s *Service) NewToken(ctx context.Context, tenantID, etag string) (string, *kanri.SCIMConfig, error) {
	if tenantID == kanri.PrivilegedTenantID {
		return "", nil, kanri.E(kanri.EFORBIDDEN, "scim.not_operator")
	}
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return "", nil, err
	}
	b := make([]byte, 32)
	rand.Read(b)
	token := TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	now := s.Now()
	rotated := false
	c, err := configs(s.Store, tenantID).Modify(ctx, kanri.SCIMConfigID, func() *kanri.SCIMConfig { return &kanri.SCIMConfig{} }, func(c *kanri.SCIMConfig) error {
		if etag != c.ETag {
			return kanri.Stale()
		}
		rotated = c.TokenHash != ""
		if rotated {
			c.PreviousHash, c.PreviousUntil = c.TokenHash, kanri.NewTime(now.Add(RotationGrace))
		}
		c.TokenPrefix, c.TokenHash, c.CreatedAt, c.LastUsedAt = token[:len(TokenPrefix)+6], digest(token), kanri.NewTime(now), kanri.Time{}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	action := "scim.token_create"
	if rotated {
		action = "scim.token_rotate"
	}
	s.Audit.Record(ctx, audit.Entry{TenantID: tenantID, Action: action, Resource: kanri.AuditResource{Type: kanri.AuditTenant, ID: tenantID, Name: c.TokenPrefix + "…"}})
	return token, c, nil
}

// RevokeToken stops the tenant's tokens, the rotated one too.
func (s *Service) RevokeToken(ctx context.Context, tenantID string) error {
	_, err := configs(s.Store, tenantID).Modify(ctx, kanri.SCIMConfigID, nil, func(c *kanri.SCIMConfig) error {
		c.TokenPrefix, c.TokenHash, c.PreviousHash, c.PreviousUntil = "", "", "", kanri.Time{}
		return nil
	})
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil
	}
	if err == nil {
		s.Audit.Record(ctx, audit.Entry{TenantID: tenantID, Action: "scim.token_revoke", Resource: kanri.AuditResource{Type: kanri.AuditTenant, ID: tenantID}})
	}
	return err
}

// SetDeleteUsers says whether a deprovisioning deletes the user (true) or
// deactivates them, on the settings as seen at etag.
func (s *Service) SetDeleteUsers(ctx context.Context, tenantID, etag string, del bool) error {
	var before bool
	_, err := configs(s.Store, tenantID).Modify(ctx, kanri.SCIMConfigID, func() *kanri.SCIMConfig { return &kanri.SCIMConfig{} }, func(c *kanri.SCIMConfig) error {
		if etag != c.ETag {
			return kanri.Stale()
		}
		before, c.DeleteUsers = c.DeleteUsers, del
		return nil
	})
	if err == nil {
		s.Audit.Record(ctx, audit.Entry{TenantID: tenantID, Action: "scim.settings_update", Resource: kanri.AuditResource{Type: kanri.AuditTenant, ID: tenantID},
			Changes: audit.Diff(map[string]any{"deleteUsers": before}, map[string]any{"deleteUsers": del})})
	}
	return err
}

// ErrToken is the error of a request without a valid token of the
// tenant: the same whether the tenant exists or not.
var ErrToken = kanri.E(kanri.EUNAUTHENTICATED, "scim.token")

// Authenticate checks a request's bearer token against the tenant's,
// and returns the context its changes are made in (by Actor).
func (s *Service) Authenticate(ctx context.Context, tenantID, token string) (context.Context, error) {
	if !strings.HasPrefix(token, TokenPrefix) || len(token) > 100 || tenantID == kanri.PrivilegedTenantID || docstore.CheckKey(tenantID, kanri.SCIMConfigID) != nil {
		return ctx, ErrToken
	}
	c, err := configs(s.Store, tenantID).Get(ctx, kanri.SCIMConfigID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return ctx, ErrToken
	}
	if err != nil {
		return ctx, err
	}
	d := digest(token)
	current := c.TokenHash != "" && subtle.ConstantTimeCompare([]byte(d), []byte(c.TokenHash)) == 1
	previous := c.PreviousHash != "" && subtle.ConstantTimeCompare([]byte(d), []byte(c.PreviousHash)) == 1 && s.Now().Before(c.PreviousUntil.Time)
	if !current && !previous {
		return ctx, ErrToken
	}
	t, err := s.Store.Tenant(tenantID).Profile(ctx)
	if err != nil || !t.OpenAt(s.Now()) {
		return ctx, ErrToken // a closed organisation is provisioned no more
	}
	if now := s.Now(); now.Sub(c.LastUsedAt.Time) > time.Minute {
		// Written at most once a minute: a provisioning cycle is many
		// requests.
		c.LastUsedAt = kanri.NewTime(now)
		if err := configs(s.Store, tenantID).Replace(ctx, c); err != nil && !kanri.IsCode(err, kanri.ESTALE) {
			s.Logger.Warn("scim: the token's use not recorded", "tenant", tenantID, "err", err)
		}
	}
	a := Actor
	a.TenantID = tenantID
	return audit.WithActor(ctx, a), nil
}
