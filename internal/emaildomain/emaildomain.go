// Package emaildomain manages the e-mail domains a tenant owns
// (docs/data-model.md, "E-mail domains"): adding one gives a verification
// token, which the tenant publishes in a DNS TXT record; verifying looks
// the record up. A verified domain belongs to one tenant only, and verified
// domains are re-checked on a schedule.
package emaildomain

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"net"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// ChallengeLabel is the label under the domain where its TXT record goes.
const ChallengeLabel = "_kanri-challenge"

// RecordName returns the name of a domain's verification record.
func RecordName(domain string) string { return ChallengeLabel + "." + domain }

// A Resolver looks up TXT records; NewResolver returns the real one.
type Resolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
}

// NewResolver returns a resolver that asks server (host:port; port 53 when
// left out), or the system's resolver when server is empty.
func NewResolver(server string) Resolver {
	if server == "" {
		return net.DefaultResolver
	}
	if _, _, err := net.SplitHostPort(server); err != nil {
		server = net.JoinHostPort(server, "53")
	}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, server)
	}}
}

// Service manages tenants' domains.
type Service struct {
	app.Deps
	resolver Resolver
	// Timeout bounds one lookup.
	Timeout time.Duration
	// RecheckInterval is how often verified domains are looked up again
	// (0: never).
	RecheckInterval time.Duration
}

// New returns a domain service that looks records up with r.
func New(d app.Deps, r Resolver) *Service {
	return &Service{Deps: d, resolver: r, Timeout: 5 * time.Second}
}

// Normalize turns what a person typed into a domain name as it is stored:
// lower case, in its ASCII (punycode) form, without a scheme, path, port
// or trailing dot. Public suffixes (com, co.jp) are refused: nobody owns
// them.
func Normalize(input string) (string, error) {
	d := strings.ToLower(strings.TrimSpace(input))
	if _, rest, ok := strings.Cut(d, "://"); ok {
		d = rest
	}
	if i := strings.IndexAny(d, "/?#"); i >= 0 {
		d = d[:i]
	}
	if _, host, ok := strings.Cut(d, "@"); ok { // an e-mail address: its domain
		d = host
	}
	if h, _, err := net.SplitHostPort(d); err == nil {
		d = h
	}
	d = strings.TrimSuffix(d, ".")
	invalid := kanri.Invalid(kanri.Fields{"domain": "validation.domain"})
	if d == "" || strings.Contains(d, "*") {
		return "", invalid
	}
	ascii, err := idna.Lookup.ToASCII(d)
	if err != nil || !strings.Contains(ascii, ".") || len(ascii) > 253 || net.ParseIP(ascii) != nil {
		return "", invalid
	}
	if suffix, _ := publicsuffix.PublicSuffix(ascii); suffix == ascii {
		return "", kanri.Invalid(kanri.Fields{"domain": "validation.domain_public_suffix"})
	}
	return ascii, nil
}

// Display returns a domain for reading: its Unicode form.
func Display(domain string) string {
	if u, err := idna.Lookup.ToUnicode(domain); err == nil {
		return u
	}
	return domain
}

// List returns a tenant's domains, by id.
func (s *Service) List(ctx context.Context, tenantID string) ([]*kanri.Domain, error) {
	return s.Store.Tenant(tenantID).Domains().All(ctx, docstore.Query{})
}

// Get returns one of a tenant's domains.
func (s *Service) Get(ctx context.Context, tenantID, id string) (*kanri.Domain, error) {
	if !strings.HasPrefix(id, "domain_") || docstore.CheckKey(tenantID, id) != nil {
		return nil, kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return s.Store.Tenant(tenantID).Domains().Get(ctx, id)
}

// Add adds a domain to a tenant, unverified, with a new random
// verification token.
func (s *Service) Add(ctx context.Context, tenantID, input string) (*kanri.Domain, error) {
	name, err := Normalize(input)
	if err != nil {
		return nil, err
	}
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	d := &kanri.Domain{
		Doc:    kanri.Doc{ID: kanri.DomainID(name)},
		Domain: name, VerificationToken: newToken(), CreatedAt: kanri.NewTime(s.Now()),
	}
	if err := s.Store.Tenant(tenantID).Domains().Create(ctx, d); kanri.IsCode(err, kanri.ECONFLICT) {
		return nil, kanri.Invalid(kanri.Fields{"domain": "validation.domain_added"})
	} else if err != nil {
		return nil, err
	}
	s.record(ctx, tenantID, d, "domain.create", nil, fields(d))
	return d, nil
}

// newToken returns a verification token: 160 random bits.
func newToken() string {
	b := make([]byte, 20)
	rand.Read(b)
	return "kanri-verify-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

// lookup returns the TXT values at a domain's record name; found is false
// when the name has no TXT record (NXDOMAIN or no data), and err is set
// only when the lookup itself failed (a timeout, a server failure).
func (s *Service) lookup(ctx context.Context, domain string) (values []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	values, err = s.resolver.LookupTXT(ctx, RecordName(domain)+".")
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return nil, nil
	}
	for i, v := range values {
		values[i] = strings.TrimSpace(v)
	}
	return values, err
}

// Verify looks up a domain's TXT record and, when it holds the token, marks
// the domain verified and claims it for the tenant. When the record is
// missing or holds something else, the error (ECONFLICT) says what was
// found; a domain another tenant verified cannot be verified.
func (s *Service) Verify(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.Domain, error) {
	if err := s.TenantOpen(ctx, tenantID); err != nil {
		return nil, err
	}
	d, err := s.Get(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if seen.Stale(d.ETag, state(d)) {
		return nil, kanri.Stale()
	}
	values, err := s.lookup(ctx, d.Domain)
	if err != nil {
		// The person reads what went wrong in words; the resolver's own
		// error is for the log.
		s.Logger.Warn("domain lookup failed", "domain", d.Domain, "tenant", tenantID, "err", err)
		key := "domains.lookup_unreachable"
		if timedOut(err) {
			key = "domains.lookup_timeout"
		}
		return nil, s.failedCheck(ctx, tenantID, d, "lookup_failed", kanri.E(kanri.ECONFLICT, key, RecordName(d.Domain)))
	}
	if !slices.Contains(values, d.VerificationToken) {
		if len(values) == 0 {
			return nil, s.failedCheck(ctx, tenantID, d, "missing", kanri.E(kanri.ECONFLICT, "domains.record_missing", RecordName(d.Domain), d.VerificationToken))
		}
		return nil, s.failedCheck(ctx, tenantID, d, "mismatch", kanri.E(kanri.ECONFLICT, "domains.record_mismatch", RecordName(d.Domain), strings.Join(quoted(values), ", "), d.VerificationToken))
	}
	if err := s.claim(ctx, tenantID, d); err != nil {
		return nil, err
	}
	before := fields(d)
	now := kanri.NewTime(s.Now())
	if !d.Verified {
		d.VerifiedAt = now
	}
	d.Verified, d.LastCheckedAt, d.LastCheckResult, d.RecordMissingSince = true, now, "found", kanri.Time{}
	if err := s.Store.Tenant(tenantID).Domains().Replace(ctx, d); err != nil {
		return nil, err
	}
	s.record(ctx, tenantID, d, "domain.verify", before, fields(d))
	return d, nil
}

// failedCheck records when a check of d failed and what it found, so
// that the page shows it, and returns failure, the error that says so. A
// domain changed meanwhile keeps its newer state: the failure is still
// reported.
func (s *Service) failedCheck(ctx context.Context, tenantID string, d *kanri.Domain, result string, failure error) error {
	d.LastCheckedAt, d.LastCheckResult = kanri.NewTime(s.Now()), result
	if err := s.Store.Tenant(tenantID).Domains().Replace(ctx, d); err != nil && !kanri.IsCode(err, kanri.ESTALE) && !kanri.IsCode(err, kanri.ENOTFOUND) {
		s.Logger.Warn("domain check not recorded", "domain", d.Domain, "tenant", tenantID, "err", err)
	}
	return failure
}

// timedOut reports whether a lookup failed because the DNS server did not
// answer in time (rather than could not be reached at all).
func timedOut(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsTimeout || errors.Is(err, context.DeadlineExceeded)
}

func quoted(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = `"` + v + `"`
	}
	return out
}

// claimGrace is how long a claim protects a domain whose owner has not
// marked it verified yet: the time between the claim and that write.
const claimGrace = 10 * time.Minute

// claim gives a domain to the tenant's domain d. The claim is a document
// in the _system partition, one per domain: creating it is atomic, so two
// tenants verifying at once cannot both win. Another tenant's claim is
// taken over only when it is stale: that tenant no longer has the domain
// with the claimed token, or has not marked it verified within
// claimGrace.
func (s *Service) claim(ctx context.Context, tenantID string, d *kanri.Domain) error {
	claims := s.Store.System().DomainClaims()
	mine := &kanri.DomainClaim{Doc: kanri.Doc{ID: kanri.DomainClaimID(d.Domain)}, Domain: d.Domain, OwnerID: tenantID, Token: d.VerificationToken, ClaimedAt: kanri.NewTime(s.Now())}
	return store.RetryErr(ctx, func() error {
		c, err := claims.Get(ctx, mine.ID)
		switch {
		case kanri.IsCode(err, kanri.ENOTFOUND):
			err = claims.Create(ctx, mine)
			if kanri.IsCode(err, kanri.ECONFLICT) {
				return store.LostRace(err) // claimed meanwhile: look again
			}
			return err
		case err != nil:
			return err
		case c.OwnerID == tenantID && c.Token == d.VerificationToken:
			return nil
		case c.OwnerID != tenantID:
			other, err := s.Store.Tenant(c.OwnerID).Domains().Get(ctx, d.ID)
			if err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
				return err
			}
			held := err == nil && other.VerificationToken == c.Token
			if held && (other.Verified || s.Now().Sub(c.ClaimedAt.Time) < claimGrace) {
				return kanri.E(kanri.ECONFLICT, "domains.claimed_elsewhere", d.Domain)
			}
		}
		mine.ETag = c.ETag
		return store.Raced(claims.Replace(ctx, mine))
	})
}

// Delete removes a tenant's domain as seen, and frees its claim.
func (s *Service) Delete(ctx context.Context, tenantID, id string, seen kanri.Seen) (*kanri.Domain, error) {
	d, err := s.Get(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if seen.Stale(d.ETag, state(d)) {
		return nil, kanri.Stale()
	}
	if err := s.Store.Tenant(tenantID).Domains().Delete(ctx, d.ID, d.ETag); err != nil {
		return nil, err
	}
	claims := s.Store.System().DomainClaims()
	// Only this domain's own claim is freed: not one made for the domain
	// added again since (another token).
	if c, err := claims.Get(ctx, kanri.DomainClaimID(d.Domain)); err == nil && c.OwnerID == tenantID && c.Token == d.VerificationToken {
		if err := claims.Delete(ctx, c.ID, c.ETag); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) && !kanri.IsCode(err, kanri.ESTALE) {
			// A claim left behind is taken over by the next tenant that
			// verifies the domain, since this one no longer has it.
			s.Logger.Warn("domain claim not freed", "domain", d.Domain, "err", err)
		}
	}
	s.record(ctx, tenantID, d, "domain.delete", fields(d), nil)
	return d, nil
}

// State returns a domain's state as pages show it: verified, pending
// (not yet verified) or missing (verified, but its record is gone).
func State(d *kanri.Domain) string { return state(d) }

func state(d *kanri.Domain) string {
	switch {
	case !d.Verified:
		return "pending"
	case !d.RecordMissingSince.IsZero():
		return "missing"
	}
	return "verified"
}

// Recheck looks up the record of every verified domain of every tenant:
// a record that disappeared flags the domain (RecordMissingSince) without
// unverifying it, and one that is back clears the flag. A lookup that
// fails (a timeout) changes nothing. It returns how many domains it
// checked.
func (s *Service) Recheck(ctx context.Context) (int, error) {
	checked, token := 0, ""
	for {
		page, next, err := s.Store.Privileged().VerifiedDomains(ctx, 100, token)
		if err != nil {
			return checked, err
		}
		for _, d := range page {
			values, err := s.lookup(ctx, d.Domain)
			if ctx.Err() != nil {
				return checked, ctx.Err()
			}
			if err != nil {
				s.Logger.Warn("domain re-check failed", "domain", d.Domain, "tenant", d.TenantID, "err", err)
				continue
			}
			checked++
			before := state(d)
			now := kanri.NewTime(s.Now())
			d.LastCheckedAt = now
			if slices.Contains(values, d.VerificationToken) {
				d.RecordMissingSince, d.LastCheckResult = kanri.Time{}, "found"
			} else {
				d.LastCheckResult = "missing"
				if len(values) > 0 {
					d.LastCheckResult = "mismatch"
				}
				if d.RecordMissingSince.IsZero() {
					d.RecordMissingSince = now
				}
			}
			// Several instances may re-check at once: only the one whose
			// write wins reports the change.
			if err := s.Store.Tenant(d.TenantID).Domains().Replace(ctx, d); kanri.IsCode(err, kanri.ESTALE) || kanri.IsCode(err, kanri.ENOTFOUND) {
				continue
			} else if err != nil {
				return checked, err
			}
			if after := state(d); after != before {
				s.Logger.Warn("domain record changed", "domain", d.Domain, "tenant", d.TenantID, "from", before, "to", after)
				actx := audit.WithActor(ctx, audit.Actor{UserID: "system", UserName: "system"})
				s.record(actx, d.TenantID, d, "domain.recheck", map[string]any{"state": before}, map[string]any{"state": after})
			}
		}
		if next == "" {
			return checked, nil
		}
		token = next
	}
}

func fields(d *kanri.Domain) map[string]any {
	return map[string]any{"domain": d.Domain, "verified": d.Verified}
}

func (s *Service) record(ctx context.Context, tenantID string, d *kanri.Domain, action string, before, after map[string]any) {
	s.Audit.Change(ctx, tenantID, action, kanri.AuditResource{Type: kanri.AuditDomain, ID: d.ID, Name: d.Domain}, before, after)
}
