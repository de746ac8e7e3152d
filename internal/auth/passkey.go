package auth

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// Passkeys (docs/security.md, "Passkeys") are WebAuthn credentials: a
// user registers them on their account page, then signs in with one alone
// (the device checked who holds it: two factors in one step), or uses one
// as the second step after their password. A ceremony's state (its
// challenge) is a document of the _system partition, which its end
// deletes before it checks the answer: an answer is taken once, whatever
// cookie comes with it. The caller keeps the ceremony's id (in the
// session) between its options and its end.

// ceremonyTimeout is how long a passkey ceremony's challenge holds.
const ceremonyTimeout = kanri.PasskeyCeremonyTTL * time.Second

// Errors of passkeys.
var (
	// ErrPasskey is the error of a passkey sign-in that failed, whatever
	// the reason: the caller learns nothing of which account it named.
	ErrPasskey = kanri.E(kanri.EUNAUTHENTICATED, "passkeys.failed")
	// ErrPasskeysUnavailable says passkeys need a domain name: a server
	// reached at an IP address cannot be a WebAuthn relying party.
	ErrPasskeysUnavailable = kanri.E(kanri.EINVALID, "passkeys.unavailable")
	errNoCeremony          = kanri.E(kanri.EINVALID, "passkeys.expired")
)

// RelyingParty is where the browser sees the server: its origin
// ("https://kanri.example.jp"), whose host is the passkeys' RP ID.
type RelyingParty string

// Usable reports whether passkeys work at rp: its host is a domain name
// (localhost too), not an IP address.
func (rp RelyingParty) Usable() bool {
	_, err := rp.webAuthn()
	return err == nil
}

// webAuthn returns the WebAuthn relying party at rp.
func (rp RelyingParty) webAuthn() (*webauthn.WebAuthn, error) {
	u, err := url.Parse(string(rp))
	if err != nil || u.Hostname() == "" || net.ParseIP(u.Hostname()) != nil {
		return nil, ErrPasskeysUnavailable
	}
	w, err := webauthn.New(&webauthn.Config{
		RPID:                  u.Hostname(),
		RPDisplayName:         "Kanri",
		RPOrigins:             []string{u.Scheme + "://" + u.Host},
		AttestationPreference: protocol.PreferNoAttestation,
		Timeouts: webauthn.TimeoutsConfig{
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: ceremonyTimeout, TimeoutUVD: ceremonyTimeout},
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: ceremonyTimeout, TimeoutUVD: ceremonyTimeout},
		},
	})
	if err != nil {
		return nil, ErrPasskeysUnavailable
	}
	return w, nil
}

// Ceremony is what a passkey ceremony began: the options for the browser
// (navigator.credentials, as JSON) and the id of its state, which the
// caller keeps out of the browser's reach (in the encrypted session).
type Ceremony struct {
	Options []byte
	ID      string
}

// Kinds of ceremonies.
const (
	ceremonyAdd    = "add"
	ceremonySignIn = "signin"
	ceremonyStep   = "step"
)

// webUser is a user as WebAuthn sees them: the user handle is the user's
// id (random, no personal data, at most 64 bytes).
type webUser struct {
	u     *kanri.User
	keys  []*kanri.Passkey
	creds []webauthn.Credential
}

func (w *webUser) WebAuthnID() []byte                         { return []byte(w.u.ID) }
func (w *webUser) WebAuthnName() string                       { return w.u.Username }
func (w *webUser) WebAuthnDisplayName() string                { return w.u.DisplayName }
func (w *webUser) WebAuthnCredentials() []webauthn.Credential { return w.creds }

// passkey returns the passkey of credential id, or nil.
func (w *webUser) passkey(id []byte) *kanri.Passkey {
	want := kanri.PasskeyID(id)
	for _, k := range w.keys {
		if k.ID == want {
			return k
		}
	}
	return nil
}

func passkeys(st *store.Store, tenantID string) *store.Repo[kanri.Passkey, *kanri.Passkey] {
	return store.Of[kanri.Passkey](st.Tenant(tenantID), kanri.ContainerAuth, kanri.TypePasskey)
}

func passkeyLookups(st *store.Store) *store.Repo[kanri.PasskeyLookup, *kanri.PasskeyLookup] {
	return store.Of[kanri.PasskeyLookup](st.Tenant(kanri.SystemTenantID), kanri.ContainerAuth, kanri.TypePasskeyLookup)
}

// Passkeys returns the user's passkeys, oldest first.
func (s *Service) Passkeys(ctx context.Context, tenantID, userID string) ([]*kanri.Passkey, error) {
	return userPasskeys(ctx, s.Store, tenantID, userID)
}

// HasPasskey reports whether the user has a passkey.
func (s *Service) HasPasskey(ctx context.Context, tenantID, userID string) (bool, error) {
	page, _, err := passkeys(s.Store, tenantID).Query(ctx, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("userId", userID)}, OrderBy: "createdAt", Limit: 1,
	})
	return len(page) > 0, err
}

// webUserOf returns the user with their passkeys as credentials.
func (s *Service) webUserOf(ctx context.Context, tenantID, userID string) (*webUser, error) {
	u, err := s.Store.Tenant(tenantID).Users().Get(ctx, userID)
	if err != nil {
		return nil, err
	}
	keys, err := s.Passkeys(ctx, tenantID, userID)
	if err != nil {
		return nil, err
	}
	w := &webUser{u: u, keys: keys}
	for _, k := range keys {
		c, err := credentialOf(k)
		if err != nil {
			s.Logger.Error("passkey unreadable", "tenant", tenantID, "passkey", k.ID, "err", err)
			continue
		}
		w.creds = append(w.creds, c)
	}
	return w, nil
}

// credentialOf returns the WebAuthn credential a passkey stores.
func credentialOf(k *kanri.Passkey) (webauthn.Credential, error) {
	id, err := base64.RawURLEncoding.DecodeString(k.CredentialID)
	if err != nil {
		return webauthn.Credential{}, err
	}
	key, err := base64.RawURLEncoding.DecodeString(k.PublicKey)
	if err != nil {
		return webauthn.Credential{}, err
	}
	aaguid, _ := hex.DecodeString(k.AAGUID)
	c := webauthn.Credential{
		ID: id, PublicKey: key, AttestationType: k.AttestationType,
		Flags:         webauthn.CredentialFlags{UserPresent: true, BackupEligible: k.BackupEligible, BackupState: k.BackupState},
		Authenticator: webauthn.Authenticator{AAGUID: aaguid, SignCount: k.SignCount},
	}
	for _, t := range k.Transports {
		c.Transport = append(c.Transport, protocol.AuthenticatorTransport(t))
	}
	return c, nil
}

func ceremonies(st *store.Store) *store.Repo[kanri.PasskeyCeremony, *kanri.PasskeyCeremony] {
	return store.Of[kanri.PasskeyCeremony](st.Tenant(kanri.SystemTenantID), kanri.ContainerAuth, kanri.TypePasskeyCeremony)
}

// begin keeps the state of a ceremony of kind (of the user userID of
// tenantID, when it has one) and returns it with its options.
func (s *Service) begin(ctx context.Context, kind, tenantID, userID string, options any, state *webauthn.SessionData) (*Ceremony, error) {
	o, err := json.Marshal(options)
	if err != nil {
		return nil, err
	}
	st, err := json.Marshal(state)
	if err != nil {
		return nil, err
	}
	c := &kanri.PasskeyCeremony{
		Doc:  kanri.Doc{ID: "pkc_" + strings.ReplaceAll(uuid.NewString(), "-", "")},
		Kind: kind, KeyTenantID: tenantID, UserID: userID, State: string(st), TTL: kanri.PasskeyCeremonyTTL,
	}
	if err := ceremonies(s.Store).Create(ctx, c); err != nil {
		return nil, err
	}
	return &Ceremony{Options: o, ID: c.ID}, nil
}

// take returns the state of ceremony id, of kind (and of the user userID
// of tenantID, when it has one), and deletes it: a second answer finds
// none. A ceremony not found (never begun, taken already, run out) or of
// another kind or user is errNoCeremony.
func (s *Service) take(ctx context.Context, id, kind, tenantID, userID string) (webauthn.SessionData, error) {
	var st webauthn.SessionData
	if !strings.HasPrefix(id, "pkc_") || docstore.CheckKey(kanri.SystemTenantID, id) != nil {
		return st, errNoCeremony
	}
	c, err := ceremonies(s.Store).Take(ctx, id) // of two answers at once, one has it
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return st, errNoCeremony
	}
	if err != nil {
		return st, err
	}
	if c.Kind != kind || c.KeyTenantID != tenantID || c.UserID != userID || json.Unmarshal([]byte(c.State), &st) != nil || st.Challenge == "" {
		return webauthn.SessionData{}, errNoCeremony
	}
	return st, nil
}

// BeginPasskey begins the registration of a passkey of the user on a
// device: a credential the device keeps (discoverable), with a check of
// who holds it where the device can. The user's current password is
// asked: a passkey signs in without one, so a session left open (or
// stolen) must not be enough to add one.
func (s *Service) BeginPasskey(ctx context.Context, rp RelyingParty, tenantID, userID, password string) (*Ceremony, error) {
	w, err := rp.webAuthn()
	if err != nil {
		return nil, err
	}
	wu, err := s.webUserOf(ctx, tenantID, userID)
	if err != nil {
		return nil, err
	}
	if !s.hasher.Check(wu.u.PasswordHash, password) {
		return nil, kanri.Invalid(kanri.Fields{"current": "validation.current_password"})
	}
	if len(wu.keys) >= kanri.PasskeysMax {
		return nil, kanri.E(kanri.EINVALID, "passkeys.too_many", kanri.PasskeysMax)
	}
	options, state, err := w.BeginRegistration(wu,
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			ResidentKey:        protocol.ResidentKeyRequirementRequired,
			RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification:   protocol.VerificationPreferred,
		}),
		webauthn.WithExclusions(webauthn.Credentials(wu.creds).CredentialDescriptors()),
	)
	if err != nil {
		return nil, err
	}
	return s.begin(ctx, ceremonyAdd, tenantID, userID, options, state)
}

// validPasskeyName returns name trimmed, or the error of the field.
func validPasskeyName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", kanri.Invalid(kanri.Fields{"name": "validation.required"})
	case utf8.RuneCountInString(name) > kanri.PasskeyNameMax:
		return "", kanri.Invalid(kanri.Fields{"name": "validation.too_long"})
	case kanri.HasHidden(name, false):
		return "", kanri.Invalid(kanri.Fields{"name": "validation.hidden_chars"})
	}
	return name, nil
}

// AddPasskey ends the registration begun as ceremony ceremonyID: it
// checks the device's answer (response, the credential as JSON) and keeps
// the passkey under name.
func (s *Service) AddPasskey(ctx context.Context, rp RelyingParty, tenantID, userID, name, ceremonyID string, response []byte) (*kanri.Passkey, error) {
	name, err := validPasskeyName(name)
	if err != nil {
		return nil, err
	}
	w, err := rp.webAuthn()
	if err != nil {
		return nil, err
	}
	st, err := s.take(ctx, ceremonyID, ceremonyAdd, tenantID, userID)
	if err != nil {
		return nil, err
	}
	wu, err := s.webUserOf(ctx, tenantID, userID)
	if err != nil {
		return nil, err
	}
	if len(wu.keys) >= kanri.PasskeysMax {
		return nil, kanri.E(kanri.EINVALID, "passkeys.too_many", kanri.PasskeysMax)
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(response)
	if err != nil {
		return nil, s.refused(err)
	}
	cred, err := w.CreateCredential(wu, st, parsed)
	if err != nil {
		return nil, s.refused(err)
	}
	now := s.Now()
	k := &kanri.Passkey{
		Doc:    kanri.Doc{ID: kanri.PasskeyID(cred.ID)},
		UserID: userID, Name: name,
		CredentialID: base64.RawURLEncoding.EncodeToString(cred.ID), PublicKey: base64.RawURLEncoding.EncodeToString(cred.PublicKey),
		AttestationType: cred.AttestationType, AAGUID: hex.EncodeToString(cred.Authenticator.AAGUID),
		SignCount: cred.Authenticator.SignCount, BackupEligible: cred.Flags.BackupEligible, BackupState: cred.Flags.BackupState,
		CreatedAt: kanri.NewTime(now),
	}
	for _, t := range cred.Transport {
		k.Transports = append(k.Transports, string(t))
	}
	// The lookup first: a passkey without one signs nobody in, a lookup
	// without a passkey leads nowhere.
	l := &kanri.PasskeyLookup{Doc: kanri.Doc{ID: k.ID}, KeyTenantID: tenantID, UserID: userID}
	if err := passkeyLookups(s.Store).Create(ctx, l); err != nil {
		if kanri.IsCode(err, kanri.ECONFLICT) {
			return nil, kanri.Invalid(kanri.Fields{"credential": "passkeys.already_registered"})
		}
		return nil, err
	}
	if err := passkeys(s.Store, tenantID).Create(ctx, k); err != nil {
		s.removeLookup(context.WithoutCancel(ctx), k.ID)
		if kanri.IsCode(err, kanri.ECONFLICT) {
			return nil, kanri.Invalid(kanri.Fields{"credential": "passkeys.already_registered"})
		}
		return nil, err
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "auth.passkey_add",
		Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: wu.u.ID, Name: wu.u.Username},
		Changes:  map[string]kanri.Change{"passkey": {After: name}},
	})
	return k, nil
}

// refused logs why WebAuthn refused a device's answer and returns the
// user's error.
func (s *Service) refused(err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		s.Logger.Info("passkey refused", "type", pe.Type, "details", pe.Details, "info", pe.DevInfo)
	} else {
		s.Logger.Info("passkey refused", "err", err)
	}
	return kanri.Invalid(kanri.Fields{"credential": "passkeys.refused"})
}

func (s *Service) removeLookup(ctx context.Context, id string) {
	if err := passkeyLookups(s.Store).Delete(ctx, id, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
		s.Logger.Warn("passkey lookup not removed; it signs nobody in", "id", id, "err", err)
	}
}

// RemovePasskey removes one of the user's passkeys. by is who removes it:
// the user, or an administrator (audited as such).
func (s *Service) RemovePasskey(ctx context.Context, tenantID, userID, id string) error {
	repo := passkeys(s.Store, tenantID)
	k, err := repo.Get(ctx, id)
	if err != nil {
		return err
	}
	if k.UserID != userID {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	if err := repo.Delete(ctx, k.ID, k.ETag); err != nil {
		return err
	}
	s.removeLookup(ctx, k.ID)
	u, err := s.Store.Tenant(tenantID).Users().Get(ctx, userID)
	res := kanri.AuditResource{Type: kanri.AuditUser, ID: userID}
	if err == nil {
		res.Name = u.Username
	}
	s.Audit.Record(ctx, audit.Entry{
		TenantID: tenantID, Action: "auth.passkey_remove", Resource: res,
		Changes: map[string]kanri.Change{"passkey": {Before: k.Name}},
	})
	return nil
}

// CountPasskeys returns how many passkeys the user has.
func CountPasskeys(ctx context.Context, st *store.Store, tenantID, userID string) (int, error) {
	keys, err := userPasskeys(ctx, st, tenantID, userID)
	return len(keys), err
}

// RemovePasskeys removes every passkey of the user (an administrator's
// reset of their two-factor sign-in, a lost device) and returns how many.
func RemovePasskeys(ctx context.Context, st *store.Store, tenantID, userID string) (int, error) {
	keys, err := userPasskeys(ctx, st, tenantID, userID)
	if err != nil {
		return 0, err
	}
	for i, k := range keys {
		if err := passkeys(st, tenantID).Delete(ctx, k.ID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return i, err
		}
		// A lookup left behind leads to no passkey: it signs nobody in.
		if err := passkeyLookups(st).Delete(ctx, k.ID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return i + 1, err
		}
	}
	return len(keys), nil
}

func userPasskeys(ctx context.Context, st *store.Store, tenantID, userID string) ([]*kanri.Passkey, error) {
	return passkeys(st, tenantID).All(ctx, docstore.Query{
		Where: []docstore.Filter{docstore.Eq("userId", userID)}, OrderBy: "createdAt", Limit: kanri.PasskeysMax,
	})
}

// BeginPasskeySignIn begins a sign-in with a passkey alone: the device
// offers the passkeys it holds for this server, and must check who holds
// it (user verification), which makes the one step two factors.
func (s *Service) BeginPasskeySignIn(ctx context.Context, rp RelyingParty) (*Ceremony, error) {
	w, err := rp.webAuthn()
	if err != nil {
		return nil, err
	}
	options, state, err := w.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, err
	}
	return s.begin(ctx, ceremonySignIn, "", "", options, state)
}

// PasskeySignIn ends a sign-in with a passkey alone: it finds the passkey's
// tenant and user from the credential, checks the device's answer and
// signs the user in under the same rules as a password (an active user, an
// open organisation, no lock). Every outcome is audited.
func (s *Service) PasskeySignIn(ctx context.Context, rp RelyingParty, ceremonyID string, response []byte) (*kanri.User, *kanri.Tenant, error) {
	w, err := rp.webAuthn()
	if err != nil {
		return nil, nil, err
	}
	st, err := s.take(ctx, ceremonyID, ceremonySignIn, "", "")
	if err != nil {
		return nil, nil, err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		s.refused(err)
		return nil, nil, ErrPasskey
	}
	var (
		t  *kanri.Tenant
		wu *webUser
	)
	_, cred, err := w.ValidatePasskeyLogin(func(rawID, handle []byte) (webauthn.User, error) {
		l, err := passkeyLookups(s.Store).Get(ctx, kanri.PasskeyID(rawID))
		if err != nil || l.UserID != string(handle) {
			return nil, ErrPasskey
		}
		if t, err = s.Store.Tenant(l.KeyTenantID).Profile(ctx); err != nil {
			return nil, ErrPasskey
		}
		if wu, err = s.webUserOf(ctx, t.ID, l.UserID); err != nil {
			return nil, ErrPasskey
		}
		return wu, nil
	}, st, parsed)
	if err != nil {
		s.refused(err)
		if wu != nil {
			res := kanri.AuditResource{Type: kanri.AuditUser, ID: wu.u.ID, Name: wu.u.Username}
			s.record(ctx, t.ID, "auth.login_failed", res, kanri.ReasonPasskeyRefused)
		} else {
			s.record(ctx, kanri.PrivilegedTenantID, "auth.login_failed", kanri.AuditResource{Type: kanri.AuditUser}, kanri.ReasonUnknownPasskey)
		}
		return nil, nil, ErrPasskey
	}
	u, err := s.passkeyUsed(ctx, t, wu, cred, true)
	if err != nil {
		return nil, nil, err
	}
	return u, t, nil
}

// passkeyUsed records a passkey's use by a sign-in (signedIn: the whole
// sign-in; else its second step) once WebAuthn accepted it: the user must
// be allowed in as with a password; their failed attempts are cleared.
func (s *Service) passkeyUsed(ctx context.Context, t *kanri.Tenant, wu *webUser, cred *webauthn.Credential, alone bool) (*kanri.User, error) {
	now := s.Now()
	res := kanri.AuditResource{Type: kanri.AuditUser, ID: wu.u.ID, Name: wu.u.Username}
	if cred.Authenticator.CloneWarning {
		// The device's counter did not grow past the one it last sent:
		// another device has a copy of the key.
		s.Logger.Warn("passkey refused: its counter went back, the key may have been copied", "tenant", t.ID, "passkey", kanri.PasskeyID(cred.ID))
		s.record(ctx, t.ID, "auth.login_failed", res, kanri.ReasonPasskeyRefused)
		return nil, ErrPasskey
	}
	if alone {
		if refused, err := s.passwordRefused(ctx, t, wu.u); err != nil {
			return nil, err
		} else if refused {
			return nil, ErrSSORequired
		}
	}
	var why string
	u, err := s.update(ctx, t.ID, wu.u.ID, func(u *kanri.User) bool {
		switch {
		case u.Locked(now):
			why = kanri.ReasonAccountLocked
		case !u.IsActive || !u.DeletedAt.IsZero():
			why = kanri.ReasonUserInactive
		case !t.OpenAt(now):
			why = kanri.ReasonTenantInactive + ":" + t.Status
		default:
			why = ""
			u.Security.FailedLoginAttempts, u.Security.LockedUntil = 0, kanri.Time{}
			u.Security.LastLoginAt = kanri.NewTime(now)
			return true
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	if why != "" {
		s.record(ctx, t.ID, "auth.login_failed", res, why)
		if alone && why == kanri.ReasonTenantInactive+":"+t.Status {
			return nil, kanri.E(kanri.EFORBIDDEN, t.ClosedMessage(now))
		}
		if why == kanri.ReasonAccountLocked {
			until := u.Security.LockedUntil.In(t.Location()).Format("2006-01-02 15:04 MST")
			return nil, kanri.E(kanri.EUNAUTHENTICATED, "login.locked", until)
		}
		return nil, ErrPasskey
	}
	if k := wu.passkey(cred.ID); k != nil {
		if _, err := passkeys(s.Store, t.ID).Modify(ctx, k.ID, nil, func(k *kanri.Passkey) error {
			k.SignCount, k.BackupState, k.LastUsedAt = cred.Authenticator.SignCount, cred.Flags.BackupState, kanri.NewTime(now)
			return nil
		}); err != nil {
			s.Logger.Warn("passkey's use not recorded", "tenant", t.ID, "passkey", k.ID, "err", err)
		}
	}
	ctx = audit.WithActor(ctx, withUser(audit.ActorFrom(ctx), u, t.ID))
	s.record(ctx, t.ID, "auth.login", res, kanri.ReasonPasskey)
	return u, nil
}

// BeginPasskeyStep begins the second step of a sign-in with one of the
// user's passkeys.
func (s *Service) BeginPasskeyStep(ctx context.Context, rp RelyingParty, tenantID, userID string) (*Ceremony, error) {
	w, err := rp.webAuthn()
	if err != nil {
		return nil, err
	}
	wu, err := s.webUserOf(ctx, tenantID, userID)
	if err != nil {
		return nil, err
	}
	if len(wu.creds) == 0 {
		return nil, ErrPasskey
	}
	options, state, err := w.BeginLogin(wu, webauthn.WithUserVerification(protocol.VerificationPreferred))
	if err != nil {
		return nil, err
	}
	return s.begin(ctx, ceremonyStep, tenantID, userID, options, state)
}

// PasskeyStep ends the second step of a sign-in with a passkey of the
// user, whose password was right.
func (s *Service) PasskeyStep(ctx context.Context, rp RelyingParty, tenantID, userID, ceremonyID string, response []byte) (*kanri.User, error) {
	w, err := rp.webAuthn()
	if err != nil {
		return nil, err
	}
	st, err := s.take(ctx, ceremonyID, ceremonyStep, tenantID, userID)
	if err != nil {
		return nil, err
	}
	t, err := s.Store.Tenant(tenantID).Profile(ctx)
	if err != nil {
		return nil, err
	}
	wu, err := s.webUserOf(ctx, tenantID, userID)
	if err != nil {
		return nil, err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err == nil {
		var cred *webauthn.Credential
		if cred, err = w.ValidateLogin(wu, st, parsed); err == nil {
			return s.passkeyUsed(ctx, t, wu, cred, false)
		}
	}
	s.refused(err)
	s.record(ctx, tenantID, "auth.login_failed", kanri.AuditResource{Type: kanri.AuditUser, ID: wu.u.ID, Name: wu.u.Username}, kanri.ReasonPasskeyRefused)
	return nil, ErrPasskey
}

// SecondStep reports whether a sign-in of u in t with a password needs a
// second step: the tenant allows two-factor sign-in and the user has an
// authenticator app or a passkey.
func (s *Service) SecondStep(ctx context.Context, t *kanri.Tenant, u *kanri.User) (bool, error) {
	if !t.TwoFactorAvailable() {
		return false, nil
	}
	if u.Security.TwoFactorEnabled {
		return true, nil
	}
	return s.HasPasskey(ctx, t.ID, u.ID)
}
