//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// corsSteps are the steps of browser access to the API: a page of another
// origin cannot read the API's answers until acme's administrator lists
// that origin, and then can.
func (s *suite) corsSteps(t *testing.T) {
	s.step(t, "browser_reads_the_api_only_from_a_listed_origin", []string{"api_key_created_used_and_revoked"}, s.pagesOf(&s.alice), func(t *testing.T) {
		// A second origin: a page served by another server on this machine.
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><html lang=en><title>App</title><h1>App</h1></html>")
		}))
		defer other.Close()
		origin := other.URL
		s.open(t, s.alice, keysPath, 200)
		s.click(t, s.alice, "apikeys-new")
		s.fill(t, s.alice, "apikey-name", "browser app")
		s.submitStatus(t, s.alice, s.alice.tid("apikey-submit"), keysPath, 303)
		secret, err := s.alice.tid("apikey-secret").TextContent()
		if err != nil || !strings.HasPrefix(secret, "ak_live_") {
			t.Fatalf("the secret shown: %q, %v", secret, err)
		}

		app := s.newPage(t, s.alice)
		defer app.Close()
		if _, err := app.Goto(origin + "/app"); err != nil {
			t.Fatalf("opening the other origin's page: %v", err)
		}
		call := func() string {
			t.Helper()
			got, err := app.Evaluate(`async ([url, key]) => {
				try {
					const r = await fetch(url, {headers: {Authorization: "Bearer " + key}});
					const me = await r.json();
					return r.status + " " + me.tenant.name + (r.headers.get("ETag") ? " with its ETag" : "");
				} catch (e) { return "blocked: " + e.message; }
			}`, []string{s.url("/api/v1/me"), secret})
			if err != nil {
				t.Fatalf("calling the API from %s: %v", origin, err)
			}
			return got.(string)
		}
		if got := call(); !strings.HasPrefix(got, "blocked") {
			t.Errorf("before %s is listed, its page reads the API: %q", origin, got)
		}

		s.open(t, s.alice, keysPath, 200)
		s.click(t, s.alice, "apikeys-cors")
		s.atPath(t, s.alice, keysPath+"/cors")
		s.visible(t, s.alice, "cors-none")
		s.fill(t, s.alice, "cors-input", origin+"/path")
		s.submitStatus(t, s.alice, s.alice.tid("cors-submit"), keysPath+"/cors", 422)
		s.visible(t, s.alice, "field-error-origins")
		s.hasValue(t, s.alice, "cors-input", origin+"/path")
		s.fill(t, s.alice, "cors-input", origin)
		s.submitStatus(t, s.alice, s.alice.tid("cors-submit"), keysPath+"/cors", 303)
		s.containsText(t, s.alice, "flash", "saved")
		s.hasText(t, s.alice, "cors-origin", origin)

		if got, want := call(), "200 "+tenantName+" with its ETag"; got != want {
			t.Errorf("after %s is listed, its page gets %q, want %q", origin, got, want)
		}
	})
}
