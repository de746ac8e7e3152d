package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"net/url"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

// TOTP parameters (RFC 6238 as authenticator apps read them): 30-second
// steps, six digits, HMAC-SHA1; a code of the step before or after the
// current one is accepted too (a phone's clock a little off).
const (
	totpPeriod = 30
	totpSkew   = 1
	// RecoveryCodes is how many single-use recovery codes an enrolment
	// gives.
	RecoveryCodes = 10
	issuer        = "Kanri"
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// Enrolment is what setting up two-factor sign-in shows, once: the secret
// as text and the otpauth URL an authenticator app reads from the QR code.
type Enrolment struct {
	Secret string
	URL    string
}

// errNoSealer is the error of two-factor sign-in without a key.
var errNoSealer = kanri.E(kanri.EINTERNAL, "error.internal")

// SetSealer gives the service the key that seals TOTP secrets.
func (s *Service) SetSealer(k *Sealer) { s.sealer = k }

// BeginTwoFactor starts an enrolment: a new secret, kept sealed as the
// user's pending secret until ConfirmTwoFactor. account names the user in
// the authenticator app ("alice@acme").
func (s *Service) BeginTwoFactor(ctx context.Context, tenantID, userID, account string) (*Enrolment, error) {
	if s.sealer == nil {
		return nil, errNoSealer
	}
	raw := make([]byte, 20)
	rand.Read(raw)
	secret := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw)
	if _, err := s.update(ctx, tenantID, userID, func(u *kanri.User) bool {
		u.Security.TwoFactorPending = s.sealer.Seal([]byte(secret), u.ID)
		return true
	}); err != nil {
		return nil, err
	}
	return enrolment(secret, account), nil
}

// PendingTwoFactor returns the enrolment begun and not yet confirmed, or
// nil.
func (s *Service) PendingTwoFactor(u *kanri.User, account string) (*Enrolment, error) {
	if u.Security.TwoFactorPending == "" || s.sealer == nil {
		return nil, nil
	}
	secret, err := s.sealer.Open(u.Security.TwoFactorPending, u.ID)
	if err != nil {
		return nil, err
	}
	return enrolment(string(secret), account), nil
}

func enrolment(secret, account string) *Enrolment {
	v := url.Values{"secret": {secret}, "issuer": {issuer}, "period": {"30"}, "digits": {"6"}, "algorithm": {"SHA1"}}
	u := url.URL{Scheme: "otpauth", Host: "totp", Path: "/" + issuer + ":" + account, RawQuery: v.Encode()}
	return &Enrolment{Secret: secret, URL: u.String()}
}

// QRCode returns the PNG image of an enrolment's QR code.
func (e *Enrolment) QRCode(size int) ([]byte, error) {
	k, err := otp.NewKeyFromURL(e.URL)
	if err != nil {
		return nil, err
	}
	img, err := k.Image(size, size)
	if err != nil {
		return nil, err
	}
	return encodePNG(img)
}

// normalCode removes what people type between a code's characters.
func normalCode(code string) string {
	return strings.ToLower(strings.NewReplacer(" ", "", "-", "", "\t", "").Replace(strings.TrimSpace(code)))
}

// matchStep returns the time step of the TOTP code within the accepted
// window at now, or 0 when it matches none.
func matchStep(secret, code string, now time.Time) int64 {
	if len(code) != 6 {
		return 0
	}
	step := now.Unix() / totpPeriod
	for d := int64(-totpSkew); d <= totpSkew; d++ {
		at := time.Unix((step+d)*totpPeriod, 0)
		want, err := totp.GenerateCodeCustom(secret, at, totpOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step + d
		}
	}
	return 0
}

// ConfirmTwoFactor finishes an enrolment with a first code from the app:
// two-factor sign-in is on, and the recovery codes it returns are shown
// once (only their digests are kept).
func (s *Service) ConfirmTwoFactor(ctx context.Context, tenantID, userID, code string) ([]string, error) {
	if s.sealer == nil {
		return nil, errNoSealer
	}
	codes := newRecoveryCodes()
	var bad bool
	u, err := s.update(ctx, tenantID, userID, func(u *kanri.User) bool {
		secret, err := s.sealer.Open(u.Security.TwoFactorPending, u.ID)
		if err != nil {
			bad = true
			return false
		}
		step := matchStep(string(secret), normalCode(code), s.Now())
		if bad = step == 0; bad {
			return false
		}
		u.Security.TwoFactorEnabled, u.Security.TwoFactorSecret, u.Security.TwoFactorPending = true, u.Security.TwoFactorPending, ""
		u.Security.TwoFactorStep = step
		u.Security.RecoveryCodes = s.digests(codes, u.ID)
		return true
	})
	if err != nil {
		return nil, err
	}
	if bad {
		return nil, kanri.Invalid(kanri.Fields{"code": "twofactor.wrong_code"})
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "user.2fa_enable",
		Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username},
		Changes:  map[string]kanri.Change{"twoFactorEnabled": {Before: false, After: true}},
	})
	return codes, nil
}

// newRecoveryCodes returns fresh recovery codes: ten characters of
// base32 each (50 bits), written as two groups of five.
func newRecoveryCodes() []string {
	out := make([]string, RecoveryCodes)
	for i := range out {
		b := make([]byte, 7)
		rand.Read(b)
		c := strings.ToLower(base32.StdEncoding.EncodeToString(b))[:10]
		out[i] = c[:5] + "-" + c[5:]
	}
	return out
}

func (s *Service) digests(codes []string, owner string) []string {
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = s.sealer.Digest(normalCode(c), owner)
	}
	return out
}

// SecondFactor checks the second step of a sign-in: a TOTP code not used
// before, or a recovery code (used up). Wrong codes count towards the
// lockout like wrong passwords; every outcome is audited. It returns the
// user, signed in.
func (s *Service) SecondFactor(ctx context.Context, tenantID, userID, code string) (*kanri.User, error) {
	if s.sealer == nil {
		return nil, errNoSealer
	}
	now := s.Now()
	code = normalCode(code)
	var outcome string // "", "locked", "wrong", "recovery", "totp"
	locked := false
	u, err := s.update(ctx, tenantID, userID, func(u *kanri.User) bool {
		outcome, locked = "", false
		if u.Locked(now) || !u.Security.TwoFactorEnabled {
			outcome = "locked"
			return false
		}
		secret, err := s.sealer.Open(u.Security.TwoFactorSecret, u.ID)
		if err == nil {
			if step := matchStep(string(secret), code, now); step > u.Security.TwoFactorStep {
				outcome = "totp"
				u.Security.TwoFactorStep = step
			}
		}
		if outcome == "" && len(code) == 10 {
			d := s.sealer.Digest(code, u.ID)
			for i, have := range u.Security.RecoveryCodes {
				if subtle.ConstantTimeCompare([]byte(have), []byte(d)) == 1 {
					outcome = "recovery"
					u.Security.RecoveryCodes = append(u.Security.RecoveryCodes[:i:i], u.Security.RecoveryCodes[i+1:]...)
					break
				}
			}
		}
		if outcome == "" {
			outcome = "wrong"
			u.Security.FailedLoginAttempts++
			if u.Security.FailedLoginAttempts >= MaxFailedAttempts {
				u.Security.LockedUntil = kanri.NewTime(now.Add(LockoutDuration))
				locked = true
			}
			return true
		}
		u.Security.FailedLoginAttempts, u.Security.LockedUntil = 0, kanri.Time{}
		u.Security.LastLoginAt = kanri.NewTime(now)
		return true
	})
	if err != nil {
		return nil, err
	}
	res := kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username}
	switch outcome {
	case "locked":
		s.record(ctx, tenantID, "auth.login_failed", res, kanri.ReasonAccountLocked)
		return nil, ErrSecondFactor
	case "wrong":
		s.record(ctx, tenantID, "auth.login_failed", res, kanri.ReasonWrongCode)
		if locked {
			s.record(ctx, tenantID, "auth.lockout", res, kanri.ReasonTooManyFailed)
		}
		return nil, ErrSecondFactor
	}
	ctx = audit.WithActor(ctx, withUser(audit.ActorFrom(ctx), u, tenantID))
	reason := ""
	if outcome == "recovery" {
		reason = kanri.ReasonRecoveryCode
	}
	s.record(ctx, tenantID, "auth.login", res, reason)
	return u, nil
}

// ErrSecondFactor is the error of a wrong, used or late second factor.
var ErrSecondFactor = kanri.E(kanri.EUNAUTHENTICATED, "twofactor.failed")

// DisableTwoFactor turns the user's own two-factor sign-in off, with their
// password and a current code (or a recovery code).
func (s *Service) DisableTwoFactor(ctx context.Context, tenantID, userID, password, code string) error {
	u, err := s.Store.Tenant(tenantID).Users().Get(ctx, userID)
	if err != nil {
		return err
	}
	if !s.hasher.Check(u.PasswordHash, password) {
		return kanri.Invalid(kanri.Fields{"password": "validation.current_password"})
	}
	if _, err := s.SecondFactor(ctx, tenantID, userID, code); err != nil {
		if kanri.IsCode(err, kanri.EUNAUTHENTICATED) {
			return kanri.Invalid(kanri.Fields{"code": "twofactor.wrong_code"})
		}
		return err
	}
	if _, err := s.update(ctx, tenantID, userID, func(u *kanri.User) bool {
		ClearTwoFactor(u)
		return true
	}); err != nil {
		return err
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "user.2fa_disable",
		Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: u.ID, Name: u.Username},
		Changes:  map[string]kanri.Change{"twoFactorEnabled": {Before: true, After: false}},
	})
	return nil
}

// ClearTwoFactor turns two-factor sign-in off in u, forgetting its secret
// and recovery codes.
func ClearTwoFactor(u *kanri.User) {
	u.Security.TwoFactorEnabled, u.Security.TwoFactorSecret, u.Security.TwoFactorPending = false, "", ""
	u.Security.TwoFactorStep, u.Security.RecoveryCodes = 0, nil
}
