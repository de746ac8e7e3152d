package web_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/descope/virtualwebauthn"
	"github.com/kanri/kanri/internal/auth/passkeytest"

	"github.com/kanri/kanri/internal/kanri"
)

// device is a passkey authenticator (a phone, a laptop's fingerprint
// reader) with the passkeys it made, answering as the browser would.
type device struct {
	auth  virtualwebauthn.Authenticator
	rp    virtualwebauthn.RelyingParty
	creds []virtualwebauthn.Credential
}

// newDevice returns a device of user userID for the client c's address.
func newDevice(c *client, userID string) *device {
	return &device{
		auth: virtualwebauthn.NewAuthenticatorWithOptions(virtualwebauthn.AuthenticatorOptions{UserHandle: []byte(userID)}),
		rp:   virtualwebauthn.RelyingParty{ID: "localhost", Name: "Kanri", Origin: c.base},
	}
}

// options asks path for a ceremony's options, as passkeys.js does: a
// post of the form's fields with the CSRF token, answered with JSON.
func (c *client) options(path string, form url.Values) (int, string) {
	c.t.Helper()
	resp, body := c.post(path, form)
	if resp.StatusCode == http.StatusOK && !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		c.t.Errorf("%s answered %s, want JSON", path, resp.Header.Get("Content-Type"))
	}
	return resp.StatusCode, body
}

// addPasskey registers a passkey of d named name from the account page
// and returns the answer to the form's post.
func (c *client) addPasskey(d *device, name string) (*http.Response, string) {
	c.t.Helper()
	status, opts := c.options("/account/passkeys/options", url.Values{"name": {name}, "current": {password}})
	if status != http.StatusOK {
		c.t.Fatalf("the options of a new passkey: %d %s", status, opts)
	}
	parsed, err := virtualwebauthn.ParseAttestationOptions(opts)
	if err != nil {
		c.t.Fatal(err)
	}
	cred := passkeytest.NewCredential()
	answer := virtualwebauthn.CreateAttestationResponse(d.rp, d.auth, cred, *parsed)
	resp, body := c.post("/account/passkeys", url.Values{"name": {name}, "credential": {answer}})
	if resp.StatusCode == http.StatusSeeOther {
		d.auth.AddCredential(cred)
		d.creds = append(d.creds, cred)
	}
	return resp, body
}

// assertion answers the request options got from optionsPath with d's
// first passkey.
func (c *client) assertion(d *device, optionsPath string) string {
	c.t.Helper()
	status, opts := c.options(optionsPath, nil)
	if status != http.StatusOK {
		c.t.Fatalf("%s: %d %s", optionsPath, status, opts)
	}
	parsed, err := virtualwebauthn.ParseAssertionOptions(opts)
	if err != nil {
		c.t.Fatal(err)
	}
	answer := virtualwebauthn.CreateAssertionResponse(d.rp, d.auth, d.creds[0], *parsed)
	d.creds[0].Counter++
	return answer
}

var passkeyRow = regexp.MustCompile(`data-testid="passkey-name">([^<]*)<`)

// TestPasskeyAddedOnTheAccountPageSignsInAlone: a user adds a passkey on
// their account page, which lists it; then, in another browser, the
// sign-in page's passkey button signs them in with no password and no
// second step. Both are audited; an answer is used once.
func TestPasskeyAddedOnTheAccountPageSignsInAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.localClient(t).signIn("acme", "bob")
	_, page := bob.get("/account")
	if !strings.Contains(page, `data-testid="passkeys-none"`) || !strings.Contains(page, `data-testid="passkey-add-form"`) {
		t.Fatalf("the account page offers no passkey: %s", excerpt(page, "passkeys"))
	}
	d := newDevice(bob, e.acmeBob.ID)
	resp, _ := bob.addPasskey(d, "Work laptop")
	wantStatus(t, "adding a passkey", resp, http.StatusSeeOther)
	page = bob.landing(resp)
	if m := passkeyRow.FindStringSubmatch(page); m == nil || m[1] != "Work laptop" {
		t.Errorf("the account page does not list the passkey: %s", excerpt(page, "passkeys"))
	}
	if !strings.Contains(page, "Work laptop added") {
		t.Errorf("no flash says the passkey was added: %s", excerpt(page, "flash"))
	}

	// Another browser: no organisation, no name, no password.
	other := e.localClient(t)
	_, login := other.get("/login")
	if !strings.Contains(login, `data-testid="passkey-signin-form"`) {
		t.Fatalf("the sign-in page offers no passkey: %s", excerpt(login, "passkey"))
	}
	answer := other.assertion(d, "/login/passkey/options")
	base, _ := url.Parse(other.base)
	captured, token := other.http.Jar.Cookies(base), other.csrf // what the answer goes with
	resp, _ = other.post("/login/passkey", url.Values{"credential": {answer}})
	wantStatus(t, "signing in with the passkey", resp, http.StatusSeeOther)
	if loc := resp.Header.Get("Location"); strings.HasPrefix(loc, "/login") {
		t.Fatalf("the passkey sign-in led to %s", loc)
	}
	resp, _ = other.get("/account")
	wantStatus(t, "the account page after a passkey sign-in", resp, http.StatusOK)
	// The same request again, cookie and all (a proxy's log, say): its
	// challenge was taken.
	again := e.localClient(t)
	again.http.Jar.SetCookies(base, captured)
	again.csrf = token
	resp, body := again.post("/login/passkey", url.Values{"credential": {answer}})
	if resp.StatusCode == http.StatusSeeOther || !strings.Contains(body, `data-testid="login-error"`) {
		t.Errorf("a replayed answer: %d, want the sign-in page with an error", resp.StatusCode)
	}

	admin := e.client(t).signIn("acme", "admin")
	_, log := admin.get("/t/" + e.acme.ID + "/audit")
	for _, want := range []string{"auth.passkey_add", "Signed in with a passkey"} {
		if !strings.Contains(html.UnescapeString(log), want) {
			t.Errorf("the audit log has no %q", want)
		}
	}
}

// TestPasskeyFormSaysWhatIsWrongAndKeepsTheName: a name refused keeps
// the input and adds nothing; an answer without a ceremony (or after it
// ran out) says to try again; a removal asks the owner's own passkey.
func TestPasskeyFormSaysWhatIsWrongAndKeepsTheName(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.localClient(t).signIn("acme", "bob")
	d := newDevice(bob, e.acmeBob.ID)
	if status, body := bob.options("/account/passkeys/options", url.Values{"name": {"Laptop"}, "current": {"not-my-password"}}); status != http.StatusUnprocessableEntity || !strings.Contains(body, "current password") {
		t.Errorf("options with a wrong password: %d %s, want 422 saying so", status, body)
	}
	long := strings.Repeat("x", kanri.PasskeyNameMax+1)
	resp, page := bob.addPasskey(d, long)
	wantStatus(t, "a name too long", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(page, `data-testid="field-error-name"`) || !strings.Contains(page, `value="`+long+`"`) {
		t.Errorf("the error of the name, or the name typed, is not shown: %s", excerpt(page, "passkey-name-input"))
	}
	if !strings.Contains(page, `data-testid="passkeys-none"`) {
		t.Error("a refused passkey was kept")
	}
	resp, page = bob.post("/account/passkeys", url.Values{"name": {"Laptop"}, "credential": {"{}"}})
	wantStatus(t, "an answer to no ceremony", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(page, `data-testid="field-error-credential"`) || !strings.Contains(page, `value="Laptop"`) {
		t.Errorf("no error of the passkey, or the name lost: %s", excerpt(page, "passkey-add-form"))
	}

	// Gus, of another organisation, cannot remove bob's passkey, nor learn
	// that it exists; bob can.
	if resp, _ := bob.addPasskey(d, "Laptop"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("adding: %d", resp.StatusCode)
	}
	keys, err := e.signIns.Passkeys(t.Context(), e.acme.ID, e.acmeBob.ID)
	if err != nil || len(keys) != 1 {
		t.Fatalf("bob's passkeys: %v, %v", keys, err)
	}
	gus := e.localClient(t).signIn("globex", "gus")
	resp, _ = gus.post("/account/passkeys/"+keys[0].ID+"/remove", nil)
	wantStatus(t, "another organisation's user removing bob's passkey", resp, http.StatusNotFound)
	admin := e.localClient(t).signIn("acme", "admin")
	resp, _ = admin.post("/account/passkeys/"+keys[0].ID+"/remove", nil)
	wantStatus(t, "bob's administrator removing it as their own", resp, http.StatusNotFound)
	if keys, _ := e.signIns.Passkeys(t.Context(), e.acme.ID, e.acmeBob.ID); len(keys) != 1 {
		t.Fatal("someone else removed bob's passkey")
	}
	resp, _ = bob.post("/account/passkeys/"+keys[0].ID+"/remove", nil)
	wantStatus(t, "bob removing his passkey", resp, http.StatusSeeOther)
	if keys, _ := e.signIns.Passkeys(t.Context(), e.acme.ID, e.acmeBob.ID); len(keys) != 0 {
		t.Error("the passkey is still there")
	}
}

// TestPasskeyIsTheSecondStep: with a passkey, a password sign-in goes on
// to a second step that offers the passkey (and no code, without an
// app); the passkey ends it.
func TestPasskeyIsTheSecondStep(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.localClient(t).signIn("acme", "bob")
	d := newDevice(bob, e.acmeBob.ID)
	if resp, _ := bob.addPasskey(d, "Phone"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("adding: %d", resp.StatusCode)
	}
	c := e.localClient(t)
	if loc := c.signInStep("acme", "bob", password); loc != "/login/2fa" {
		t.Fatalf("the password led to %q, want the second step", loc)
	}
	_, page := c.get("/login/2fa")
	if !strings.Contains(page, `data-testid="passkey-step-form"`) || strings.Contains(page, `data-testid="second-factor-code"`) {
		t.Fatalf("the second step does not offer the passkey alone: %s", excerpt(page, "panel"))
	}
	// A made-up answer is refused, with the step shown again.
	resp, page := c.post("/login/2fa/passkey", url.Values{"credential": {`{"id":"x"}`}})
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, `data-testid="passkey-step-form"`) {
		t.Errorf("a made-up answer: %d, want the step again with an error", resp.StatusCode)
	}
	answer := c.assertion(d, "/login/2fa/passkey/options")
	resp, _ = c.post("/login/2fa/passkey", url.Values{"credential": {answer}})
	wantStatus(t, "the passkey step", resp, http.StatusSeeOther)
	resp, _ = c.get("/account")
	wantStatus(t, "the account page after the passkey step", resp, http.StatusOK)
}

// TestPasskeyEndsAnEnrolment: an organisation that requires two factors
// keeps a user without any on the two-factor page, which offers a
// passkey too; adding one lets them go on.
func TestPasskeyEndsAnEnrolment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.requireTwoFactor(t, e.acme.ID, kanri.TwoFactorEveryone)
	bob := e.localClient(t).signIn("acme", "bob")
	resp, _ := bob.get("/t/" + e.acme.ID + "/users")
	if loc := resp.Header.Get("Location"); loc != "/account/2fa" {
		t.Fatalf("a user who must enrol went to %q", loc)
	}
	_, page := bob.get("/account/2fa")
	if !strings.Contains(page, `data-testid="passkey-add-form"`) {
		t.Fatalf("the two-factor page offers no passkey: %s", excerpt(page, "passkeys"))
	}
	d := newDevice(bob, e.acmeBob.ID)
	resp, _ = bob.addPasskey(d, "Phone")
	wantStatus(t, "adding a passkey while enrolling", resp, http.StatusSeeOther)
	resp, _ = bob.get("/account")
	wantStatus(t, "the account page once enrolled with a passkey", resp, http.StatusOK)
}

// TestNoPasskeysAtAnIPAddress: a server reached at an IP address cannot be
// a passkey's site: the pages say so or offer none, and the options are a
// clear refusal, never a failure.
func TestNoPasskeysAtAnIPAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.client(t).signIn("acme", "bob")
	_, page := bob.get("/account")
	if !strings.Contains(page, `data-testid="passkeys-unavailable"`) || strings.Contains(page, `data-testid="passkey-add-form"`) {
		t.Errorf("the account page at an IP address: %s", excerpt(page, "passkeys"))
	}
	if status, _ := bob.options("/account/passkeys/options", url.Values{"current": {password}}); status != http.StatusUnprocessableEntity {
		t.Errorf("the options of a new passkey at an IP address: %d, want 422", status)
	}
	other := e.client(t)
	_, login := other.get("/login")
	if strings.Contains(login, "passkey-signin-form") {
		t.Error("the sign-in page at an IP address offers a passkey")
	}
	if status, _ := other.options("/login/passkey/options", nil); status != http.StatusUnprocessableEntity {
		t.Errorf("the options of a passkey sign-in at an IP address: %d, want 422", status)
	}
	// Without the CSRF token, nothing begins.
	resp, _ := other.post("/login/passkey/options", url.Values{"_csrf": {"forged"}})
	wantStatus(t, "options without the CSRF token", resp, http.StatusForbidden)
}
