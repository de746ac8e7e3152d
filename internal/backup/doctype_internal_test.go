package backup

import "testing"

// TestDocType: a document's type is read from its first bytes, where the
// store writes it, and from the whole document otherwise; a nested "type"
// or one inside a string is not the document's.
func TestDocType(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"id":"user_1","tenantId":"t","type":"user","schemaVersion":"1.2"}`, "user"},
		{`{"id":"a","resource":{"type":"File"},"type":"audit_log"}`, "audit_log"},
		{`{"type":"message","id":"m"}`, "message"},
		{`{"id":"x","note":"say \"type\":\"nope\"","type":"file"}`, "file"},
		{`{"id":"x", "type" : "spaced"}`, "spaced"},
		{`{"id":"x","tenantId":"t","type":"tab\u0009"}`, "tab\t"},
	}
	for _, tt := range tests {
		got, err := DocType([]byte(tt.body))
		if err != nil || got != tt.want {
			t.Errorf("DocType(%s) = %q, %v; want %q", tt.body, got, err, tt.want)
		}
	}
	if _, err := DocType([]byte(`{"id":`)); err == nil {
		t.Error("DocType of a broken document: no error")
	}
}
