package organisation

import (
	"github.com/kanri/kanri/internal/export"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
)

// Routes are the pages of a tenant's settings, e-mail domains, API keys and audit log.
func (s *Pages) Routes(g console.Groups) []console.Route {
	return []console.Route{
		console.Get(g.Tenant, "/domains", role.DomainsRead, s.listDomains),
		console.Post(g.Tenant, "/domains", role.DomainsCreate, s.addDomain),
		console.Post(g.Tenant, "/domains/:id/verify", role.DomainsUpdate, s.verifyDomain),
		console.Post(g.Tenant, "/domains/:id/delete", role.DomainsDelete, s.deleteDomain),
		console.Get(g.Tenant, "/api-keys", role.APIKeysRead, s.listAPIKeys),
		console.NoSupport(console.Get(g.Tenant, "/api-keys/new", role.APIKeysCreate, s.newAPIKey)),
		console.Get(g.Tenant, "/api-keys/usage", role.APIKeysRead, s.tenantAPIUsage),
		console.Get(g.Tenant, "/api-keys/cors", role.APIKeysRead, s.showCORS),
		console.Post(g.Tenant, "/api-keys/cors", role.APIKeysUpdate, s.saveCORS),
		console.NoSupport(console.Post(g.Tenant, "/api-keys", role.APIKeysCreate, s.createAPIKey)),
		console.Get(g.Tenant, "/api-keys/:id", role.APIKeysRead, s.apiKeyUsage),
		console.NoSupport(console.Get(g.Tenant, "/api-keys/:id/secret", role.APIKeysRead, s.showAPIKeySecret)),
		console.Post(g.Tenant, "/api-keys/:id/deactivate", role.APIKeysUpdate, s.deactivateAPIKey),
		console.Post(g.Tenant, "/api-keys/:id/reactivate", role.APIKeysUpdate, s.reactivateAPIKey),
		console.NoSupport(console.Post(g.Tenant, "/api-keys/:id/rotate", role.APIKeysUpdate, s.rotateAPIKey)),
		console.Post(g.Tenant, "/api-keys/:id/revoke", role.APIKeysDelete, s.revokeAPIKey),
		console.Get(g.Tenant, "/audit", role.AuditRead, s.listAudit),
		console.Get(g.Tenant, "/audit.csv", role.AuditRead, s.Streaming(console.ExportTimeout, s.exportAudit(export.CSV))),
		console.Get(g.Tenant, "/audit.json", role.AuditRead, s.Streaming(console.ExportTimeout, s.exportAudit(export.JSON))),
		console.Get(g.Tenant, "/settings", role.SettingsRead, s.showSettings),
		console.Post(g.Tenant, "/settings", role.SettingsUpdate, s.saveSettings),
		console.Get(g.Tenant, "/settings/time-now", role.SettingsRead, s.zoneNowPreview),
	}
}

// Nav are the feature's entries of the side navigation.
func (s *Pages) Nav() []views.NavEntry {
	return []views.NavEntry{
		{Key: "domains", LabelKey: "nav.domains", Path: views.DomainsPath, Perm: role.DomainsRead, Order: 40},
		{Key: "apikeys", LabelKey: "nav.apikeys", Path: views.APIKeysPath, Perm: role.APIKeysRead, Order: 80},
		{Key: "audit", LabelKey: "nav.audit", Path: views.AuditPath, Perm: role.AuditRead, Order: 90},
		{Key: "settings", LabelKey: "nav.settings", Path: views.SettingsPath, Perm: role.SettingsRead, Order: 100},
	}
}
