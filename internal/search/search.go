// Package search defines what a search box of the console matches: the
// beginning of any word of the searched fields. Documents keep their words
// as search terms in an array that the store indexes element by element,
// so that a rare word is found through the index, not by reading every
// document.
//
// Words are the runs of letters and digits of the text, folded for
// comparison: lower case, full-width Latin letters and digits as ASCII,
// half-width katakana as full-width, and katakana as hiragana. Japanese is
// written without spaces between words, so a run of Japanese script (kanji,
// hiragana, katakana) contributes every one of its suffixes as a term: a
// search finds any part of it (「太郎」 finds 山田太郎). A run of Latin
// letters and digits is one word: "smi" finds "Smith" but "ith" does not.
// A search of several words finds what has them all, each at the start of
// some word.
package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/kanri/kanri/internal/docstore"
)

// maxSuffixes bounds the suffixes a Japanese run contributes: searches
// find any part that starts within its first maxSuffixes characters.
const maxSuffixes = 24

// maxTermBytes bounds a term's length: what is longer is cut (a search
// longer than that is matched on its beginning by the index and in full
// by the filter that checks each match).
const maxTermBytes = 64

// Terms returns the sorted, distinct search terms of texts.
func Terms(texts ...string) []string {
	var out []string
	for _, t := range texts {
		for _, w := range words(t) {
			if isJapanese(firstRune(w)) {
				for i, n := 0, 0; i < len(w) && n < maxSuffixes; n++ {
					out = append(out, cut(w[i:]))
					_, size := utf8.DecodeRuneInString(w[i:])
					i += size
				}
				continue
			}
			out = append(out, cut(w))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Field is the document field that keeps the search terms.
const Field = "searchTerms"

// Filters returns the store filters of a search box: each word of q must
// begin one of the document's terms. A search without a letter or digit
// matches nothing; an empty one everything.
func Filters(q string) []docstore.Filter {
	if strings.TrimSpace(q) == "" {
		return nil
	}
	words := Query(q)
	if len(words) == 0 {
		return []docstore.Filter{docstore.ArrayContains(Field, "")}
	}
	out := make([]docstore.Filter, len(words))
	for i, w := range words {
		out[i] = docstore.ArrayPrefix(Field, w)
	}
	return out
}

// Query returns the words of a search, each of which a match must have
// at the start of one of its terms; nil when the search has no letter or
// digit.
func Query(q string) []string {
	ws := words(q)
	for i, w := range ws {
		ws[i] = cut(w)
	}
	return ws
}

// words splits folded text into runs of letters and digits, splitting
// also where the script changes between Japanese and anything else.
func words(s string) []string {
	s = fold(s)
	var out []string
	start, prevJa := -1, false
	for i, r := range s {
		wordy := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || r == 'ー'
		ja := isJapanese(r)
		switch {
		case !wordy:
			if start >= 0 {
				out = append(out, s[start:i])
			}
			start = -1
		case start < 0:
			start, prevJa = i, ja
		case ja != prevJa:
			out = append(out, s[start:i])
			start, prevJa = i, ja
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// fold makes text comparable: width-folded (full-width ASCII to ASCII,
// half-width katakana to full-width), lower case, katakana as hiragana.
func fold(s string) string {
	s = strings.ToLower(width.Fold.String(s))
	return strings.Map(func(r rune) rune {
		if 'ァ' <= r && r <= 'ヶ' {
			return r - ('ァ' - 'ぁ')
		}
		return r
	}, s)
}

// isJapanese reports whether r is kanji, hiragana or katakana.
func isJapanese(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー' || r == '々'
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

// cut shortens s to at most maxTermBytes, at a rune boundary.
func cut(s string) string {
	if len(s) <= maxTermBytes {
		return s
	}
	i := maxTermBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
