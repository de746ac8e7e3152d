package web_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/role"
)

func TestJapaneseUI(t *testing.T) {
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
// names, stored in the spec's Japanese, are shown in English to English
// readers, and audit resource types in Japanese to Japanese readers.
func TestLabelsAreInThePagesLanguage(t *testing.T) {
	for _, s := range role.Catalog() {
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
