// Package audit records who changed what (docs/data-model.md, "Audit log")
// and reads the records back for the audit page and its exports (package
// export).
package audit

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// Actor says who did something and from where. The web layer builds it
// for every request.
type Actor struct {
	UserID    string
	UserName  string
	TenantID  string
	IPAddress string
	UserAgent string
	RequestID string
	SessionID string
	// GlobalAdmin says the actor holds 全体管理者 in the operator's
	// tenant: the services' rules about global administrators read it.
	GlobalAdmin bool
	// Support, when the actor is a support session, says who of the
	// operator's staff acts as the user and why: what they do is recorded
	// in the operator's tenant too (see Record).
	Support *Support
}

// Support is the staff member behind a support session.
type Support struct {
	StaffTenantID, StaffID, StaffName, Reason string
}

type actorKey struct{}

// WithActor returns a context that carries the actor.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor of ctx, or the zero Actor ("system").
func ActorFrom(ctx context.Context) Actor {
	a, _ := ctx.Value(actorKey{}).(Actor)
	return a
}

// Entry is one event to record.
type Entry struct {
	// TenantID is the partition the record goes to: the tenant the
	// resource belongs to.
	TenantID string
	Action   string // resource.action, e.g. "user.update"
	Resource kanri.AuditResource
	Changes  map[string]kanri.Change
	Reason   string
	Status   string // kanri.AuditSuccess when empty
	// Subject is the user whose rights the change may change, when the
	// resource is not that user itself (a role assignment's user): for
	// observers, never stored.
	Subject string
	// Support, on a step of support access in the tenant (a request, its
	// decision, a session's start), has Record copy the record into the
	// operator's log with this as its metadata.support, whoever the actor
	// is. The records of a support session's requests get theirs from
	// their actor.
	Support *kanri.AuditSupport
}

// SubjectOf returns the user whose rights e's change may change: Subject,
// or the resource's id when it is a user; "" when it is not one user's.
func SubjectOf(e Entry) string {
	if e.Subject != "" {
		return e.Subject
	}
	if e.Resource.Type == kanri.AuditUser {
		return e.Resource.ID
	}
	return ""
}

// Log writes audit records.
type Log struct {
	store *store.Store
	log   *slog.Logger
	now   func() time.Time
	lost  atomic.Int64

	obsMu     sync.RWMutex
	observers []func(Entry)
}

// Observe has f called with every entry recorded from now on, once it is
// written (or counted as lost), before Record returns. Every change Kanri
// makes is recorded after it is committed, so an observer hears of every
// change this process makes, whichever service made it: the API's cache of
// keys and rights forgets what a change may have made stale. f must be
// quick and must not record.
func (l *Log) Observe(f func(Entry)) {
	l.obsMu.Lock()
	defer l.obsMu.Unlock()
	l.observers = append(l.observers, f)
}

// New returns a Log over st.
func New(st *store.Store, log *slog.Logger, now func() time.Time) *Log {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Log{store: st, log: log, now: now}
}

// Record writes e with the actor of ctx. It is called after the change it
// records is committed, and an audit outage must not undo that change: a
// record that cannot be written is logged with everything it would have
// said and counted (Lost), never silently dropped.
func (l *Log) Record(ctx context.Context, e Entry) {
	a := ActorFrom(ctx)
	status := e.Status
	if status == "" {
		status = kanri.AuditSuccess
	}
	now := l.now()
	rec := &kanri.AuditLog{
		Doc:       kanri.Doc{ID: newID(now)},
		Timestamp: kanri.NewTime(now),
		UserID:    a.UserID,
		UserName:  a.UserName,
		Action:    e.Action,
		Resource:  e.Resource,
		Details:   kanri.AuditDetails{Changes: e.Changes, Reason: e.Reason},
		Metadata: kanri.AuditMetadata{
			IPAddress: a.IPAddress, UserAgent: a.UserAgent, RequestID: a.RequestID, SessionID: a.SessionID,
		},
		Status: status,
	}
	if sup := a.Support; sup != nil {
		rec.Metadata.Support = &kanri.AuditSupport{TenantID: e.TenantID, StaffID: sup.StaffID, StaffName: sup.StaffName, Reason: sup.Reason}
	}
	l.write(ctx, e.TenantID, rec)
	if to, cp := operatorCopy(a, e, rec); cp != nil {
		cp.ID = newID(now)
		l.write(ctx, to, cp)
	}
	l.obsMu.RLock()
	defer l.obsMu.RUnlock()
	for _, f := range l.observers {
		f(e)
	}
}

// operatorCopy returns the copy of rec, the record of e in its tenant,
// that the operator's log holds, and the operator's tenant; nil when the
// record is none of the operator's business. What the operator's staff do
// in another tenant is: what a support session does there (without what
// changed, which stays in the tenant's log), a step of support access
// (e.Support, as it is), and what a member of the operator's tenant does
// there themselves, such as creating, suspending or restoring it or
// assigning its users' roles (without what changed, either). Each copy
// names the tenant in metadata.targetTenantId, the indexed field the
// operator's audit page filters by (Filter.Tenant).
func operatorCopy(a Actor, e Entry, rec *kanri.AuditLog) (string, *kanri.AuditLog) {
	cp := *rec
	cp.Metadata.TargetTenantID = e.TenantID
	switch {
	case a.Support != nil && a.Support.StaffTenantID != e.TenantID:
		cp.Details.Changes = nil
		return a.Support.StaffTenantID, &cp
	case a.Support != nil:
		return "", nil
	case e.Support != nil && e.TenantID != kanri.PrivilegedTenantID:
		cp.Metadata.Support = e.Support
		return kanri.PrivilegedTenantID, &cp
	case a.TenantID == kanri.PrivilegedTenantID && e.Support == nil && isTenant(e.TenantID):
		cp.Details.Changes = nil
		return kanri.PrivilegedTenantID, &cp
	}
	return "", nil
}

// isTenant reports whether id is a customer's tenant: not the operator's,
// not the installation's (_system) and not none.
func isTenant(id string) bool {
	return id != "" && id != kanri.PrivilegedTenantID && id != kanri.SystemTenantID
}

// write creates rec in the tenant's log, or logs and counts it as lost.
func (l *Log) write(ctx context.Context, tenantID string, rec *kanri.AuditLog) {
	if err := l.store.Tenant(tenantID).AuditLogs().Create(ctx, rec); err != nil {
		n := l.lost.Add(1)
		l.log.Error("audit record lost", "action", rec.Action, "tenant", tenantID, "resource", rec.Resource.ID,
			"user", rec.UserID, "request_id", rec.Metadata.RequestID, "lost_total", n, "err", err)
	}
}

// Change records a successful change of res in a tenant: action, and
// what changed between before and after (Diff).
func (l *Log) Change(ctx context.Context, tenantID, action string, res kanri.AuditResource, before, after map[string]any) {
	l.Record(ctx, Entry{TenantID: tenantID, Action: action, Resource: res, Changes: Diff(before, after)})
}

// Lost returns how many records could not be written since the start.
func (l *Log) Lost() int64 { return l.lost.Load() }

// newID returns a time-ordered unique id: "audit_" + time + random.
func newID(t time.Time) string {
	b := make([]byte, 6)
	rand.Read(b)
	return "audit_" + t.UTC().Format("20060102T150405.000000000") + "_" + hex.EncodeToString(b)
}

// Diff returns the changes between two field maps, leaving out fields that
// did not change. Values of any type compare by what a record stores (see
// same), so a slice or a map can be recorded as it is. A field missing from
// one map is the same as a nil one. Callers never put secrets in either
// map.
func Diff(before, after map[string]any) map[string]kanri.Change {
	out := map[string]kanri.Change{}
	for k, a := range after {
		if b := before[k]; !same(b, a) {
			out[k] = kanri.Change{Before: b, After: a}
		}
	}
	for k, b := range before {
		if _, ok := after[k]; !ok && !same(b, nil) {
			out[k] = kanri.Change{Before: b, After: nil}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// same reports whether a and b are equal as stored: as the values their
// JSON encodings decode to, so that []string{"a"} equals the []any{"a"} of
// a record read back, 1 equals 1.0, and maps compare by content. An empty
// slice or map is the same as nil (none either way). A value that cannot be
// encoded is equal only to itself.
func same(a, b any) bool {
	na, errA := stored(a)
	nb, errB := stored(b)
	if errA != nil || errB != nil {
		return reflect.DeepEqual(a, b)
	}
	return reflect.DeepEqual(na, nb)
}

// stored returns v as a record stores it: its JSON encoding decoded, with
// an empty slice or map as nil.
func stored(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	switch o := out.(type) {
	case []any:
		if len(o) == 0 {
			return nil, nil
		}
	case map[string]any:
		if len(o) == 0 {
			return nil, nil
		}
	}
	return out, nil
}

// Filter selects audit records for the audit page.
type Filter struct {
	Action string // exact, or a prefix ending in "." such as "user."
	// User is a user id, or a username as recorded: the latter also finds
	// the records of users since deleted and of other tenants' operators.
	User         string
	ResourceType string
	// Tenant, in the operator's log, is the id of the other tenant whose
	// records to list: what the operator's staff did there (the records'
	// metadata.targetTenantId). Only global administrators filter by it
	// (MayFilterByTenant).
	Tenant       string
	From, To     time.Time // To is exclusive; zero means open
	Limit        int
	Continuation string
}

// MayFilterByTenant reports whether ctx's actor may list, in tenantID's
// log, the records about other tenants (Filter.Tenant): only the
// operator's log holds them, and only its global administrators, who may
// act in every tenant, read them.
func MayFilterByTenant(ctx context.Context, tenantID string) bool {
	return tenantID == kanri.PrivilegedTenantID && ActorFrom(ctx).GlobalAdmin
}

// CheckFilter returns EFORBIDDEN when f filters by tenant and ctx's actor
// may not (MayFilterByTenant), nil otherwise.
func CheckFilter(ctx context.Context, tenantID string, f Filter) error {
	if f.Tenant != "" && !MayFilterByTenant(ctx, tenantID) {
		return kanri.E(kanri.EFORBIDDEN, "audit.tenant_filter_forbidden")
	}
	return nil
}

// Query returns one page of a tenant's audit records, newest first, or
// the error of CheckFilter.
func (l *Log) Query(ctx context.Context, tenantID string, f Filter) ([]*kanri.AuditLog, string, error) {
	if err := CheckFilter(ctx, tenantID, f); err != nil {
		return nil, "", err
	}
	return l.query(ctx, tenantID, l.where(ctx, tenantID, f), f.Limit, f.Continuation)
}

func (l *Log) query(ctx context.Context, tenantID string, where []docstore.Filter, limit int, continuation string) ([]*kanri.AuditLog, string, error) {
	if limit == 0 {
		limit = 50
	}
	return l.store.Tenant(tenantID).AuditLogs().Query(ctx, docstore.Query{
		Where: where, OrderBy: "timestamp", Desc: true, Limit: limit, Continuation: continuation,
	})
}

// After returns a tenant's records after the record of time at and id
// (all of time at when id is ""), up to time to, oldest first and, at one
// time, by id: the walk of the deliveries to its webhook endpoints
// (internal/webhook), which start again after the last record they
// handled. It returns about limit records: every record of the last time
// it reaches, however many, so that a walk never passes over one.
func (l *Log) After(ctx context.Context, tenantID string, at time.Time, id string, to time.Time, limit int) ([]*kanri.AuditLog, error) {
	logs := l.store.Tenant(tenantID).AuditLogs()
	var recs []*kanri.AuditLog
	from := docstore.Gte("timestamp", kanri.FormatTime(at))
	if id != "" {
		// The rest of the records of time at, then those after it.
		tied, err := logs.All(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("timestamp", kanri.FormatTime(at))}})
		if err != nil {
			return nil, err
		}
		for _, r := range tied {
			if r.ID > id {
				recs = append(recs, r)
			}
		}
		from = docstore.Gt("timestamp", kanri.FormatTime(at))
	}
	page, _, err := logs.Query(ctx, docstore.Query{
		Where: []docstore.Filter{from, docstore.Lte("timestamp", kanri.FormatTime(to))}, OrderBy: "timestamp", Limit: limit,
	})
	if err != nil {
		return nil, err
	}
	if len(page) == limit {
		// The page may end within the records of its last time: read
		// them all.
		last := page[len(page)-1].Timestamp
		for len(page) > 0 && page[len(page)-1].Timestamp.Equal(last.Time) {
			page = page[:len(page)-1]
		}
		tied, err := logs.All(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq("timestamp", last.String())}})
		if err != nil {
			return nil, err
		}
		page = append(page, tied...)
	}
	sortByTime(recs)
	sortByTime(page)
	return append(recs, page...), nil
}

// sortByTime sorts records by time and, at one time, by id.
func sortByTime(recs []*kanri.AuditLog) {
	slices.SortStableFunc(recs, func(a, b *kanri.AuditLog) int {
		return cmp.Or(a.Timestamp.Compare(b.Timestamp.Time), strings.Compare(a.ID, b.ID))
	})
}

// where returns the store filters of f. A username is also looked up as
// the id of the tenant's user of that name, so that records written before
// a rename of the account are found too.
func (l *Log) where(ctx context.Context, tenantID string, f Filter) []docstore.Filter {
	var where []docstore.Filter
	if tenantID == kanri.PrivilegedTenantID && !ActorFrom(ctx).GlobalAdmin {
		// The operator's log holds what its staff did in other tenants
		// (records with metadata.targetTenantId): only global
		// administrators, who may see those tenants, read them. The
		// copies of support's records written before targetTenantId
		// have only metadata.support.tenantId.
		where = append(where, docstore.Defined("metadata.targetTenantId", false), docstore.Defined("metadata.support.tenantId", false))
	}
	if f.Tenant != "" {
		where = append(where, docstore.Eq("metadata.targetTenantId", f.Tenant))
	}
	switch {
	case f.Action == "":
	case f.Action[len(f.Action)-1] == '.':
		where = append(where, docstore.Prefix("action", f.Action))
	default:
		where = append(where, docstore.Eq("action", f.Action))
	}
	switch user := strings.TrimSpace(f.User); {
	case user == "":
	case strings.HasPrefix(user, "user_"):
		where = append(where, docstore.Or(docstore.Eq("userId", user), docstore.Eq("userName", user)))
	default:
		byName := docstore.Eq("userName", user)
		if id, err := l.store.Tenant(tenantID).UserIDByUsername(ctx, user); err == nil {
			byName = docstore.Or(docstore.Eq("userId", id), byName)
		}
		where = append(where, byName)
	}
	if f.ResourceType != "" {
		where = append(where, docstore.Eq("resource.type", f.ResourceType))
	}
	if !f.From.IsZero() {
		where = append(where, docstore.Gte("timestamp", kanri.FormatTime(f.From)))
	}
	if !f.To.IsZero() {
		where = append(where, docstore.Lt("timestamp", kanri.FormatTime(f.To)))
	}
	return where
}
