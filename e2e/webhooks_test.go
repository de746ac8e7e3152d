//go:build e2e

package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

const webhooksPath = "/t/" + tenantID + "/webhooks"

// webhookSteps: alice registers an endpoint (a receiver this test runs on
// loopback, which the server is started to allow), copies its secret,
// sends it a test event, sees the delivery in the log and deletes the
// endpoint; the receiver verifies the signature with the Standard
// Webhooks library.
func (s *suite) webhookSteps(t *testing.T) {
	s.step(t, "webhook_test_event", []string{"tenant_admin_sees_only_own_tenant"}, s.pagesOf(&s.alice), func(t *testing.T) {
		var mu sync.Mutex
		var got []*http.Request
		var bodies [][]byte
		rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			got, bodies = append(got, r), append(bodies, b)
			mu.Unlock()
			io.WriteString(w, "received")
		}))
		defer rcv.Close()

		s.open(t, s.alice, webhooksPath, 200)
		s.visible(t, s.alice, "webhooks-none")
		s.click(t, s.alice, "webhook-add")
		s.fill(t, s.alice, "webhook-url", rcv.URL+"/kanri")
		s.fill(t, s.alice, "webhook-events", "user.*")
		s.submitStatus(t, s.alice, s.alice.tid("webhook-submit"), webhooksPath, 422)
		s.visible(t, s.alice, "field-error-events")
		// Users' events, which no step makes meanwhile: the receiver gets
		// the test event alone.
		s.fill(t, s.alice, "webhook-events", "user.")
		s.fill(t, s.alice, "webhook-description", "SIEM")
		s.submitStatus(t, s.alice, s.alice.tid("webhook-submit"), webhooksPath, 303)
		secret, err := s.alice.tid("webhook-secret").TextContent()
		if err != nil || !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("the secret: %q, %v", secret, err)
		}
		endpoint := strings.TrimSuffix(strings.TrimPrefix(s.alice.page.URL(), s.srv.URL), "/secret")
		s.click(t, s.alice, "webhook-done")
		s.visible(t, s.alice, "deliveries-none")
		s.hasText(t, s.alice, "webhook-state", "Enabled")

		s.submitStatus(t, s.alice, s.alice.tid("webhook-test"), endpoint+"/test", 303)
		s.containsText(t, s.alice, "flash", "webhook.test delivered: the endpoint answered 200")
		row := s.alice.tid("delivery-row").First()
		s.hasAttr(t, s.alice, row, "delivery", "data-event", "webhook.test")
		s.hasAttr(t, s.alice, row, "delivery", "data-ok", "true")
		s.screenshot(t, s.alice.page, "desktop-webhook.png")

		// Deleted, after a confirmation, so that no later step's events
		// go to the receiver this step closes.
		s.submitStatus(t, s.alice, s.alice.tid("webhook-delete"), endpoint+"/delete", 303)
		s.containsText(t, s.alice, "flash", "deleted")
		s.visible(t, s.alice, "webhooks-none")

		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(got) != 1 {
			t.Fatalf("the receiver got %d messages, want 1", len(got))
		}
		if err := wh.Verify(bodies[0], got[0].Header); err != nil {
			t.Errorf("the test event does not verify: %v", err)
		}
		if !strings.Contains(string(bodies[0]), `"type":"webhook.test"`) {
			t.Errorf("the test event: %s", bodies[0])
		}
	})
}
