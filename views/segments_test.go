package views

import (
	"reflect"
	"testing"
)

func TestSegments(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Segment
	}{
		{"hello", []Segment{{Text: "hello"}}},
		{"see https://example.com/x.", []Segment{{Text: "see "}, {Text: "https://example.com/x", URL: "https://example.com/x"}, {Text: "."}}},
		{"@bob look", []Segment{{Text: "@bob", Mention: "bob"}, {Text: " look"}}},
		{"thanks @Bob.", []Segment{{Text: "thanks "}, {Text: "@Bob", Mention: "Bob"}, {Text: "."}}},
		{"@山田 と @ann_b", []Segment{{Text: "@山田", Mention: "山田"}, {Text: " と "}, {Text: "@ann_b", Mention: "ann_b"}}},
		{"mail bob@example.com", []Segment{{Text: "mail bob@example.com"}}},
		{"@ alone, a@@b", []Segment{{Text: "@ alone, a@@b"}}},
		{"https://x.example/@bob", []Segment{{Text: "https://x.example/@bob", URL: "https://x.example/@bob"}}},
	} {
		if got := Segments(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Segments(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestSegmentMentions(t *testing.T) {
	for _, c := range []struct {
		seg      Segment
		username string
		want     bool
	}{
		{Segment{Text: "@Bob", Mention: "Bob"}, "bob", true},
		{Segment{Text: "@bob", Mention: "bob"}, "bobby", false},
		{Segment{Text: "bob"}, "bob", false},
		{Segment{Text: "@bob", Mention: "bob"}, "", false},
	} {
		if got := c.seg.Mentions(c.username); got != c.want {
			t.Errorf("%+v.Mentions(%q) = %v, want %v", c.seg, c.username, got, c.want)
		}
	}
}
