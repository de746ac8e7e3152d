package kanri

// Document types of provisioning by SCIM 2.0 (docs/sso.md,
// "Provisioning").
const (
	// TypeSCIMConfig is the type of a tenant's provisioning settings and
	// its bearer token, one document (SCIMConfigID) in its partition.
	TypeSCIMConfig = "scim_config"
	// TypeSCIMUser is the type of what provisioning keeps of a user: the
	// identity provider's externalId, and whether it deprovisioned them.
	// Its id is SCIMUserID of the user's.
	TypeSCIMUser = "scim_user"
)

// SCIMConfigID is the id of a tenant's provisioning settings.
const SCIMConfigID = "scim_config"

// SCIMConfig is a tenant's provisioning: its bearer token (only a digest
// is kept) and what deprovisioning does.
type SCIMConfig struct {
	Doc
	// TokenPrefix is the start of the token, to recognise it; TokenHash
	// its SHA-256, hex. Empty: no token (provisioning is off).
	TokenPrefix string `json:"tokenPrefix"`
	TokenHash   string `json:"tokenHash"`
	// PreviousHash is the token a rotation replaced, which works until
	// PreviousUntil so that the provider can be given the new one.
	PreviousHash  string `json:"previousHash,omitempty"`
	PreviousUntil Time   `json:"previousUntil"`
	CreatedAt     Time   `json:"createdAt"`
	LastUsedAt    Time   `json:"lastUsedAt"`
	// DeleteUsers makes a deprovisioning (DELETE) delete the user; off
	// (the default), it deactivates them and ends their sessions.
	DeleteUsers bool `json:"deleteUsers"`
}

// SCIMUser is what provisioning keeps of a user.
type SCIMUser struct {
	Doc
	UserID     string `json:"userId"`
	ExternalID string `json:"externalId"`
	// Deprovisioned says the provider deleted the user (who is
	// deactivated, or deleted when the tenant says so): provisioning no
	// longer finds them.
	Deprovisioned bool `json:"deprovisioned"`
	// Created says provisioning created the user (not matched to one made
	// in Kanri): only such a user comes back when created again.
	Created   bool `json:"created"`
	UpdatedAt Time `json:"updatedAt"`
}

// SCIMUserID returns the id of what provisioning keeps of the user
// userID.
func SCIMUserID(userID string) string { return "scim_" + userID }

// TypeSCIMGroup is the type of a group the identity provider pushes: its
// members, and the roles the tenant's administrator maps it to.
const TypeSCIMGroup = "scim_group"

// SCIMGroupMembersMax is the most members a group holds.
const SCIMGroupMembersMax = 1000

// SCIMGroup is a group of the identity provider. Its members hold the
// roles it is mapped to (assigned by "scim"), for as long as they are in
// a group mapped to them.
type SCIMGroup struct {
	Doc
	DisplayName string   `json:"displayName"`
	ExternalID  string   `json:"externalId"`
	Members     []string `json:"members"`
	// Roles are "service/role": what the tenant's administrator maps the
	// group to (none until they do).
	Roles     []string `json:"roles"`
	CreatedAt Time     `json:"createdAt"`
	UpdatedAt Time     `json:"updatedAt"`
}
