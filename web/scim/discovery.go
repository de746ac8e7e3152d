package scim

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/scim"
)

// What Kanri's SCIM service offers (RFC 7643, 5).
func (s *Server) serviceProviderConfig(c echo.Context) error {
	return write(c, http.StatusOK, map[string]any{
		"schemas":        []string{"urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"},
		"patch":          map[string]bool{"supported": true},
		"bulk":           map[string]any{"supported": false, "maxOperations": 0, "maxPayloadSize": 0},
		"filter":         map[string]any{"supported": true, "maxResults": scim.MaxCount},
		"changePassword": map[string]bool{"supported": false},
		"sort":           map[string]bool{"supported": false},
		"etag":           map[string]bool{"supported": true},
		"authenticationSchemes": []map[string]any{{
			"type": "oauthbearertoken", "name": "Bearer token", "primary": true,
			"description": "The organisation's provisioning token, created on its Single sign-on page",
		}},
		"meta": map[string]string{"resourceType": "ServiceProviderConfig", "location": s.BaseURL(c) + "/scim/v2/" + c.Param("tenant") + "/ServiceProviderConfig"},
	})
}

func (s *Server) userType(c echo.Context) map[string]any {
	return map[string]any{
		"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:ResourceType"},
		"id":      "User", "name": "User", "endpoint": "/Users", "description": "A user of the organisation",
		"schema":           scim.SchemaUser,
		"schemaExtensions": []map[string]any{{"schema": scim.SchemaEnterprise, "required": false}},
		"meta":             map[string]string{"resourceType": "ResourceType", "location": s.BaseURL(c) + "/scim/v2/" + c.Param("tenant") + "/ResourceTypes/User"},
	}
}

func (s *Server) groupType(c echo.Context) map[string]any {
	return map[string]any{
		"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:ResourceType"},
		"id":      "Group", "name": "Group", "endpoint": "/Groups", "description": "A group of the provider, mapped to roles in Kanri",
		"schema": scim.SchemaGroup,
		"meta":   map[string]string{"resourceType": "ResourceType", "location": s.BaseURL(c) + "/scim/v2/" + c.Param("tenant") + "/ResourceTypes/Group"},
	}
}

func (s *Server) resourceTypes(c echo.Context) error {
	return write(c, http.StatusOK, map[string]any{
		"schemas": []string{scim.SchemaListResponse}, "totalResults": 2, "startIndex": 1, "itemsPerPage": 2,
		"Resources": []any{s.userType(c), s.groupType(c)},
	})
}

func (s *Server) resourceType(c echo.Context) error { return write(c, http.StatusOK, s.userType(c)) }

func (s *Server) groupResourceType(c echo.Context) error {
	return write(c, http.StatusOK, s.groupType(c))
}

// attr is one attribute of a schema.
func attr(name, typ string, required bool, mutability, uniqueness string, sub ...map[string]any) map[string]any {
	a := map[string]any{
		"name": name, "type": typ, "multiValued": false, "required": required, "caseExact": false,
		"mutability": mutability, "returned": "default", "uniqueness": uniqueness,
	}
	if len(sub) > 0 {
		a["subAttributes"] = sub
	}
	return a
}

func userSchema() map[string]any {
	emails := attr("emails", "complex", false, "readWrite", "none",
		attr("value", "string", true, "readWrite", "none"), attr("type", "string", false, "readWrite", "none"), attr("primary", "boolean", false, "readWrite", "none"))
	emails["multiValued"] = true
	return map[string]any{
		"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:Schema"},
		"id":      scim.SchemaUser, "name": "User", "description": "A user of the organisation",
		"attributes": []any{
			attr("userName", "string", true, "immutable", "server"),
			attr("name", "complex", false, "readWrite", "none",
				attr("formatted", "string", false, "readWrite", "none"), attr("givenName", "string", false, "readWrite", "none"), attr("familyName", "string", false, "readWrite", "none")),
			attr("displayName", "string", false, "readWrite", "none"),
			attr("title", "string", false, "readWrite", "none"),
			emails,
			attr("active", "boolean", false, "readWrite", "none"),
			attr("externalId", "string", false, "readWrite", "none"),
		},
		"meta": map[string]string{"resourceType": "Schema"},
	}
}

func enterpriseSchema() map[string]any {
	return map[string]any{
		"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:Schema"},
		"id":      scim.SchemaEnterprise, "name": "EnterpriseUser", "description": "The part of the enterprise extension Kanri keeps",
		"attributes": []any{attr("department", "string", false, "readWrite", "none")},
		"meta":       map[string]string{"resourceType": "Schema"},
	}
}

func groupSchema() map[string]any {
	members := attr("members", "complex", false, "readWrite", "none",
		attr("value", "string", false, "immutable", "none"), attr("display", "string", false, "readOnly", "none"), attr("$ref", "reference", false, "immutable", "none"))
	members["multiValued"] = true
	return map[string]any{
		"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:Schema"},
		"id":      scim.SchemaGroup, "name": "Group", "description": "A group of the provider, mapped to roles in Kanri",
		"attributes": []any{attr("displayName", "string", true, "readWrite", "server"), members, attr("externalId", "string", false, "readWrite", "none")},
		"meta":       map[string]string{"resourceType": "Schema"},
	}
}

func (s *Server) schemas(c echo.Context) error {
	return write(c, http.StatusOK, map[string]any{
		"schemas": []string{scim.SchemaListResponse}, "totalResults": 3, "startIndex": 1, "itemsPerPage": 3,
		"Resources": []any{userSchema(), enterpriseSchema(), groupSchema()},
	})
}

func (s *Server) schema(c echo.Context) error {
	switch c.Param("id") {
	case scim.SchemaUser:
		return write(c, http.StatusOK, userSchema())
	case scim.SchemaEnterprise:
		return write(c, http.StatusOK, enterpriseSchema())
	case scim.SchemaGroup:
		return write(c, http.StatusOK, groupSchema())
	}
	return &scim.Error{Status: http.StatusNotFound, Detail: "no such schema"}
}
