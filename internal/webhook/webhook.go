package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/netguard"
	"github.com/kanri/kanri/internal/store"
)

// The document types of webhooks, in the API container.
const (
	TypeEndpoint = "webhook_endpoint"
	TypeDelivery = "webhook_delivery"
)

// AllEvents is the event type that selects every audit record: audit
// streaming to the endpoint.
const AllEvents = "*"

// TestEvent is the type of the event that "Send test event" sends.
const TestEvent = "webhook.test"

// Triggers of a delivery: what made Kanri send it.
const (
	TriggerEvent  = "event"  // an audit record the endpoint wants, first sent or retried
	TriggerResend = "resend" // one delivery sent again by hand
	TriggerTest   = "test"   // a test event
)

// Why an endpoint was disabled.
const (
	DisabledByHand    = "by_hand"
	DisabledByFailing = "failing" // its deliveries failed for Service.GiveUp
)

// afterAll, as an endpoint's CursorID, stands for every record of the
// cursor's time: ids begin "audit_", which sorts before it. An endpoint
// created or enabled at a time is sent the records written after it.
const afterAll = "~"

// maxEvents is how many event types an endpoint may select; MaxEndpoints
// how many endpoints a tenant may have.
const (
	maxEvents    = 30
	MaxEndpoints = 20
)

// deliveryTTL is how long a delivery stays in the log.
const deliveryTTL = 14 * 24 * time.Hour

// Endpoint is a URL a tenant's administrators registered to be sent the
// tenant's events (TypeEndpoint). Its cursor is the last audit record it
// was sent, or that it did not want: the records after it are the ones
// it still has to be sent, in order.
type Endpoint struct {
	kanri.Doc
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
	Enabled     bool     `json:"enabled"`
	// DisabledReason says why an endpoint that is not Enabled was
	// disabled: DisabledByHand or DisabledByFailing.
	DisabledReason string `json:"disabledReason,omitempty"`
	// Secret is its signing secret, sealed; PreviousSecret the one before
	// the last rotation, also sealed, which signs too until PreviousUntil.
	Secret         string     `json:"secret"`
	PreviousSecret string     `json:"previousSecret,omitempty"`
	PreviousUntil  kanri.Time `json:"previousUntil"`
	// CursorTime and CursorID are the time and id of the last audit
	// record handled; Epoch changes when a replay moves the cursor back,
	// so that a delivery run that read the endpoint before does not move
	// it forward again.
	CursorTime kanri.Time `json:"cursorTime"`
	CursorID   string     `json:"cursorId"`
	Epoch      int        `json:"epoch"`
	// Failures counts the failed attempts in a row at the record after the
	// cursor, since FailingSince; NextAttemptAt is when it is tried again.
	Failures      int        `json:"failures"`
	FailingSince  kanri.Time `json:"failingSince"`
	NextAttemptAt kanri.Time `json:"nextAttemptAt"`
	LastError     string     `json:"lastError,omitempty"`
	CreatedAt     kanri.Time `json:"createdAt"`
	UpdatedAt     kanri.Time `json:"updatedAt"`
}

// State is what the console shows of an endpoint: enabled, failing,
// disabled (by hand) or stopped (for failing).
func (e *Endpoint) State() string {
	switch {
	case e.Enabled && e.Failures > 0:
		return "failing"
	case e.Enabled:
		return "enabled"
	case e.DisabledReason == DisabledByFailing:
		return "stopped"
	}
	return "disabled"
}

// Wants reports whether the endpoint is sent records of action.
func (e *Endpoint) Wants(action string) bool {
	for _, ev := range e.Events {
		if ev == AllEvents || ev == action || (strings.HasSuffix(ev, ".") && strings.HasPrefix(action, ev)) {
			return true
		}
	}
	return false
}

// Delivery is one attempt to send an event to an endpoint (TypeDelivery):
// the endpoint's delivery log.
type Delivery struct {
	kanri.Doc
	EndpointID string `json:"endpointId"`
	// MessageID is the webhook-id header: the audit record's id, the
	// same for every attempt, so that a receiver can tell a retry.
	MessageID string     `json:"messageId"`
	EventType string     `json:"eventType"`
	Trigger   string     `json:"trigger"`
	Attempt   int        `json:"attempt"`
	At        kanri.Time `json:"at"`
	// OK says the endpoint answered 2xx. Status is its answer's status (0
	// when it gave none), Error why it gave none (a code the console
	// translates) and Detail the error's text.
	OK        bool   `json:"ok"`
	Status    int    `json:"status"`
	Error     string `json:"error,omitempty"`
	Detail    string `json:"detail,omitempty"`
	LatencyMS int    `json:"latencyMs"`
	// Response is the start of the answer's body.
	Response string `json:"response,omitempty"`
	TTL      int    `json:"ttl,omitempty"`
}

// TTLField implements kanri.Expiring.
func (d *Delivery) TTLField() (*int, int) { return &d.TTL, int(deliveryTTL / time.Second) }

// Input is what an administrator types for an endpoint.
type Input struct {
	URL         string
	Events      string // event types separated by commas, spaces or lines
	Description string
}

// Service keeps the tenants' endpoints and sends them their events.
type Service struct {
	app.Deps
	sealer *auth.Sealer
	blobs  *blob.Bucket
	// Client makes the requests: netguard's, which refuses private
	// addresses unless AllowPrivate.
	Client *http.Client
	// AllowPrivate lets endpoints be at loopback and private addresses,
	// and over plain http: for local testing only.
	AllowPrivate bool
	// Interval is how often the deliveries are run, once across the
	// instances; Settle how far behind the clock they stay, so that a
	// record being written as they read is not passed over.
	Interval, Settle time.Duration
	// RetryBase is the wait after a first failure, doubled at each
	// failure after it up to RetryMax; GiveUp is how long an endpoint may
	// fail before it is disabled.
	RetryBase, RetryMax, GiveUp time.Duration
	// Batch is how many records a run reads at a time per endpoint;
	// Parallel how many endpoints it sends to at once.
	Batch, Parallel int
}

// New returns the webhook service, which seals secrets with sealer and
// writes the daily audit files to blobs. With allowPrivate, endpoints may
// be at loopback and private addresses over plain http (for local
// testing).
func New(d app.Deps, sealer *auth.Sealer, blobs *blob.Bucket, allowPrivate bool) *Service {
	return &Service{
		Deps: d, sealer: sealer, blobs: blobs, Client: netguard.NewClient(allowPrivate, 15*time.Second), AllowPrivate: allowPrivate,
		Interval: 5 * time.Second, Settle: 15 * time.Second,
		RetryBase: 5 * time.Second, RetryMax: time.Hour, GiveUp: 24 * time.Hour,
		Batch: 100, Parallel: 8,
	}
}

func (s *Service) endpoints(tenantID string) *store.Repo[Endpoint, *Endpoint] {
	return store.Of[Endpoint](s.Store.Tenant(tenantID), kanri.ContainerAPI, TypeEndpoint)
}

func (s *Service) deliveries(tenantID string) *store.Repo[Delivery, *Delivery] {
	return store.Of[Delivery](s.Store.Tenant(tenantID), kanri.ContainerAPI, TypeDelivery)
}

// List returns a tenant's endpoints, oldest first.
func (s *Service) List(ctx context.Context, tenantID string) ([]*Endpoint, error) {
	return s.endpoints(tenantID).All(ctx, docstore.Query{OrderBy: "createdAt"})
}

// Get returns one of a tenant's endpoints; ENOTFOUND for any other id.
func (s *Service) Get(ctx context.Context, tenantID, id string) (*Endpoint, error) {
	if !strings.HasPrefix(id, "whe_") || docstore.CheckKey(tenantID, id) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.endpoints(tenantID).Get(ctx, id)
}

// eventName is an event type: an audit action ("user.create"), a prefix
// of actions ending in a dot ("user.") or AllEvents.
var eventName = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*\.?$`)

// readInput returns the endpoint's URL and event types as stored, or
// EINVALID with what is wrong with each field.
func (s *Service) readInput(in Input) (string, []string, kanri.Fields) {
	errs := kanri.Fields{}
	u := strings.TrimSpace(in.URL)
	if key := s.checkURL(u); key != "" {
		errs["url"] = key
	}
	var events []string
	for _, ev := range strings.FieldsFunc(in.Events, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		ev = strings.ToLower(ev)
		if ev != AllEvents && !eventName.MatchString(ev) {
			errs["events"] = "validation.webhook_event"
			break
		}
		if !slices.Contains(events, ev) {
			events = append(events, ev)
		}
	}
	switch {
	case errs["events"] != "":
	case len(events) == 0:
		errs["events"] = "validation.required"
	case len(events) > maxEvents:
		errs["events"] = "validation.webhook_events_many"
	}
	if len([]rune(in.Description)) > 200 {
		errs["description"] = "validation.too_long"
	}
	return u, events, errs
}

// checkURL returns the message key of what is wrong with an endpoint's
// URL, or "". Names are resolved at each delivery, where the client
// refuses private addresses (netguard); an address typed as such is
// refused here already, and so is localhost.
func (s *Service) checkURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return "validation.required"
	case len(raw) > 2048:
		return "validation.too_long"
	case err != nil || u.Host == "" || u.Hostname() == "" || u.User != nil || u.Fragment != "" || u.Opaque != "":
		return "validation.webhook_url"
	case u.Scheme == "https":
	case u.Scheme == "http" && s.AllowPrivate:
	default:
		return "validation.webhook_url_https"
	}
	if s.AllowPrivate {
		return ""
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if a, err := netip.ParseAddr(host); err == nil && !netguard.Public(a) || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "validation.webhook_url_private"
	}
	// A name whose last label is a number is an address in a form
	// ParseAddr does not read (127.1, 0x7f.0.0.1, 2130706433), which
	// resolvers do.
	if labels := strings.Split(host, "."); numeric(labels[len(labels)-1]) {
		return "validation.webhook_url_private"
	}
	if net.ParseIP(host) == nil && !strings.Contains(host, ".") {
		return "validation.webhook_url"
	}
	return ""
}

// numeric reports whether a host's label is a number, decimal or hex, as
// the WHATWG URL standard's IPv4 parser reads it ("ends in a number").
func numeric(label string) bool {
	if h, ok := strings.CutPrefix(strings.ToLower(label), "0x"); ok {
		return strings.Trim(h, "0123456789abcdef") == ""
	}
	return label != "" && strings.Trim(label, "0123456789") == ""
}

// Create registers an endpoint in a tenant, enabled, and returns it with
// its secret: the only time the secret is shown. It is sent the records
// written from now on.
func (s *Service) Create(ctx context.Context, tenantID string, in Input) (*Endpoint, Secret, error) {
	u, events, errs := s.readInput(in)
	if len(errs) > 0 {
		return nil, nil, kanri.Invalid(errs)
	}
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, nil, err
	}
	if all, err := s.List(ctx, tenantID); err != nil {
		return nil, nil, err
	} else if len(all) >= MaxEndpoints {
		return nil, nil, kanri.E(kanri.ECONFLICT, "webhooks.too_many", MaxEndpoints)
	}
	now := kanri.NewTime(s.Now())
	e := &Endpoint{
		Doc: kanri.Doc{ID: "whe_" + randomID()}, URL: u, Events: events, Description: strings.TrimSpace(in.Description),
		Enabled: true, CursorTime: now, CursorID: afterAll, CreatedAt: now, UpdatedAt: now,
	}
	secret := NewSecret()
	e.Secret = s.sealer.Seal(secret, sealOwner(tenantID, e.ID))
	if err := s.endpoints(tenantID).Create(ctx, e); err != nil {
		return nil, nil, err
	}
	s.record(ctx, tenantID, e, "webhook.create", nil, fields(e))
	return e, secret, nil
}

// Update changes an endpoint's URL, event types and description, if it is
// still as seen.
func (s *Service) Update(ctx context.Context, tenantID, id string, in Input, seen kanri.Seen) (*Endpoint, error) {
	u, events, errs := s.readInput(in)
	if len(errs) > 0 {
		return nil, kanri.Invalid(errs)
	}
	return s.change(ctx, tenantID, id, seen, "webhook.update", func(e *Endpoint) error {
		if e.URL != u {
			e.clearFailures() // a new address is tried at once
		}
		e.URL, e.Events, e.Description = u, events, strings.TrimSpace(in.Description)
		return nil
	})
}

// Rotate gives an endpoint a new secret and returns it, once. The old one
// signs too for overlap more, so that the receiver can be given the new
// one meanwhile.
func (s *Service) Rotate(ctx context.Context, tenantID, id string, seen kanri.Seen, overlap time.Duration) (*Endpoint, Secret, error) {
	secret := NewSecret()
	e, err := s.change(ctx, tenantID, id, seen, "webhook.rotate", func(e *Endpoint) error {
		e.PreviousSecret, e.PreviousUntil = e.Secret, kanri.NewTime(s.Now().Add(overlap))
		e.Secret = s.sealer.Seal(secret, sealOwner(tenantID, e.ID))
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return e, secret, nil
}

// SetEnabled enables or disables an endpoint. Enabled again, it is sent
// the records written from then on, and its failures are forgotten: what
// it missed meanwhile is sent by a replay (ReplaySince).
func (s *Service) SetEnabled(ctx context.Context, tenantID, id string, seen kanri.Seen, on bool) (*Endpoint, error) {
	action := "webhook.disable"
	if on {
		action = "webhook.enable"
	}
	return s.change(ctx, tenantID, id, seen, action, func(e *Endpoint) error {
		if e.Enabled == on {
			return errUnchanged
		}
		e.Enabled = on
		e.DisabledReason = ""
		if !on {
			e.DisabledReason = DisabledByHand
			return nil
		}
		e.CursorTime, e.CursorID, e.Epoch = kanri.NewTime(s.Now()), afterAll, e.Epoch+1
		e.clearFailures()
		return nil
	})
}

// ReplaySince sends an endpoint again, in order, every record it wants
// from since on: its cursor moves back. since must be in the past and
// within the audit log's retention, and the endpoint enabled (enabling
// it moves its cursor to the time it is enabled).
func (s *Service) ReplaySince(ctx context.Context, tenantID, id string, since time.Time, seen kanri.Seen) (*Endpoint, error) {
	now := s.Now()
	if since.IsZero() || since.After(now) || now.Sub(since) > kanri.TTLAuditLog*time.Second {
		return nil, kanri.Invalid(kanri.Fields{"since": "validation.webhook_since"})
	}
	return s.change(ctx, tenantID, id, seen, "webhook.replay", func(e *Endpoint) error {
		if !e.Enabled {
			return kanri.Invalid(kanri.Fields{"since": "validation.webhook_replay_disabled"})
		}
		e.CursorTime, e.CursorID, e.Epoch = kanri.NewTime(since), "", e.Epoch+1
		e.clearFailures()
		return nil
	})
}

// Delete removes an endpoint; its delivery log expires.
func (s *Service) Delete(ctx context.Context, tenantID, id string, seen kanri.Seen) (*Endpoint, error) {
	e, err := s.seenEndpoint(ctx, tenantID, id, seen)
	if err != nil {
		return nil, err
	}
	if err := s.endpoints(tenantID).Delete(ctx, id, e.ETag); err != nil {
		return nil, err
	}
	s.record(ctx, tenantID, e, "webhook.delete", fields(e), nil)
	return e, nil
}

// errUnchanged is what a change returns that has nothing to change.
var errUnchanged = errors.New("webhook: nothing changes")

// change applies fn to an endpoint as seen, writes it and records action;
// nothing when fn returns errUnchanged.
func (s *Service) change(ctx context.Context, tenantID, id string, seen kanri.Seen, action string, fn func(*Endpoint) error) (*Endpoint, error) {
	e, err := s.seenEndpoint(ctx, tenantID, id, seen)
	if err != nil {
		return nil, err
	}
	before := fields(e)
	if err := fn(e); errors.Is(err, errUnchanged) {
		return e, nil
	} else if err != nil {
		return nil, err
	}
	e.UpdatedAt = kanri.NewTime(s.Now())
	if err := s.endpoints(tenantID).Replace(ctx, e); err != nil {
		return nil, err
	}
	s.record(ctx, tenantID, e, action, before, fields(e))
	return e, nil
}

// seenEndpoint returns an endpoint if it is still as seen; ESTALE if it
// changed since.
func (s *Service) seenEndpoint(ctx context.Context, tenantID, id string, seen kanri.Seen) (*Endpoint, error) {
	e, err := s.Get(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if seen.Stale(e.ETag, e.State()) {
		return nil, kanri.Stale()
	}
	return e, nil
}

func (e *Endpoint) clearFailures() {
	e.Failures, e.FailingSince, e.NextAttemptAt, e.LastError = 0, kanri.Time{}, kanri.Time{}, ""
}

// Deliveries returns one page of an endpoint's delivery log, newest
// first; failed only lists the failed ones.
func (s *Service) Deliveries(ctx context.Context, tenantID, endpointID string, failed bool, limit int, continuation string) ([]*Delivery, string, error) {
	where := []docstore.Filter{docstore.Eq("endpointId", endpointID)}
	if failed {
		where = append(where, docstore.Eq("ok", false))
	}
	return s.deliveries(tenantID).Query(ctx, docstore.Query{Where: where, OrderBy: "at", Desc: true, Limit: limit, Continuation: continuation})
}

// secrets returns the secrets that sign an endpoint's deliveries now:
// its own, and its previous one during its overlap.
func (s *Service) secrets(e *Endpoint) ([]Secret, error) {
	owner := sealOwner(e.TenantID, e.ID)
	cur, err := s.sealer.Open(e.Secret, owner)
	if err != nil {
		return nil, err
	}
	out := []Secret{cur}
	if e.PreviousSecret != "" && s.Now().Before(e.PreviousUntil.Time) {
		if prev, err := s.sealer.Open(e.PreviousSecret, owner); err == nil {
			out = append(out, prev)
		}
	}
	return out, nil
}

// sealOwner binds a sealed secret to its endpoint: it opens for no other.
func sealOwner(tenantID, id string) string { return "webhook:" + tenantID + "/" + id }

func randomID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// fields are what the audit log records of an endpoint: never a secret.
func fields(e *Endpoint) map[string]any {
	return map[string]any{"url": e.URL, "events": e.Events, "description": e.Description, "enabled": e.Enabled}
}

func (s *Service) record(ctx context.Context, tenantID string, e *Endpoint, action string, before, after map[string]any) {
	s.Audit.Change(ctx, tenantID, action, kanri.AuditResource{Type: kanri.AuditWebhook, ID: e.ID, Name: e.URL}, before, after)
}
