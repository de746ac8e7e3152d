// Package bench measures the document store port on every backend at the
// scale the product asks for (docs/data-model.md, "Scale": 100 tenants ×
// 1,000 users). Run it with `make bench`.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/cosmos/cosmostest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/kanri"
)

const (
	usersPerTenant = 1000
	pageSize       = 20
	// deepPage is the page the "deep" benchmark reads: items 781–800 of
	// the tenant's active users in creation order.
	deepPage = 30
)

var statuses = []bool{true, true, true, false} // three in four users are active

// load fills st with the test data of that scale, one batch per 100 users.
func load(b *testing.B, st docstore.Store, tenants int) {
	b.Helper()
	ctx := context.Background()
	c := st.Container(kanri.ContainerAuth)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	start := time.Now()
	for t := range tenants {
		pk := fmt.Sprintf("tenant_%03d", t)
		for chunk := 0; chunk < usersPerTenant; chunk += 100 {
			ops := make([]docstore.Op, 0, 100)
			for i := chunk; i < chunk+100; i++ {
				u := kanri.User{
					Doc:          kanri.Doc{ID: fmt.Sprintf("user_%04d", i), TenantID: pk, Type: kanri.TypeUser, SchemaVersion: kanri.UserSchemaVersion},
					Username:     fmt.Sprintf("user%04d@t%03d.example.com", i, t),
					Email:        fmt.Sprintf("user%04d@t%03d.example.com", i, t),
					PasswordHash: "$2a$12$abcdefghijklmnopqrstuuB6K0Xz5m0m8y1pT1w0dYQ6Q5u3b0Yqa",
					DisplayName:  fmt.Sprintf("User %d of tenant %d", i, t),
					IsActive:     statuses[i%len(statuses)],
					CreatedAt:    kanri.NewTime(base.Add(time.Duration(i) * time.Minute)),
					UpdatedAt:    kanri.NewTime(base),
				}
				body, err := json.Marshal(u)
				if err != nil {
					b.Fatal(err)
				}
				ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: body})
			}
			if err := docstoretest.Chunked(ops, func(b []docstore.Op) error { _, err := c.Batch(ctx, pk, b); return err }); err != nil {
				b.Fatalf("load %s: %v", pk, err)
			}
		}
	}
	b.Logf("loaded %d users in %d tenants in %v", tenants*usersPerTenant, tenants, time.Since(start).Round(time.Millisecond))
}

func activeUsers(cont string) docstore.Query {
	return docstore.Query{
		Type:         kanri.TypeUser,
		Where:        []docstore.Filter{docstore.Eq("isActive", true)},
		OrderBy:      "createdAt",
		Limit:        pageSize,
		Continuation: cont,
	}
}

// run runs the three measured operations against a loaded store.
func run(b *testing.B, st docstore.Store, tenants int) {
	ctx := context.Background()
	c := st.Container(kanri.ContainerAuth)

	b.Run("PointRead", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			pk := fmt.Sprintf("tenant_%03d", i%tenants)
			if _, err := c.Read(ctx, pk, fmt.Sprintf("user_%04d", (i*7)%usersPerTenant)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("FirstPageByStatus", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p, err := c.Query(ctx, fmt.Sprintf("tenant_%03d", i%tenants), activeUsers(""))
			if err != nil || len(p.Items) != pageSize {
				b.Fatalf("got %d items, %v", len(p.Items), err)
			}
			i++
		}
	})
	// A search as the user list makes it: users whose username, e-mail or
	// display name contains "user09", by username (users 900–999: the
	// walk passes 900 users that cannot match first).
	b.Run("Search", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p, err := c.Query(ctx, fmt.Sprintf("tenant_%03d", i%tenants), docstore.Query{
				Type: kanri.TypeUser, OrderBy: "username", Limit: pageSize,
				Where: []docstore.Filter{docstore.Or(docstore.Contains("username", "user09"), docstore.Contains("email", "user09"), docstore.Contains("displayName", "user09"))},
			})
			if err != nil || len(p.Items) != pageSize {
				b.Fatalf("got %d items, %v", len(p.Items), err)
			}
			i++
		}
	})
	// The token of page deepPage, found once per tenant by paging there.
	tokens := make([]string, tenants)
	for t := range tenants {
		q := activeUsers("")
		for range deepPage - 1 {
			p, err := c.Query(ctx, fmt.Sprintf("tenant_%03d", t), q)
			if err != nil {
				b.Fatal(err)
			}
			q.Continuation = p.Continuation
		}
		tokens[t] = q.Continuation
	}
	b.Run("DeepPageByStatus", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			t := i % tenants
			p, err := c.Query(ctx, fmt.Sprintf("tenant_%03d", t), activeUsers(tokens[t]))
			if err != nil || len(p.Items) != pageSize {
				b.Fatalf("got %d items, %v", len(p.Items), err)
			}
			i++
		}
	})
}

func BenchmarkEmbedded(b *testing.B) {
	st := bolttest.Open(b)
	load(b, st, 100)
	run(b, st, 100)
}

// BenchmarkCosmos runs against the local Cosmos test server with 10
// tenants, not 100: that server ignores partitions and evaluates every query
// in JavaScript over every document of the container, so at 100,000 users a
// sorted query takes longer than the SDK's 30-second try timeout. Its
// figures measure the emulator, not Azure; they show that the backend's
// code path works at scale and what it costs in the client.
func BenchmarkCosmos(b *testing.B) {
	srv := cosmostest.Start(b)
	st := cosmostest.OpenNew(b, srv)
	load(b, st, 10)
	run(b, st, 10)
}
