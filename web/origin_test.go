package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/apikey"
	"github.com/kanri/kanri/web"
)

// TestServerAddress checks the address the server gives itself in the
// OpenAPI document (servers[0].url), in problems' types and in the next
// page's Link, and which scheme its cookies are marked for and which
// client address it logs: the request's own Host with forwarded headers
// ignored by default, the configured public address when there is one,
// and forwarded headers believed only from a trusted proxy.
func TestServerAddress(t *testing.T) {
	t.Parallel()
	// Every request comes from 127.0.0.1, as if through a proxy that says
	// its client used https://kanri.example.jp from 203.0.113.7.
	forwarded := []string{"X-Forwarded-Proto", "https", "X-Forwarded-Host", "kanri.example.jp", "X-Forwarded-For", "203.0.113.7"}
	for _, tc := range []struct {
		name      string
		publicURL string
		proxies   []netip.Prefix
		wantBase  string
		wantVary  string // the document's; "" for none
		secure    bool   // the session cookie's Secure flag
		wantIP    string // the client's address in the usage log
	}{
		{"no configuration: the request's host, no forwarded header believed", "", nil,
			"http://internal:8080", "Host", false, "127.0.0.1"},
		{"a public address", "https://api.acme.example/", nil,
			"https://api.acme.example", "", true, "127.0.0.1"},
		{"a trusted proxy", "", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
			"https://kanri.example.jp", "Host, X-Forwarded-Proto, X-Forwarded-Host", true, "203.0.113.7"},
		{"proxies that the connection is none of", "", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")},
			"http://internal:8080", "Host, X-Forwarded-Proto, X-Forwarded-Host", false, "127.0.0.1"},
		{"a public address and a trusted proxy: the address wins", "https://api.acme.example", []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
			"https://api.acme.example", "", true, "203.0.113.7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			_, secret := e.apiKey(t, e.acme.ID, "read")
			cfg := e.config
			cfg.PublicURL, cfg.TrustedProxies = tc.publicURL, tc.proxies
			srv := httptest.NewServer(web.New(cfg))
			defer srv.Close()
			get := func(path string, headers ...string) (*http.Response, []byte) {
				t.Helper()
				req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Host = "internal:8080"
				headers = append(headers, forwarded...)
				for i := 0; i+1 < len(headers); i += 2 {
					req.Header.Set(headers[i], headers[i+1])
				}
				resp, err := srv.Client().Transport.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp, b
			}

			resp, body := get("/api/v1/openapi.json")
			var doc struct{ Servers []struct{ URL string } }
			if err := json.Unmarshal(body, &doc); err != nil || len(doc.Servers) == 0 {
				t.Fatalf("the document: %v %.200s", err, body)
			}
			if got, want := doc.Servers[0].URL, tc.wantBase+"/api/v1"; got != want {
				t.Errorf("servers[0].url: got %q, want %q", got, want)
			}
			if got := resp.Header.Get("Vary"); got != tc.wantVary {
				t.Errorf("the document's Vary: got %q, want %q", got, tc.wantVary)
			}

			_, body = get("/api/v1/users")
			var p struct{ Type string }
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatal(err)
			}
			if got, want := p.Type, tc.wantBase+"/api/v1/docs#problem-unauthenticated"; got != want {
				t.Errorf("a problem's type: got %q, want %q", got, want)
			}

			resp, _ = get("/api/v1/users?limit=1", "Authorization", "Bearer "+secret)
			if got, want := resp.Header.Get("Link"), "<"+tc.wantBase+"/api/v1/users?"; !strings.HasPrefix(got, want) {
				t.Errorf("the next page's Link: got %q, want it to start with %q", got, want)
			}

			resp, _ = get("/login")
			cookies := resp.Cookies()
			if len(cookies) == 0 {
				t.Fatal("the sign-in page sets no cookie")
			}
			for _, ck := range cookies {
				if ck.Secure != tc.secure {
					t.Errorf("cookie %s: Secure %v, want %v", ck.Name, ck.Secure, tc.secure)
				}
			}
			if got := resp.Header.Get("Strict-Transport-Security") != ""; got != tc.secure {
				t.Errorf("Strict-Transport-Security sent: %v, want %v", got, tc.secure)
			}

			stop, done := context.WithCancel(context.Background())
			done()
			if err := e.usage.Run(stop); err != nil {
				t.Fatal(err)
			}
			calls, _, err := e.keys.Calls(context.Background(), e.acme.ID, apikey.CallFilter{})
			if err != nil || len(calls) == 0 {
				t.Fatalf("logged calls: %v, %v", calls, err)
			}
			for _, c := range calls {
				if c.ClientIP != tc.wantIP {
					t.Errorf("the usage log's client address: got %q, want %q", c.ClientIP, tc.wantIP)
				}
			}
		})
	}
}
