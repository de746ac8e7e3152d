package events

import (
	"encoding/json"
	"strings"
)

// TopicAccess is the topic of the events that say what people may do in a
// tenant may have changed: a session ended, a user changed or deactivated,
// a role assignment or a service assignment changed, the tenant suspended.
// A live stream checks its session and rights again when it hears one
// that concerns its person, rather than reading them over and over.
// "access" concerns everyone of the tenant; "access:<user id>" one user.
const TopicAccess = "access"

// KindAccessChanged is the kind of the events of TopicAccess.
const KindAccessChanged = "access.changed"

// AccessChanged returns the event that tells a tenant's live streams that
// what userID may do there may have changed; an empty userID means
// everyone of the tenant.
func AccessChanged(tenantID, userID string) Event {
	topic := TopicAccess
	if userID != "" {
		topic += ":" + userID
	}
	data, _ := json.Marshal(struct {
		UserID string `json:"userId,omitempty"`
	}{userID})
	return Event{TenantID: tenantID, Topic: topic, Kind: KindAccessChanged, Data: data}
}

// Access reports whether e is an event of TopicAccess and, if so, whether
// it concerns userID.
func (e *Event) Access(userID string) (access, concerns bool) {
	rest, ok := strings.CutPrefix(e.Topic, TopicAccess)
	switch {
	case !ok:
		return false, false
	case rest == "":
		return true, true
	case strings.HasPrefix(rest, ":"):
		return true, rest[1:] == userID
	}
	return false, false
}
