package api

import (
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/web/httpkit"
)

// Who did something, as the API says it: the fields that hold who made or
// changed a thing (a file's uploadedBy, a folder's createdBy, a role's
// assignedBy, an audit record's userId) hold a user's id, an API key's
// (a call of the API acts as its key), or system; a field beside each
// says which, and GET /keys/{key} reads a key by its id as GET
// /users/{id} reads a user.

// Kinds of actors.
const (
	ActorUser   = "user"
	ActorAPIKey = "apiKey"
	actorSystem = "system"
)

// ActorKind returns the kind of actor an id names.
func ActorKind(id string) string {
	switch {
	case strings.HasPrefix(id, "user_"):
		return ActorUser
	case strings.HasPrefix(id, "apikey_"):
		return ActorAPIKey
	}
	return actorSystem
}

// ActorKindSchema is the schema of the fields that say what an actor's id
// names.
func ActorKindSchema(field string) map[string]any {
	return map[string]any{"type": "string", "enum": []string{ActorUser, ActorAPIKey, actorSystem},
		"description": "What " + field + " names. user: a user (GET /users/{id} reads the tenant's own; the operator's staff are not found there); " +
			"apiKey: one of the tenant's API keys, which made the change through the API (GET /keys/{key}); system: Kanri itself (a scheduled job, the first start)."}
}

// ActorIDSchema is the schema of a field that holds an actor's id.
func ActorIDSchema(kindField string) map[string]any {
	return map[string]any{"type": "string",
		"description": "The id of who did it: a user's (user_…), an API key's (apikey_…), or system; " + kindField + " says which."}
}

// apiKeyDoc is an API key as GET /keys/{key} shows it: never its secret
// nor its hash.
type apiKeyDoc struct {
	apiMeKey
	Status string `json:"status"`
}

// apiGetKey reads one of the tenant's API keys; another tenant's is not
// found.
func (s *Server) apiGetKey(c echo.Context) error {
	k, err := s.Keys.Get(c.Request().Context(), httpkit.Tenant(c).ID, c.Param("key"))
	if err != nil {
		return err
	}
	doc := apiKeyDoc{apiMeKey: apiMeKey{ID: k.ID, Name: k.Name, Prefix: k.KeyPrefix, Scopes: k.Scopes, CreatedAt: k.CreatedAt, ExpiresAt: k.ExpiresAt}, Status: k.StatusAt(s.Now())}
	if doc.Scopes == nil {
		doc.Scopes = []string{}
	}
	return SendTagged(c, doc)
}

// apiKeySchema returns the schema of an API key as GET /keys/{key} shows
// it, made with the document's obj.
func apiKeySchema(obj func([]string, map[string]any) map[string]any) map[string]any {
	when := map[string]any{"type": []string{"string", "null"}, "format": "date-time"}
	return obj([]string{"id", "name", "prefix", "scopes", "status", "createdAt", "expiresAt"}, map[string]any{
		"id": map[string]any{"type": "string"}, "name": map[string]any{"type": "string"},
		"prefix":    map[string]any{"type": "string", "description": "The key's first characters, as the console shows them; never the secret."},
		"scopes":    map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{kanri.ScopeRead, kanri.ScopeWrite}}},
		"status":    map[string]any{"type": "string", "enum": []string{kanri.KeyActive, kanri.KeyInactive, kanri.KeyRevoked, kanri.KeyExpired}, "description": "Whether the key works now: only an active key does."},
		"createdAt": when,
		"expiresAt": map[string]any{"type": []string{"string", "null"}, "format": "date-time", "description": "null when the key does not expire."},
	})
}
