package domain_test

import (
	"context"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/domain"
	"github.com/kanri/kanri/internal/domain/dnstest"
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
		got, err := domain.Normalize(tc.in)
		if got != tc.want || kanri.ErrorFields(err)["domain"] != tc.err {
			t.Errorf("Normalize(%q): got %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

type fixture struct {
	ctx context.Context
	svc *domain.Service
	dns *dnstest.Server
	now time.Time
}

func setup(t *testing.T) *fixture {
	t.Helper()
	ds, err := bolt.Open(t.TempDir(), docstore.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	f := &fixture{dns: dnstest.Start(t), now: time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)}
	d := app.NewDeps(store.New(ds, nil), nil, func() time.Time { return f.now })
	f.svc = domain.New(d, domain.NewResolver(f.dns.Addr))
	f.svc.Timeout = 300 * time.Millisecond
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
	name := domain.RecordName("example.com")
	verify := func() error {
		_, err := f.svc.Verify(f.ctx, "tenant_acme", d.ID, kanri.Seen{})
		return err
	}
	for _, tc := range []struct {
		name    string
		prepare func()
		wantKey string
	}{
		{"missing", func() {}, "domains.record_missing"},
		{"wrong", func() { f.dns.Set(name, "kanri-verify-someoneelse") }, "domains.record_mismatch"},
		{"timeout", func() { f.dns.Drop(name, true) }, "domains.lookup_failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.prepare()
			err := verify()
			if key, _ := kanri.ErrorMessage(err); key != tc.wantKey {
				t.Errorf("got %v, want %s", err, tc.wantKey)
			}
			if got, _ := f.svc.Get(f.ctx, "tenant_acme", d.ID); got.Verified {
				t.Error("the domain was verified")
			}
		})
	}
	f.dns.Drop(name, false)
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
	if !got.Verified || !got.VerifiedAt.Equal(f.now) || domain.State(got) != "verified" {
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
	name := domain.RecordName("example.org")
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
		if !got.Verified || domain.State(got) != wantState {
			t.Errorf("got verified %v, state %s; want verified, %s", got.Verified, domain.State(got), wantState)
		}
	}
	check("verified")
	f.dns.Set(name) // the record is removed
	f.now = f.now.Add(time.Hour)
	check("missing")
	f.dns.Drop(name, true) // a failed lookup changes nothing
	check("missing")
	f.dns.Drop(name, false)
	f.dns.Set(name, d.VerificationToken)
	check("verified")
}
