package user_test

import (
	"testing"

	"github.com/kanri/kanri/internal/kanri"
)

func TestPatch(t *testing.T) {
	f := setup(t)
	ten := f.tenant(t, "acme", 10)
	text := func(s string) *string { return &s }
	anyVersion := func(string) (string, error) { return "", nil }
	tests := []struct {
		name      string
		req       kanri.UserModificationRequest
		race      bool // another write comes between the read and the change
		named     bool // the caller names the version it read
		wantEmail string
		wantName  string
		wantCode  string
	}{
		{"display name only", kanri.UserModificationRequest{DisplayName: text("Robert")}, false, false, "bob@acme.test", "Robert", ""},
		{"e-mail only", kanri.UserModificationRequest{Email: text("rob@acme.test")}, false, false, "rob@acme.test", "Bob", ""},
		{"both", kanri.UserModificationRequest{Email: text("rob@acme.test"), DisplayName: text("Rob")}, false, false, "rob@acme.test", "Rob", ""},
		{"nothing", kanri.UserModificationRequest{}, false, false, "bob@acme.test", "Bob", ""},
		{"a lost race is made again on the newer version", kanri.UserModificationRequest{DisplayName: text("Robert")}, true, false, "other@acme.test", "Robert", ""},
		{"a named version that changed is stale", kanri.UserModificationRequest{DisplayName: text("Robert")}, true, true, "other@acme.test", "Bob", kanri.ESTALE},
		{"invalid input", kanri.UserModificationRequest{Email: text("nope")}, false, false, "bob@acme.test", "Bob", kanri.EINVALID},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := f.users.Create(f.ctx, ten.ID, kanri.UserInput{Username: "bob" + string(rune('a'+i)), Email: "bob@acme.test", DisplayName: "Bob", Password: "Correct-horse-9"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.users.Delete(f.ctx, ten.ID, u.ID, kanri.Seen{}) })
			match, raced := anyVersion, false
			if tt.race {
				match = func(etag string) (string, error) {
					if !raced { // once, after the first read
						raced = true
						if _, err := f.users.Update(f.ctx, ten.ID, u.ID, "", nil, kanri.UserInput{Email: "other@acme.test", DisplayName: "Bob"}); err != nil {
							t.Fatal(err)
						}
					}
					if tt.named {
						return etag, nil
					}
					return "", nil
				}
			}
			_, err = f.users.Patch(f.ctx, ten.ID, u.ID, tt.req, match)
			if got := kanri.ErrorCode(err); got != tt.wantCode {
				t.Fatalf("error: got %v, want code %q", err, tt.wantCode)
			}
			got, err := f.users.Get(f.ctx, ten.ID, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Email != tt.wantEmail || got.DisplayName != tt.wantName {
				t.Errorf("got %q %q, want %q %q", got.Email, got.DisplayName, tt.wantEmail, tt.wantName)
			}
		})
	}
}
