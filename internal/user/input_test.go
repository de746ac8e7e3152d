package user_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
)

// TestUsernamesCollideAsPeopleReadThem checks that usernames are unique
// after NFKC normalisation and case folding, and that names and display
// names with control characters or direction marks are refused.
func TestUsernamesCollideAsPeopleReadThem(t *testing.T) {
	f := setup(t)
	ten := f.tenant(t, "acme", 50)
	for _, name := range []string{"admin", "caf\u00e9", "Stra\u00dfe"} {
		if _, err := f.users.Create(f.ctx, ten.ID, input(name)); err != nil {
			t.Fatalf("create %q: %v", name, err)
		}
	}
	for _, tc := range []struct{ what, username, displayName, field, want string }{
		{"full-width admin", "\uff41\uff44\uff4d\uff49\uff4e", "x", "username", "validation.username_taken"},
		{"ADMIN", "ADMIN", "x", "username", "validation.username_taken"},
		{"café decomposed", "cafe\u0301", "x", "username", "validation.username_taken"},
		{"CAFÉ", "CAF\u00c9", "x", "username", "validation.username_taken"},
		{"strasse folded", "STRASSE", "x", "username", "validation.username_taken"},
		{"right-to-left override", "ad\u202emin", "x", "username", "validation.hidden_chars"},
		{"isolate", "ad\u2066min", "x", "username", "validation.hidden_chars"},
		{"left-to-right mark", "\u200eadmin", "x", "username", "validation.hidden_chars"},
		{"NUL in a username", "ad\x00min", "x", "username", "validation.hidden_chars"},
		{"NUL in a display name", "nul", "a\x00b", "displayName", "validation.hidden_chars"},
		{"ESC in a display name", "esc", "a\x1b[31mb", "displayName", "validation.hidden_chars"},
		{"CR LF in a display name", "crlf", "a\r\nb", "displayName", "validation.hidden_chars"},
		{"override in a display name", "rlo", "a\u202eb", "displayName", "validation.hidden_chars"},
	} {
		in := input("u" + strings.ReplaceAll(tc.what, " ", ""))
		in.Username, in.DisplayName = tc.username, tc.displayName
		_, err := f.users.Create(f.ctx, ten.ID, in)
		if got := kanri.ErrorFields(err)[tc.field]; got != tc.want {
			t.Errorf("%s: got %v, want %s %s", tc.what, err, tc.field, tc.want)
		}
	}
	// A full-width name is stored as it is usually written, and signs in
	// either way.
	in := input("\uff42\uff4f\uff42")
	u, err := f.users.Create(f.ctx, ten.ID, in)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := u.Username, "bob"; got != want {
		t.Errorf("stored username: got %q, want %q", got, want)
	}
	for _, name := range []string{"bob", "BOB", "\uff42\uff4f\uff42"} {
		if id, err := f.users.IDByUsername(f.ctx, ten.ID, name); err != nil || id != u.ID {
			t.Errorf("find %q: got %q %v, want %q", name, id, err, u.ID)
		}
	}
}

// TestLegacyUsernamesStayReadable checks that a non-ASCII username stored
// before normalisation (its reservation at the lower-case id) is still
// found and freed when its user is deleted.
func TestLegacyUsernamesStayReadable(t *testing.T) {
	f := setup(t)
	ten := f.tenant(t, "acme", 50)
	u, err := f.users.Create(f.ctx, ten.ID, input("Ärger"))
	if err != nil {
		t.Fatal(err)
	}
	// Move the reservation where the old code wrote it: Ä decomposed.
	old := "A\u0308rger"
	st := f.st.Tenant(ten.ID)
	res, err := st.Usernames().Get(f.ctx, kanri.UsernameID(u.Username))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Usernames().Delete(f.ctx, res.ID, res.ETag); err != nil {
		t.Fatal(err)
	}
	if err := st.Usernames().Create(f.ctx, &kanri.Username{Doc: kanri.Doc{ID: kanri.LegacyUsernameID(old)}, UserID: u.ID}); err != nil {
		t.Fatal(err)
	}
	if kanri.LegacyUsernameID(old) == kanri.UsernameID(old) {
		t.Fatal("the legacy id of a decomposed name is its id: the test tests nothing")
	}
	if id, err := f.users.IDByUsername(f.ctx, ten.ID, old); err != nil || id != u.ID {
		t.Errorf("find the legacy name: got %q %v, want %q", id, err, u.ID)
	}
}

// TestPasswordsCountWhatPeopleCount checks the password rules: characters
// as a person counts them for the minimum, bytes for bcrypt's maximum.
func TestPasswordsCountWhatPeopleCount(t *testing.T) {
	for _, tc := range []struct{ what, password, want string }{
		{"12 ASCII characters", "Abcdefghij1!", ""},
		{"11 characters of 22 bytes", "Ääääääääää1", "validation.password_short"},
		{"12 accented characters", "Ääääääääää1!", ""},
		{"20 emoji (80 bytes)", strings.Repeat("\U0001F600", 20) + "Aa1", "validation.password_bytes"},
		{"17 emoji and 3 ASCII (71 bytes)", strings.Repeat("\U0001F600", 17) + "Aa1", ""},
		{"72 bytes", strings.Repeat("a", 69) + "B1!", ""},
		{"73 bytes", strings.Repeat("a", 70) + "B1!", "validation.password_bytes"},
		{"12 kanji and a digit", "日本語のパスワードです1A", ""},
	} {
		if got := kanri.CheckPassword(tc.password); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.what, got, tc.want)
		}
	}
}

// TestNoOpChangesWriteNothing checks that a change that changes nothing
// (deactivating an inactive user, reactivating an active one, an edit to
// the same values) keeps the user's version and records nothing.
func TestNoOpChangesWriteNothing(t *testing.T) {
	f := setup(t)
	ten := f.tenant(t, "acme", 50)
	f.users.Create(f.ctx, ten.ID, input("admin")) // the administrator, so that bob is not the last one
	bob, err := f.users.Create(f.ctx, ten.ID, input("bob"))
	if err != nil {
		t.Fatal(err)
	}
	inactive, err := f.users.SetActive(f.ctx, ten.ID, bob.ID, kanri.Seen{}, false)
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		recs, _, err := f.audit.Query(f.ctx, ten.ID, audit.Filter{Action: "user.", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return len(recs)
	}
	before := count()
	steps := []struct {
		what string
		do   func() (*kanri.User, error)
	}{
		{"deactivate an inactive user", func() (*kanri.User, error) {
			return f.users.SetActive(f.ctx, ten.ID, bob.ID, kanri.Seen{}, false)
		}},
		{"edit to the same values", func() (*kanri.User, error) {
			return f.users.Update(f.ctx, ten.ID, bob.ID, "", nil, kanri.UserInput{Email: bob.Email, DisplayName: bob.DisplayName})
		}},
		{"patch nothing", func() (*kanri.User, error) {
			return f.users.Patch(f.ctx, ten.ID, bob.ID, kanri.UserModificationRequest{}, func(string) (string, error) { return "", nil })
		}},
	}
	for _, s := range steps {
		u, err := s.do()
		if err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		if got, want := u.ETag, inactive.ETag; got != want {
			t.Errorf("%s: ETag %s, want %s unchanged", s.what, got, want)
		}
		if !u.UpdatedAt.Equal(inactive.UpdatedAt.Time) {
			t.Errorf("%s: updatedAt %v, want %v", s.what, u.UpdatedAt, inactive.UpdatedAt)
		}
	}
	active, err := f.users.SetActive(f.ctx, ten.ID, bob.ID, kanri.Seen{}, true)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.users.SetActive(f.ctx, ten.ID, bob.ID, kanri.Seen{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if again.ETag != active.ETag {
		t.Errorf("reactivate an active user: ETag %s, want %s unchanged", again.ETag, active.ETag)
	}
	if got, want := count(), before+1; got != want { // the one real reactivation
		t.Errorf("audit records: got %d, want %d", got, want)
	}
}

// TestConcurrentPatchesAllSucceed has 10 clients change one user 20 times
// each, at once, without naming a version: honest contention is retried
// until each change is made, on both stores, and the user ends with one of
// the last changes made.
func TestConcurrentPatchesAllSucceed(t *testing.T) {
	for name, setup := range map[string]func(*testing.T) *fixture{"embedded": setup, "cosmos": setupCosmos} {
		t.Run(name, func(t *testing.T) {
			f := setup(t)
			ten := f.tenant(t, "acme", 50)
			bob, err := f.users.Create(f.ctx, ten.ID, input("bob"))
			if err != nil {
				t.Fatal(err)
			}
			const clients, rounds = 10, 20
			var wg sync.WaitGroup
			errs := make(chan error, clients*rounds)
			last := make([]string, clients)
			for c := range clients {
				wg.Go(func() {
					for r := range rounds {
						name := fmt.Sprintf("client %d round %d", c, r)
						_, err := f.users.Patch(f.ctx, ten.ID, bob.ID, kanri.UserModificationRequest{DisplayName: &name},
							func(string) (string, error) { return "", nil })
						if err != nil {
							errs <- fmt.Errorf("%s: %w", name, err)
							continue
						}
						last[c] = name
					}
				})
			}
			wg.Wait()
			close(errs)
			failed := 0
			for err := range errs {
				failed++
				if failed <= 3 {
					t.Error(err)
				}
			}
			t.Logf("%d of %d changes made, %d failed", clients*rounds-failed, clients*rounds, failed)
			u, err := f.users.Get(f.ctx, ten.ID, bob.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(last, u.DisplayName) {
				t.Errorf("display name %q, want one of the last changes %q", u.DisplayName, last)
			}
		})
	}
}
