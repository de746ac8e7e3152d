package auth_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

type fixture struct {
	ctx      context.Context
	svcs     *wiring.Set
	clock    *clock
	tenant   *kanri.Tenant
	user     *kanri.User
	secret   string
	recovery []string
}

const pass = "Correct-Horse-9"

// enrolled returns a user with two-factor sign-in on, enrolled at the
// fixture's clock, and the secret shown at enrolment.
func enrolled(t *testing.T, key []byte) *fixture {
	t.Helper()
	ds := bolttest.Open(t)
	clk := &clock{t: time.Date(2026, 11, 26, 9, 0, 5, 0, time.UTC)}
	svcs := wiring.New(store.New(ds, nil, features.Schema()), slog.New(slog.DiscardHandler), clk.now, wiring.Options{Roles: features.Roles(),
		Hasher: auth.Hasher{Cost: bcrypt.MinCost}, TwoFactorKey: key,
	})
	ctx := audit.WithActor(t.Context(), audit.Actor{UserID: "system"})
	ten, err := svcs.Tenants.Create(ctx, kanri.TenantInput{Name: "acme", DisplayName: "Acme", Plan: kanri.PlanStandard, MaxUsers: 10})
	if err != nil {
		t.Fatal(err)
	}
	u, err := svcs.Users.Create(ctx, ten.ID, kanri.UserInput{Username: "alice", Email: "alice@acme.test", DisplayName: "Alice", Password: pass})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{ctx: ctx, svcs: svcs, clock: clk, tenant: ten, user: u}
	e, err := svcs.Auth.BeginTwoFactor(ctx, ten.ID, u.ID, "alice@acme")
	if err != nil {
		t.Fatal(err)
	}
	f.secret = e.Secret
	if _, err := svcs.Auth.ConfirmTwoFactor(ctx, ten.ID, u.ID, "000000"); !kanri.IsCode(err, kanri.EINVALID) {
		t.Fatalf("a wrong first code = %v, want EINVALID", err)
	}
	codes, err := svcs.Auth.ConfirmTwoFactor(ctx, ten.ID, u.ID, f.code(0))
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) != auth.RecoveryCodes {
		t.Fatalf("%d recovery codes, want %d", len(codes), auth.RecoveryCodes)
	}
	f.recovery = codes
	return f
}

// code returns the TOTP code of the step d steps from the clock's.
func (f *fixture) code(d int) string {
	c, err := totp.GenerateCodeCustom(f.secret, f.clock.now().Add(time.Duration(d)*30*time.Second), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		panic(err)
	}
	return c
}

func (f *fixture) second(code string) error {
	_, err := f.svcs.Auth.SecondFactor(f.ctx, f.tenant.ID, f.user.ID, code)
	return err
}

func TestTOTPWindowReplayAndDrift(t *testing.T) {
	f := enrolled(t, nil)
	// The enrolment's own code was accepted once: it does not sign in.
	if err := f.second(f.code(0)); err == nil {
		t.Error("the code used to enrol signed in again")
	}
	f.clock.advance(30 * time.Second)
	if err := f.second(f.code(0)); err != nil {
		t.Fatalf("the current code: %v", err)
	}
	if err := f.second(f.code(0)); err == nil {
		t.Error("a code accepted once was accepted again")
	}
	// Half a minute on, the code just used is one step behind: refused
	// all the same (a replay).
	f.clock.advance(30 * time.Second)
	if err := f.second(f.code(-1)); err == nil {
		t.Error("a code of the step of the last accepted one (replay) was accepted")
	}
	// A phone one step behind, then one step ahead.
	f.clock.advance(30 * time.Second)
	if err := f.second(f.code(-1)); err != nil {
		t.Errorf("a code one step behind: %v", err)
	}
	if err := f.second(f.code(1)); err != nil {
		t.Errorf("a code one step ahead: %v", err)
	}
	if err := f.second(f.code(0)); err == nil {
		t.Error("a code older than one accepted was accepted")
	}
	f.clock.advance(5 * time.Minute)
	if err := f.second(f.code(2)); err == nil {
		t.Error("a code two steps ahead was accepted")
	}
	if err := f.second(f.code(-2)); err == nil {
		t.Error("a code two steps behind was accepted")
	}
}

func TestRecoveryCodesAreSingleUse(t *testing.T) {
	f := enrolled(t, nil)
	code := f.recovery[3]
	if err := f.second(strings.ToUpper(code)); err != nil {
		t.Fatalf("a recovery code (typed in capitals): %v", err)
	}
	if err := f.second(code); err == nil {
		t.Error("a recovery code was accepted twice")
	}
	u, _ := f.svcs.Users.Get(f.ctx, f.tenant.ID, f.user.ID)
	if got, want := len(u.Security.RecoveryCodes), auth.RecoveryCodes-1; got != want {
		t.Errorf("%d recovery codes left, want %d", got, want)
	}
	for _, c := range f.recovery {
		for _, d := range u.Security.RecoveryCodes {
			if strings.Contains(d, strings.ReplaceAll(c, "-", "")) {
				t.Fatal("a recovery code is stored in clear")
			}
		}
	}
}

func TestWrongCodesLockTheAccount(t *testing.T) {
	f := enrolled(t, nil)
	f.clock.advance(time.Minute)
	for range auth.MaxFailedAttempts {
		if err := f.second("123456"); err == nil {
			t.Fatal("a wrong code was accepted")
		}
	}
	if err := f.second(f.code(0)); err == nil {
		t.Fatal("the right code was accepted on a locked account")
	}
	// The password again does not give the guesser new attempts.
	if _, _, _, err := f.svcs.Auth.SignIn(f.ctx, "http://localhost", "acme", "alice", pass); err == nil {
		if err := f.second(f.code(0)); err == nil {
			t.Fatal("a password sign-in unlocked the codes")
		}
	}
	f.clock.advance(auth.LockoutDuration + time.Minute)
	if err := f.second(f.code(0)); err != nil {
		t.Errorf("the right code after the lock ran out: %v", err)
	}
}

func TestTheSecretIsSealed(t *testing.T) {
	key := make([]byte, 32)
	key[0] = 7
	f := enrolled(t, key)
	u, _ := f.svcs.Users.Get(f.ctx, f.tenant.ID, f.user.ID)
	if strings.Contains(u.Security.TwoFactorSecret, f.secret) || !strings.HasPrefix(u.Security.TwoFactorSecret, "v1:") {
		t.Fatalf("the stored secret is not sealed: %q", u.Security.TwoFactorSecret)
	}
	other := make([]byte, 32)
	s, _ := auth.NewSealer(other)
	if _, err := s.Open(u.Security.TwoFactorSecret, u.ID); err == nil {
		t.Error("the secret opens with another key")
	}
	right, _ := auth.NewSealer(key)
	if _, err := right.Open(u.Security.TwoFactorSecret, "user_someone_else"); err == nil {
		t.Error("the secret opens for another user")
	}
	if got, err := right.Open(u.Security.TwoFactorSecret, u.ID); err != nil || string(got) != f.secret {
		t.Errorf("the secret does not open with its key: %v", err)
	}
}

func TestDisableNeedsThePasswordAndACode(t *testing.T) {
	f := enrolled(t, nil)
	f.clock.advance(time.Minute)
	if err := f.svcs.Auth.DisableTwoFactor(f.ctx, f.tenant.ID, f.user.ID, "wrong", f.code(0)); kanri.ErrorFields(err)["password"] == "" {
		t.Errorf("disable with a wrong password = %v", err)
	}
	if err := f.svcs.Auth.DisableTwoFactor(f.ctx, f.tenant.ID, f.user.ID, pass, "000000"); kanri.ErrorFields(err)["code"] == "" {
		t.Errorf("disable with a wrong code = %v", err)
	}
	if err := f.svcs.Auth.DisableTwoFactor(f.ctx, f.tenant.ID, f.user.ID, pass, f.code(0)); err != nil {
		t.Fatal(err)
	}
	u, _ := f.svcs.Users.Get(f.ctx, f.tenant.ID, f.user.ID)
	if u.Security.TwoFactorEnabled || u.Security.TwoFactorSecret != "" || len(u.Security.RecoveryCodes) != 0 {
		t.Errorf("after disable: %+v", u.Security)
	}
}
