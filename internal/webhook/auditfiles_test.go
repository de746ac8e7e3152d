package webhook_test

import (
	"bufio"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/webhook"
)

func TestDailyAuditFiles(t *testing.T) { forEachStore(t, testDailyAuditFiles) }

func testDailyAuditFiles(t *testing.T, f *fixture) {
	f.now = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	if _, err := f.svc.SetAuditFiles(f.ctx, tenant, true, kanri.Seen{}); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, action := range []string{"user.create", "role.assign", "user.update"} {
		want = append(want, f.event(tenant, action))
	}
	f.event("tenant_other", "user.create")
	write := func() {
		t.Helper()
		if err := f.svc.WriteAuditFiles(f.ctx); err != nil {
			t.Fatal(err)
		}
	}
	read := func(tenantID, day string) ([]string, error) {
		r, err := f.svc.OpenAuditFile(f.ctx, tenantID, day)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		var ids []string
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			var e webhook.Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			ids = append(ids, e.ID)
		}
		return ids, sc.Err()
	}

	write() // the day is not over: nothing
	if files, _ := f.svc.ListAuditFiles(f.ctx, tenant); len(files) != 0 {
		t.Fatalf("files before the day ended: %+v", files)
	}
	f.now = time.Date(2026, 11, 28, 0, 30, 0, 0, time.UTC)
	write()
	write() // again: nothing more
	files, err := f.svc.ListAuditFiles(f.ctx, tenant)
	if err != nil || len(files) != 1 || files[0].Day != "2026-11-27" {
		t.Fatalf("files: %+v, %v", files, err)
	}
	got, err := read(tenant, "2026-11-27")
	if err != nil {
		t.Fatal(err)
	}
	// The day's records, oldest first: with the setting's own record.
	if !slices.Equal(got[len(got)-3:], want) {
		t.Errorf("file: %v, want it to end with %v", got, want)
	}
	for _, tc := range []struct{ tenant, day string }{
		{"tenant_other", "2026-11-27"}, {tenant, "2026-11-26"}, {tenant, "../../x"}, {tenant, "2026-11-27.ndjson"},
	} {
		if _, err := read(tc.tenant, tc.day); !kanri.IsCode(err, kanri.ENOTFOUND) {
			t.Errorf("%s's %s: got %v, want ENOTFOUND", tc.tenant, tc.day, err)
		}
	}

	// Days missed while no instance ran are written; the file of an
	// erased person is written again; files leave after 90 days.
	f.now = time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	write()
	files, _ = f.svc.ListAuditFiles(f.ctx, tenant)
	if len(files) != 4 || files[0].Day != "2026-11-30" {
		t.Fatalf("after three days: %+v", files)
	}
	if err := f.svc.ForgetAuditFiles(f.ctx, tenant); err != nil {
		t.Fatal(err)
	}
	if files, _ := f.svc.ListAuditFiles(f.ctx, tenant); len(files) != 0 {
		t.Fatalf("after an erasure: %+v", files)
	}
	write()
	if got, err := read(tenant, "2026-11-27"); err != nil || len(got) < 3 {
		t.Errorf("written again: %v, %v", got, err)
	}
	f.now = f.now.AddDate(0, 0, 91)
	write()
	files, _ = f.svc.ListAuditFiles(f.ctx, tenant)
	if len(files) == 0 || files[len(files)-1].Day < "2026-12-01" {
		t.Errorf("after 91 days the oldest file is %+v", files[len(files)-1])
	}

	// Turned off: nothing more is written.
	a, _ := f.svc.AuditFilesOf(f.ctx, tenant)
	if _, err := f.svc.SetAuditFiles(f.ctx, tenant, false, kanri.Seen{ETag: a.ETag, State: "enabled"}); err != nil {
		t.Fatal(err)
	}
	n := len(files)
	f.now = f.now.AddDate(0, 0, 2)
	write()
	if files, _ := f.svc.ListAuditFiles(f.ctx, tenant); len(files) != n {
		t.Errorf("turned off, %d files became %d", n, len(files))
	}
	if _, err := f.svc.SetAuditFiles(f.ctx, tenant, true, kanri.Seen{ETag: a.ETag, State: "enabled"}); !kanri.IsCode(err, kanri.ESTALE) {
		t.Errorf("turned on as seen before: got %v, want ESTALE", err)
	}
}
