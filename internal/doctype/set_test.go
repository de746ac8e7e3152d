package doctype_test

import (
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/doctype"
)

type thing struct{}

func TestAnIndexHashesOnlyItsLeadingFields(t *testing.T) {
	tests := []struct {
		name   string
		hashed []string
		ok     bool
	}{
		{"none", nil, true},
		{"a leading field", []string{"roomId"}, true},
		{"the last field", []string{"seq"}, false},
		{"not a field", []string{"userId"}, false},
	}
	for _, tt := range tests {
		_, err := doctype.NewSet([]doctype.Container{{Name: "c"}}, []doctype.Type{{
			Name: "msg", Container: "c", Of: &thing{},
			Indexes: []doctype.Index{{Name: "msg_room_seq", Fields: []string{"roomId", "seq"}, Hashed: tt.hashed}},
			Backup:  doctype.NotBackedUp("a test's"),
		}})
		if got := err == nil; got != tt.ok {
			t.Errorf("%s: NewSet error %v, want ok %v", tt.name, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "hashes") {
			t.Errorf("%s: error %q does not say what is hashed wrongly", tt.name, err)
		}
	}
}
