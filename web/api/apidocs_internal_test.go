package api

import (
	"testing"
)

// TestTagSlugs checks the addresses of the reference's tag pages: a
// tag's name in lower case, other characters a hyphen.
func TestTagSlugs(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"Users": "users", "API keys": "api-keys", " Files & folders ": "files-folders", "Me2": "me2", "Ünïcode": "n-code",
	} {
		if got := TagSlug(name); got != want {
			t.Errorf("tagSlug(%q) = %q, want %q", name, got, want)
		}
	}
}
