package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/emaildomain"
	"github.com/kanri/kanri/internal/kanri"
)

func TestDomainPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID + "/domains"

	_, body := admin.get(base)
	if !strings.Contains(body, `data-testid="domains-none"`) {
		t.Error("no empty state")
	}
	// A public suffix is refused; the input is kept.
	resp, body := admin.post(base, url.Values{"domain": {"co.jp"}})
	wantStatus(t, "public suffix", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(body, `data-testid="field-error-domain"`) || !strings.Contains(body, `value="co.jp"`) {
		t.Error("the refusal is not shown with the input")
	}
	resp, _ = admin.post(base, url.Values{"domain": {"https://Acme.Example/about"}})
	wantStatus(t, "add", resp, http.StatusSeeOther)
	d, err := e.domains.Get(context.Background(), e.acme.ID, kanri.DomainID("acme.example"))
	if err != nil {
		t.Fatal(err)
	}
	_, body = admin.get(base)
	for _, want := range []string{`data-testid="domain-row-acme.example" data-state="pending"`, `>_kanri-challenge.acme.example<`, ">" + d.VerificationToken + "<"} {
		if !strings.Contains(body, want) {
			t.Errorf("domains page: no %s", want)
		}
	}

	// A wrong record: the page says what was found.
	e.dns.Set(emaildomain.RecordName("acme.example"), "something-else")
	resp, _ = admin.post(base+"/"+d.ID+"/verify", url.Values{"etag": {d.ETag}, "state": {"pending"}})
	wantStatus(t, "verify with a wrong record", resp, http.StatusSeeOther)
	_, body = admin.get(base)
	if !strings.Contains(body, `holds &#34;something-else&#34;, not the expected value `+d.VerificationToken) {
		t.Error("the wrong record is not reported")
	}
	e.dns.Set(emaildomain.RecordName("acme.example"), d.VerificationToken)
	resp, _ = admin.post(base+"/"+d.ID+"/verify", url.Values{"etag": {d.ETag}, "state": {"pending"}})
	wantStatus(t, "verify", resp, http.StatusSeeOther)
	_, body = admin.get(base)
	if !strings.Contains(body, `data-testid="domain-row-acme.example" data-state="verified"`) {
		t.Error("the domain is not shown verified")
	}

	// globex can neither see nor touch acme's domain, and cannot verify
	// it for itself.
	gl := e.client(t).signIn("globex", "admin")
	resp, _ = gl.get(base)
	wantStatus(t, "globex opens acme's domains", resp, http.StatusNotFound)
	resp, _ = gl.post("/t/"+e.globex.ID+"/domains/"+d.ID+"/delete", nil)
	wantStatus(t, "globex deletes acme's domain id", resp, http.StatusNotFound)
	resp, _ = gl.post("/t/"+e.globex.ID+"/domains", url.Values{"domain": {"acme.example"}})
	wantStatus(t, "globex adds acme.example", resp, http.StatusSeeOther)
	g, _ := e.domains.Get(context.Background(), e.globex.ID, kanri.DomainID("acme.example"))
	e.dns.Set(emaildomain.RecordName("acme.example"), d.VerificationToken, g.VerificationToken)
	gl.post("/t/"+e.globex.ID+"/domains/"+g.ID+"/verify", nil)
	_, body = gl.get("/t/" + e.globex.ID + "/domains")
	if !strings.Contains(body, "already verified by another organisation") {
		t.Error("globex is not told the domain is taken")
	}
	if strings.Contains(body, "acme") && strings.Contains(body, e.acme.ID) {
		t.Error("globex's page names acme")
	}

	// Deleting asks first (the form carries a confirmation) and works.
	_, body = admin.get(base)
	if !strings.Contains(body, `data-confirm="Remove this domain`) {
		t.Error("delete does not ask for confirmation")
	}
	d, _ = e.domains.Get(context.Background(), e.acme.ID, d.ID)
	resp, _ = admin.post(base+"/"+d.ID+"/delete", url.Values{"etag": {d.ETag}, "state": {"verified"}})
	wantStatus(t, "delete", resp, http.StatusSeeOther)
	if _, err := e.domains.Get(context.Background(), e.acme.ID, d.ID); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("after delete: %v", err)
	}
}

// TestDomainPageSaysWhatHappened checks that adding a domain typed as a URL
// says it was taken from what was typed (and one typed plainly does not),
// that a failed check shows when it ran and what it found, that a DNS
// server that does not answer gets a message in words, and that the TXT
// value has a copy button.
func TestDomainPageSaysWhatHappened(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	base := "/t/" + e.acme.ID + "/domains"
	tests := []struct {
		typed, want string // want: "" for no notice
	}{
		{"https://www.acme.example/", "Domain www.acme.example added (you typed https://www.acme.example/; only the domain is kept)."},
		{"plain.example", ""},
	}
	for _, tt := range tests {
		resp, _ := admin.post(base, url.Values{"domain": {tt.typed}})
		wantStatus(t, "add "+tt.typed, resp, http.StatusSeeOther)
		_, body := admin.get(base)
		if got := strings.Contains(body, "you typed"); got != (tt.want != "") {
			t.Errorf("%s: notice shown: got %v, want %v", tt.typed, got, tt.want != "")
		}
		if tt.want != "" && !strings.Contains(body, tt.want) {
			t.Errorf("%s: the page lacks %q", tt.typed, tt.want)
		}
	}
	d, err := e.domains.Get(context.Background(), e.acme.ID, kanri.DomainID("plain.example"))
	if err != nil {
		t.Fatal(err)
	}
	_, body := admin.get(base)
	for _, want := range []string{`data-copy="#token-` + d.ID + `"`, `id="token-` + d.ID + `"`, `data-copied="Copied"`} {
		if !strings.Contains(body, want) {
			t.Errorf("no copy button: the page lacks %s", want)
		}
	}
	row := func(body string) string {
		i := strings.Index(body, `data-testid="domain-row-plain.example"`)
		j := strings.Index(body[i:], "</tr>")
		return body[i : i+j]
	}
	if strings.Contains(row(body), `data-testid="domain-check-result"`) {
		t.Error("a check result before any check")
	}
	resp, _ := admin.post(base+"/"+d.ID+"/verify", url.Values{"etag": {d.ETag}, "state": {"pending"}})
	wantStatus(t, "verify without a record", resp, http.StatusSeeOther)
	_, body = admin.get(base)
	if got, want := row(body), `No record found`; !strings.Contains(got, want) || strings.Contains(got, `data-testid="domain-last-checked">—`) {
		t.Errorf("after a failed check the row does not show its time and %q:\n%s", want, got)
	}
	e.dns.Drop(emaildomain.RecordName("plain.example"), true)
	d, _ = e.domains.Get(context.Background(), e.acme.ID, d.ID)
	admin.post(base+"/"+d.ID+"/verify", url.Values{"etag": {d.ETag}, "state": {"pending"}})
	_, body = admin.get(base)
	if want := "The DNS server did not answer in time when looking up _kanri-challenge.plain.example."; !strings.Contains(body, want) {
		t.Errorf("the page lacks %q", want)
	}
	if strings.Contains(body, "i/o timeout") || strings.Contains(body, "lookup _kanri") {
		t.Error("the page shows the resolver's own error")
	}
	if got, want := row(body), "Lookup failed"; !strings.Contains(got, want) {
		t.Errorf("the row lacks %q", want)
	}
}
