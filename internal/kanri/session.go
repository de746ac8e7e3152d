package kanri

import (
	"crypto/sha256"
	"encoding/hex"
)

// TypeSession is the type of a signed-in session's record.
const TypeSession = "session"

// Session is one sign-in of a user, as long as it lasts: the account page
// lists them and ends any of them, and every request of the session reads
// it, so that ending it stops the session on every instance at once.
type Session struct {
	Doc
	UserID string `json:"userId"`
	// Device is the browser and system the sign-in came from, read from
	// its user agent ("Chrome on Windows").
	Device     string `json:"device"`
	IPAddress  string `json:"ipAddress"`
	CreatedAt  Time   `json:"createdAt"`
	LastSeenAt Time   `json:"lastSeenAt"`
	// TTL is the session's absolute lifetime: the record goes when the
	// session could no longer be used anyway.
	TTL int `json:"ttl"`
	// Support, on a session that the operator's support staff opened as
	// the user (docs/security.md, "Support access"), says who opened it,
	// why and until when; nil on the user's own sessions.
	Support *SessionSupport `json:"support,omitempty"`
}

// SessionSupport is what a support session records of its opening.
type SessionSupport struct {
	// StaffTenantID, StaffUserID and StaffName are the staff member who
	// opened it.
	StaffTenantID string `json:"staffTenantId"`
	StaffUserID   string `json:"staffUserId"`
	StaffName     string `json:"staffName"`
	Reason        string `json:"reason"`
	// Writable says it may change what its user could: the tenant's
	// setting when it was opened.
	Writable  bool `json:"writable"`
	ExpiresAt Time `json:"expiresAt"`
	// RequestID is the approved request that opened it, in a tenant that
	// approves each session ("" when the tenant did not ask for approval).
	RequestID string `json:"requestId,omitempty"`
}

// SessionID returns the id of the record of the session whose cookie
// holds token: a digest, so that the store never holds what signs a
// request in.
func SessionID(token string) string {
	sum := sha256.Sum256([]byte("kanri session " + token))
	return "session_" + hex.EncodeToString(sum[:20])
}
