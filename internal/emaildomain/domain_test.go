package emaildomain_test

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/emaildomain"
	"github.com/kanri/kanri/internal/emaildomain/dnstest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"Example.COM", "example.com", ""},
		{"https://example.com/path?q=1", "example.com", ""},
		{"mail.example.co.jp.", "mail.example.co.jp", ""},
		{"someone@Example.org", "example.org", ""},
		{"example.com:8080", "example.com", ""},
		{"bücher.example", "xn--bcher-kva.example", ""},
		{"例え.jp", "xn--r8jz45g.jp", ""},
		{"com", "", "validation.domain"},
		{"github.io", "", "validation.domain_public_suffix"},
		{"co.jp", "", "validation.domain_public_suffix"},
		{"localhost", "", "validation.domain"},
		{"*.example.com", "", "validation.domain"},
		{"exa mple.com", "", "validation.domain"},
		{"192.168.0.1", "", "validation.domain"},
		{"", "", "validation.domain"},
	} {
		got, err := emaildomain.Normalize(tc.in)
		if got != tc.want || kanri.ErrorFields(err)["domain"] != tc.err {
			t.Errorf("Normalize(%q): got %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

type fixture struct {
	st  *store.Store
	ctx context.Context
	svc *emaildomain.Service
	dns *dnstest.Server
	now time.Time
}

// The lookup timeouts of the tests: a lookup the test DNS server answers
// gets a generous one, so that a busy machine never turns an answer into a
// timeout; a lookup it drops gets a short one, to keep the test quick.
const (
	answeredTimeout = 30 * time.Second
	droppedTimeout  = 300 * time.Millisecond
)

func setup(t *testing.T) *fixture {
	t.Helper()
	ds := bolttest.Open(t)
	f := &fixture{dns: dnstest.Start(t), now: time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)}
	d := app.NewDeps(store.New(ds, nil, features.Schema()), nil, func() time.Time { return f.now })
	f.st = d.Store
	f.svc = emaildomain.New(d, emaildomain.NewResolver(f.dns.Addr))
	f.svc.Timeout = answeredTimeout
	f.ctx = audit.WithActor(t.Context(), audit.Actor{UserID: "user_admin", UserName: "admin"})
	return f
}

func TestVerify(t *testing.T) {
	f := setup(t)
	d, err := f.svc.Add(f.ctx, "tenant_acme", "Example.com")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.ID, "domain_example_com"; got != want {
		t.Errorf("id: got %q, want %q", got, want)
	}
	if _, err := f.svc.Add(f.ctx, "tenant_acme", "example.com"); kanri.ErrorFields(err)["domain"] != "validation.domain_added" {
		t.Errorf("add twice: got %v", err)
	}
	name := emaildomain.RecordName("example.com")
	verify := func() error {
		_, err := f.svc.Verify(f.ctx, "tenant_acme", d.ID, kanri.Seen{})
		return err
	}
	for i, tc := range []struct {
		name       string
		prepare    func()
		wantKey    string
		wantResult string
	}{
		{"missing", func() {}, "domains.record_missing", "missing"},
		{"wrong", func() { f.dns.Set(name, "kanri-verify-someoneelse") }, "domains.record_mismatch", "mismatch"},
		{"timeout", func() { f.dns.Drop(name, true); f.svc.Timeout = droppedTimeout }, "domains.lookup_timeout", "lookup_failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.prepare()
			f.now = f.now.Add(time.Minute)
			err := verify()
			if key, _ := kanri.ErrorMessage(err); key != tc.wantKey {
				t.Errorf("got %v, want %s", err, tc.wantKey)
			}
			got, _ := f.svc.Get(f.ctx, "tenant_acme", d.ID)
			if got.Verified {
				t.Error("the domain was verified")
			}
			// A failed check is recorded: when, and what it found.
			if !got.LastCheckedAt.Equal(f.now) || got.LastCheckResult != tc.wantResult {
				t.Errorf("check %d recorded: got %v %q, want %v %q", i, got.LastCheckedAt, got.LastCheckResult, f.now, tc.wantResult)
			}
		})
	}
	f.dns.Drop(name, false)
	f.svc.Timeout = answeredTimeout
	// The wrong record's message says what was found.
	f.dns.Set(name, "v=spf1 -all", "kanri-verify-old")
	_, args := kanri.ErrorMessage(verify())
	if len(args) != 3 || args[1] != `"v=spf1 -all", "kanri-verify-old"` {
		t.Errorf("mismatch message args: got %v", args)
	}
	// Among several records, the right one verifies.
	f.dns.Set(name, "v=spf1 -all", d.VerificationToken)
	if err := verify(); err != nil {
		t.Fatalf("verify: %v", err)
	}
	got, _ := f.svc.Get(f.ctx, "tenant_acme", d.ID)
	if !got.Verified || !got.VerifiedAt.Equal(f.now) || emaildomain.State(got) != "verified" {
		t.Errorf("after verify: %+v", got)
	}

	// Another tenant cannot verify the same domain, even with its own
	// token in the record.
	other, err := f.svc.Add(f.ctx, "tenant_globex", "example.com")
	if err != nil {
		t.Fatal(err)
	}
	f.dns.Set(name, d.VerificationToken, other.VerificationToken)
	_, err = f.svc.Verify(f.ctx, "tenant_globex", other.ID, kanri.Seen{})
	if key, _ := kanri.ErrorMessage(err); key != "domains.claimed_elsewhere" {
		t.Errorf("second tenant: got %v, want domains.claimed_elsewhere", err)
	}
	// Once the first tenant deletes it, the second may verify it.
	if _, err := f.svc.Delete(f.ctx, "tenant_acme", d.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Verify(f.ctx, "tenant_globex", other.ID, kanri.Seen{}); err != nil {
		t.Errorf("second tenant after the first deleted it: %v", err)
	}
}

func TestRecheckFlagsAMissingRecord(t *testing.T) {
	f := setup(t)
	d, _ := f.svc.Add(f.ctx, "tenant_acme", "example.org")
	name := emaildomain.RecordName("example.org")
	f.dns.Set(name, d.VerificationToken)
	if _, err := f.svc.Verify(f.ctx, "tenant_acme", d.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	check := func(wantState string) {
		t.Helper()
		if _, err := f.svc.Recheck(f.ctx); err != nil {
			t.Fatal(err)
		}
		got, _ := f.svc.Get(f.ctx, "tenant_acme", d.ID)
		if !got.Verified || emaildomain.State(got) != wantState {
			t.Errorf("got verified %v, state %s; want verified, %s", got.Verified, emaildomain.State(got), wantState)
		}
	}
	check("verified")
	f.dns.Set(name) // the record is removed
	f.now = f.now.Add(time.Hour)
	check("missing")
	f.dns.Drop(name, true) // a failed lookup changes nothing
	f.svc.Timeout = droppedTimeout
	check("missing")
	f.dns.Drop(name, false)
	f.svc.Timeout = answeredTimeout
	f.dns.Set(name, d.VerificationToken)
	check("verified")
}

// TestClaimsAreTakenOverOnlyWhenStale builds the states a verification in
// progress and a deleted domain leave, and checks which claims a second
// tenant may take over.
func TestClaimsAreTakenOverOnlyWhenStale(t *testing.T) {
	f := setup(t)
	a, _ := f.svc.Add(f.ctx, "tenant_a", "shared.example")
	b, _ := f.svc.Add(f.ctx, "tenant_b", "shared.example")
	f.dns.Set(emaildomain.RecordName("shared.example"), a.VerificationToken, b.VerificationToken)
	claims := f.st.System().DomainClaims()
	claim := &kanri.DomainClaim{Doc: kanri.Doc{ID: kanri.DomainClaimID("shared.example")}, Domain: "shared.example", OwnerID: "tenant_a", Token: a.VerificationToken, ClaimedAt: kanri.NewTime(f.now)}
	// A has claimed it and is about to mark its domain verified.
	if err := claims.Create(f.ctx, claim); err != nil {
		t.Fatal(err)
	}
	verifyB := func() error { _, err := f.svc.Verify(f.ctx, "tenant_b", b.ID, kanri.Seen{}); return err }
	if key, _ := kanri.ErrorMessage(verifyB()); key != "domains.claimed_elsewhere" {
		t.Errorf("B while A verifies: got %q, want domains.claimed_elsewhere", key)
	}
	// A never finished (a crash): after the grace, B may take it over.
	f.now = f.now.Add(11 * time.Minute)
	if err := verifyB(); err != nil {
		t.Errorf("B after A's claim went stale: %v", err)
	}
	if c, _ := claims.Get(f.ctx, claim.ID); c.OwnerID != "tenant_b" || c.Token != b.VerificationToken {
		t.Errorf("claim: got %+v, want B's", c)
	}
	// A claim whose owner re-added the domain (another token) is stale at
	// once: B's domain is re-added and A verifies.
	if _, err := f.svc.Delete(f.ctx, "tenant_b", b.ID, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	c, _ := claims.Get(f.ctx, claim.ID)
	if c != nil {
		t.Fatalf("B's delete left its claim: %+v", c)
	}
	if _, err := f.svc.Add(f.ctx, "tenant_b", "shared.example"); err != nil {
		t.Fatal(err)
	}
	stale := &kanri.DomainClaim{Doc: kanri.Doc{ID: claim.ID}, Domain: "shared.example", OwnerID: "tenant_b", Token: b.VerificationToken, ClaimedAt: kanri.NewTime(f.now)}
	if err := claims.Create(f.ctx, stale); err != nil { // left by a delete whose cleanup failed
		t.Fatal(err)
	}
	if _, err := f.svc.Verify(f.ctx, "tenant_a", a.ID, kanri.Seen{}); err != nil {
		t.Errorf("A over B's claim of a domain B re-added: %v", err)
	}
}

// refusing is a resolver whose DNS server cannot be reached.
type refusing struct{}

func (refusing) LookupTXT(context.Context, string) ([]string, error) {
	return nil, &net.DNSError{Err: "dial udp 192.0.2.1:53: connect: connection refused", Server: "192.0.2.1:53"}
}

// TestUnreachableDNSServer checks that a DNS server that cannot be reached
// gives a message in words, with the record's name and without the
// resolver's own error text.
func TestUnreachableDNSServer(t *testing.T) {
	f := setup(t)
	svc := emaildomain.New(app.NewDeps(f.st, nil, func() time.Time { return f.now }), refusing{})
	d, err := svc.Add(f.ctx, "tenant_acme", "example.com")
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Verify(f.ctx, "tenant_acme", d.ID, kanri.Seen{})
	key, args := kanri.ErrorMessage(err)
	if got, want := key, "domains.lookup_unreachable"; got != want {
		t.Errorf("message: got %q, want %q", got, want)
	}
	if got, want := fmt.Sprint(args), "["+emaildomain.RecordName("example.com")+"]"; got != want {
		t.Errorf("arguments: got %s, want %s", got, want)
	}
}
