package views

import (
	"reflect"
	"testing"
)

func TestDocSpans(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []docSpan
	}{
		{"", nil},
		{"plain", []docSpan{{text: "plain"}}},
		{"Needs the scope `read` on the key.", []docSpan{{text: "Needs the scope "}, {text: "read", code: true}, {text: " on the key."}}},
		{"`a` and `b`", []docSpan{{text: "a", code: true}, {text: " and "}, {text: "b", code: true}}},
		{"a lone ` backtick", []docSpan{{text: "a lone ` backtick"}}},
		{"`a` then a lone `", []docSpan{{text: "a", code: true}, {text: " then a lone `"}}},
	} {
		if got := docSpans(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("docSpans(%q): got %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestDocParagraphs(t *testing.T) {
	got := docParagraphs("One.\n\nTwo,\nstill two.\n\n\n")
	if want := []string{"One.", "Two,\nstill two."}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
