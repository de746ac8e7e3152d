package web_test

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
)

func TestJapaneseUI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t)
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/login", nil)
	req.Header.Set("Accept-Language", "ja-JP,ja;q=0.9")
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `<html lang="ja">`) || !strings.Contains(string(b), "サインイン") {
		t.Error("Accept-Language ja did not give a Japanese page")
	}
	c.get("/login")
	resp, _ = c.post("/lang", url.Values{"lang": {"ja"}, "next": {"//evil.example/"}})
	if loc := resp.Header.Get("Location"); loc != "/" {
		t.Errorf("language switch redirect: got %q, want /", loc)
	}
	_, body := c.get("/login")
	if !strings.Contains(body, `<html lang="ja">`) {
		t.Error("the chosen language was not remembered")
	}
}

// TestLabelsAreInThePagesLanguage checks that built-in service and role
// names, stored in the data model's Japanese, are shown in English to
// English readers, and audit resource types in Japanese to Japanese
// readers.
func TestLabelsAreInThePagesLanguage(t *testing.T) {
	t.Parallel()
	for _, s := range features.Roles().Services() {
		for _, key := range []string{"service." + s.ID, "service." + s.ID + ".description"} {
			if !i18n.Has(key) {
				t.Errorf("no translation of %s", key)
			}
		}
		for _, d := range s.Roles {
			for _, key := range []string{"role." + d.Key, "role." + d.Key + ".description"} {
				if !i18n.Has(key) {
					t.Errorf("no translation of %s", key)
				}
			}
		}
	}
	e := newEnv(t)
	c := e.client(t).signIn("acme", "admin")
	_, page := c.get("/t/" + e.acme.ID + "/roles")
	for _, want := range []string{"Tenant management", "Administrator", "Viewer", "Manages File management in its own tenant"} {
		if !strings.Contains(page, want) {
			t.Errorf("the English roles page lacks %q", want)
		}
	}
	for _, unwanted := range []string{"テナント管理サービス", ">管理者<", "閲覧者"} {
		if strings.Contains(page, unwanted) {
			t.Errorf("the English roles page shows %q", unwanted)
		}
	}
	c.post("/lang", url.Values{"lang": {"ja"}, "next": {"/"}})
	_, page = c.get("/t/" + e.acme.ID + "/audit")
	if !strings.Contains(page, "ユーザー: <span") {
		t.Errorf("the Japanese audit page does not name resource types in Japanese")
	}
}

// TestSwitchingOnAPageAnsweringAPost switches language and theme on pages
// that answered a POST (forms shown again with their errors, a stale
// action): the switch returns to the page's form or nearest page, never
// to "Page not found".
func TestSwitchingOnAPageAnsweringAPost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("privileged", adminEmail)
	acme := "/t/" + e.acme.ID
	nextOf := regexp.MustCompile(`(?s)action="/lang">.*?name="next" value="([^"]*)"`)
	for _, tc := range []struct {
		name, path string
		form       url.Values
		want       string // where the switch returns
	}{
		{"new tenant with errors", "/tenants", url.Values{"name": {""}}, "/tenants/new"},
		{"tenant edit with errors", "/tenants/" + e.acme.ID, url.Values{"displayName": {""}}, "/tenants/" + e.acme.ID + "/edit"},
		{"new user with errors", acme + "/users", url.Values{"username": {""}}, acme + "/users/new"},
		{"user edit with errors", acme + "/users/" + e.acmeBob.ID, url.Values{"email": {"not an address"}}, acme + "/users/" + e.acmeBob.ID + "/edit"},
		{"new key with errors", acme + "/api-keys", url.Values{"name": {""}}, acme + "/api-keys/new"},
	} {
		resp, body := admin.post(tc.path, tc.form)
		if resp.StatusCode < 400 {
			t.Errorf("%s: POST %s answered %d, want an error page", tc.name, tc.path, resp.StatusCode)
			continue
		}
		m := nextOf.FindStringSubmatch(body)
		if m == nil {
			t.Errorf("%s: no language switch on the page", tc.name)
			continue
		}
		for _, sw := range []struct{ path, field, value string }{{"/lang", "lang", "ja"}, {"/theme", "theme", "dark"}, {"/lang", "lang", "en"}} {
			resp, _ := admin.post(sw.path, url.Values{sw.field: {sw.value}, "next": {html.UnescapeString(m[1])}})
			if got := resp.Header.Get("Location"); got != tc.want {
				t.Errorf("%s: %s returns to %q, want %q", tc.name, sw.path, got, tc.want)
			}
			if resp, _ := admin.get(resp.Header.Get("Location")); resp.StatusCode != http.StatusOK {
				t.Errorf("%s: after %s: %d", tc.name, sw.path, resp.StatusCode)
			}
		}
	}
	// A switch to a URL only a POST answers goes to the nearest page.
	resp, _ := admin.post("/lang", url.Values{"lang": {"en"}, "next": {acme + "/api-keys/apikey_x/rotate"}})
	if got, want := resp.Header.Get("Location"), acme+"/api-keys/apikey_x"; got != want {
		t.Errorf("switch on a POST-only URL returns to %q, want %q", got, want)
	}

	// The page of a new secret shows it again after a switch, in the new
	// language; a reload after that shows nothing.
	resp, _ = admin.post(acme+"/api-keys", url.Values{"name": {"Switch"}, "scopes": {"read"}})
	secretPage := resp.Header.Get("Location")
	_, body := admin.get(secretPage)
	secret := regexp.MustCompile(`ak_live_[0-9A-Za-z]{49}`).FindString(body)
	if secret == "" {
		t.Fatal("no secret shown")
	}
	for _, lang := range []string{"ja", "en"} {
		resp, _ = admin.post("/lang", url.Values{"lang": {lang}, "next": {secretPage}})
		if got := resp.Header.Get("Location"); got != secretPage {
			t.Fatalf("switch to %s on the secret page returns to %q", lang, got)
		}
		resp, body = admin.get(secretPage)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, secret) || !strings.Contains(body, `<html lang="`+lang+`"`) {
			t.Errorf("after the switch to %s: %d, secret shown %v", lang, resp.StatusCode, strings.Contains(body, secret))
		}
	}
	resp, body = admin.get(secretPage)
	if resp.StatusCode != http.StatusSeeOther || strings.Contains(body, secret) {
		t.Errorf("a reload after the switches: %d, secret shown %v", resp.StatusCode, strings.Contains(body, secret))
	}
}

// TestOperatorsRolesPageFormatsEveryMessage shows the operator's roles
// page, with the global administrator's role, in both languages: no
// message is formatted with the wrong number of arguments.
func TestOperatorsRolesPageFormatsEveryMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("privileged", adminEmail)
	for _, tc := range []struct{ lang, want string }{
		{"en", "Every permission of Tenant management in every tenant (operator only)"},
		{"ja", "全テナントでのテナント管理サービスの全権限（管理会社のみ）"},
	} {
		admin.post("/lang", url.Values{"lang": {tc.lang}, "next": {"/"}})
		resp, body := admin.get("/t/" + kanri.PrivilegedTenantID + "/roles")
		wantStatus(t, "the operator's roles page", resp, http.StatusOK)
		if strings.Contains(body, "%!") || !strings.Contains(body, tc.want) {
			t.Errorf("%s: the roles page lacks %q or shows a formatting error (%%!)", tc.lang, tc.want)
		}
	}
}

// TestFlashIsInThePagesLanguage: a message left for the next page is in
// that page's language, also when the language changed in between: the
// save of the tenant's default language itself, or a switch of language
// before the page is shown.
func TestFlashIsInThePagesLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.client(t).signIn("acme", "admin")
	path := "/t/" + e.acme.ID + "/settings"
	ja := func(zone string) string { return html.EscapeString(i18n.Translate("ja", "settings.saved", zone)) }

	resp, _ := admin.post(path, settingsForm(e.fresh(t, e.acme.ID), func(in *kanri.SettingsInput) { in.Locale = "ja-JP" }))
	page := admin.landing(resp)
	if got, want := strings.Contains(page, ja("Asia/Tokyo")), true; got != want || !strings.Contains(page, `<html lang="ja"`) {
		t.Errorf("saving Japanese as the default language: the Japanese message shown %v, want %v", got, want)
	}

	e.setSettings(t, e.acme.ID, func(in *kanri.SettingsInput) { in.Locale = "" })
	resp, _ = admin.post(path, settingsForm(e.fresh(t, e.acme.ID), func(in *kanri.SettingsInput) { in.Timezone = "UTC" }))
	admin.post("/lang", url.Values{"lang": {"ja"}, "next": {resp.Header.Get("Location")}})
	_, page = admin.get(path)
	if got, want := strings.Contains(page, ja("UTC")), true; got != want {
		t.Errorf("a switch to Japanese before the message is shown: the Japanese message shown %v, want %v", got, want)
	}
}

// TestLoginMarksItsLanguage: the sign-in page's language buttons say which
// language the page is in (aria-pressed), whether the browser or the
// visitor's choice decided it.
func TestLoginMarksItsLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pressed := regexp.MustCompile(`data-testid="lang-(ja|en)" aria-pressed="(true|false)"`)
	state := func(page string) map[string]string {
		got := map[string]string{}
		for _, m := range pressed.FindAllStringSubmatch(page, -1) {
			got[m[1]] = m[2]
		}
		return got
	}
	c := e.client(t)
	for _, tt := range []struct {
		name, accept, choose string
		want                 map[string]string
	}{
		{"an English browser", "en", "", map[string]string{"en": "true", "ja": "false"}},
		{"a Japanese browser", "ja", "", map[string]string{"en": "false", "ja": "true"}},
		{"Japanese chosen", "en", "ja", map[string]string{"en": "false", "ja": "true"}},
		{"English chosen", "ja", "en", map[string]string{"en": "true", "ja": "false"}},
	} {
		if tt.choose != "" {
			c.post("/lang", url.Values{"lang": {tt.choose}, "next": {"/login"}})
		}
		_, page := c.send(http.MethodGet, "/login", nil, http.Header{"Accept-Language": {tt.accept}})
		if got := state(page); got["en"] != tt.want["en"] || got["ja"] != tt.want["ja"] {
			t.Errorf("%s: got pressed %v, want %v", tt.name, got, tt.want)
		}
		if m := csrfPattern.FindStringSubmatch(page); m != nil {
			c.csrf = m[1]
		}
	}
}
