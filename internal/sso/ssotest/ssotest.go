// Package ssotest runs an OpenID Connect provider for tests: the
// authorization code flow with PKCE, discovery and a key set, which signs
// users in without asking (the test says who) and can be told to answer
// wrongly (another audience, an expired token, another nonce, a new key,
// an unverified e-mail) or not at all.
package ssotest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Provider is a running test provider.
type Provider struct {
	// URL is its issuer.
	URL                    string
	ClientID, ClientSecret string

	srv *httptest.Server

	mu    sync.Mutex
	key   *rsa.PrivateKey
	kid   string
	user  User
	fault Fault
	codes map[string]grant
	infos map[string]map[string]any // the UserInfo answers, by access token
	down  bool
	now   func() time.Time
}

// User is who the provider signs in.
type User struct {
	Subject, Email, Name string
	// EmailVerified is the email_verified claim (left out when nil).
	EmailVerified any
}

// Fault is how the provider's next ID tokens are wrong.
type Fault struct {
	// Audience replaces the client's id as the audience.
	Audience string
	// Expired issues tokens that ran out an hour ago.
	Expired bool
	// Nonce replaces the sign-in's nonce.
	Nonce string
	// UnknownKey signs with a key the key set does not publish.
	UnknownKey bool
	// ClaimsAtUserInfo leaves the e-mail and name out of the ID token:
	// the UserInfo endpoint gives them, for the subject Subject (the
	// token's own unless set).
	ClaimsAtUserInfo bool
	Subject          string
}

type grant struct {
	nonce, challenge, redirect string
}

// Start runs a provider until the test ends; its clock is now (time.Now
// when nil).
func Start(t interface{ Cleanup(func()) }, now func() time.Time) *Provider {
	if now == nil {
		now = time.Now
	}
	p := &Provider{ClientID: "kanri-test", ClientSecret: "s3cret-of-the-client", codes: map[string]grant{}, infos: map[string]map[string]any{}, now: now}
	p.RotateKey()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /keys", p.keys)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("GET /userinfo", p.userinfo)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	p.URL = p.srv.URL
	t.Cleanup(p.srv.Close)
	return p
}

// SignIn sets who the provider signs in next.
func (p *Provider) SignIn(u User) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.user = u
}

// Misbehave sets how the next ID tokens are wrong (the zero Fault: not).
func (p *Provider) Misbehave(f Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault = f
}

// Down makes the provider answer every request with 503 (or not).
func (p *Provider) Down(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
}

// RotateKey replaces the signing key: the key set publishes only the new
// one.
func (p *Provider) RotateKey() {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.key, p.kid = k, random()
}

func random() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func (p *Provider) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{
		"issuer": p.URL, "authorization_endpoint": p.URL + "/authorize", "token_endpoint": p.URL + "/token",
		"jwks_uri": p.URL + "/keys", "userinfo_endpoint": p.URL + "/userinfo", "response_types_supported": []string{"code"},
		"subject_types_supported": []string{"public"}, "id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported": []string{"S256"},
	})
}

func (p *Provider) keys(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	k := jose.JSONWebKey{Key: &p.key.PublicKey, KeyID: p.kid, Algorithm: "RS256", Use: "sig"}
	p.mu.Unlock()
	writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{k}})
}

// authorize signs the user in at once and sends the browser back with a
// code, as a provider does after its own sign-in page.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case q.Get("client_id") != p.ClientID:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case err != nil || redirect.Host == "":
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "the code flow with PKCE (S256) only", http.StatusBadRequest)
		return
	}
	code := random()
	p.mu.Lock()
	p.codes[code] = grant{nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), redirect: redirect.String()}
	p.mu.Unlock()
	back := redirect.Query()
	back.Set("code", code)
	back.Set("state", q.Get("state"))
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// Code runs the authorization step of authURL (a Begin's answer) and
// returns the code and state it sends back, as a browser following the
// redirect would deliver them.
func (p *Provider) Code(authURL string) (code, state string, err error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(authURL)
	if err != nil {
		return "", "", err
	}
	res.Body.Close()
	loc, err := res.Location()
	if err != nil {
		return "", "", err
	}
	return loc.Query().Get("code"), loc.Query().Get("state"), nil
}

func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	if id, _ = url.QueryUnescape(id); secret != "" {
		secret, _ = url.QueryUnescape(secret)
	}
	fail := func(code string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": code})
	}
	if id != p.ClientID || secret != p.ClientSecret {
		fail("invalid_client")
		return
	}
	p.mu.Lock()
	g, ok := p.codes[r.PostFormValue("code")]
	delete(p.codes, r.PostFormValue("code"))
	user, fault, key, kid := p.user, p.fault, p.key, p.kid
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
	if !ok || r.PostFormValue("grant_type") != "authorization_code" || r.PostFormValue("redirect_uri") != g.redirect ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
		fail("invalid_grant")
		return
	}
	if fault.UnknownKey {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		key, kid = k, random()
	}
	now := p.now()
	if fault.Expired {
		now = now.Add(-2 * time.Hour)
	}
	aud, nonce := p.ClientID, g.nonce
	if fault.Audience != "" {
		aud = fault.Audience
	}
	if fault.Nonce != "" {
		nonce = fault.Nonce
	}
	claims := map[string]any{
		"iss": p.URL, "sub": user.Subject, "aud": aud, "nonce": nonce,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "email": user.Email, "name": user.Name,
	}
	if user.EmailVerified != nil {
		claims["email_verified"] = user.EmailVerified
	}
	access := random()
	if fault.ClaimsAtUserInfo {
		info := map[string]any{"sub": user.Subject}
		for _, k := range []string{"email", "email_verified", "name"} {
			if v, ok := claims[k]; ok {
				info[k] = v
				delete(claims, k)
			}
		}
		if fault.Subject != "" {
			info["sub"] = fault.Subject
		}
		p.mu.Lock()
		p.infos[access] = info
		p.mu.Unlock()
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		panic(err)
	}
	raw, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		panic(err)
	}
	writeJSON(w, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600, "id_token": raw})
}

// userinfo answers with the claims the ID token of the access token left
// out.
func (p *Provider) userinfo(w http.ResponseWriter, r *http.Request) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	info, found := p.infos[token]
	p.mu.Unlock()
	if !ok || !found {
		http.Error(w, "invalid_token", http.StatusUnauthorized)
		return
	}
	writeJSON(w, info)
}
