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
}

// SessionID returns the id of the record of the session whose cookie
// holds token: a digest, so that the store never holds what signs a
// request in.
func SessionID(token string) string {
	sum := sha256.Sum256([]byte("kanri session " + token))
	return "session_" + hex.EncodeToString(sum[:20])
}
