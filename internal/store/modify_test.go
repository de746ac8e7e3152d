package store_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// contended is a document store whose every replace loses its race, as if
// another writer always came first.
type contended struct {
	docstore.Store
	replaces atomic.Int64
}

func (s *contended) Container(name string) docstore.Container {
	return contendedContainer{s.Store.Container(name), s}
}

type contendedContainer struct {
	docstore.Container
	s *contended
}

func (c contendedContainer) Replace(context.Context, string, string, []byte, string) (string, error) {
	c.s.replaces.Add(1)
	return "", kanri.E(kanri.ESTALE, "stale.title")
}

func TestModifyUnderPermanentContentionIsBusy(t *testing.T) {
	_, ds := openStore(t)
	cs := &contended{Store: ds}
	users := store.New(cs, nil, features.Schema()).Tenant("tenant_a").Users()
	ctx := t.Context()
	if err := users.Create(ctx, newUser("user_1", "alice")); err != nil {
		t.Fatal(err)
	}
	_, err := users.Modify(ctx, "user_1", nil, func(u *kanri.User) error { u.DisplayName = "Alice"; return nil })
	if got, want := kanri.ErrorCode(err), kanri.EBUSY; got != want {
		t.Fatalf("error: got %v, want code %q", err, want)
	}
	if got := cs.replaces.Load(); got < 2 || got > 20 {
		t.Errorf("replaces: got %d, want a few retries and a bound", got)
	}

	// A caller that leaves stops the retries.
	ctx, cancel := context.WithCancel(ctx)
	_, err = users.Modify(ctx, "user_1", nil, func(u *kanri.User) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: got %v, want context.Canceled", err)
	}
}
