package kanri

import "testing"

func TestNormalPhone(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"", "", true},
		{"+81 90-1234-5678", "+819012345678", true},
		{"+1 (415) 555.0100", "+14155550100", true},
		{"  +44 20 7946 0958 ", "+442079460958", true},
		{"090-1234-5678", "", false}, // no country code
		{"+0 123 4567", "", false},
		{"+1234567", "", false},          // 7 digits
		{"+1234567890123456", "", false}, // 16 digits
		{"+81 90 1234 5678 ext 9", "", false},
		{"+８１９０１２３４５６７８", "", false}, // full-width digits are not taken
		{"+81\u202e9012345678", "", false},
	} {
		got, ok := NormalPhone(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("NormalPhone(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestCheckProfile(t *testing.T) {
	p := UserProfile{FirstName: "  Hanako ", LastName: "Yamada", PhoneNumber: "+81 90-1234-5678", Department: "営業部", JobTitle: "Manager"}
	if err := CheckProfile(&p); err != nil {
		t.Fatal(err)
	}
	if p.FirstName != "Hanako" || p.PhoneNumber != "+819012345678" {
		t.Errorf("normalised profile = %+v", p)
	}
	bad := UserProfile{FirstName: string(make([]rune, 101)), LastName: "a\u202eb", PhoneNumber: "12345", Department: "x\x00y"}
	f := ErrorFields(CheckProfile(&bad))
	for _, field := range []string{"firstName", "lastName", "phoneNumber", "department"} {
		if f[field] == "" {
			t.Errorf("no error on %s: %v", field, f)
		}
	}
}
