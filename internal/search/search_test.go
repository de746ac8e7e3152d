package search

import (
	"slices"
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		texts []string
		want  []string
	}{
		{[]string{"alice", "Alice.Smith@Example.co.jp", "Alice Smith"}, []string{"alice", "co", "example", "jp", "smith"}},
		{[]string{"山田太郎"}, []string{"太郎", "山田太郎", "田太郎", "郎"}},
		{[]string{"Tanaka田中"}, []string{"tanaka", "中", "田中"}},
		{[]string{"ＡＢＣ１２３"}, []string{"abc123"}},
		{[]string{"ｶﾀｶﾅ", "カタカナ"}, []string{"かたかな", "かな", "たかな", "な"}},
		{[]string{"", "!!", "  "}, nil},
		{[]string{"o'brien-smith"}, []string{"brien", "o", "smith"}},
	}
	for _, tt := range tests {
		if got := Terms(tt.texts...); !slices.Equal(got, tt.want) {
			t.Errorf("Terms(%q): got %q, want %q", tt.texts, got, tt.want)
		}
	}
}

// TestQueryMatchesTerms checks the promise of the package: a search
// matches when each of its words starts one of the terms.
func TestQueryMatchesTerms(t *testing.T) {
	terms := Terms("tanaka.hanako", "hanako@example.com", "田中 花子 (タナカ)")
	tests := []struct {
		q    string
		want bool
	}{
		{"tana", true},
		{"TANAKA", true},
		{"ｔａｎａｋａ", true},
		{"hanako example", true},
		{"hanako@example.com", true},
		{"ako", false},
		{"花子", true},
		{"子", true},
		{"田中花子", false}, // two runs in the text: 田中 and 花子
		{"たなか", true},
		{"ﾀﾅｶ", true},
		{"smith", false},
		{"", false},
	}
	for _, tt := range tests {
		ws := Query(tt.q)
		got := len(ws) > 0
		for _, w := range ws {
			got = got && slices.ContainsFunc(terms, func(term string) bool { return strings.HasPrefix(term, w) })
		}
		if got != tt.want {
			t.Errorf("%q in %q: got %t, want %t", tt.q, terms, got, tt.want)
		}
	}
}

func TestLongTextsAreBounded(t *testing.T) {
	var ja []rune
	for i := range 80 {
		ja = append(ja, '一'+rune(i)) // 80 distinct kanji
	}
	terms := Terms(string(ja) + " " + strings.Repeat("x", 300))
	if got, want := len(terms), maxSuffixes+1; got != want {
		t.Errorf("got %d terms, want %d", got, want)
	}
	for _, term := range terms {
		if len(term) > maxTermBytes {
			t.Errorf("term of %d bytes", len(term))
		}
	}
	if q := Query(strings.Repeat("x", 300)); len(q[0]) != maxTermBytes {
		t.Errorf("query word of %d bytes, want %d", len(q[0]), maxTermBytes)
	}
}
