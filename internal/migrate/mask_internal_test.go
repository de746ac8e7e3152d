package migrate

import (
	"testing"

	"github.com/kanri/kanri/internal/doctype"
)

// TestMasked: a sample shows the shape of a document, not its personal
// data, however deep the declared field.
func TestMasked(t *testing.T) {
	typ := doctype.Type{Name: "person", Personal: doctype.Personal{Data: []string{"email", "security.lastLoginIp", "tags[]", "profile"}}}
	tests := []struct{ in, want string }{
		{`{"id":"u1","email":"a@example.com","isActive":true}`, `{"email":"•••","id":"u1","isActive":true}`},
		{`{"id":"u1","security":{"lastLoginIp":"10.0.0.1","failed":2}}`, `{"id":"u1","security":{"failed":2,"lastLoginIp":"•••"}}`},
		{`{"tags":["x","y"],"profile":{"phone":"+81 90","age":33,"public":false,"bio":null}}`, `{"profile":{"age":"•••","bio":null,"phone":"•••","public":false},"tags":["•••","•••"]}`},
		{`{"id":"u1","security":"flat"}`, `{"id":"u1","security":"flat"}`},
		{`not json`, `"(not JSON)"`},
	}
	for _, tt := range tests {
		if got := string(masked(typ, []byte(tt.in))); got != tt.want {
			t.Errorf("masked(%s) = %s; want %s", tt.in, got, tt.want)
		}
	}
}
