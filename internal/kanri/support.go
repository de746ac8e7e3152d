package kanri

// TypeSupportRequest is the type of a request for a support session, in
// a tenant that approves each (docs/security.md, "Support access").
const TypeSupportRequest = "support_request"

// SupportRequestTTL is how long, in seconds, a support request is kept:
// a day, for the tenant's administrators to see what was asked.
const SupportRequestTTL = 24 * 60 * 60

// States of a support request.
const (
	SupportPending  = "pending"
	SupportApproved = "approved"
	SupportDenied   = "denied"
	SupportUsed     = "used" // its session was opened
)

// SupportRequest is a staff member's request to open the tenant as one of
// its users, and the tenant's administrator's decision.
type SupportRequest struct {
	Doc
	// UserID and Username are the user to act as.
	UserID   string `json:"userId"`
	Username string `json:"username"`
	// StaffTenantID, StaffUserID and StaffName are who asks.
	StaffTenantID string `json:"staffTenantId"`
	StaffUserID   string `json:"staffUserId"`
	StaffName     string `json:"staffName"`
	Reason        string `json:"reason"`
	Status        string `json:"status"`
	RequestedAt   Time   `json:"requestedAt"`
	// DecidedAt and DecidedBy (a username) say who of the tenant approved
	// or denied it, and when.
	DecidedAt Time   `json:"decidedAt"`
	DecidedBy string `json:"decidedBy,omitempty"`
	TTL       int    `json:"ttl"`
}
