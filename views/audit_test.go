package views

import "testing"

func TestAuditValue(t *testing.T) {
	// Values as a record read back from the store holds them.
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"text", "read", "read"},
		{"empty text", "", `""`},
		{"number", 1.5, "1.5"},
		{"whole number", 100.0, "100"},
		{"boolean", true, "true"},
		{"nothing", nil, "—"},
		{"list", []any{"read", "write"}, "read, write"},
		{"empty list", []any{}, "—"},
		{"list of numbers", []any{1.0, 2.0}, "1, 2"},
		{"object", map[string]any{"quota": 10.0, "bucket": "b"}, `{"bucket":"b","quota":10}`},
	}
	for _, tt := range tests {
		if got := auditValue(tt.in); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
