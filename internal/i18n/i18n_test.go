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
	"testing/fstest"
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

// TestCatalogLoads checks the embedded catalog: every file reads, no key is
// in two files, and every key has a text in both languages.
func TestCatalogLoads(t *testing.T) {
	c, err := load(catalogFiles)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(c), len(catalog); got != want || got == 0 {
		t.Errorf("got %d keys, want %d (and more than none)", got, want)
	}
	for k, m := range c {
		if m.en == "" || m.ja == "" {
			t.Errorf("%s: en %q ja %q", k, m.en, m.ja)
		}
	}
}

// TestLoadRejects checks that load refuses a catalog a translator broke.
func TestLoadRejects(t *testing.T) {
	good := `{"a.b": "text"}`
	tests := []struct {
		name  string
		files map[string]string
		want  string // in the error; "" for none
	}{
		{"good", map[string]string{"en/x.json": good, "ja/x.json": good}, ""},
		{"key in two files", map[string]string{"en/x.json": good, "en/y.json": good, "ja/x.json": good}, `key "a.b" is also in`},
		{"key in English only", map[string]string{"en/x.json": `{"a.b": "t", "a.c": "t"}`, "ja/x.json": good}, `key "a.c" has no ja text`},
		{"key in Japanese only", map[string]string{"en/x.json": good, "ja/x.json": `{"a.b": "t", "a.c": "t"}`}, `key "a.c" has no en text`},
		{"empty text", map[string]string{"en/x.json": `{"a.b": ""}`, "ja/x.json": good}, `key "a.b" has no text`},
		{"not an object of strings", map[string]string{"en/x.json": `{"a.b": 1}`, "ja/x.json": good}, "en/x.json"},
		{"no files of a language", map[string]string{"en/x.json": good}, `no catalog files for "ja"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, text := range tt.files {
				fsys["catalog/"+name] = &fstest.MapFile{Data: []byte(text)}
			}
			_, err := load(fsys)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %v, want an error with %q", err, tt.want)
			}
		})
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
