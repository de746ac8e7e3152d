package api

import "testing"

func TestActorKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ id, want string }{
		{"user_0b7c6f0e-3f4a-4c1e-9d55-2a8e6b1f4c10", ActorUser},
		{"apikey_1f2e3d4c5b6a79808f7e6d5c4b3a2918", ActorAPIKey},
		{"system", actorSystem},
		{"", actorSystem},
	} {
		if got := ActorKind(tc.id); got != tc.want {
			t.Errorf("actorKind(%q): got %q, want %q", tc.id, got, tc.want)
		}
	}
}
