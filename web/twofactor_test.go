package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
)

var (
	// secretShown is the key for manual entry, in groups of four
	// (<span>ABCD</span>…) whose text is the key itself.
	secretShown   = regexp.MustCompile(`data-testid="twofactor-secret">((?:<span>[A-Z2-7]{1,4}</span>)+)</code>`)
	secretGroup   = regexp.MustCompile(`<span>([A-Z2-7]{1,4})</span>`)
	recoveryShown = regexp.MustCompile(`data-testid="recovery-code">([a-z2-7]{5}-[a-z2-7]{5})<`)
)

// codeAt is the TOTP code of secret at t.
func codeAt(t *testing.T, secret string, at time.Time) string {
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// enrol sets up the client's two-factor sign-in through the pages and
// returns the secret shown and the recovery codes.
func (e *env) enrol(t *testing.T, c *client) (string, []string) {
	t.Helper()
	c.get("/account/2fa")
	resp, _ := c.post("/account/2fa/setup", nil)
	wantStatus(t, "set up", resp, http.StatusSeeOther)
	_, page := c.get("/account/2fa")
	m := secretShown.FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, `data-testid="twofactor-qr"`) || !strings.Contains(page, "data:image/png;base64,") {
		t.Fatalf("the enrolment page shows no QR code or secret: %s", excerpt(page, "twofactor"))
	}
	var secret string
	for _, g := range secretGroup.FindAllStringSubmatch(m[1], -1) {
		secret += g[1]
	}
	resp, _ = c.post("/account/2fa/confirm", url.Values{"code": {"000000"}})
	wantStatus(t, "a wrong first code", resp, http.StatusUnprocessableEntity)
	resp, page = c.post("/account/2fa/confirm", url.Values{"code": {codeAt(t, secret, e.clock.Now())}})
	wantStatus(t, "confirm", resp, http.StatusOK)
	var codes []string
	for _, m := range recoveryShown.FindAllStringSubmatch(page, -1) {
		codes = append(codes, m[1])
	}
	if len(codes) != 10 {
		t.Fatalf("%d recovery codes shown, want 10", len(codes))
	}
	_, page = c.get("/account/2fa")
	if strings.Contains(page, `data-testid="twofactor-secret"`) || strings.Contains(page, codes[0]) {
		t.Error("the secret or a recovery code is shown again")
	}
	return secret, codes
}

// signInStep posts the password and returns where it leads.
func (c *client) signInStep(tenantName, username, pass string) string {
	c.get("/login")
	resp, _ := c.post("/login", url.Values{"tenant": {tenantName}, "username": {username}, "password": {pass}})
	return resp.Header.Get("Location")
}

// TestTwoFactorPageHelpsToKeepTheKeys: the key for manual entry shows in
// groups of four, with a Copy button that copies it whole; the recovery
// codes, right after enrolment, have a Download link (a text file of the
// codes, one a line, named for the account) and a Copy button that copies
// them one a line.
func TestTwoFactorPageHelpsToKeepTheKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.client(t).signIn("acme", "bob")
	bob.get("/account/2fa")
	bob.post("/account/2fa/setup", nil)
	_, page := bob.get("/account/2fa")
	m := secretShown.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the key is not shown in groups: %s", excerpt(page, "twofactor-secret"))
	}
	var groups []string
	for _, g := range secretGroup.FindAllStringSubmatch(m[1], -1) {
		groups = append(groups, g[1])
	}
	for i, g := range groups {
		if len(g) != 4 && i < len(groups)-1 {
			t.Errorf("group %d of the key: got %q, want four characters", i, g)
		}
	}
	if got, want := len(groups), 2; got < want {
		t.Errorf("the key is in %d groups, want at least %d", got, want)
	}
	if !strings.Contains(page, `data-copy="#twofactor-secret"`) || !strings.Contains(page, `id="twofactor-secret"`) {
		t.Error("the key has no Copy button")
	}
	secret := strings.Join(groups, "")
	resp, page := bob.post("/account/2fa/confirm", url.Values{"code": {codeAt(t, secret, e.clock.Now())}})
	wantStatus(t, "confirm", resp, http.StatusOK)
	var codes []string
	for _, m := range recoveryShown.FindAllStringSubmatch(page, -1) {
		codes = append(codes, m[1])
	}
	href := regexp.MustCompile(`href="(data:text/plain;charset=utf-8,[^"]*)" download="[^"]+\.txt" data-testid="recovery-download"`).FindStringSubmatch(page)
	if href == nil {
		t.Fatalf("no Download link of the codes: %s", excerpt(page, "recovery-download"))
	}
	file, err := url.PathUnescape(strings.TrimPrefix(html.UnescapeString(href[1]), "data:text/plain;charset=utf-8,"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := file, "bob@acme"; !strings.Contains(got, want) {
		t.Errorf("the file does not name the account: got %q, want %q in it", got, want)
	}
	if got, want := file, strings.Join(codes, "\r\n")+"\r\n"; !strings.HasSuffix(got, want) {
		t.Errorf("the file's codes: got %q, want it to end with %q", got, want)
	}
	copyText := regexp.MustCompile(`data-copy="#recovery-codes" data-copy-text="([^"]*)"`).FindStringSubmatch(page)
	if copyText == nil {
		t.Fatalf("no Copy button of the codes: %s", excerpt(page, "recovery-copy"))
	}
	if got, want := html.UnescapeString(copyText[1]), strings.Join(codes, "\n"); got != want {
		t.Errorf("Copy copies %q, want %q", got, want)
	}
	_, page = bob.get("/account/2fa")
	if strings.Contains(page, `data-testid="recovery-download"`) || strings.Contains(page, codes[0]) {
		t.Error("the codes can be downloaded again")
	}
}

// TestEnforcedTwoFactorCannotBeTurnedOff: where the tenant requires two
// factors of a user, their page says so in place of the form that turns
// it off; others have the form.
func TestEnforcedTwoFactorCannotBeTurnedOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin, bob := e.client(t).signIn("acme", "admin"), e.client(t).signIn("acme", "bob")
	e.enrol(t, admin)
	e.enrol(t, bob)
	for _, tt := range []struct {
		level                      string
		adminEnforced, bobEnforced bool
	}{
		{kanri.TwoFactorOff, false, false},
		{kanri.TwoFactorAdmins, true, false},
		{kanri.TwoFactorEveryone, true, true},
	} {
		e.requireTwoFactor(t, e.acme.ID, tt.level)
		for _, who := range []struct {
			name     string
			c        *client
			enforced bool
		}{{"admin", admin, tt.adminEnforced}, {"bob", bob, tt.bobEnforced}} {
			_, page := who.c.get("/account/2fa")
			gotForm, gotSays := strings.Contains(page, `data-testid="twofactor-disable-form"`), strings.Contains(page, `data-testid="twofactor-enforced"`)
			if gotForm != !who.enforced || gotSays != who.enforced {
				t.Errorf("%s, %s: the form shown %v, the requirement said %v; want %v, %v", tt.level, who.name, gotForm, gotSays, !who.enforced, who.enforced)
			}
		}
	}
	resp, page := bob.post("/account/2fa/disable", url.Values{"password": {password}, "code": {"000000"}})
	wantStatus(t, "turning off while required", resp, http.StatusConflict)
	if got, want := strings.Count(page, html.EscapeString(i18n.T(context.Background(), "twofactor.cannot_disable"))), 1; got != want {
		t.Errorf("the refusal says why %d times, want %d", got, want)
	}
}

// TestTwoFactorSignIn: bob enrols, and then signs in with the password
// and a code; the code's second use, a wrong code and a late one are
// refused; a recovery code works once.
func TestTwoFactorSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.client(t).signIn("acme", "bob")
	secret, codes := e.enrol(t, bob)
	_, page := bob.get("/account")
	if !strings.Contains(page, `data-testid="account-twofactor"`) {
		t.Error("the account page does not show two-factor sign-in")
	}

	c := e.client(t)
	if got := c.signInStep("acme", "bob", password); got != "/login/2fa" {
		t.Fatalf("the password leads to %q, want the second step", got)
	}
	if !signedOut(c) {
		t.Fatal("the password alone signed in")
	}
	_, page = c.get("/login/2fa")
	if !strings.Contains(page, `data-testid="second-factor-form"`) {
		t.Fatal("no second-step form")
	}
	resp, _ := c.post("/login/2fa", url.Values{"code": {"123456"}})
	wantStatus(t, "a wrong code", resp, http.StatusUnauthorized)
	e.clock.Advance(30 * time.Second)
	code := codeAt(t, secret, e.clock.Now())
	resp, _ = c.post("/login/2fa", url.Values{"code": {code}})
	wantStatus(t, "the right code", resp, http.StatusSeeOther)
	if signedOut(c) {
		t.Fatal("the right code did not sign in")
	}
	// The same code again, in another browser: refused.
	d := e.client(t)
	d.signInStep("acme", "bob", password)
	resp, _ = d.post("/login/2fa", url.Values{"code": {code}})
	wantStatus(t, "a code used once", resp, http.StatusUnauthorized)
	// A recovery code, once.
	resp, _ = d.post("/login/2fa", url.Values{"code": {strings.ToUpper(codes[2])}})
	wantStatus(t, "a recovery code", resp, http.StatusSeeOther)
	r := e.client(t)
	r.signInStep("acme", "bob", password)
	resp, _ = r.post("/login/2fa", url.Values{"code": {codes[2]}})
	wantStatus(t, "a recovery code used twice", resp, http.StatusUnauthorized)
	// The second step times out.
	l := e.client(t)
	l.signInStep("acme", "bob", password)
	e.clock.Advance(6 * time.Minute)
	resp, _ = l.post("/login/2fa", url.Values{"code": {codeAt(t, secret, e.clock.Now())}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" || !signedOut(l) {
		t.Errorf("a second step after 6 minutes: %d to %q, want back to sign-in", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestEnforcedTwoFactorLeadsToEnrolment: with two factors required of
// everyone, bob's first sign-in leads to enrolment, and every other page
// sends him back there until he has enrolled.
func TestEnforcedTwoFactorLeadsToEnrolment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.requireTwoFactor(t, e.acme.ID, kanri.TwoFactorEveryone)
	c := e.client(t)
	if got := c.signInStep("acme", "bob", password); got != "/account/2fa" {
		t.Fatalf("sign-in leads to %q, want the enrolment", got)
	}
	for _, path := range []string{"/account", "/t/" + e.acme.ID + "/users", "/"} {
		resp, _ := c.get(path)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/account/2fa" {
			t.Errorf("GET %s before enrolment: %d to %q, want the enrolment", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	_, page := c.get("/account/2fa")
	if !strings.Contains(page, `data-testid="twofactor-required"`) {
		t.Error("the enrolment page does not say it is required")
	}
	e.enrol(t, c)
	if resp, _ := c.get("/account"); resp.StatusCode != http.StatusOK {
		t.Errorf("after enrolment the account page answers %d", resp.StatusCode)
	}
	// Required, it cannot be turned off.
	c.get("/account/2fa")
	resp, _ := c.post("/account/2fa/disable", url.Values{"password": {password}, "code": {"000000"}})
	wantStatus(t, "disable while required", resp, http.StatusConflict)
}

// TestEnforcementReachesOpenSessions: a rule switched on while people are
// signed in holds on their next request (the administrator who switched
// it on included), not only at their next sign-in; switched off again, it
// lets them go.
func TestEnforcementReachesOpenSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.client(t).signIn("acme", "bob")
	admin := e.client(t).signIn("acme", "admin")
	e.requireTwoFactor(t, e.acme.ID, kanri.TwoFactorEveryone)
	for who, c := range map[string]*client{"bob": bob, "the admin": admin} {
		resp, _ := c.get("/account")
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/account/2fa" {
			t.Errorf("%s's open session after the rule: %d to %q, want the enrolment", who, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	e.requireTwoFactor(t, e.acme.ID, kanri.TwoFactorOff)
	if resp, _ := bob.get("/account"); resp.StatusCode != http.StatusOK {
		t.Errorf("bob after the rule is off: %d, want the account page", resp.StatusCode)
	}
}

// TestAdministratorsOnlyEnforcement: with two factors required of
// administrators, the admin is led to enrolment and bob is not.
func TestAdministratorsOnlyEnforcement(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.requireTwoFactor(t, e.acme.ID, kanri.TwoFactorAdmins)
	if got := e.client(t).signInStep("acme", "admin", password); got != "/account/2fa" {
		t.Errorf("the admin's sign-in leads to %q, want the enrolment", got)
	}
	if got := e.client(t).signInStep("acme", "bob", password); got == "/account/2fa" || got == "/login/2fa" {
		t.Errorf("bob's sign-in leads to %q, want his start page", got)
	}
}

// TestAnAdministratorResetsTwoFactor: the admin resets bob's two-factor
// sign-in (a lost phone): bob is signed out, signs in with the password
// alone, and the reset is audited.
func TestAnAdministratorResetsTwoFactor(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.client(t).signIn("acme", "bob")
	e.enrol(t, bob)
	admin := e.client(t).signIn("acme", "admin")
	page := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID
	_, body := admin.get(page + "/edit")
	if !strings.Contains(body, `data-testid="user-reset-twofactor"`) {
		t.Fatal("bob's page offers no reset")
	}
	e.clock.Advance(time.Second)
	resp, _ := admin.post(page+"/2fa/reset", url.Values{"etag": {formETag(body)}})
	wantStatus(t, "reset", resp, http.StatusSeeOther)
	if !signedOut(bob) {
		t.Error("the reset did not sign bob out")
	}
	if got := e.client(t).signInStep("acme", "bob", password); got == "/login/2fa" {
		t.Error("bob still needs a code after the reset")
	}
	_, audit := admin.get("/t/" + e.acme.ID + "/audit")
	if !strings.Contains(html.UnescapeString(audit), "user.2fa_reset") {
		t.Error("the reset is not audited")
	}
}

// requireTwoFactor sets a tenant's two-factor enforcement.
func (e *env) requireTwoFactor(t *testing.T, tenantID, level string) {
	t.Helper()
	if _, err := e.st.Tenant(tenantID).Tenants().Modify(context.Background(), tenantID, nil, func(ten *kanri.Tenant) error {
		ten.Settings.Features.TwoFactorEnforcement = level
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
