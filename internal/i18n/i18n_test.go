package i18n

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
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

// TestEnglishHasNoJapanese keeps Japanese out of the English texts (the
// API's errors said "全体管理者 can be granted only…"): only the name of
// the Japanese language itself is written in Japanese.
func TestEnglishHasNoJapanese(t *testing.T) {
	allowed := map[string]bool{"lang.ja": true}
	for key, m := range catalog {
		if allowed[key] {
			continue
		}
		for _, r := range m.en {
			if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
				t.Errorf("%s: the English text %q holds Japanese", key, m.en)
				break
			}
		}
	}
}

// TestPlurals: a count of one takes the key's singular where it has one.
func TestPlurals(t *testing.T) {
	for _, c := range []struct {
		n    any
		want string
	}{{1, "1 member"}, {2, "2 members"}, {0, "0 members"}, {int64(1), "1 member"}} {
		if got := Translate(English, "channels.member_count", c.n); got != c.want {
			t.Errorf("member_count(%v): got %q, want %q", c.n, got, c.want)
		}
	}
}

// TestJapaneseTerms keeps one Japanese word per concept: the settings page
// said 2 段階認証 where the account pages said 二要素認証 for the same
// two-factor authentication.
func TestJapaneseTerms(t *testing.T) {
	tests := []struct {
		term     string
		variants []string
	}{
		{"二要素認証", []string{"段階認証", "2要素認証", "２要素認証", "多要素認証", "二段階"}},
		{"チャネル", []string{"チャンネル"}},
	}
	for _, tt := range tests {
		for key, m := range catalog {
			for _, v := range tt.variants {
				if strings.Contains(m.ja, v) {
					t.Errorf("%s: got %q in %q, want %q", key, v, m.ja, tt.term)
				}
			}
		}
	}
}

// TestVisitingVariants: a message's variant for an operator visiting a
// tenant (key + ".visiting", which names the tenant) has its message for
// the tenant's own users, and does not say "your organisation" itself.
func TestVisitingVariants(t *testing.T) {
	n := 0
	for key, m := range catalog {
		base, ok := strings.CutSuffix(key, ".visiting")
		if !ok {
			continue
		}
		n++
		if !Has(base) {
			t.Errorf("%s: no message %s for the tenant's own users", key, base)
		}
		if strings.Contains(strings.ToLower(m.en), "your organisation") {
			t.Errorf("%s: got %q, want the tenant named", key, m.en)
		}
		if !strings.Contains(m.en, "%") || !strings.Contains(m.ja, "%") {
			t.Errorf("%s: en %q, ja %q: want the tenant's name in both", key, m.en, m.ja)
		}
	}
	if n == 0 {
		t.Error("no .visiting variants")
	}
}
