package i18n

import (
	"context"
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
