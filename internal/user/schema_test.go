package user_test

import (
	"testing"

	"github.com/kanri/kanri/internal/user"
)

func TestUserProfileUpgrade(t *testing.T) {
	for _, c := range []struct {
		doc         map[string]any
		first, last string
	}{
		{map[string]any{"displayName": "Hanako Yamada"}, "Hanako", "Yamada"},
		{map[string]any{"displayName": "山田花子"}, "", ""},
		{map[string]any{"displayName": "Jean Paul Sartre"}, "", ""},
		{map[string]any{}, "", ""},
	} {
		if err := user.ProfileBlock(c.doc); err != nil {
			t.Fatal(err)
		}
		p := c.doc["profile"].(map[string]any)
		if p["firstName"] != c.first || p["lastName"] != c.last || p["phoneNumber"] != "" {
			t.Errorf("profile of %v = %v, want %q %q", c.doc["displayName"], p, c.first, c.last)
		}
	}
	kept := map[string]any{"profile": map[string]any{"firstName": "Kept"}}
	user.ProfileBlock(kept)
	if kept["profile"].(map[string]any)["firstName"] != "Kept" {
		t.Error("the upgrade replaced a profile that was there")
	}
}
