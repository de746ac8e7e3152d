package wiring

import (
	"context"
	"log/slog"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/kanri"
)

// accessEvent returns the event that tells the live streams of e's tenant,
// on every instance, that what someone may do there may have changed, and
// whether e's change is one that may: every change Kanri makes is audited
// after it is committed, so the streams hear of a sign-out, a deactivation,
// a lost role or a suspension at once, whichever service made it.
func accessEvent(e audit.Entry) (events.Event, bool) {
	if e.Status != "" && e.Status != kanri.AuditSuccess {
		return events.Event{}, false // a refusal (a wrong password, say) changed nothing
	}
	switch {
	case e.Resource.Type == kanri.AuditUser || e.Resource.Type == kanri.AuditRoleAssignment:
		if who := audit.SubjectOf(e); who != "" {
			return events.AccessChanged(e.TenantID, who), true
		}
		return events.Event{}, false // a failed sign-in of a name that is no one
	case e.Resource.Type == kanri.AuditTenant, e.Resource.Type == kanri.AuditServiceAssignment, e.Action == "backup.restore":
		// Everyone's rights, or every user: a restore writes them back.
		return events.AccessChanged(e.TenantID, ""), true
	}
	return events.Event{}, false
}

// tellStreams publishes the access event of e, if any. The change is
// made and audited whatever the bus says: a stream that misses the event
// still checks again on its own (live.Streams.Recheck).
func tellStreams(bus events.Bus, log *slog.Logger) func(audit.Entry) {
	return func(e audit.Entry) {
		ev, ok := accessEvent(e)
		if !ok || e.TenantID == "" {
			return
		}
		if _, err := bus.Publish(context.Background(), ev); err != nil {
			log.Warn("publish access event", "tenant", e.TenantID, "err", err)
		}
	}
}
