package i18n

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestNegotiate(t *testing.T) {
	tests := []struct{ header, want string }{
		{"", English},
		{"ja", Japanese},
		{"ja-JP,ja;q=0.9,en;q=0.8", Japanese},
		{"en-US,en;q=0.9,ja;q=0.8", English},
		{"fr-FR,ja;q=0.5", Japanese},
		{"de", English},
		{"en;q=0.2,ja;q=0.9", Japanese},
	}
	for _, tt := range tests {
		if got := Negotiate(tt.header); got != tt.want {
			t.Errorf("Negotiate(%q): got %q, want %q", tt.header, got, tt.want)
		}
	}
}

func TestEveryMessageHasBothLanguages(t *testing.T) {
	for k, m := range messages {
		if m.en == "" || m.ja == "" {
			t.Errorf("%s: en %q ja %q", k, m.en, m.ja)
		}
	}
}

func TestT(t *testing.T) {
	ctx := WithLang(context.Background(), "ja")
	if got, want := T(ctx, "users.created", "alice"), "ユーザー alice を作成しました。"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := T(context.Background(), "users.created", "alice"), "User alice was created."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := T(ctx, "no.such.key"); got != "no.such.key" {
		t.Errorf("unknown key: got %q", got)
	}
}

// keyPattern finds the message keys that Go code hands to people: the keys
// of domain errors, field errors and translations.
var keyPattern = regexp.MustCompile(`(?:kanri\.E\(kanri\.E[A-Z]+, |Wrap\(kanri\.E[A-Z]+, |\bT\(ctx, |i18n\.T\([a-zA-Z.()]+, |: )"([a-z_]+\.[a-z_.]+)"`)

// TestEveryKeyInTheCodeIsInTheCatalog reads the application's Go code and
// fails for a message key that the catalog lacks, so that no page shows a
// raw key.
func TestEveryKeyInTheCodeIsInTheCatalog(t *testing.T) {
	root := filepath.Join("..", "..")
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range keyPattern.FindAllSubmatch(b, -1) {
			key := string(m[1])
			if isMessageKey(key) && !Has(key) {
				t.Errorf("%s: message key %q is not in the catalog", path, key)
			}
			found++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 100 {
		t.Errorf("found only %d message keys in the code: is the pattern still right?", found)
	}
}

// isMessageKey tells message keys from other dotted strings (actions such
// as "user.create", permissions such as "users.read").
func isMessageKey(key string) bool {
	if strings.HasSuffix(key, "_") || strings.HasSuffix(key, ".") {
		return false // the prefix of keys made at run time, e.g. "status." + s
	}
	for _, prefix := range []string{"error.", "validation.", "login.", "stale.", "users.", "tenants.", "roles.", "audit.", "account.", "common.", "nav.", "status.", "app.", "services.", "health.", "usage.", "config.", "domains.", "apikeys.", "api.", "apidocs."} {
		if strings.HasPrefix(key, prefix) {
			return !slices.Contains([]string{"users.read", "users.create", "users.update", "users.delete", "tenants.read", "tenants.create", "tenants.update", "tenants.delete", "roles.read", "roles.update", "audit.read", "services.read", "services.update", "services.manage", "domains.read", "domains.create", "domains.update", "domains.delete", "apikeys.read", "apikeys.create", "apikeys.update", "apikeys.delete"}, key)
		}
	}
	return false
}
