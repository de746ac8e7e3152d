package auth

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// StartSession records a new session of the user, whose cookie holds
// token, lasting lifetime at most.
func (s *Service) StartSession(ctx context.Context, tenantID, userID, token, userAgent, ip string, lifetime time.Duration) (*kanri.Session, error) {
	now := kanri.NewTime(s.Now())
	r := &kanri.Session{
		Doc:    kanri.Doc{ID: kanri.SessionID(token)},
		UserID: userID, Device: Device(userAgent), IPAddress: ip, CreatedAt: now, LastSeenAt: now,
		TTL: int(lifetime / time.Second),
	}
	if err := s.Store.Tenant(tenantID).Sessions().Create(ctx, r); err != nil {
		return nil, err
	}
	return r, nil
}

// Session returns the record of the session whose cookie holds token, if
// the session was not ended; ENOTFOUND otherwise.
func (s *Service) Session(ctx context.Context, tenantID, userID, token string) (*kanri.Session, error) {
	r, err := s.Store.Tenant(tenantID).Sessions().Get(ctx, kanri.SessionID(token))
	if err != nil {
		return nil, err
	}
	if r.UserID != userID {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return r, nil
}

// SeenSession records that the session was used now. A session ended
// meanwhile stays ended (the write requires the record to exist).
func (s *Service) SeenSession(ctx context.Context, tenantID string, r *kanri.Session) error {
	r.LastSeenAt = kanri.NewTime(s.Now())
	r.ETag = ""
	err := s.Store.Tenant(tenantID).Sessions().Replace(ctx, r)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil
	}
	return err
}

// Sessions returns the user's sessions that still work, newest first.
func (s *Service) Sessions(ctx context.Context, tenantID, userID string) ([]*kanri.Session, error) {
	u, err := s.Store.Tenant(tenantID).Users().Get(ctx, userID)
	if err != nil {
		return nil, err
	}
	all, err := s.Store.Tenant(tenantID).Sessions().All(ctx, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("userId", userID)}, OrderBy: "createdAt", Desc: true, Limit: 100,
	})
	if err != nil {
		return nil, err
	}
	var out []*kanri.Session
	for _, r := range all {
		if !r.CreatedAt.Before(u.Security.SessionsValidAfter.Truncate(time.Millisecond)) {
			out = append(out, r)
		}
	}
	return out, nil
}

// EndSession ends one of the user's sessions. Ending someone else's
// session is audited.
func (s *Service) EndSession(ctx context.Context, tenantID, userID, sessionID string) error {
	repo := s.Store.Tenant(tenantID).Sessions()
	r, err := repo.Get(ctx, sessionID)
	if err != nil {
		return err
	}
	if r.UserID != userID {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	if err := repo.Delete(ctx, r.ID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
		return err
	}
	s.recordEnded(ctx, tenantID, userID, 1)
	return nil
}

// EndOtherSessions ends every session of the user but keep (the one
// asking), and returns how many it ended.
func (s *Service) EndOtherSessions(ctx context.Context, tenantID, userID, keep string) (int, error) {
	rs, err := s.Sessions(ctx, tenantID, userID)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rs {
		if r.ID == keep {
			continue
		}
		if err := s.Store.Tenant(tenantID).Sessions().Delete(ctx, r.ID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return n, err
		}
		n++
	}
	if n > 0 {
		s.recordEnded(ctx, tenantID, userID, n)
	}
	return n, nil
}

// recordEnded audits sessions ended, by their user (from the account
// page) or by an administrator: the record's actor says which.
func (s *Service) recordEnded(ctx context.Context, tenantID, userID string, n int) {
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "user.sessions_end",
		Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: userID},
		Changes:  map[string]kanri.Change{"sessions": {Before: n, After: 0}},
	})
}
