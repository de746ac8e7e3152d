package bolt_test

import (
	"testing"

	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/storetest"
)

func open(t testing.TB, specs []docstore.Spec) docstore.Store {
	st, err := bolt.Open(t.TempDir(), specs, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestEmbeddedContract(t *testing.T) { storetest.Run(t, open) }
