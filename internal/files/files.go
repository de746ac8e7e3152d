// Package files is the file service of a tenant (docs/files.md): folders,
// files and their trash, resumable uploads that reserve their size in the
// tenant's quota, and the reading of contents. The documents in the
// file-service container are the truth; the bytes live in the blob store
// (package blob) under names made of ids.
//
// Every change of what a tenant stores (an upload begun, completed or
// given up, a file trashed, restored or purged) changes the tenant's
// storage account (kanri.FileStorage) in the same transaction as the
// documents it counts, so the account is exact whatever runs concurrently
// or crashes midway.
package files

import (
	"context"
	"strings"
	"sync"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
)

// Catalog is what the file service needs of the service catalog: whether a
// tenant may use the file service, its settings, and the usage recorder.
type Catalog interface {
	Usable(ctx context.Context, tenantID, serviceID string) error
	Assignment(ctx context.Context, tenantID, serviceID string) (*kanri.ServiceAssignment, error)
	AddUsage(ctx context.Context, tenantID, serviceID string, delta map[string]int64) error
	SetUsage(ctx context.Context, tenantID, serviceID string, values map[string]int64) error
}

// Service manages a tenant's files and folders.
type Service struct {
	app.Deps
	Blobs   *blob.Bucket
	Catalog Catalog
	meter   *meter
	touches *toucher
	thumbs  *thumbnailer
	// hooks let tests act at the points where a concurrent request could.
	hooks struct{ beforeFileCommit, afterFolderScan func() }
}

// New returns a file service storing contents in blobs.
func New(d app.Deps, blobs *blob.Bucket, catalog Catalog) *Service {
	s := &Service{Deps: d, Blobs: blobs, Catalog: catalog}
	s.meter = newMeter(catalog, d.Logger)
	s.meter.store = s.Storage
	s.touches = newToucher(d)
	s.thumbs = newThumbnailer(s)
	return s
}

// Run runs the service's background work until ctx ends: the usage meter
// and the writes of lastAccessedAt.
func (s *Service) Run(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.touches.run(ctx); close(done) }()
	s.meter.run(ctx)
	<-done
	return nil
}

// newID returns a new document id with the given prefix.
func newID(prefix string) string { return prefix + strings.ReplaceAll(uuid.NewString(), "-", "") }

// Limits returns the tenant's file-service limits: its assignment's
// settings, with the defaults where there are none.
func (s *Service) Limits(ctx context.Context, tenantID string) (kanri.FileLimits, error) {
	a, err := s.Catalog.Assignment(ctx, tenantID, kanri.FileServiceID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return kanri.FileLimitsOf(nil), nil
	}
	if err != nil {
		return kanri.FileLimits{}, err
	}
	return kanri.FileLimitsOf(a.Config), nil
}

// Storage returns the tenant's storage account (zero when nothing was ever
// stored).
func (s *Service) Storage(ctx context.Context, tenantID string) (*kanri.FileStorage, error) {
	st, err := s.Store.Tenant(tenantID).FileStorage().Get(ctx, kanri.FileStorageID)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return &kanri.FileStorage{Doc: kanri.Doc{ID: kanri.FileStorageID}}, nil
	}
	return st, err
}

// StorageOf returns the storage accounts of the tenants ids, by tenant id:
// one point read per tenant (a page of the operator's tenant list), a few
// at a time.
func (s *Service) StorageOf(ctx context.Context, ids []string) (map[string]*kanri.FileStorage, error) {
	out := make(map[string]*kanri.FileStorage, len(ids))
	var mu sync.Mutex
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, id := range ids {
		g.Go(func() error {
			st, err := s.Storage(ctx, id)
			if err != nil {
				return err
			}
			mu.Lock()
			out[id] = st
			mu.Unlock()
			return nil
		})
	}
	return out, g.Wait()
}

// account changes the tenant's storage account with change and writes it
// in one transaction with the operations ops returns (given the account's
// new state), retrying from a fresh read when another write came first.
// change may refuse with an error; ops may too.
func (s *Service) account(ctx context.Context, tenantID string, change func(*kanri.FileStorage) error, ops func() ([]docstore.Op, error)) (*kanri.FileStorage, error) {
	ten := s.Store.Tenant(tenantID)
	repo := ten.FileStorage()
	return store.Retry(ctx, func() (*kanri.FileStorage, error) {
		st, err := s.Storage(ctx, tenantID)
		if err != nil {
			return nil, err
		}
		if err := change(st); err != nil {
			return nil, err
		}
		st.UpdatedAt = kanri.NewTime(s.Now())
		kind := docstore.OpReplace
		if st.ETag == "" {
			kind = docstore.OpCreate
		}
		accountOp, err := repo.Op(kind, st)
		if err != nil {
			return nil, err
		}
		rest, err := ops()
		if err != nil {
			return nil, err
		}
		_, err = ten.Batch(ctx, kanri.ContainerFiles, append([]docstore.Op{accountOp}, rest...))
		if err != nil {
			if kanri.IsCode(err, kanri.ESTALE) || (kind == docstore.OpCreate && kanri.IsCode(err, kanri.ECONFLICT)) {
				return nil, store.LostRace(err)
			}
			return nil, err
		}
		return st, nil
	})
}

// checkID refuses an id that cannot be one of the tenant's documents of
// the given prefix, as not found.
func checkID(tenantID, id, prefix string) error {
	if !strings.HasPrefix(id, prefix) || docstore.CheckKey(tenantID, id) != nil {
		return kanri.E(kanri.ENOTFOUND, "error.not_found")
	}
	return nil
}

// ptr returns a pointer to id, or nil for "" (the top level).
func ptr(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}

// deref returns *p, or "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
