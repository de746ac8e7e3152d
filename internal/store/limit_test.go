package store_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// TestCreateWithinHoldsTheLimitUnderRaces: twelve creators racing for a
// limit of five create exactly five, on both stores; once one is deleted,
// one more may be created.
func TestCreateWithinHoldsTheLimitUnderRaces(t *testing.T) {
	stores := map[string]func(t *testing.T) docstore.Store{
		"bolt":   func(t *testing.T) docstore.Store { return bolttest.Open(t) },
		"cosmos": func(t *testing.T) docstore.Store { return cosmostest.Open(t, cosmostest.Start(t), "kanri-limit-test") },
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			ten := store.New(open(t), nil, features.Schema()).Tenant("tenant_a")
			jobs := ten.BackupJobs()
			ctx := t.Context()
			const limit = 5
			refused := kanri.E(kanri.ECONFLICT, "backups.limit_reached", limit)
			create := func(i int) error {
				op, err := jobs.Op(docstore.OpCreate, &kanri.BackupJob{Doc: kanri.Doc{ID: fmt.Sprintf("job_%02d", i)}, Name: fmt.Sprint(i)})
				if err != nil {
					return err
				}
				_, err = store.CreateWithin(ctx, ten, kanri.ContainerBackup, "backup_jobs", limit, refused, func() (int, error) {
					js, _, err := jobs.Query(ctx, docstore.Query{Limit: limit})
					return len(js), err
				}, []docstore.Op{op})
				return err
			}
			var wg sync.WaitGroup
			errs := make([]error, 12)
			for i := range errs {
				wg.Go(func() { errs[i] = create(i) })
			}
			wg.Wait()
			created := 0
			for i, err := range errs {
				switch {
				case err == nil:
					created++
				case err != refused:
					t.Errorf("creator %d: %v", i, err)
				}
			}
			all, _, err := jobs.Query(ctx, docstore.Query{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if created != limit || len(all) != limit {
				t.Fatalf("%d created, %d stored; want %d", created, len(all), limit)
			}
			if err := create(99); err != refused {
				t.Errorf("a sixth: %v, want refused", err)
			}
			if err := jobs.Delete(ctx, all[0].ID, ""); err != nil {
				t.Fatal(err)
			}
			if err := create(99); err != nil {
				t.Errorf("after a deletion: %v, want created", err)
			}
		})
	}
}
