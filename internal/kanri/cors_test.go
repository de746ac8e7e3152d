package kanri_test

import (
	"testing"

	"github.com/kanri/kanri/internal/kanri"
)

func TestNormalizeOrigin(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://app.acme.example", "https://app.acme.example"},
		{" HTTPS://App.Acme.Example/ ", "https://app.acme.example"},
		{"https://app.acme.example:443", "https://app.acme.example"},
		{"http://localhost:3000", "http://localhost:3000"},
		{"http://127.0.0.1:80", "http://127.0.0.1"},
		{"http://[::1]:8080", "http://[::1]:8080"},
		{"https://app.acme.example/path", ""},
		{"https://app.acme.example?q=1", ""},
		{"https://user@app.acme.example", ""},
		{"ftp://app.acme.example", ""},
		{"app.acme.example", ""},
		{"*", ""},
		{"https://*.acme.example", ""},
		{"null", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := kanri.NormalizeOrigin(tt.in); got != tt.want {
			t.Errorf("NormalizeOrigin(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
