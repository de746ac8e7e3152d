package userimport_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/bolt/bolttest"
)

// BenchmarkImport1000 imports a file of 1,000 new users, each given a
// role, on the embedded store (passwords hashed at bcrypt's lowest cost,
// as in every test; at cost 12 each new user adds the hash's time): its
// dry run, its import, and the same file's dry run again, in seconds.
func BenchmarkImport1000(b *testing.B) {
	var f strings.Builder
	f.WriteString("username,email,displayName,roles\n")
	for i := range 1000 {
		fmt.Fprintf(&f, "user%04d,user%04d@acme.test,User %d,file-service:member\n", i, i, i)
	}
	var dry, run, again time.Duration
	for b.Loop() {
		e := newEnv(b, bolttest.Open(b), 2000)
		start := time.Now()
		im := e.dryRun(b, f.String(), true)
		dry += time.Since(start)
		start = time.Now()
		if done := e.run(b, im.ID); done.Result.Created != 1000 {
			b.Fatalf("created %d", done.Result.Created)
		}
		run += time.Since(start)
		start = time.Now()
		if im := e.dryRun(b, f.String(), true); im.DryRun.Unchanged != 1000 {
			b.Fatalf("again: %+v", im.DryRun)
		}
		again += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(dry.Seconds()/n, "dry-run-s")
	b.ReportMetric(run.Seconds()/n, "import-s")
	b.ReportMetric(again.Seconds()/n, "again-s")
}
