package store

import "testing"

func TestCommonPrefix(t *testing.T) {
	for _, tc := range []struct {
		ids  []string
		want string
	}{
		{nil, ""},
		{[]string{"daily_20260610_k"}, "daily_20260610_k"},
		{[]string{"daily_20260512_k", "daily_20260610_k"}, "daily_20260"},
		{[]string{"daily_20251231_k", "daily_20260101_k"}, "daily_202"},
		{[]string{"a", "b"}, ""},
		{[]string{"user_日本", "user_日本語", "user_日光"}, "user_日"}, // never inside a character
		{[]string{"x\xe6\x97\xa5", "x\xe6\x97\xa6"}, "x"},
	} {
		if got := commonPrefix(tc.ids); got != tc.want {
			t.Errorf("commonPrefix(%q): got %q, want %q", tc.ids, got, tc.want)
		}
	}
}
