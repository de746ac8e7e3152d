package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/cosmos/cosmostest"
)

// browser is a client of one instance with its own cookies.
type browser struct {
	t    *testing.T
	http *http.Client
	base string
}

func newBrowser(t *testing.T, addr string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: "http://" + addr, http: &http.Client{Jar: jar, Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// at returns a browser of another instance holding this one's cookies, as
// a load balancer sends the same browser to any instance.
func (b *browser) at(addr string) *browser {
	c := *b.http
	return &browser{t: b.t, base: "http://" + addr, http: &c}
}

func (b *browser) get(path string) (int, string) {
	resp, err := b.http.Get(b.base + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func (b *browser) post(path, page string, form url.Values) int {
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		b.t.Fatalf("no CSRF token on the page before POST %s", path)
	}
	form.Set("_csrf", m[1])
	resp, err := b.http.PostForm(b.base+path, form)
	if err != nil {
		b.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func (b *browser) signIn(password string) {
	_, login := b.get("/login")
	if status := b.post("/login", login, url.Values{"tenant": {"privileged"}, "username": {"admin@example.com"}, "password": {password}}); status != http.StatusSeeOther {
		b.t.Fatalf("sign-in answered %d", status)
	}
}

// TestAnEndedSessionStopsOnEveryInstance runs two instances on one Cosmos
// database with one session secret. The same browser is served by both;
// its session, ended from another browser on the other instance, stops
// working at its next request on both, while the other browser's goes on.
func TestAnEndedSessionStopsOnEveryInstance(t *testing.T) {
	cs := cosmostest.Start(t)
	ctx, cancel := context.WithCancel(t.Context())
	const password = "Two-instances-pass-1"
	ready, done := make(chan string, 2), make(chan error, 2)
	for range 2 {
		go func() {
			done <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-store", "cosmos",
				"-cosmos-endpoint", cs.Endpoint, "-cosmos-key", cs.Key(), "-cosmos-database", "sessions",
				"-cosmos-insecure-skip-verify=true", "-session-secret", strings.Repeat("cd", 32),
				"-bootstrap-admin-password", password}, lowCost...), env(nil), io.Discard, io.Discard, ready)
		}()
	}
	var addrs []string
	for range 2 {
		select {
		case a := <-ready:
			addrs = append(addrs, a)
		case err := <-done:
			t.Fatalf("an instance exited: %v", err)
		case <-time.After(hangTimeout):
			t.Fatal("an instance did not start")
		}
	}
	defer func() {
		cancel()
		for range 2 {
			<-done
		}
	}()
	phone := newBrowser(t, addrs[0])
	phone.signIn(password)
	laptop := newBrowser(t, addrs[1])
	laptop.signIn(password)
	for _, b := range []*browser{phone, phone.at(addrs[1]), laptop, laptop.at(addrs[0])} {
		if status, _ := b.get("/account"); status != http.StatusOK {
			t.Fatalf("a signed-in browser gets %d from %s", status, b.base)
		}
	}
	// The laptop, on instance B, ends the phone's session.
	_, page := laptop.get("/account")
	ends := regexp.MustCompile(`action="(/account/sessions/session_[0-9a-f]+/end)"`).FindAllStringSubmatch(page, -1)
	if len(ends) != 1 {
		t.Fatalf("the laptop sees %d other sessions, want 1", len(ends))
	}
	if status := laptop.post(ends[0][1], page, url.Values{}); status != http.StatusSeeOther {
		t.Fatalf("ending the phone's session answered %d", status)
	}
	for _, b := range []*browser{phone, phone.at(addrs[1])} {
		status, _ := b.get("/account")
		if status != http.StatusSeeOther {
			t.Errorf("the ended session still gets %d from %s", status, b.base)
		}
	}
	for _, b := range []*browser{laptop, laptop.at(addrs[0])} {
		if status, _ := b.get("/account"); status != http.StatusOK {
			t.Errorf("the laptop's session gets %d from %s after ending the phone's", status, b.base)
		}
	}
}
