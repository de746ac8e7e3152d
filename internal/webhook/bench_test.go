package webhook_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/webhook"
)

// BenchmarkDeliveries measures the deliveries' throughput: b.N audit
// records sent to endpoints on a loopback receiver that answers at once,
// over the embedded store, one run. Reported: records delivered per
// second, across the endpoints.
func BenchmarkDeliveries(b *testing.B) {
	for _, endpoints := range []int{1, 8} {
		b.Run(fmt.Sprintf("endpoints=%d", endpoints), func(b *testing.B) {
			f := setup(b)
			var got atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				got.Add(1)
			}))
			defer srv.Close()
			for range endpoints {
				if _, _, err := f.svc.Create(f.ctx, tenant, benchInput(srv.URL)); err != nil {
					b.Fatal(err)
				}
			}
			for i := range b.N {
				f.advance(time.Millisecond)
				f.deps.Audit.Record(f.ctx, audit.Entry{TenantID: tenant, Action: "user.update", Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: fmt.Sprint("user_", i)}})
			}
			b.ResetTimer()
			if err := f.svc.Run(f.ctx); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if n := got.Load(); n != int64(b.N*endpoints) {
				b.Fatalf("delivered %d, want %d", n, b.N*endpoints)
			}
			b.ReportMetric(float64(b.N*endpoints)/b.Elapsed().Seconds(), "deliveries/s")
		})
	}
}

func benchInput(url string) webhook.Input { return webhook.Input{URL: url, Events: "*"} }
