// Package i18n translates the console's messages into Japanese and English.
// The language travels in the request context; views call T.
package i18n

import (
	"context"
	"fmt"
	"strings"
)

// Supported languages.
const (
	Japanese = "ja"
	English  = "en"
)

type langKey struct{}

// WithLang returns a context whose messages are in lang.
func WithLang(ctx context.Context, lang string) context.Context {
	return context.WithValue(ctx, langKey{}, Normalize(lang))
}

// Lang returns the language of ctx, English by default.
func Lang(ctx context.Context) string {
	if l, ok := ctx.Value(langKey{}).(string); ok {
		return l
	}
	return English
}

// Normalize returns lang if supported, else English.
func Normalize(lang string) string {
	if lang == Japanese {
		return Japanese
	}
	return English
}

// Negotiate picks a language from an Accept-Language header: the first
// supported one in the client's order of preference.
func Negotiate(header string) string {
	best, bestQ := English, -1.0
	for i, part := range strings.Split(header, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			fmt.Sscanf(v, "%g", &q)
		}
		q -= float64(i) * 1e-6 // earlier wins a tie
		base, _, _ := strings.Cut(strings.ToLower(tag), "-")
		if (base == Japanese || base == English) && q > bestQ {
			best, bestQ = base, q
		}
	}
	return best
}

// T returns the message for key in the language of ctx, formatted with
// args. An unknown key is returned as is, which tests catch.
func T(ctx context.Context, key string, args ...any) string {
	return Translate(Lang(ctx), key, args...)
}

// Translate returns the message for key in lang. A count of one (the
// first argument, an integer) takes the key's singular, key+".one", where
// the catalog has one ("1 member", not "1 members").
func Translate(lang, key string, args ...any) string {
	if len(args) > 0 && isOne(args[0]) {
		if _, ok := catalog[key+".one"]; ok {
			key += ".one"
		}
	}
	m, ok := catalog[key]
	if !ok {
		return key
	}
	s := m.en
	if lang == Japanese && m.ja != "" {
		s = m.ja
	}
	if len(args) > 0 {
		return fmt.Sprintf(s, args...)
	}
	return s
}

// Has reports whether key is in the catalog.
func Has(key string) bool { _, ok := catalog[key]; return ok }

// isOne reports whether v is the integer 1.
func isOne(v any) bool {
	switch n := v.(type) {
	case int:
		return n == 1
	case int64:
		return n == 1
	}
	return false
}
