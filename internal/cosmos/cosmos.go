// Package cosmos implements the document store port on Azure Cosmos DB
// (NoSQL API) through the azcosmos SDK.
//
// Every container is partitioned by /tenantId. Tenant-scoped queries pass
// the partition key and also filter c.tenantId in SQL, so that a query can
// never read another tenant's data even if a partition key were lost on the
// way. All values reach the service as query parameters. Paging uses the
// service's continuation tokens only: no OFFSET/LIMIT, and no ORDER BY or
// aggregates across partitions, which the SDK cannot execute.
package cosmos

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// Config says how to reach a Cosmos DB account.
type Config struct {
	// Endpoint is the account's URL, such as https://acct.documents.azure.com:443/.
	Endpoint string
	// Key is the account's primary or secondary key.
	Key string
	// Database is the database to use; kanri.DatabaseName when empty.
	Database string
	// InsecureSkipVerify turns off TLS certificate checks. It exists for a
	// local test server with a self-signed certificate and must never be
	// set against Azure.
	InsecureSkipVerify bool
}

// Store is a Cosmos DB database holding Kanri's containers.
type Store struct {
	db         *azcosmos.DatabaseClient
	containers map[string]*azcosmos.ContainerClient
	specs      map[string]docstore.Spec
}

// Open connects to the account, creates the database and the containers
// in specs if they are missing, and returns the store.
func Open(ctx context.Context, cfg Config, specs []docstore.Spec) (*Store, error) {
	if cfg.Endpoint == "" || cfg.Key == "" {
		return nil, errors.New("cosmos: endpoint and key are required")
	}
	if cfg.Database == "" {
		cfg.Database = kanri.DatabaseName
	}
	cred, err := azcosmos.NewKeyCredential(cfg.Key)
	if err != nil {
		return nil, fmt.Errorf("cosmos: key: %w", err)
	}
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	if cfg.InsecureSkipVerify {
		transport.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	client, err := azcosmos.NewClientWithKey(cfg.Endpoint, cred, &azcosmos.ClientOptions{
		ClientOptions: azcore.ClientOptions{
			Transport: &http.Client{Transport: transport},
			Retry:     policy.RetryOptions{MaxRetries: 3, TryTimeout: 30 * time.Second},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("cosmos: client: %w", err)
	}
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: cfg.Database}, nil); err != nil && status(err) != http.StatusConflict {
		return nil, fmt.Errorf("cosmos: create database %s at %s: %w", cfg.Database, cfg.Endpoint, err)
	}
	db, err := client.NewDatabase(cfg.Database)
	if err != nil {
		return nil, fmt.Errorf("cosmos: database: %w", err)
	}
	s := &Store{db: db, containers: map[string]*azcosmos.ContainerClient{}, specs: map[string]docstore.Spec{}}
	for _, sp := range specs {
		created := true
		if _, err := db.CreateContainer(ctx, containerProperties(sp), nil); status(err) == http.StatusConflict {
			created = false
		} else if err != nil {
			return nil, fmt.Errorf("cosmos: create container %s: %w", sp.Name, err)
		}
		c, err := db.NewContainer(sp.Name)
		if err != nil {
			return nil, fmt.Errorf("cosmos: container %s: %w", sp.Name, err)
		}
		if !created {
			if err := upgrade(ctx, c, sp); err != nil {
				return nil, fmt.Errorf("cosmos: upgrade container %s: %w", sp.Name, err)
			}
		}
		s.containers[sp.Name] = c
		s.specs[sp.Name] = sp
	}
	return s, nil
}

// containerProperties turns a spec into Cosmos container settings. TTL is
// always on (-1: documents live forever unless their own ttl says
// otherwise), so that per-document ttl works in every container.
func containerProperties(sp docstore.Spec) azcosmos.ContainerProperties {
	ttl := int32(-1)
	if sp.DefaultTTL > 0 {
		ttl = int32(sp.DefaultTTL / time.Second)
	}
	ip := &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent}
	for _, p := range sp.Indexing.IncludedPaths {
		ip.IncludedPaths = append(ip.IncludedPaths, azcosmos.IncludedPath{Path: p})
	}
	for _, p := range sp.Indexing.ExcludedPaths {
		ip.ExcludedPaths = append(ip.ExcludedPaths, azcosmos.ExcludedPath{Path: p})
	}
	for _, ci := range sp.CompositeIndexes() {
		var idx []azcosmos.CompositeIndex
		for _, p := range ci {
			order := azcosmos.CompositeIndexAscending
			if desc, ok := strings.CutPrefix(p, "-"); ok {
				p, order = desc, azcosmos.CompositeIndexDescending
			}
			idx = append(idx, azcosmos.CompositeIndex{Path: p, Order: order})
		}
		ip.CompositeIndexes = append(ip.CompositeIndexes, idx)
	}
	return azcosmos.ContainerProperties{
		ID:                     sp.Name,
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/tenantId"}},
		DefaultTimeToLive:      &ttl,
		IndexingPolicy:         ip,
	}
}

// upgrade brings an existing container's settings to its spec: a version
// that adds a composite index (which an ORDER BY needs on Azure) or an
// excluded path (a secret that must not be indexed), or a container whose
// TTL is off, has its settings replaced with what it had plus what it
// lacks. Azure then re-indexes in the background; the partition key cannot
// change and is left alone. Paths and a default TTL the container has
// beyond the spec are kept, so a container tuned by hand is only added to
// (but for settings this SDK does not read, such as computed properties,
// which Kanri never sets).
func upgrade(ctx context.Context, c *azcosmos.ContainerClient, sp docstore.Spec) error {
	resp, err := c.Read(ctx, nil)
	if err != nil {
		return err
	}
	props := resp.ContainerProperties
	if props == nil {
		return errors.New("no container properties")
	}
	want := containerProperties(sp)
	if !mergePolicy(props, want) {
		return nil
	}
	_, err = c.Replace(ctx, *props, nil)
	return err
}

// mergePolicy adds to have what want has and have lacks: excluded paths,
// composite indexes, and TTL where it is off (the documents' own ttl needs
// it on). A default TTL the container has is kept: an operator may keep
// audit records longer than the spec's default. It reports whether it
// added anything.
func mergePolicy(have *azcosmos.ContainerProperties, want azcosmos.ContainerProperties) bool {
	changed := false
	if have.DefaultTimeToLive == nil {
		have.DefaultTimeToLive, changed = want.DefaultTimeToLive, true
	}
	if have.IndexingPolicy == nil {
		have.IndexingPolicy = want.IndexingPolicy
		return true
	}
	ip := have.IndexingPolicy
	for _, p := range want.IndexingPolicy.ExcludedPaths {
		if !slices.ContainsFunc(ip.ExcludedPaths, func(e azcosmos.ExcludedPath) bool { return samePath(e.Path, p.Path) }) {
			ip.ExcludedPaths, changed = append(ip.ExcludedPaths, p), true
		}
	}
	for _, ci := range want.IndexingPolicy.CompositeIndexes {
		if !slices.ContainsFunc(ip.CompositeIndexes, func(e []azcosmos.CompositeIndex) bool {
			return slices.EqualFunc(e, ci, func(a, b azcosmos.CompositeIndex) bool {
				return samePath(a.Path, b.Path) && sameOrder(a.Order, b.Order)
			})
		}) {
			ip.CompositeIndexes, changed = append(ip.CompositeIndexes, ci), true
		}
	}
	return changed
}

// sameOrder compares composite index orders; none is ascending.
func sameOrder(a, b azcosmos.CompositeIndexOrder) bool {
	norm := func(o azcosmos.CompositeIndexOrder) string {
		if o == "" {
			return string(azcosmos.CompositeIndexAscending)
		}
		return strings.ToLower(string(o))
	}
	return norm(a) == norm(b)
}

// samePath compares index paths as Cosmos DB does: it may quote a
// segment ("/\"_etag\"/?") or drop the default ascending order.
func samePath(a, b string) bool {
	unquote := func(p string) string { return strings.ReplaceAll(p, `"`, "") }
	return unquote(a) == unquote(b)
}

// Container returns the named container. It panics if the store was not
// opened with that container, which is a programming error.
func (s *Store) Container(name string) docstore.Container {
	c, ok := s.containers[name]
	if !ok {
		panic("cosmos: unknown container " + name)
	}
	return &container{c: c, spec: s.specs[name]}
}

// Ping reads the database's properties.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.db.Read(ctx, nil)
	return err
}

// Close releases nothing: the SDK's connections are pooled by net/http.
func (s *Store) Close() error { return nil }

// status returns the HTTP status of a service error, or 0.
func status(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

// charge adds a call's request units to its context's docstore.Charge:
// those of its response, or those a refused call's headers give (a read
// that finds nothing costs units too).
func charge(ctx context.Context, units float32, err error) {
	var re *azcore.ResponseError
	if err != nil && errors.As(err, &re) && re.RawResponse != nil {
		if u, perr := strconv.ParseFloat(re.RawResponse.Header.Get("x-ms-request-charge"), 32); perr == nil {
			units = float32(u)
		}
	}
	if units > 0 {
		docstore.AddCharge(ctx, float64(units))
	}
}

// mapError turns service errors into domain errors.
func mapError(err error) error {
	if err == nil {
		return nil
	}
	switch status(err) {
	case http.StatusNotFound:
		return docstore.ErrNotFound(fmt.Errorf("cosmos: %w", err))
	case http.StatusConflict:
		return docstore.ErrConflict(fmt.Errorf("cosmos: %w", err))
	case http.StatusPreconditionFailed:
		return docstore.ErrStale(fmt.Errorf("cosmos: %w", err))
	case http.StatusBadRequest:
		return docstore.ErrInvalid(fmt.Errorf("cosmos: %w", err))
	}
	return fmt.Errorf("cosmos: %w", err)
}
