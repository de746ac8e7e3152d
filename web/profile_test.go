package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestProfiles: bob edits his own profile on the account page (a bad phone
// number is explained with his input kept; a good one is stored in E.164),
// the admin edits bob's from his page (a stale form is refused), the edit
// is audited and the API shows the profile.
func TestProfiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.client(t).signIn("acme", "bob")
	_, page := bob.get("/account")
	form := url.Values{"etag": {formETag(page)}, "lastName": {"山田"}, "firstName": {"Bob"}, "phoneNumber": {"090-1234-5678"}, "department": {"営業部"}, "jobTitle": {"Manager"}}
	resp, body := bob.post("/account/profile", form)
	wantStatus(t, "a phone without its country code", resp, http.StatusUnprocessableEntity)
	if !strings.Contains(body, `data-testid="field-error-phoneNumber"`) || !strings.Contains(body, `value="090-1234-5678"`) || !strings.Contains(body, `value="営業部"`) {
		t.Errorf("the refused profile is not explained with the input kept: %s", excerpt(body, "profile-form"))
	}
	form.Set("phoneNumber", "+81 90-1234-5678")
	resp, _ = bob.post("/account/profile", form)
	wantStatus(t, "own profile", resp, http.StatusSeeOther)
	u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID)
	if u.Profile.PhoneNumber != "+819012345678" || u.Profile.LastName != "山田" || u.Profile.Department != "営業部" {
		t.Errorf("stored profile %+v", u.Profile)
	}

	admin := e.client(t).signIn("acme", "admin")
	path := "/t/" + e.acme.ID + "/users/" + e.acmeBob.ID
	_, page = admin.get(path + "/edit")
	if !strings.Contains(page, `data-testid="profile-form"`) || !strings.Contains(page, `value="+819012345678"`) {
		t.Fatalf("bob's page has no profile form with his number: %s", excerpt(page, "profile"))
	}
	stale := formETag(page)
	resp, _ = admin.post(path+"/profile", url.Values{"etag": {stale}, "jobTitle": {"Director"}, "lastName": {"山田"}, "firstName": {"Bob"}, "phoneNumber": {"+819012345678"}})
	wantStatus(t, "admin edits bob's profile", resp, http.StatusSeeOther)
	resp, body = admin.post(path+"/profile", url.Values{"etag": {stale}, "jobTitle": {"Intern"}})
	wantStatus(t, "a stale profile form", resp, http.StatusConflict)
	if !strings.Contains(body, `data-testid="profile-error"`) {
		t.Error("a stale profile form is not explained")
	}
	u, _ = e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID)
	if u.Profile.JobTitle != "Director" {
		t.Errorf("job title %q after a refused stale edit, want Director", u.Profile.JobTitle)
	}
	_, audit := admin.get("/t/" + e.acme.ID + "/audit")
	if !strings.Contains(audit, "user.profile_update") {
		t.Error("profile edits are not audited")
	}
	// Bob may not edit the admin's profile; globex's admin may not edit bob's.
	_, page = bob.get("/account")
	resp, _ = bob.post("/t/"+e.acme.ID+"/users/"+e.acmeAdmin.ID+"/profile", url.Values{"jobTitle": {"Hacked"}})
	wantStatus(t, "bob edits the admin's profile", resp, http.StatusForbidden)
	resp, _ = e.client(t).signIn("globex", "admin").post(path+"/profile", url.Values{"jobTitle": {"Hacked"}})
	wantStatus(t, "globex edits bob's profile", resp, http.StatusNotFound)

	_, secret := e.apiKey(t, e.acme.ID, "read")
	call := e.api(t, http.MethodGet, "/api/v1/users/"+e.acmeBob.ID, secret, nil)
	var got struct {
		Profile struct{ PhoneNumber, JobTitle string }
	}
	if err := json.Unmarshal(call.body, &got); call.status != http.StatusOK || err != nil || got.Profile.PhoneNumber != "+819012345678" || got.Profile.JobTitle != "Director" {
		t.Errorf("the API's profile: %d %s (%v)", call.status, call.body, err)
	}
}

// TestAvatars: bob uploads a picture (a non-image is refused); it is
// stored square at 256 px and served to him and to those who may read
// users, not to another tenant.
func TestAvatars(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.client(t).signIn("acme", "bob")
	upload := func(c *client, path string, data []byte) *http.Response {
		_, page := c.get("/account")
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		w.WriteField("_csrf", c.csrf)
		w.WriteField("etag", formETag(page))
		fw, _ := w.CreateFormFile("avatar", "me.png")
		fw.Write(data)
		w.Close()
		resp, _ := c.send(http.MethodPost, path, &body, http.Header{"Content-Type": {w.FormDataContentType()}})
		return resp
	}
	resp := upload(bob, "/account/avatar", []byte("<svg xmlns='http://www.w3.org/2000/svg'/>"))
	if u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID); u.Profile.AvatarURL != "" {
		t.Fatalf("a non-image became an avatar (%d)", resp.StatusCode)
	}
	// The refusal says why on the page it came from.
	if !strings.Contains(bob.landing(resp), "not an image Kanri reads") {
		t.Errorf("a refused avatar does not say why (%d)", resp.StatusCode)
	}
	resp = upload(bob, "/account/avatar", pngImage(t, 640, 400))
	wantStatus(t, "upload a picture", resp, http.StatusSeeOther)
	u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID)
	if !strings.HasPrefix(u.Profile.AvatarURL, "/t/"+e.acme.ID+"/users/"+e.acmeBob.ID+"/avatar?v=") {
		t.Fatalf("avatar URL %q", u.Profile.AvatarURL)
	}
	resp, body := bob.get("/account/avatar")
	wantStatus(t, "own avatar", resp, http.StatusOK)
	img, err := png.Decode(strings.NewReader(body))
	if err != nil || img.Bounds().Dx() != 256 || img.Bounds().Dy() != 256 {
		t.Fatalf("the avatar is not a 256 px square PNG: %v %v", err, img)
	}
	admin := e.client(t).signIn("acme", "admin")
	if resp, _ := admin.get(u.Profile.AvatarURL); resp.StatusCode != http.StatusOK {
		t.Errorf("the admin gets %d for bob's avatar", resp.StatusCode)
	}
	if resp, _ := e.client(t).signIn("globex", "admin").get(u.Profile.AvatarURL); resp.StatusCode != http.StatusNotFound {
		t.Errorf("globex's admin gets %d for bob's avatar, want 404", resp.StatusCode)
	}
}

// TestHostileInputInTheNewFields: the profile's fields and the code of the
// second step refuse control characters, direction marks and overlong
// text, escape markup, and store nothing they refuse.
func TestHostileInputInTheNewFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bob := e.client(t).signIn("acme", "bob")
	for _, c := range []struct{ field, value string }{
		{"firstName", "Bob\u202eevil"},
		{"lastName", "a\x00b"},
		{"department", strings.Repeat("部", 101)},
		{"jobTitle", "\u2066x\u2069"},
		{"phoneNumber", "+81 90 1234 5678; DROP TABLE users"},
		{"phoneNumber", "+８１９０１２３４５６７８"},
	} {
		_, page := bob.get("/account")
		resp, body := bob.post("/account/profile", url.Values{"etag": {formETag(page)}, c.field: {c.value}})
		wantStatus(t, c.field+" "+c.value, resp, http.StatusUnprocessableEntity)
		if !strings.Contains(body, `data-testid="field-error-`+c.field+`"`) {
			t.Errorf("%s %q: no error on the field", c.field, c.value)
		}
	}
	_, page := bob.get("/account")
	resp, _ := bob.post("/account/profile", url.Values{"etag": {formETag(page)}, "jobTitle": {`<script>alert(1)</script>`}})
	wantStatus(t, "markup", resp, http.StatusSeeOther)
	_, page = bob.get("/account")
	if strings.Contains(page, "<script>alert(1)</script>") || !strings.Contains(page, "&lt;script&gt;") {
		t.Error("a job title with markup is not escaped")
	}
	u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID)
	if u.Profile.FirstName != "" || u.Profile.PhoneNumber != "" || u.Profile.Department != "" {
		t.Errorf("refused input was stored: %+v", u.Profile)
	}
	// The second step's code: anything but a code is a wrong code.
	enrolled := e.client(t).signIn("acme", "admin")
	e.enrol(t, enrolled)
	for _, code := range []string{"", "' OR 1=1 --", strings.Repeat("9", 5000), "１２３４５６", "12345\u202e6"} {
		c := e.client(t)
		c.signInStep("acme", "admin", password)
		resp, _ := c.post("/login/2fa", url.Values{"code": {code}})
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusSeeOther {
			t.Errorf("code %q: %d", code, resp.StatusCode)
		}
		if !signedOut(c) {
			t.Errorf("code %q signed in", code)
		}
	}
}

// TestTheUsersAPIEditsProfiles: PATCH /users/{id} changes the profile
// fields it sends and keeps the others; a bad phone number is a 422 that
// changes nothing; a stale If-Match is refused.
func TestTheUsersAPIEditsProfiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, secret := e.apiKey(t, e.acme.ID, "read", "write")
	path := "/api/v1/users/" + e.acmeBob.ID
	call := e.api(t, http.MethodPatch, path, secret, map[string]any{"profile": map[string]any{"jobTitle": "Manager", "phoneNumber": "+1 415 555 0100"}})
	if call.status != http.StatusOK {
		t.Fatalf("PATCH profile: %d %s", call.status, call.body)
	}
	first := call.resp.Header.Get("ETag")
	call = e.api(t, http.MethodPatch, path, secret, map[string]any{"profile": map[string]any{"department": "営業部"}})
	if call.status != http.StatusOK {
		t.Fatalf("second PATCH: %d %s", call.status, call.body)
	}
	u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID)
	if u.Profile.JobTitle != "Manager" || u.Profile.PhoneNumber != "+14155550100" || u.Profile.Department != "営業部" {
		t.Errorf("profile after two patches: %+v", u.Profile)
	}
	call = e.api(t, http.MethodPatch, path, secret, map[string]any{"profile": map[string]any{"phoneNumber": "not a number"}})
	if call.status != http.StatusUnprocessableEntity {
		t.Errorf("a bad phone number: %d %s", call.status, call.body)
	}
	call = e.api(t, http.MethodPatch, path, secret, map[string]any{"profile": map[string]any{"jobTitle": "Stale"}}, "If-Match", first)
	if call.status != http.StatusPreconditionFailed {
		t.Errorf("a stale If-Match on a changed profile: %d %s", call.status, call.body)
	}
	if u, _ := e.users.Get(context.Background(), e.acme.ID, e.acmeBob.ID); u.Profile.JobTitle != "Manager" || u.Profile.PhoneNumber != "+14155550100" {
		t.Errorf("refused patches changed the profile: %+v", u.Profile)
	}
}

// TestTheUsersAPICreatesUsersWithAProfile: POST /users takes a profile,
// checked like the console's.
func TestTheUsersAPICreatesUsersWithAProfile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, secret := e.apiKey(t, e.acme.ID, "read", "write")
	body := map[string]any{"username": "hana", "email": "hana@acme.test", "displayName": "Hana", "password": "Another-pass-9",
		"profile": map[string]any{"lastName": "山田", "phoneNumber": "+81 3-1234-5678"}}
	call := e.api(t, http.MethodPost, "/api/v1/users", secret, body)
	var got struct {
		ID      string
		Profile struct{ LastName, PhoneNumber string }
	}
	if err := json.Unmarshal(call.body, &got); call.status != http.StatusCreated || err != nil || got.Profile.LastName != "山田" || got.Profile.PhoneNumber != "+81312345678" {
		t.Fatalf("POST with a profile: %d %s (%v)", call.status, call.body, err)
	}
	body["username"], body["email"] = "hana2", "hana2@acme.test"
	body["profile"] = map[string]any{"phoneNumber": "03-1234-5678"}
	if call := e.api(t, http.MethodPost, "/api/v1/users", secret, body); call.status != http.StatusUnprocessableEntity {
		t.Errorf("POST with a bad phone number: %d %s", call.status, call.body)
	}
	if _, err := e.users.IDByUsername(context.Background(), e.acme.ID, "hana2"); err == nil {
		t.Error("a refused POST created the user")
	}
}
