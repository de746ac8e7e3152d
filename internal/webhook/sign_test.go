package webhook_test

import (
	"net/http"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kanri/kanri/internal/webhook"
)

// The Standard Webhooks project's own Go library verifies what Kanri
// signs: an implementation independent of Kanri's.
func TestSignaturesVerifyWithTheReferenceLibrary(t *testing.T) {
	current, previous := webhook.NewSecret(), webhook.NewSecret()
	body := []byte(`{"type":"user.created","data":{"id":"u1"}}`)
	at := time.Now()
	h := http.Header{}
	webhook.SetHeaders(h, "msg_2Kq", at, body, current, previous)

	for _, tc := range []struct {
		name   string
		secret webhook.Secret
		body   []byte
		ok     bool
	}{
		{"the current secret", current, body, true},
		{"the previous secret, in its overlap", previous, body, true},
		{"another secret", webhook.NewSecret(), body, false},
		{"a changed body", current, []byte(`{"type":"user.created","data":{"id":"u2"}}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wh, err := standardwebhooks.NewWebhook(tc.secret.String())
			if err != nil {
				t.Fatal(err)
			}
			if err := wh.Verify(tc.body, h); (err == nil) != tc.ok {
				t.Errorf("verified: %v, want ok %v", err, tc.ok)
			}
		})
	}

	// The library signs alike.
	wh, _ := standardwebhooks.NewWebhook(current.String())
	want, err := wh.Sign("msg_2Kq", at, body)
	if err != nil {
		t.Fatal(err)
	}
	if got := current.Sign("msg_2Kq", at, body); got != want {
		t.Errorf("signature: got %s, want %s", got, want)
	}
}

func TestSecretsReadBack(t *testing.T) {
	s := webhook.NewSecret()
	got, err := webhook.ParseSecret(s.String())
	if err != nil || string(got) != string(s) {
		t.Fatalf("ParseSecret(String()) = %v, %v", got, err)
	}
	for _, bad := range []string{"", "whsec_", "abc", "whsec_!!!", "whsec_c2hvcnQ=", s.String()[len("whsec_"):]} {
		if _, err := webhook.ParseSecret(bad); err == nil {
			t.Errorf("ParseSecret(%q) took it", bad)
		}
	}
}
