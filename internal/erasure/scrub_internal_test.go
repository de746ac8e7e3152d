package erasure

import (
	"testing"

	"github.com/kanri/kanri/internal/kanri"
)

// TestScrubFindsThePersonHoweverWritten: names in any case, e-mails, and
// the phone number in its national and international forms are replaced;
// short names and other numbers are not.
func TestScrubFindsThePersonHoweverWritten(t *testing.T) {
	u := &kanri.User{Username: "alice.liddell", Email: "alice@acme.example", DisplayName: "Alice Liddell",
		Profile: kanri.UserProfile{FirstName: "Al", LastName: "Liddell", PhoneNumber: "+819012345678"}}
	ids := identifiers(u)
	for _, c := range []struct{ in, want string }{
		{"mail ALICE@acme.example now", "mail X now"},
		{"Call +81-90-1234-5678.", "Call X."},
		{"call 090 1234 5678 or 03-1111-2222", "call X or 03-1111-2222"},
		{"ask alice liddell", "ask X"},
		{"Al went home", "Al went home"},
		{"the liddell file", "the X file"},
	} {
		if got := scrub(c.in, ids, "X"); got != c.want {
			t.Errorf("scrub(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if p := phonePattern("+8190"); p != nil {
		t.Errorf("a short number gave the pattern %v", p)
	}
}
