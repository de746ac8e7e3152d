package auth_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/descope/virtualwebauthn"
	"github.com/kanri/kanri/internal/auth/passkeytest"
	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// The relying party of the tests, as the server and the browser see it.
const origin = "http://localhost:8080"

var (
	rp        = auth.RelyingParty(origin)
	browserRP = virtualwebauthn.RelyingParty{ID: "localhost", Name: "Kanri", Origin: origin}
)

// device is an authenticator holding one user's passkeys.
type device struct {
	auth  virtualwebauthn.Authenticator
	creds []virtualwebauthn.Credential
}

func newDevice(userID string, opts virtualwebauthn.AuthenticatorOptions) *device {
	opts.UserHandle = []byte(userID)
	return &device{auth: virtualwebauthn.NewAuthenticatorWithOptions(opts)}
}

type passkeyFixture struct {
	ctx    context.Context
	svcs   *wiring.Set
	clock  *clock
	tenant *kanri.Tenant
	alice  *kanri.User
	bob    *kanri.User
}

func newPasskeyFixture(t *testing.T) *passkeyFixture {
	t.Helper()
	ds := bolttest.Open(t)
	clk := &clock{t: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}
	svcs := wiring.New(store.New(ds, nil, features.Schema()), slog.New(slog.DiscardHandler), clk.now, wiring.Options{Roles: features.Roles(),
		Hasher: auth.Hasher{Cost: bcrypt.MinCost},
	})
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "system"})
	f := &passkeyFixture{ctx: ctx, svcs: svcs, clock: clk}
	var err error
	if f.tenant, err = svcs.Tenants.Create(ctx, kanri.TenantInput{Name: "acme", DisplayName: "Acme", Plan: kanri.PlanStandard, MaxUsers: 10}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []**kanri.User{&f.alice, &f.bob} {
		name := "alice"
		if u == &f.bob {
			name = "bob"
		}
		if *u, err = svcs.Users.Create(ctx, f.tenant.ID, kanri.UserInput{Username: name, Email: name + "@acme.test", DisplayName: name, Password: pass}); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// register has d make a new passkey of u named name, answering the
// server's options, and returns the server's answer.
func (f *passkeyFixture) register(t *testing.T, d *device, u *kanri.User, name string) (*kanri.Passkey, error) {
	t.Helper()
	cer, err := f.svcs.Auth.BeginPasskey(f.ctx, rp, f.tenant.ID, u.ID, pass)
	if err != nil {
		return nil, err
	}
	opts, err := virtualwebauthn.ParseAttestationOptions(string(cer.Options))
	if err != nil {
		t.Fatal(err)
	}
	cred := passkeytest.NewCredential()
	answer := virtualwebauthn.CreateAttestationResponse(browserRP, d.auth, cred, *opts)
	k, err := f.svcs.Auth.AddPasskey(f.ctx, rp, f.tenant.ID, u.ID, name, cer.ID, []byte(answer))
	if err == nil {
		d.auth.AddCredential(cred)
		d.creds = append(d.creds, cred)
	}
	return k, err
}

// signIn has d answer a sign-in with a passkey alone with its first
// passkey (or cred when given).
func (f *passkeyFixture) signIn(t *testing.T, d *device, cred *virtualwebauthn.Credential) (*kanri.User, *kanri.Tenant, error) {
	t.Helper()
	cer, err := f.svcs.Auth.BeginPasskeySignIn(f.ctx, rp)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := virtualwebauthn.ParseAssertionOptions(string(cer.Options))
	if err != nil {
		t.Fatal(err)
	}
	if cred == nil {
		cred = &d.creds[0]
	}
	cred.Counter++
	answer := virtualwebauthn.CreateAssertionResponse(browserRP, d.auth, *cred, *opts)
	return f.svcs.Auth.PasskeySignIn(f.ctx, rp, cer.ID, []byte(answer))
}

func TestPasskeyRegisteredThenSignsInAlone(t *testing.T) {
	f := newPasskeyFixture(t)
	d := newDevice(f.alice.ID, virtualwebauthn.AuthenticatorOptions{})
	k, err := f.register(t, d, f.alice, "  Work laptop ")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := k.Name, "Work laptop"; got != want {
		t.Errorf("name %q, want %q", got, want)
	}
	keys, err := f.svcs.Auth.Passkeys(f.ctx, f.tenant.ID, f.alice.ID)
	if err != nil || len(keys) != 1 || keys[0].ID != k.ID || !keys[0].LastUsedAt.IsZero() {
		t.Fatalf("alice's passkeys = %+v, %v; want the one added, never used", keys, err)
	}
	if second, err := f.svcs.Auth.SecondStep(f.ctx, f.tenant, f.alice); err != nil || !second {
		t.Errorf("a password sign-in of a user with a passkey needs a second step = %v, %v; want true", second, err)
	}

	f.clock.advance(time.Hour)
	u, ten, err := f.signIn(t, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != f.alice.ID || ten.ID != f.tenant.ID {
		t.Errorf("signed in %s of %s, want alice of acme", u.ID, ten.ID)
	}
	if got, want := u.Security.LastLoginAt.Time, f.clock.now(); !got.Equal(want) {
		t.Errorf("last sign-in %v, want %v", got, want)
	}
	keys, _ = f.svcs.Auth.Passkeys(f.ctx, f.tenant.ID, f.alice.ID)
	if got, want := keys[0].LastUsedAt.Time, f.clock.now(); !got.Equal(want) {
		t.Errorf("passkey last used %v, want %v", got, want)
	}
	// The counter the device sent is kept.
	if keys[0].SignCount != 1 {
		t.Errorf("sign count %d, want the device's 1", keys[0].SignCount)
	}
	if _, _, err := f.signIn(t, d, nil); err != nil {
		t.Fatalf("a second sign-in: %v", err)
	}
	keys, _ = f.svcs.Auth.Passkeys(f.ctx, f.tenant.ID, f.alice.ID)
	if keys[0].SignCount != 2 {
		t.Errorf("sign count %d, want 2", keys[0].SignCount)
	}
	// A copy of the key (a counter that does not grow) is refused.
	d.creds[0].Counter = 1
	if _, _, err := f.signIn(t, d, nil); err != auth.ErrPasskey {
		t.Errorf("a counter gone back: %v, want ErrPasskey", err)
	}
}

func TestPasskeyRegistrationRefusesBadInputAndKeepsNothing(t *testing.T) {
	f := newPasskeyFixture(t)
	d := newDevice(f.alice.ID, virtualwebauthn.AuthenticatorOptions{})
	for _, tc := range []struct {
		name, field string
	}{
		{"", "name"},
		{"   ", "name"},
		{strings.Repeat("あ", kanri.PasskeyNameMax+1), "name"},
		{"evil\u202ename", "name"},
	} {
		_, err := f.register(t, d, f.alice, tc.name)
		if got := kanri.ErrorFields(err)[tc.field]; got == "" {
			t.Errorf("name %q: %v, want an error of %s", tc.name, err, tc.field)
		}
	}
	// A ceremony never begun, or its state lost.
	if _, err := f.svcs.Auth.AddPasskey(f.ctx, rp, f.tenant.ID, f.alice.ID, "Laptop", "", []byte("{}")); !kanri.IsCode(err, kanri.EINVALID) {
		t.Errorf("no ceremony: %v, want EINVALID", err)
	}
	// Not without the password.
	if _, err := f.svcs.Auth.BeginPasskey(f.ctx, rp, f.tenant.ID, f.alice.ID, "wrong-password-1"); kanri.ErrorFields(err)["current"] == "" {
		t.Errorf("a wrong password: %v, want an error of current", err)
	}
	begin := func() (*auth.Ceremony, *virtualwebauthn.AttestationOptions) {
		cer, err := f.svcs.Auth.BeginPasskey(f.ctx, rp, f.tenant.ID, f.alice.ID, pass)
		if err != nil {
			t.Fatal(err)
		}
		opts, err := virtualwebauthn.ParseAttestationOptions(string(cer.Options))
		if err != nil {
			t.Fatal(err)
		}
		return cer, opts
	}
	// An answer that is not one.
	cer, _ := begin()
	if _, err := f.svcs.Auth.AddPasskey(f.ctx, rp, f.tenant.ID, f.alice.ID, "Laptop", cer.ID, []byte(`{"id":"x"}`)); kanri.ErrorFields(err)["credential"] == "" {
		t.Errorf("garbage answer: %v, want an error of the credential", err)
	}
	// An answer made for another site (a phishing page's origin).
	cer, opts := begin()
	evil := virtualwebauthn.RelyingParty{ID: "localhost", Name: "Kanri", Origin: "http://evil.test"}
	answer := virtualwebauthn.CreateAttestationResponse(evil, d.auth, passkeytest.NewCredential(), *opts)
	if _, err := f.svcs.Auth.AddPasskey(f.ctx, rp, f.tenant.ID, f.alice.ID, "Laptop", cer.ID, []byte(answer)); kanri.ErrorFields(err)["credential"] == "" {
		t.Errorf("another origin's answer: %v, want an error of the credential", err)
	}
	// An answer to alice's ceremony registered for bob.
	cer, opts = begin()
	answer = virtualwebauthn.CreateAttestationResponse(browserRP, d.auth, passkeytest.NewCredential(), *opts)
	if _, err := f.svcs.Auth.AddPasskey(f.ctx, rp, f.tenant.ID, f.bob.ID, "Laptop", cer.ID, []byte(answer)); err == nil {
		t.Error("alice's ceremony registered a passkey of bob")
	}
	// A ceremony answers once.
	cer, opts = begin()
	answer = virtualwebauthn.CreateAttestationResponse(browserRP, d.auth, passkeytest.NewCredential(), *opts)
	if _, err := f.svcs.Auth.AddPasskey(f.ctx, rp, f.tenant.ID, f.alice.ID, "Laptop", cer.ID, []byte(answer)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svcs.Auth.AddPasskey(f.ctx, rp, f.tenant.ID, f.alice.ID, "Again", cer.ID, []byte(answer)); !kanri.IsCode(err, kanri.EINVALID) {
		t.Errorf("the same answer again: %v, want EINVALID", err)
	}
	if keys, _ := f.svcs.Auth.Passkeys(f.ctx, f.tenant.ID, f.alice.ID); len(keys) != 1 {
		t.Fatalf("alice has %d passkeys, want the one", len(keys))
	}
	if keys, err := f.svcs.Auth.Passkeys(f.ctx, f.tenant.ID, f.bob.ID); err != nil || len(keys) != 0 {
		t.Errorf("bob has %d passkeys (%v), want none", len(keys), err)
	}
	// At an IP address there are no passkeys: said, not a failure.
	if _, err := f.svcs.Auth.BeginPasskey(f.ctx, auth.RelyingParty("http://127.0.0.1:8080"), f.tenant.ID, f.alice.ID, pass); err != auth.ErrPasskeysUnavailable {
		t.Errorf("at an IP address: %v, want ErrPasskeysUnavailable", err)
	}
	if auth.RelyingParty("http://127.0.0.1:8080").Usable() || !rp.Usable() {
		t.Error("Usable is wrong about an IP address or localhost")
	}
}

func TestPasskeySignInRefusals(t *testing.T) {
	f := newPasskeyFixture(t)
	d := newDevice(f.bob.ID, virtualwebauthn.AuthenticatorOptions{})
	if _, err := f.register(t, d, f.bob, "Laptop"); err != nil {
		t.Fatal(err)
	}
	t.Run("unknown credential", func(t *testing.T) {
		stranger := passkeytest.NewCredential()
		if _, _, err := f.signIn(t, d, &stranger); err != auth.ErrPasskey {
			t.Errorf("got %v, want ErrPasskey", err)
		}
	})
	t.Run("another user's handle", func(t *testing.T) {
		// A device that says the passkey is alice's.
		liar := newDevice(f.alice.ID, virtualwebauthn.AuthenticatorOptions{})
		liar.auth.AddCredential(d.creds[0])
		liar.creds = d.creds
		if _, _, err := f.signIn(t, liar, nil); err != auth.ErrPasskey {
			t.Errorf("got %v, want ErrPasskey", err)
		}
	})
	t.Run("nobody verified at the device", func(t *testing.T) {
		unverified := newDevice(f.bob.ID, virtualwebauthn.AuthenticatorOptions{UserNotVerified: true})
		unverified.auth.AddCredential(d.creds[0])
		unverified.creds = d.creds
		if _, _, err := f.signIn(t, unverified, nil); err != auth.ErrPasskey {
			t.Errorf("got %v, want ErrPasskey: a passkey alone must be two factors", err)
		}
	})
	t.Run("the state of another ceremony", func(t *testing.T) {
		cer, _ := f.svcs.Auth.BeginPasskeySignIn(f.ctx, rp)
		other, _ := f.svcs.Auth.BeginPasskeySignIn(f.ctx, rp)
		opts, _ := virtualwebauthn.ParseAssertionOptions(string(cer.Options))
		d.creds[0].Counter++
		answer := virtualwebauthn.CreateAssertionResponse(browserRP, d.auth, d.creds[0], *opts)
		if _, _, err := f.svcs.Auth.PasskeySignIn(f.ctx, rp, other.ID, []byte(answer)); err != auth.ErrPasskey {
			t.Errorf("got %v, want ErrPasskey", err)
		}
		// A second step's ceremony does not sign in alone.
		step, err := f.svcs.Auth.BeginPasskeyStep(f.ctx, rp, f.tenant.ID, f.bob.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.svcs.Auth.PasskeySignIn(f.ctx, rp, step.ID, []byte(answer)); !kanri.IsCode(err, kanri.EINVALID) {
			t.Errorf("a step's ceremony: %v, want EINVALID", err)
		}
	})
	t.Run("replayed", func(t *testing.T) {
		cer, _ := f.svcs.Auth.BeginPasskeySignIn(f.ctx, rp)
		opts, _ := virtualwebauthn.ParseAssertionOptions(string(cer.Options))
		d.creds[0].Counter++
		answer := virtualwebauthn.CreateAssertionResponse(browserRP, d.auth, d.creds[0], *opts)
		if _, _, err := f.svcs.Auth.PasskeySignIn(f.ctx, rp, cer.ID, []byte(answer)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.svcs.Auth.PasskeySignIn(f.ctx, rp, cer.ID, []byte(answer)); !kanri.IsCode(err, kanri.EINVALID) {
			t.Errorf("the same answer again: %v, want EINVALID (no ceremony)", err)
		}
	})
	t.Run("locked user", func(t *testing.T) {
		for range auth.MaxFailedAttempts {
			_, _, _, _ = f.svcs.Auth.SignIn(f.ctx, rp, "acme", "bob", "wrong-password-9")
		}
		defer func() {
			u, _ := f.svcs.Users.Get(f.ctx, f.tenant.ID, f.bob.ID)
			if _, err := f.svcs.Users.Unlock(f.ctx, f.tenant.ID, u.ID, kanri.Seen{ETag: u.ETag}); err != nil {
				t.Fatal(err)
			}
		}()
		if _, _, err := f.signIn(t, d, nil); !kanri.IsCode(err, kanri.EUNAUTHENTICATED) || err == auth.ErrPasskey {
			t.Errorf("got %v, want the lock's own message", err)
		}
	})
	t.Run("deactivated user", func(t *testing.T) {
		u, _ := f.svcs.Users.Get(f.ctx, f.tenant.ID, f.bob.ID)
		if _, err := f.svcs.Users.SetActive(f.ctx, f.tenant.ID, u.ID, kanri.Seen{ETag: u.ETag}, false); err != nil {
			t.Fatal(err)
		}
		defer func() {
			u, _ := f.svcs.Users.Get(f.ctx, f.tenant.ID, f.bob.ID)
			if _, err := f.svcs.Users.SetActive(f.ctx, f.tenant.ID, u.ID, kanri.Seen{ETag: u.ETag}, true); err != nil {
				t.Fatal(err)
			}
		}()
		if _, _, err := f.signIn(t, d, nil); err != auth.ErrPasskey {
			t.Errorf("got %v, want ErrPasskey", err)
		}
	})
	t.Run("suspended organisation", func(t *testing.T) {
		ten, _ := f.svcs.Tenants.Get(f.ctx, f.tenant.ID)
		if _, err := f.svcs.Tenants.SetStatus(f.ctx, ten.ID, kanri.Seen{ETag: ten.ETag}, kanri.TenantSuspended); err != nil {
			t.Fatal(err)
		}
		defer func() {
			ten, _ := f.svcs.Tenants.Get(f.ctx, f.tenant.ID)
			if _, err := f.svcs.Tenants.SetStatus(f.ctx, ten.ID, kanri.Seen{ETag: ten.ETag}, kanri.TenantActive); err != nil {
				t.Fatal(err)
			}
		}()
		if _, _, err := f.signIn(t, d, nil); !kanri.IsCode(err, kanri.EFORBIDDEN) {
			t.Errorf("got %v, want EFORBIDDEN with why", err)
		}
	})
	t.Run("removed passkey", func(t *testing.T) {
		keys, _ := f.svcs.Auth.Passkeys(f.ctx, f.tenant.ID, f.bob.ID)
		if err := f.svcs.Auth.RemovePasskey(f.ctx, f.tenant.ID, f.alice.ID, keys[0].ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Errorf("alice removing bob's passkey: %v, want ENOTFOUND", err)
		}
		if err := f.svcs.Auth.RemovePasskey(f.ctx, f.tenant.ID, f.bob.ID, keys[0].ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.signIn(t, d, nil); err != auth.ErrPasskey {
			t.Errorf("got %v, want ErrPasskey", err)
		}
		if second, _ := f.svcs.Auth.SecondStep(f.ctx, f.tenant, f.bob); second {
			t.Error("a user without passkeys or an app still has a second step")
		}
	})
}

func TestPasskeyAsSecondStep(t *testing.T) {
	f := newPasskeyFixture(t)
	da, db := newDevice(f.alice.ID, virtualwebauthn.AuthenticatorOptions{}), newDevice(f.bob.ID, virtualwebauthn.AuthenticatorOptions{})
	if _, err := f.register(t, da, f.alice, "Alice's"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.register(t, db, f.bob, "Bob's"); err != nil {
		t.Fatal(err)
	}
	step := func(d *device, u *kanri.User) error {
		cer, err := f.svcs.Auth.BeginPasskeyStep(f.ctx, rp, f.tenant.ID, u.ID)
		if err != nil {
			return err
		}
		opts, err := virtualwebauthn.ParseAssertionOptions(string(cer.Options))
		if err != nil {
			t.Fatal(err)
		}
		if len(opts.AllowCredentials) != 1 {
			t.Errorf("the step of %s allows %d credentials, want their one", u.Username, len(opts.AllowCredentials))
		}
		d.creds[0].Counter++
		answer := virtualwebauthn.CreateAssertionResponse(browserRP, d.auth, d.creds[0], *opts)
		_, err = f.svcs.Auth.PasskeyStep(f.ctx, rp, f.tenant.ID, u.ID, cer.ID, []byte(answer))
		return err
	}
	if err := step(da, f.alice); err != nil {
		t.Fatalf("alice's own passkey: %v", err)
	}
	// Bob's passkey does not end alice's sign-in.
	if err := step(db, f.alice); err != auth.ErrPasskey {
		t.Errorf("bob's passkey for alice: %v, want ErrPasskey", err)
	}
	// A user with no passkey has no passkey step.
	carol, err := f.svcs.Users.Create(f.ctx, f.tenant.ID, kanri.UserInput{Username: "carol", Email: "carol@acme.test", DisplayName: "Carol", Password: pass})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svcs.Auth.BeginPasskeyStep(f.ctx, rp, f.tenant.ID, carol.ID); err != auth.ErrPasskey {
		t.Errorf("a passkey step of a user without passkeys: %v, want ErrPasskey", err)
	}
}

func TestPasskeysResetByAnAdministrator(t *testing.T) {
	f := newPasskeyFixture(t)
	d := newDevice(f.alice.ID, virtualwebauthn.AuthenticatorOptions{})
	for _, name := range []string{"One", "Two"} {
		if _, err := f.register(t, d, f.alice, name); err != nil {
			t.Fatal(err)
		}
	}
	u, _ := f.svcs.Users.Get(f.ctx, f.tenant.ID, f.alice.ID)
	if _, err := f.svcs.Users.ResetTwoFactor(f.ctx, f.tenant.ID, u.ID, kanri.Seen{ETag: u.ETag}); err != nil {
		t.Fatal(err)
	}
	if n, err := auth.CountPasskeys(f.ctx, f.svcs.Deps.Store, f.tenant.ID, f.alice.ID); err != nil || n != 0 {
		t.Errorf("after the reset alice has %d passkeys (%v), want 0", n, err)
	}
	if _, _, err := f.signIn(t, d, nil); err != auth.ErrPasskey {
		t.Errorf("a reset passkey signed in: %v", err)
	}
	// Nothing left to reset.
	u, _ = f.svcs.Users.Get(f.ctx, f.tenant.ID, f.alice.ID)
	if _, err := f.svcs.Users.ResetTwoFactor(f.ctx, f.tenant.ID, u.ID, kanri.Seen{ETag: u.ETag}); !kanri.IsCode(err, kanri.ECONFLICT) {
		t.Errorf("a reset of nothing: %v, want ECONFLICT", err)
	}
}

func TestPasskeyOfADeletedUserSignsNobodyIn(t *testing.T) {
	f := newPasskeyFixture(t)
	d := newDevice(f.bob.ID, virtualwebauthn.AuthenticatorOptions{})
	if _, err := f.register(t, d, f.bob, "Laptop"); err != nil {
		t.Fatal(err)
	}
	u, _ := f.svcs.Users.Get(f.ctx, f.tenant.ID, f.bob.ID)
	if _, err := f.svcs.Users.Delete(f.ctx, f.tenant.ID, u.ID, kanri.Seen{ETag: u.ETag}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.signIn(t, d, nil); err != auth.ErrPasskey {
		t.Errorf("a deleted user's passkey: %v, want ErrPasskey", err)
	}
}

// TestPasswordSaysWhenThePasskeyStepCannotBeHere: a user whose only
// second factor is a passkey, signing in at an address without passkeys
// (an IP address), is told so at the password, which is not counted
// against them; where passkeys work, the password leads to the step.
func TestPasswordSaysWhenThePasskeyStepCannotBeHere(t *testing.T) {
	f := newPasskeyFixture(t)
	d := newDevice(f.bob.ID, virtualwebauthn.AuthenticatorOptions{})
	if _, err := f.register(t, d, f.bob, "Laptop"); err != nil {
		t.Fatal(err)
	}
	for range auth.MaxFailedAttempts + 1 {
		_, _, _, err := f.svcs.Auth.SignIn(f.ctx, auth.RelyingParty("http://192.0.2.7:8080"), "acme", "bob", pass)
		if got, _ := kanri.ErrorMessage(err); got != "passkeys.only_elsewhere" {
			t.Fatalf("at an IP address: %v, want passkeys.only_elsewhere", err)
		}
	}
	u, _ := f.svcs.Users.Get(f.ctx, f.tenant.ID, f.bob.ID)
	if u.Security.FailedLoginAttempts != 0 || !u.Security.LockedUntil.IsZero() {
		t.Errorf("attempts %d, locked until %v: a right password was held against them", u.Security.FailedLoginAttempts, u.Security.LockedUntil)
	}
	if _, _, second, err := f.svcs.Auth.SignIn(f.ctx, rp, "acme", "bob", pass); err != nil || !second {
		t.Errorf("at localhost: second step %v, %v; want true", second, err)
	}
}
