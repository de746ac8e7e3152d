package views

import "strings"

// docSpan is a run of a description of the OpenAPI document: text, or
// (code) what the description writes between backticks.
type docSpan struct {
	text string
	code bool
}

// docSpans splits a description into its runs: `users.read` is code, as
// Markdown's code spans are. A backtick without its pair is text.
func docSpans(s string) []docSpan {
	var out []docSpan
	for {
		open := strings.IndexByte(s, '`')
		if open < 0 {
			break
		}
		end := strings.IndexByte(s[open+1:], '`')
		if end < 0 {
			break
		}
		if open > 0 {
			out = append(out, docSpan{text: s[:open]})
		}
		out = append(out, docSpan{text: s[open+1 : open+1+end], code: true})
		s = s[open+1+end+1:]
	}
	if s != "" {
		out = append(out, docSpan{text: s})
	}
	return out
}

// docParagraphs splits a description into its paragraphs (at blank
// lines).
func docParagraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
