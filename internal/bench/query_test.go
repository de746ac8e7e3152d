package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/search"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/user"
)

// envInt returns the positive integer in the environment variable name,
// or def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkEmbeddedAuditQueries measures the audit page's queries as the
// audit service makes them (recorded through the port, then replayed): the
// first page, and the first page filtered by a user (by username, which
// the service turns into "userId or userName") who made 1 record in 1,000,
// in a tenant of 1,000 records and one of KANRI_BENCH_AUDIT (1,000,000
// unless set).
func BenchmarkEmbeddedAuditQueries(b *testing.B) {
	big := envInt("KANRI_BENCH_AUDIT", 1_000_000)
	ds := bolttest.Open(b)
	rec := docstoretest.NewRecorder(ds)
	st := store.New(rec, nil, features.Schema())
	log := audit.New(st, nil, nil)
	ctx := context.Background()
	for _, n := range []int{1000, big} {
		pk := fmt.Sprintf("tenant_q%d", n)
		loadAuditBy(b, ds.Container(kanri.ContainerAudit), pk, n, func(i int) (string, string) {
			if i%1000 == 500 { // 1 record in 1,000
				return "user_rare", "rare"
			}
			return fmt.Sprintf("user_%02d", i%10), fmt.Sprintf("u%02d", i%10)
		})
		if err := st.Tenant(pk).Usernames().Create(ctx, &kanri.Username{Doc: kanri.Doc{ID: kanri.UsernameID("rare")}, UserID: "user_rare"}); err != nil {
			b.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			f    audit.Filter
			want int
		}{
			{"FirstPage", audit.Filter{}, 50},
			{"RareUser", audit.Filter{User: "rare"}, min(50, n/1000)},
		} {
			rec.Queries()
			if _, _, err := log.Query(ctx, pk, tc.f); err != nil {
				b.Fatal(err)
			}
			queries := rec.Queries()
			q := queries[len(queries)-1] // after the username lookup
			b.Run(fmt.Sprintf("Records=%d/%s", n, tc.name), func(b *testing.B) {
				replay(b, ds, q, tc.want)
			})
		}
	}
}

// replay runs a recorded query b.N times and checks its page's size.
func replay(b *testing.B, ds docstore.Store, r docstoretest.Recorded, want int) {
	b.ReportAllocs()
	c := ds.Container(r.Container)
	if ex, ok := c.(docstore.Explainer); ok {
		plan, _ := ex.Explain(r.PartitionKey, r.Query)
		b.Logf("plan: %s %v checking %v", plan.Access, plan.Ranges, plan.Checked)
	}
	for b.Loop() {
		p, err := c.Query(context.Background(), r.PartitionKey, r.Query)
		if err != nil || len(p.Items) != want {
			b.Fatalf("got %d items, want %d: %v", len(p.Items), want, err)
		}
	}
}

// BenchmarkEmbeddedUserSearch measures the users page's search for a word
// that one user has (the query recorded from the user service), in a
// tenant of 1,000 users and one of KANRI_BENCH_USERS (100,000 unless set).
func BenchmarkEmbeddedUserSearch(b *testing.B) {
	big := envInt("KANRI_BENCH_USERS", 100_000)
	ds := bolttest.Open(b)
	rec := docstoretest.NewRecorder(ds)
	d := app.NewDeps(store.New(rec, nil, features.Schema()), nil, nil)
	users := user.New(d, tenant.New(d), role.New(d, features.Roles()), auth.Hasher{Cost: 4})
	for _, n := range []int{1000, big} {
		pk := fmt.Sprintf("tenant_s%d", n)
		loadSearchUsers(b, ds.Container(kanri.ContainerAuth), pk, n)
		for _, tc := range []struct {
			name, q string
			want    int
		}{
			{"RareWord", "zebra", 1},
			{"CommonWord", "user", 20},
			{"JapanesePart", "花子", 1},
		} {
			rec.Queries()
			if _, _, err := users.List(context.Background(), pk, user.ListFilter{Search: tc.q}); err != nil {
				b.Fatal(err)
			}
			queries := rec.Queries()
			b.Run(fmt.Sprintf("Users=%d/%s", n, tc.name), func(b *testing.B) {
				replay(b, ds, queries[len(queries)-1], tc.want)
			})
		}
	}
}

// loadSearchUsers writes n users to partition pk, named userNNNNNN, one of
// them (in the middle) with the rare word "zebra" and the Japanese name
// 山田花子.
func loadSearchUsers(b *testing.B, c docstore.Container, pk string, n int) {
	b.Helper()
	start := time.Now()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for chunk := 0; chunk < n; chunk += 100 {
		var ops []docstore.Op
		for i := chunk; i < min(chunk+100, n); i++ {
			u := kanri.User{
				Doc:      kanri.Doc{ID: fmt.Sprintf("user_%06d", i), TenantID: pk, Type: kanri.TypeUser, SchemaVersion: kanri.UserSchemaVersion},
				Username: fmt.Sprintf("user%06d", i), Email: fmt.Sprintf("user%06d@example.com", i),
				DisplayName: fmt.Sprintf("User %d", i), IsActive: true,
				CreatedAt: kanri.NewTime(base.Add(time.Duration(i) * time.Minute)),
			}
			if i == n/2 {
				u.DisplayName = "Zebra 山田花子"
			}
			_, texts := u.SearchFields()
			u.SearchTerms = search.Terms(texts...)
			body, err := json.Marshal(u)
			if err != nil {
				b.Fatal(err)
			}
			ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: body})
		}
		if _, err := c.Batch(context.Background(), pk, ops); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("loaded %d users in %v", n, time.Since(start).Round(time.Millisecond))
}
