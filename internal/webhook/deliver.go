package webhook

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/netguard"
	"github.com/kanri/kanri/internal/store"
)

// responseExcerpt is how much of an answer's body the delivery log keeps.
const responseExcerpt = 512

// userAgent names Kanri to the receivers.
const userAgent = "Kanri-Webhooks/1"

// Message is the body of a delivery, as the Standard Webhooks
// specification suggests ("Payload structure"): the event's type, its
// time and its data.
type Message struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      any       `json:"data"`
}

// Event is the data of an audit record's message: the record, as the
// data model names its fields (docs/data-model.md, "Audit log"), without
// its session.
type Event struct {
	ID        string                  `json:"id"`
	TenantID  string                  `json:"tenantId"`
	Timestamp kanri.Time              `json:"timestamp"`
	Action    string                  `json:"action"`
	Status    string                  `json:"status"`
	UserID    string                  `json:"userId"`
	UserName  string                  `json:"userName"`
	Resource  kanri.AuditResource     `json:"resource"`
	Changes   map[string]kanri.Change `json:"changes,omitempty"`
	Reason    string                  `json:"reason,omitempty"`
	IPAddress string                  `json:"ipAddress"`
	UserAgent string                  `json:"userAgent"`
	RequestID string                  `json:"requestId"`
	Support   *kanri.AuditSupport     `json:"support,omitempty"`
}

// TestData is the data of a test event.
type TestData struct {
	EndpointID string `json:"endpointId"`
	Test       bool   `json:"test"`
}

// eventOf returns the event of an audit record.
func eventOf(r *kanri.AuditLog) Event {
	return Event{
		ID: r.ID, TenantID: r.TenantID, Timestamp: r.Timestamp, Action: r.Action, Status: r.Status,
		UserID: r.UserID, UserName: r.UserName, Resource: r.Resource, Changes: r.Details.Changes, Reason: r.Details.Reason,
		IPAddress: r.Metadata.IPAddress, UserAgent: r.Metadata.UserAgent, RequestID: r.Metadata.RequestID, Support: r.Metadata.Support,
	}
}

// eventBody returns the body of the message of an audit record.
func eventBody(r *kanri.AuditLog) ([]byte, error) {
	return json.Marshal(Message{Type: r.Action, Timestamp: r.Timestamp.Time, Data: eventOf(r)})
}

// Run sends every enabled endpoint of every tenant the audit records it
// is due, in order: the periodic work, run once across the instances at
// a time (the scheduler's lease), so that no record is sent twice at
// once. An endpoint that failed waits until its next attempt; a run ends
// when every endpoint has caught up with the clock less Settle.
func (s *Service) Run(ctx context.Context) error {
	now := s.Now()
	sem := make(chan struct{}, max(1, s.Parallel))
	var wg sync.WaitGroup
	defer wg.Wait()
	token := ""
	for {
		page, next, err := store.Across[Endpoint](ctx, s.Store.Privileged(), kanri.ContainerAPI, TypeEndpoint, docstore.Query{
			Where: []docstore.Filter{docstore.Eq("enabled", true)}, Limit: 100, Continuation: token,
		})
		if err != nil {
			return err
		}
		for _, e := range page {
			if e.NextAttemptAt.After(now) {
				continue
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			wg.Go(func() {
				defer func() { <-sem }()
				if err := s.drain(ctx, e); err != nil && ctx.Err() == nil {
					s.Logger.Warn("webhook deliveries stopped", "tenant", e.TenantID, "endpoint", e.ID, "err", err)
				}
			})
		}
		if next == "" {
			return nil
		}
		token = next
	}
}

// errMoved says an endpoint was changed meanwhile in a way that ends a
// run's deliveries to it: disabled, deleted or replayed from elsewhere.
var errMoved = errors.New("webhook: the endpoint moved on")

// flushEvery is how many deliveries a run makes to an endpoint before it
// writes them to the log and moves the cursor past them, in one
// transactional batch: an instance that stops sends at most this many
// messages again.
const flushEvery = 50

// runBudget is how long a run sends to one endpoint before it leaves the
// rest to the next run, so that a slow receiver holds no run for long.
const runBudget = 30 * time.Second

// drain sends an endpoint the records after its cursor, in order, until it
// has caught up or a delivery fails.
func (s *Service) drain(ctx context.Context, e *Endpoint) (err error) {
	until := s.Now().Add(-s.Settle)
	deadline := time.Now().Add(runBudget)
	var made []*Delivery // sent, not yet written with the cursor
	unsaved := false     // the cursor moved past records not wanted
	flush := func() error {
		if len(made) == 0 && !unsaved {
			return nil
		}
		e, err = s.commit(ctx, e, made, nil)
		made, unsaved = made[:0], false
		return err
	}
	defer func() {
		if ctx.Err() != nil {
			// Cut short by the end of the run: what was answered is kept.
			err = flush()
		}
		err = ignoreMoved(err)
	}()
	for ctx.Err() == nil {
		recs, err := s.Audit.After(ctx, e.TenantID, e.CursorTime.Time, e.CursorID, until, s.Batch)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if !e.Wants(r.Action) || hidden(e.TenantID, r) {
				e.CursorTime, e.CursorID, unsaved = r.Timestamp, r.ID, true
				continue
			}
			body, err := eventBody(r)
			if err != nil {
				return err
			}
			d := s.send(ctx, e, r.ID, r.Action, body, TriggerEvent, e.Failures+1)
			if ctx.Err() != nil {
				return nil // not the endpoint's fault: the run ended
			}
			made = append(made, d)
			if !d.OK {
				_, err := s.failed(ctx, e, made)
				return err
			}
			e.CursorTime, e.CursorID = r.Timestamp, r.ID
			e.clearFailures()
			if len(made) >= flushEvery {
				if err := flush(); err != nil {
					return err
				}
			}
			if time.Now().After(deadline) {
				return flush()
			}
		}
		if err := flush(); err != nil {
			return err
		}
		if len(recs) < s.Batch {
			return nil
		}
	}
	return nil
}

// hidden reports whether a record of tenantID's log is one of the
// operator's copies of what its staff did in another tenant: only the
// operator's global administrators read those (see
// audit.MayFilterByTenant), so no endpoint or file is sent them.
func hidden(tenantID string, r *kanri.AuditLog) bool {
	return tenantID == kanri.PrivilegedTenantID &&
		(r.Metadata.TargetTenantID != "" || r.Metadata.Support != nil && r.Metadata.Support.TenantID != "")
}

// failed writes the deliveries made, the last of which failed, with the
// failure on their endpoint: it is tried again after a backoff, or,
// failing for GiveUp already, disabled, with a warning in the audit log
// and the service's log.
func (s *Service) failed(ctx context.Context, e *Endpoint, made []*Delivery) (*Endpoint, error) {
	now := s.Now()
	d := made[len(made)-1]
	stop := !e.FailingSince.IsZero() && now.Sub(e.FailingSince.Time) >= s.GiveUp
	e, err := s.commit(ctx, e, made, func(cur *Endpoint) {
		cur.Failures++
		if cur.FailingSince.IsZero() {
			cur.FailingSince = kanri.NewTime(now)
		}
		cur.LastError = summary(d)
		cur.NextAttemptAt = kanri.NewTime(now.Add(s.backoff(cur.Failures)))
		if stop {
			cur.Enabled, cur.DisabledReason = false, DisabledByFailing
		}
	})
	if err != nil || !stop {
		return e, err
	}
	s.Logger.Warn("webhook endpoint disabled: its deliveries kept failing", "tenant", e.TenantID, "endpoint", e.ID,
		"since", e.FailingSince.Time, "last_error", summary(d))
	actx := audit.WithActor(ctx, audit.Actor{UserID: "system", UserName: "system"})
	s.Audit.Record(actx, audit.Entry{
		TenantID: e.TenantID, Action: "webhook.disable", Status: kanri.AuditWarning, Reason: DisabledByFailing,
		Resource: kanri.AuditResource{Type: kanri.AuditWebhook, ID: e.ID, Name: e.URL},
	})
	return e, nil
}

// summary is a failed delivery in a few words, for the endpoint's list.
func summary(d *Delivery) string {
	if d.Error != "" {
		return d.Error
	}
	return "status " + strconv.Itoa(d.Status)
}

// backoff is the wait after the n-th failure in a row: RetryBase doubled
// for each failure before it, at most RetryMax, less up to a quarter at
// random so that endpoints failing together are not retried together.
func (s *Service) backoff(n int) time.Duration {
	d := min(s.RetryBase, s.RetryMax)
	for i := 1; i < n && d < s.RetryMax; i++ {
		d = min(2*d, s.RetryMax)
	}
	return d - time.Duration(rand.Int64N(int64(d/4)+1))
}

// commit writes, in one transactional batch, the deliveries made and
// what a run changed of their endpoint (its cursor and its failures, with
// more when more is not nil) over the endpoint as stored. An endpoint
// disabled, deleted or replayed meanwhile is left as it is and errMoved
// returned, the deliveries written all the same. It returns the endpoint
// as written, with any other change made meanwhile (a new URL, a rotated
// secret).
func (s *Service) commit(ctx context.Context, e *Endpoint, made []*Delivery, more func(*Endpoint)) (*Endpoint, error) {
	ctx = context.WithoutCancel(ctx) // what was sent is written, run over or not
	return store.Retry(ctx, func() (*Endpoint, error) {
		var ops []docstore.Op
		for _, d := range made {
			op, err := s.deliveries(e.TenantID).Op(docstore.OpCreate, d)
			if err != nil {
				return nil, err
			}
			ops = append(ops, op)
		}
		cur, err := s.endpoints(e.TenantID).Get(ctx, e.ID)
		moved := kanri.IsCode(err, kanri.ENOTFOUND) || err == nil && (!cur.Enabled || cur.Epoch != e.Epoch || behind(e, cur))
		switch {
		case err != nil && !moved:
			return nil, err
		case !moved:
			cur.CursorTime, cur.CursorID = e.CursorTime, e.CursorID
			cur.Failures, cur.FailingSince, cur.NextAttemptAt, cur.LastError = e.Failures, e.FailingSince, e.NextAttemptAt, e.LastError
			if more != nil {
				more(cur)
			}
			op, err := s.endpoints(e.TenantID).Op(docstore.OpReplace, cur)
			if err != nil {
				return nil, err
			}
			ops = append(ops, op)
		}
		if len(ops) > 0 {
			res, err := s.Store.Tenant(e.TenantID).Batch(ctx, kanri.ContainerAPI, ops)
			if err != nil {
				return nil, store.Raced(err)
			}
			if !moved {
				cur.ETag = res[len(res)-1].ETag
			}
		}
		if moved {
			return nil, errMoved
		}
		return cur, nil
	})
}

// behind reports whether e's cursor is before cur's: another run went
// further (one whose lease ran out while it sent), and the cursor never
// moves back but by a replay.
func behind(e, cur *Endpoint) bool {
	if c := e.CursorTime.Compare(cur.CursorTime.Time); c != 0 {
		return c < 0
	}
	return e.CursorID < cur.CursorID
}

func ignoreMoved(err error) error {
	if errors.Is(err, errMoved) {
		return nil
	}
	return err
}

// send posts a message to an endpoint, signed, and returns the attempt,
// for its delivery log.
func (s *Service) send(ctx context.Context, e *Endpoint, msgID, typ string, body []byte, trigger string, attempt int) *Delivery {
	d := &Delivery{
		Doc: kanri.Doc{ID: "whd_" + randomID()}, EndpointID: e.ID, MessageID: msgID, EventType: typ,
		Trigger: trigger, Attempt: attempt, At: kanri.NewTime(s.Now()),
	}
	start := time.Now()
	s.post(ctx, e, d, body)
	d.LatencyMS = int(time.Since(start).Milliseconds())
	return d
}

// sendNow sends a message outside the cursor (a test event, a delivery
// sent again by hand) and writes the attempt in the delivery log.
func (s *Service) sendNow(ctx context.Context, e *Endpoint, msgID, typ string, body []byte, trigger string) (*Delivery, error) {
	d := s.send(ctx, e, msgID, typ, body, trigger, 1)
	if err := s.deliveries(e.TenantID).Create(context.WithoutCancel(ctx), d); err != nil {
		return nil, err
	}
	return d, nil
}

// post makes the request of a delivery and fills in its outcome.
func (s *Service) post(ctx context.Context, e *Endpoint, d *Delivery, body []byte) {
	secrets, err := s.secrets(e)
	if err != nil {
		d.Error, d.Detail = "secret", err.Error()
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
	if err != nil {
		d.Error, d.Detail = "unreachable", err.Error()
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	SetHeaders(req.Header, d.MessageID, s.Now(), body, secrets...)
	resp, err := s.Client.Do(req)
	if err != nil {
		d.Error, d.Detail = failure(err), clip(err.Error(), 300)
		return
	}
	defer resp.Body.Close()
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, responseExcerpt))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // so the connection is reused
	d.Status, d.OK = resp.StatusCode, resp.StatusCode >= 200 && resp.StatusCode < 300
	d.Response = strings.ToValidUTF8(string(excerpt), "\uFFFD")
}

// failure names why a request got no answer, for the console to say in
// the reader's language.
func failure(err error) string {
	var dnsErr *net.DNSError
	var netErr net.Error
	var certErr *x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	switch {
	case errors.Is(err, netguard.ErrPrivateAddress):
		return "address_private"
	case errors.As(err, &dnsErr):
		return "dns"
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.As(err, &certErr) || errors.As(err, &hostErr) || strings.Contains(err.Error(), "tls:"):
		return "tls"
	}
	return "unreachable"
}

// clip cuts s to at most n bytes, at a rune's start.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// SendTest sends an endpoint a test event now, whether it is enabled or
// not, and returns the delivery: what its log shows.
func (s *Service) SendTest(ctx context.Context, tenantID, id string) (*Delivery, error) {
	e, err := s.Get(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	return s.sendTest(ctx, e, "msg_test_"+randomID(), TriggerTest)
}

func (s *Service) sendTest(ctx context.Context, e *Endpoint, msgID, trigger string) (*Delivery, error) {
	body, err := json.Marshal(Message{Type: TestEvent, Timestamp: s.Now().UTC(), Data: TestData{EndpointID: e.ID, Test: true}})
	if err != nil {
		return nil, err
	}
	return s.sendNow(ctx, e, msgID, TestEvent, body, trigger)
}

// Redeliver sends the message of one of an endpoint's deliveries again,
// now, with its id, and returns the new delivery. The cursor does not
// move. A record that left the audit log (after its retention) cannot be
// sent again (ECONFLICT).
func (s *Service) Redeliver(ctx context.Context, tenantID, endpointID, deliveryID string) (*Delivery, error) {
	e, err := s.Get(ctx, tenantID, endpointID)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(deliveryID, "whd_") || docstore.CheckKey(tenantID, deliveryID) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	old, err := s.deliveries(tenantID).Get(ctx, deliveryID)
	if err != nil {
		return nil, err
	}
	if old.EndpointID != e.ID {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	if old.EventType == TestEvent {
		return s.sendTest(ctx, e, old.MessageID, TriggerResend)
	}
	r, err := s.Store.Tenant(tenantID).AuditLogs().Get(ctx, old.MessageID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil, kanri.E(kanri.ECONFLICT, "webhooks.event_gone")
	} else if err != nil {
		return nil, err
	}
	body, err := eventBody(r)
	if err != nil {
		return nil, err
	}
	return s.sendNow(ctx, e, r.ID, r.Action, body, TriggerResend)
}
