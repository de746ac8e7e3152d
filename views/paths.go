package views

import "net/url"

// The console's URLs, built in one place: pages link with them and
// handlers redirect with them. The features' Routes
// (web/console/*/routes.go) declare the routes they reach; a test of web
// (TestPathsAreRouted) checks that every one of them is routed.

// TenantsPath is the operator's tenant list.
func TenantsPath() string { return "/tenants" }

// TenantPath is one tenant of the operator's list; its actions and edit
// form are below it.
func TenantPath(id string) string { return "/tenants/" + id }

// UsersPath is a tenant's user list.
func UsersPath(tenantID string) string { return "/t/" + tenantID + "/users" }

// UserPath is one user of a tenant; its edit form, actions and roles are
// below it.
func UserPath(tenantID, userID string) string { return UsersPath(tenantID) + "/" + userID }

// RolesPath is a tenant's role overview.
func RolesPath(tenantID string) string { return "/t/" + tenantID + "/roles" }

// RoleHoldersPath lists the holders of one role of one service.
func RoleHoldersPath(tenantID, serviceID, roleKey string) string {
	return RolesPath(tenantID) + "/" + serviceID + "/" + roleKey
}

// AuditPath is a tenant's audit log; AuditPath + ".csv" its export.
func AuditPath(tenantID string) string { return "/t/" + tenantID + "/audit" }

// AccountPath is the signed-in user's own account.
func AccountPath() string { return "/account" }

// ServicesPath is the operator's service catalog; ServicesPath + "/new"
// adds a service.
func ServicesPath() string { return "/services" }

// ServicePath is one service of the catalog; its edit form and actions are
// below it.
func ServicePath(id string) string { return "/services/" + id }

// ServicesUsagePath is every tenant's service usage in a month.
func ServicesUsagePath() string { return "/services/usage" }

// TenantServicesPath is a tenant's services.
func TenantServicesPath(tenantID string) string { return "/t/" + tenantID + "/services" }

// TenantServicePath is one service of a tenant: its usage; its
// assignment's form and actions are below it.
func TenantServicePath(tenantID, serviceID string) string {
	return TenantServicesPath(tenantID) + "/" + serviceID
}

// DomainsPath is a tenant's e-mail domains.
func DomainsPath(tenantID string) string { return "/t/" + tenantID + "/domains" }

// DomainPath is one domain of a tenant; its actions are below it.
func DomainPath(tenantID, id string) string { return DomainsPath(tenantID) + "/" + id }

// APIKeysPath is a tenant's API keys; APIKeysPath + "/usage" their usage.
func APIKeysPath(tenantID string) string { return "/t/" + tenantID + "/api-keys" }

// APIKeyPath is one API key: its usage; its actions are below it.
func APIKeyPath(tenantID, id string) string { return APIKeysPath(tenantID) + "/" + id }

// FilesPath is the top level of a tenant's files.
func FilesPath(tenantID string) string { return "/t/" + tenantID + "/files" }

// FolderPath is a folder's page.
func FolderPath(tenantID, folderID string) string {
	return FilesPath(tenantID) + "/folders/" + folderID
}

// FolderPathOrTop is a folder's page, or the top level for "".
func FolderPathOrTop(tenantID, folderID string) string {
	if folderID == "" {
		return FilesPath(tenantID)
	}
	return FolderPath(tenantID, folderID)
}

// FilePath is a file's page.
func FilePath(tenantID, fileID string) string { return FilesPath(tenantID) + "/" + fileID }

// TrashPath is a tenant's trash.
func TrashPath(tenantID string) string { return FilesPath(tenantID) + "/trash" }

// UploadsPath is where the console's resumable uploads (tus) go.
func UploadsPath(tenantID string) string { return "/t/" + tenantID + "/uploads" }

// SettingsPath is a tenant's settings: its time zone, default language,
// feature flags and subscription.
func SettingsPath(tenantID string) string { return "/t/" + tenantID + "/settings" }

// TwoFactorPath is the signed-in user's two-factor sign-in page.
func TwoFactorPath() string { return "/account/2fa" }

// APIDocsPath is the address of the API's reference: its overview, with
// the contents and the problem types that problems' type addresses point
// to.
func APIDocsPath() string { return "/api/v1/docs" }

// APIDocsTagPath is the address of the page of one tag of the reference,
// by the tag's slug.
func APIDocsTagPath(slug string) string { return APIDocsPath() + "/" + slug }

// SSOLoginPath is the sign-in page of single sign-on, for the
// organisation org (when known) and leading to next.
func SSOLoginPath(org, next string) string {
	q := url.Values{}
	if org != "" {
		q.Set("org", org)
	}
	if next != "" {
		q.Set("next", next)
	}
	if len(q) == 0 {
		return "/login/sso"
	}
	return "/login/sso?" + q.Encode()
}

// SSOStartPath starts a sign-in with the provider providerID of the
// tenant tenantID, leading to next. It is a link, not a form: the answer
// sends the browser to the provider, which a form's navigation may not
// reach under the pages' Content-Security-Policy (form-action 'self').
//
// csrf is the page's CSRF token: a link another site made cannot start a
// sign-in that would replace the browser's session.
func SSOStartPath(tenantID, providerID, next, csrf string) string {
	q := url.Values{"tenant": {tenantID}, "provider": {providerID}, "_csrf": {csrf}}
	if next != "" {
		q.Set("next", next)
	}
	return "/login/sso/start?" + q.Encode()
}

// SSOPath is a tenant's single sign-on page.
func SSOPath(tenantID string) string { return "/t/" + tenantID + "/sso" }

// ProviderPath is one of a tenant's identity providers.
func ProviderPath(tenantID, id string) string { return SSOPath(tenantID) + "/providers/" + id }

// WebhooksPath is a tenant's webhook endpoints.
func WebhooksPath(tenantID string) string { return "/t/" + tenantID + "/webhooks" }

// WebhookPath is one of a tenant's webhook endpoints: its delivery log.
func WebhookPath(tenantID, id string) string { return WebhooksPath(tenantID) + "/" + id }
