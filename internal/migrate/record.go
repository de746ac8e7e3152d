package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// TypeMigration is the record of a batch migration's position.
const TypeMigration = "migration"

// Record is where a run of a batch migration is: the page of tenants
// (its continuation token, "" for the first) and how many of its tenants
// are done. Its id names the versions it migrates to, so that a run to
// other versions starts afresh.
type Record struct {
	kanri.Doc
	Versions map[string]string `json:"versions"`
	Page     string            `json:"page"`
	Done     int               `json:"done"`
}

// DocTypes are the document types of the batch migration.
var DocTypes = []doctype.Type{{
	Name: TypeMigration, Container: kanri.ContainerTenant, Of: &Record{},
	Backup: doctype.NotBackedUp("the operator's record of a migration in progress, in the _system partition"),
}}

func (r *Runner) records() *store.Repo[Record, *Record] {
	return store.Of[Record](r.Store.Tenant(kanri.SystemTenantID), kanri.ContainerTenant, TypeMigration)
}

// record returns the position a run to the current versions left, or a
// new record.
func (r *Runner) record(ctx context.Context) (*Record, error) {
	versions := map[string]string{}
	for _, t := range r.Store.Types().Types() {
		versions[t.Name] = t.Version()
	}
	keys := make([]string, 0, len(versions))
	for k, v := range versions {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	sum := sha256.Sum256([]byte(strings.Join(keys, ",")))
	id := "migration_" + hex.EncodeToString(sum[:8])
	rec, err := r.records().Get(ctx, id)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return &Record{Doc: kanri.Doc{ID: id}, Versions: versions}, nil
	}
	return rec, err
}

// save records the run's position.
func (r *Runner) save(ctx context.Context, rec *Record) error {
	rec.ETag = ""
	return r.records().Upsert(ctx, rec)
}

// forget removes the record of a finished run.
func (r *Runner) forget(ctx context.Context, rec *Record) error {
	err := r.records().Delete(ctx, rec.ID, "")
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil
	}
	return err
}
