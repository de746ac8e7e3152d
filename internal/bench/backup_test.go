package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/disk"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/docstore/docstoretest"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/seal"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
)

// The backup benchmark (`make bench-backups`): BenchmarkBackups.

// backupChildEnv, when set (to a backupPhase in JSON), makes
// TestBackupChild run one phase of BenchmarkBackups in this process, so
// that the phase's peak memory is its own and not the seed's.
const backupChildEnv = "KANRI_BENCH_BACKUP_CHILD"

// The size of the tenant at scale 1 (issue 19): 10,000 users, 100,000
// audit records, 100,000 messages in backupChannels channels and 1 GB of
// files of backupFileSize bytes.
const (
	backupUsers    = 10_000
	backupAudit    = 100_000
	backupMessages = 100_000
	backupFiles    = 100
	backupChannels = 5
	backupFileSize = 10 << 20
)

// backupTenantName is the benchmarked tenant's name.
const backupTenantName = "backups"

// BenchmarkBackups measures a tenant's backup and restore on the embedded
// store (bolt in a temporary directory, file contents and archives in a
// local blob directory beside it), at each scale KANRI_BENCH_BACKUP_SCALES
// lists (comma-separated fractions of the tenant of issue 19, 10,000
// users, 100,000 audit records, 100,000 messages and 1 GB of files; 0.01
// unless set, so that a plain -bench run stays short). It needs
// -benchtime 1x: each step runs once, in order, on the data the earlier
// ones left.
//
// For each scale it seeds the tenant (documents written in batches of up
// to 1,000, the users' password hash a fixed one, the files' contents
// pseudo-random bytes stored as an upload leaves them) and then measures,
// each step in a child process (this test binary run again, see
// TestBackupChild) on the closed store:
//
//   - Full: the first backup of every part (RunNow, then Wait);
//   - Second: a backup of every part after 1% changed (a hundredth of the
//     users edited, a hundredth more audit records and messages, and one
//     file's content replaced): its file contents are those the first
//     archive lacks;
//   - DryRun: what restoring every part of the first archive would change,
//     and then its second page of changes (next_page_ms), served from the
//     result the instance keeps;
//   - Restore: restoring every part of the first archive (Restore, then
//     Wait), which takes the tenant back before the 1% change: the edited
//     users and the replaced file are written back, the added messages
//     removed (added audit records stay);
//   - RestoreNewTenant: restoring the first archive into a new tenant
//     (RestoreAsNewTenant), unless KANRI_BENCH_BACKUP_NEW_TENANT=0: every
//     document written again and every file content copied.
//
// Each step reports wall_s (the step as the child timed it, from the
// call to the end of the background work; ns/op adds the child's start)
// and cpu_s (the child's CPU time, user and system: steadier than wall_s
// on a shared machine); the child's memory: base_rss_MiB (its VmRSS once
// the store is open, before the step), peak_rss_MiB (its VmHWM at the
// step's end: its peak resident set, which includes the pages of the
// store's memory map that it read), peak_anon_MiB and peak_file_MiB (its
// anonymous memory, the heap and stacks, and its mapped files, sampled
// every 10 ms in /proc/self/status), peak_heap_MiB (the Go heap's
// objects, live or not yet collected, sampled), peak_live_MiB (the heap
// the latest collection found live, sampled) and heap_alloc_MiB (what the
// step allocated in all); and what the step did: bytes written into the
// blob store (written_MiB, the run's BytesWritten), the archive's size
// (archive_MiB, BackupSize), the file contents it stored (new_files), the
// changes a dry run found, the documents a restore wrote and removed.
// Full also reports seed_s, how long the seed took, and store_MiB, the
// size of the store's file after it.
//
// The peak is not getrusage's ru_maxrss of the child: os/exec starts a
// child with clone(CLONE_VM|CLONE_VFORK) and exec, and exec records the
// high-water mark of the memory it leaves, the parent's, in the child's
// ru_maxrss, so that it would be at least the seed's peak.
//
// KANRI_BENCH_BACKUP_PROFILE=<dir> has each child write a CPU profile
// (<dir>/users<N>-<step>.cpu.pprof) of its step and a heap profile at its
// end (.heap.pprof).
func BenchmarkBackups(b *testing.B) {
	if f := flag.Lookup("test.benchtime"); f == nil || f.Value.String() != "1x" {
		b.Skip("run with -benchtime 1x: each step runs once, on what the earlier ones left")
	}
	scales := []float64{0.01}
	if v := os.Getenv("KANRI_BENCH_BACKUP_SCALES"); v != "" {
		scales = nil
		for _, s := range strings.Split(v, ",") {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || f <= 0 {
				b.Fatalf("KANRI_BENCH_BACKUP_SCALES: %q: %v", s, err)
			}
			scales = append(scales, f)
		}
	}
	for _, scale := range scales {
		sz := backupSizeAt(scale)
		b.Run(fmt.Sprintf("Users=%d", sz.users), func(b *testing.B) {
			backupSteps(b, sz)
		})
	}
}

// backupSize is the benchmarked tenant's size at one scale.
type backupSize struct {
	users, audit, messages, files int
	fileSize                      int64 // each file's
}

func backupSizeAt(scale float64) backupSize {
	n := func(full int) int { return max(1, int(float64(full)*scale+0.5)) }
	return backupSize{users: n(backupUsers), audit: n(backupAudit), messages: n(backupMessages), files: n(backupFiles), fileSize: backupFileSize}
}

// backupPhase is a step that TestBackupChild runs.
type backupPhase struct {
	Step    string // Full, Second, DryRun, Restore, RestoreNewTenant
	Data    string // the store's directory
	Blobs   string // the blob store's directory
	Tenant  string
	JobID   string
	Archive string // the run whose archive is restored
	Profile string // a file name prefix for profiles, or ""
	Out     string // where the child writes its backupResult
}

// backupResult is what a step measured and did.
type backupResult struct {
	Seconds                       float64
	BaseRSS, PeakAnon, PeakFile   int64
	PeakRSS                       int64
	PeakHeap, PeakLive, HeapAlloc uint64
	// The backup's run.
	HistoryID                string
	BytesWritten, BackupSize int64
	Items                    int
	FilesNew                 int
	// The restore's or the dry run's.
	Written, Removed, Changes int
	Status                    string
	// NextPageSeconds is how long the dry run's second page took (served
	// from the kept result); AnswerSeconds how long its first request
	// took to answer (the result, or its progress).
	NextPageSeconds, AnswerSeconds float64
}

// backupSteps seeds a tenant of size sz and measures its steps.
func backupSteps(b *testing.B, sz backupSize) {
	dir := b.TempDir()
	env := &backupEnv{data: filepath.Join(dir, "data"), blobs: filepath.Join(dir, "blobs")}
	start := time.Now()
	env.seed(b, sz)
	seeded := time.Since(start)
	b.Logf("seeded %d users, %d audit records, %d messages and %d files of %s in %v", sz.users, sz.audit, sz.messages, sz.files, kanri.FormatSize(sz.fileSize), seeded.Round(time.Millisecond))
	profile := os.Getenv("KANRI_BENCH_BACKUP_PROFILE")
	phase := func(step string) backupPhase {
		p := backupPhase{Step: step, Data: env.data, Blobs: env.blobs, Tenant: env.tenant, JobID: env.jobID, Archive: env.first, Out: filepath.Join(dir, step+".json")}
		if profile != "" {
			p.Profile = filepath.Join(profile, fmt.Sprintf("users%d-%s", sz.users, step))
		}
		return p
	}
	b.Run("Full", func(b *testing.B) {
		r := runBackupChild(b, phase("Full"))
		env.first = r.HistoryID
		b.ReportMetric(seeded.Seconds(), "seed_s")
		if fi, err := os.Stat(filepath.Join(env.data, bolt.FileName)); err == nil {
			b.ReportMetric(float64(fi.Size())/(1<<20), "store_MiB")
		}
	})
	if env.first == "" {
		b.Fatal("no first archive")
	}
	start = time.Now()
	env.change(b, sz)
	b.Logf("changed 1%% in %v", time.Since(start).Round(time.Millisecond))
	b.Run("Second", func(b *testing.B) { runBackupChild(b, phase("Second")) })
	b.Run("DryRun", func(b *testing.B) { runBackupChild(b, phase("DryRun")) })
	b.Run("Restore", func(b *testing.B) { runBackupChild(b, phase("Restore")) })
	if os.Getenv("KANRI_BENCH_BACKUP_NEW_TENANT") != "0" {
		b.Run("RestoreNewTenant", func(b *testing.B) { runBackupChild(b, phase("RestoreNewTenant")) })
	}
}

// runBackupChild runs step p in a child process and reports what it
// measured.
func runBackupChild(b *testing.B, p backupPhase) backupResult {
	job, _ := json.Marshal(p)
	cmd := exec.Command(os.Args[0], "-test.run=^TestBackupChild$", "-test.count=1", "-test.timeout=0")
	cmd.Env = append(os.Environ(), backupChildEnv+"="+string(job))
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("step %s: %v\n%s", p.Step, err, out)
	}
	body, err := os.ReadFile(p.Out)
	if err != nil {
		b.Fatalf("step %s: %v\n%s", p.Step, err, out)
	}
	var r backupResult
	if err := json.Unmarshal(body, &r); err != nil {
		b.Fatal(err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	b.ReportMetric(r.Seconds, "wall_s")
	b.ReportMetric(float64(r.BaseRSS)/(1<<20), "base_rss_MiB")
	b.ReportMetric(float64(r.PeakRSS)/(1<<20), "peak_rss_MiB")
	b.ReportMetric(float64(r.PeakAnon)/(1<<20), "peak_anon_MiB")
	b.ReportMetric(float64(r.PeakFile)/(1<<20), "peak_file_MiB")
	b.ReportMetric(float64(r.PeakHeap)/(1<<20), "peak_heap_MiB")
	b.ReportMetric(float64(r.PeakLive)/(1<<20), "peak_live_MiB")
	b.ReportMetric(float64(r.HeapAlloc)/(1<<20), "heap_alloc_MiB")
	b.ReportMetric(time.Duration(ru.Utime.Nano()+ru.Stime.Nano()).Seconds(), "cpu_s")
	switch p.Step {
	case "Full", "Second":
		b.ReportMetric(float64(r.BytesWritten)/(1<<20), "written_MiB")
		b.ReportMetric(float64(r.BackupSize)/(1<<20), "archive_MiB")
		b.ReportMetric(float64(r.Items), "items")
		b.ReportMetric(float64(r.FilesNew), "new_files")
	case "DryRun":
		b.ReportMetric(float64(r.Changes), "changes")
		b.ReportMetric(r.NextPageSeconds*1000, "next_page_ms")
		b.ReportMetric(r.AnswerSeconds*1000, "answer_ms")
	default:
		b.ReportMetric(float64(r.Written), "docs_written")
		b.ReportMetric(float64(r.Removed), "docs_removed")
	}
	b.Logf("%s: %+v", p.Step, r)
	return r
}

// backupEnv is the benchmarked tenant's data: the store's and the blob
// store's directories, the tenant, its backup job and its first run.
type backupEnv struct {
	data, blobs string
	tenant      string
	jobID       string
	first       string
	ownerID     string
	channels    []string
	seqs        []int64
	fileSize    int64 // each file's content
}

// openBackup opens the store in dir and the blob store in blobDir, and
// the services over them (bcrypt at its lowest cost, logs discarded).
func openBackup(t testing.TB, dataDir, blobDir string) (*bolt.Store, *store.Store, *wiring.Set, *blob.Bucket) {
	ds, err := bolt.Open(dataDir, features.Specs(), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	drv, err := disk.New(blobDir)
	if err != nil {
		ds.Close()
		t.Fatal(err)
	}
	blobs := blob.New(drv)
	st := store.New(ds, nil, features.Schema())
	svcs := wiring.New(st, slog.New(slog.DiscardHandler), nil, wiring.Options{Roles: features.Roles(), Hasher: auth.Hasher{Cost: bcrypt.MinCost}, Blobs: blobs, ArchiveKeys: benchArchiveKeys(t, dataDir)})
	return ds, st, svcs, blobs
}

// benchArchiveKeys returns the archive key kept in dataDir, made on first
// use: each step runs in a process of its own and opens the archives the
// first sealed.
func benchArchiveKeys(t testing.TB, dataDir string) *seal.Keys {
	file := filepath.Join(dataDir, "bench-archive.keys")
	text, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		text = []byte(seal.NewKey())
		err = os.WriteFile(file, text, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
	keys, err := seal.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// backupPasswordHash is every seeded user's password hash (bcrypt is not
// computed 10,000 times).
const backupPasswordHash = "$2a$12$abcdefghijklmnopqrstuuB6K0Xz5m0m8y1pT1w0dYQ6Q5u3b0Yqa"

// seed writes the tenant of size sz, its job, and an administrator.
func (e *backupEnv) seed(b *testing.B, sz backupSize) {
	e.fileSize = sz.fileSize
	ds, st, svcs, blobs := openBackup(b, e.data, e.blobs)
	defer ds.Close()
	ctx := system()
	if _, err := svcs.Roles.Seed(ctx); err != nil {
		b.Fatal(err)
	}
	t, err := svcs.Tenants.Create(ctx, kanri.TenantInput{Name: backupTenantName, DisplayName: "Backups", Plan: kanri.PlanStandard, MaxUsers: kanri.MaxUsersMax})
	if err != nil {
		b.Fatal(err)
	}
	e.tenant = t.ID
	for _, id := range []string{kanri.FileServiceID, kanri.MessagingServiceID, kanri.BackupServiceID} {
		if _, _, err := svcs.Catalog.Assign(ctx, t.ID, kanri.AssignmentInput{ServiceID: id, Config: map[string]string{}}); err != nil {
			b.Fatal(err)
		}
	}
	owner, err := svcs.Users.Create(ctx, t.ID, kanri.UserInput{Username: "owner", Email: "owner@backups.example", DisplayName: "Owner", Password: benchPassword})
	if err != nil {
		b.Fatal(err)
	}
	e.ownerID = owner.ID
	ten := st.Tenant(t.ID)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	// Users: the user and its username and e-mail reservations (auth), its
	// membership (tenant); 300 users to a batch.
	start := time.Now()
	for chunk := 1; chunk < sz.users; chunk += 300 {
		var auth, members []docstore.Op
		for i := chunk; i < min(sz.users, chunk+300); i++ {
			at := kanri.NewTime(base.Add(time.Duration(i) * time.Minute))
			u := &kanri.User{
				Doc:      kanri.Doc{ID: fmt.Sprintf("user_%08d", i)},
				Username: fmt.Sprintf("user%05d", i), Email: fmt.Sprintf("user%05d@backups.example", i),
				PasswordHash: backupPasswordHash, DisplayName: fmt.Sprintf("User %d", i), IsActive: i%4 != 0,
				Security: kanri.UserSecurity{LastPasswordChangeAt: at}, CreatedAt: at, UpdatedAt: at, CreatedBy: owner.ID, UpdatedBy: owner.ID,
			}
			ops := make([]docstore.Op, 0, 3)
			for _, op := range []func() (docstore.Op, error){
				func() (docstore.Op, error) { return ten.Users().Op(docstore.OpCreate, u) },
				func() (docstore.Op, error) {
					return ten.Usernames().Op(docstore.OpCreate, &kanri.Username{Doc: kanri.Doc{ID: kanri.UsernameID(u.Username)}, UserID: u.ID})
				},
				func() (docstore.Op, error) {
					return ten.EmailAddresses().Op(docstore.OpCreate, &kanri.EmailAddress{Doc: kanri.Doc{ID: kanri.EmailAddressID(u.Email)}, UserID: u.ID})
				},
			} {
				o, err := op()
				if err != nil {
					b.Fatal(err)
				}
				ops = append(ops, o)
			}
			auth = append(auth, ops...)
			m, err := ten.TenantUsers().Op(docstore.OpCreate, &kanri.TenantUser{Doc: kanri.Doc{ID: kanri.TenantUserID(u.ID)}, UserID: u.ID, Role: kanri.MemberRole, AssignedBy: owner.ID, AssignedAt: at})
			if err != nil {
				b.Fatal(err)
			}
			members = append(members, m)
		}
		if err := docstoretest.Chunked(auth, func(b []docstore.Op) error { _, err := ten.Batch(ctx, kanri.ContainerAuth, b); return err }); err != nil {
			b.Fatal(err)
		}
		if err := docstoretest.Chunked(members, func(b []docstore.Op) error { _, err := ten.Batch(ctx, kanri.ContainerTenant, b); return err }); err != nil {
			b.Fatal(err)
		}
	}
	if err := svcs.Tenants.SetUserCount(ctx, t.ID, sz.users); err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote %d users in %v", sz.users, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	e.writeAudit(b, ten, 0, sz.audit)
	b.Logf("wrote %d audit records in %v", sz.audit, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	me := messaging.Person{UserID: owner.ID, Name: "owner"}
	for c := range backupChannels {
		ch, err := svcs.Messaging.CreateChannel(ctx, t.ID, me, messaging.ChannelInput{Name: fmt.Sprintf("channel-%d", c)})
		if err != nil {
			b.Fatal(err)
		}
		e.channels = append(e.channels, ch.ID)
		e.seqs = append(e.seqs, 0)
	}
	for c := range backupChannels {
		n := sz.messages / backupChannels
		if c < sz.messages%backupChannels {
			n++
		}
		e.writeMessages(b, ten, c, n)
	}
	b.Logf("wrote %d messages in %v", sz.messages, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	var files []docstore.Op
	for i := range sz.files {
		f := e.writeFile(b, blobs, fmt.Sprintf("file_%032d", i), uint64(i))
		op, err := ten.Files().Op(docstore.OpCreate, f)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, op)
	}
	op, err := ten.FileStorage().Op(docstore.OpUpsert, &kanri.FileStorage{Doc: kanri.Doc{ID: kanri.FileStorageID}, Used: int64(sz.files) * sz.fileSize, Files: sz.files})
	if err != nil {
		b.Fatal(err)
	}
	if err := docstoretest.Chunked(append(files, op), func(b []docstore.Op) error { _, err := ten.Batch(ctx, kanri.ContainerFiles, b); return err }); err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote %d files in %v", sz.files, time.Since(start).Round(time.Millisecond))

	j, err := svcs.Backups.CreateJob(audit.WithActor(ctx, audit.Actor{UserID: owner.ID, UserName: "owner", TenantID: t.ID}), t.ID, kanri.BackupJobInput{
		Name: "Nightly", Schedule: "0 3 * * *", Parts: kanri.AllBackupParts, RetentionDays: 30, IsActive: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	e.jobID = j.ID
}

// writeAudit writes n audit records numbered from first, a second apart,
// 1,000 to a batch.
func (e *backupEnv) writeAudit(b *testing.B, ten store.Tenant, first, n int) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for chunk := first; chunk < first+n; chunk += 1000 {
		var ops []docstore.Op
		for i := chunk; i < min(first+n, chunk+1000); i++ {
			u := i % backupUsers
			rec := &kanri.AuditLog{
				Doc:       kanri.Doc{ID: fmt.Sprintf("audit_%010d", i)},
				Timestamp: kanri.NewTime(base.Add(time.Duration(i) * time.Second)), UserID: e.ownerID, UserName: "owner",
				Action:   "user.update",
				Resource: kanri.AuditResource{Type: kanri.AuditUser, ID: fmt.Sprintf("user_%08d", u), Name: fmt.Sprintf("user%05d", u)},
				Details: kanri.AuditDetails{Changes: map[string]kanri.Change{
					"displayName": {Before: fmt.Sprintf("User %d", u), After: fmt.Sprintf("User %d (%d)", u, i)},
				}},
				Metadata: kanri.AuditMetadata{IPAddress: "192.0.2.10", UserAgent: "Mozilla/5.0 (X11; Linux x86_64) Kanri bench"},
				Status:   kanri.AuditSuccess,
			}
			op, err := ten.AuditLogs().Op(docstore.OpCreate, rec)
			if err != nil {
				b.Fatal(err)
			}
			ops = append(ops, op)
		}
		if err := docstoretest.Chunked(ops, func(b []docstore.Op) error {
			_, err := ten.Batch(context.Background(), kanri.ContainerAudit, b)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// writeMessages writes n more messages of the owner into channel c, as
// Post writes them, ten seconds apart and ending now, with a reaction to
// one in twenty, 1,000 to a batch, and moves the channel's number on.
func (e *backupEnv) writeMessages(b *testing.B, ten store.Tenant, c, n int) {
	ctx := context.Background()
	now := time.Now()
	from := e.seqs[c]
	for chunk := 0; chunk < n; chunk += 1000 {
		ops := make([]docstore.Op, 0, 1100)
		for i := chunk; i < min(n, chunk+1000); i++ {
			seq := from + int64(i) + 1
			sent := kanri.NewTime(now.Add(-time.Duration(n-i) * 10 * time.Second))
			m := &kanri.Message{
				Doc:       kanri.Doc{ID: fmt.Sprintf("msg_%d_%012d", sent.UnixMilli(), seq)},
				ChannelID: e.channels[c], SenderID: e.ownerID, SenderName: "owner", SentAt: sent,
				Content:     fmt.Sprintf("message %d: %s %s %s", seq, words[seq%int64(len(words))], words[seq*7%int64(len(words))], words[seq*11%int64(len(words))]),
				Attachments: []string{}, TTL: kanri.MessageTTL(sent.Time, now), Seq: seq,
			}
			op, err := ten.Messages().Op(docstore.OpCreate, m)
			if err != nil {
				b.Fatal(err)
			}
			ops = append(ops, op)
			if seq%20 == 0 {
				op, err := ten.Reactions().Op(docstore.OpCreate, &kanri.Reaction{
					Doc:       kanri.Doc{ID: kanri.ReactionID(m.ID, e.ownerID, "👍")},
					ChannelID: e.channels[c], MessageID: m.ID, MessageSentAt: sent, UserID: e.ownerID, Emoji: "👍",
					CreatedAt: sent, TTL: kanri.MessageTTL(sent.Time, now),
				})
				if err != nil {
					b.Fatal(err)
				}
				ops = append(ops, op)
			}
		}
		if err := docstoretest.Chunked(ops, func(b []docstore.Op) error { _, err := ten.Batch(ctx, kanri.ContainerMessaging, b); return err }); err != nil {
			b.Fatal(err)
		}
	}
	e.seqs[c] = from + int64(n)
	if _, err := ten.Channels().Modify(ctx, e.channels[c], nil, func(ch *kanri.Channel) error {
		ch.LastSeq = e.seqs[c]
		ch.UpdatedAt = kanri.NewTime(now)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
}

// writeFile stores e.fileSize pseudo-random bytes (incompressible)
// from seed as the content of file id, and returns the file as an upload
// leaves it (internal/files/upload.go).
func (e *backupEnv) writeFile(b *testing.B, blobs *blob.Bucket, id string, seed uint64) *kanri.File {
	name := kanri.BlobName(e.tenant, id)
	var key [32]byte
	for i := range 8 {
		key[i] = byte(seed >> (8 * i))
	}
	key[31] = 1
	res, err := blobs.Put(context.Background(), name, io.LimitReader(rand.NewChaCha8(key), e.fileSize))
	if err != nil {
		b.Fatal(err)
	}
	top := ""
	now := kanri.NewTime(time.Now())
	fname := fmt.Sprintf("report-%d.bin", seed)
	return &kanri.File{
		Doc: kanri.Doc{ID: id}, Name: fname, NameKey: kanri.FoldName(fname), Size: res.Size,
		ContentType: "application/octet-stream", FolderID: &top, StorageURL: "blob:" + name,
		Checksum: "sha256:" + res.SHA256, UploadedBy: e.ownerID, UploadedAt: now, UpdatedAt: now,
	}
}

// change changes 1% of the tenant: a hundredth of its users edited, a
// hundredth more audit records and messages (in one channel), and the
// first file's content replaced.
func (e *backupEnv) change(b *testing.B, sz backupSize) {
	ds, st, _, blobs := openBackup(b, e.data, e.blobs)
	defer ds.Close()
	ctx := context.Background()
	ten := st.Tenant(e.tenant)
	for i := 1; i <= max(1, sz.users/100); i++ {
		if _, err := ten.Users().Modify(ctx, fmt.Sprintf("user_%08d", i), nil, func(u *kanri.User) error {
			u.DisplayName += " (edited)"
			u.UpdatedAt = kanri.NewTime(time.Now())
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	e.writeAudit(b, ten, sz.audit, max(1, sz.audit/100))
	e.writeMessages(b, ten, 0, max(1, sz.messages/100))
	id := fmt.Sprintf("file_%032d", 0)
	f := e.writeFile(b, blobs, id, 1<<40)
	if _, err := ten.Files().Modify(ctx, id, nil, func(cur *kanri.File) error {
		cur.Size, cur.Checksum, cur.UpdatedAt = f.Size, f.Checksum, f.UpdatedAt
		return nil
	}); err != nil {
		b.Fatal(err)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// procStatus returns this process's VmRSS, VmHWM, RssAnon and RssFile
// (/proc/self/status) in bytes.
func procStatus(t testing.TB) map[string]int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Error(err)
		return nil
	}
	m := map[string]int64{}
	for line := range strings.Lines(string(status)) {
		key, v, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(key, "Vm") && !strings.HasPrefix(key, "Rss") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		m[key] = kb << 10
	}
	return m
}

// BenchmarkBackupsBesidePocketBase measures a first backup of the same
// data on Kanri and on PocketBase (the peer's backup API, POST
// /api/backups, which zips its data directory: its database and stored
// files): KANRI_BENCH_BACKUP_PEER_MESSAGES messages (50,000 unless set;
// with a reaction on every 20th) and 50 files of 1 MiB. Kanri's tenant
// has its administrator and services besides; its backup runs as
// BenchmarkBackups's Full step does (a child process over the closed
// store, every part). Each reports wall_s, cpu_s (the process doing the
// backup: Kanri's child, PocketBase's server during the request) and
// archive_MiB. It needs -benchtime 1x.
func BenchmarkBackupsBesidePocketBase(b *testing.B) {
	if f := flag.Lookup("test.benchtime"); f == nil || f.Value.String() != "1x" {
		b.Skip("run with -benchtime 1x: each backup is the first of its data")
	}
	sz := backupSize{users: 1, messages: envInt("KANRI_BENCH_BACKUP_PEER_MESSAGES", 50_000), files: 50, fileSize: 1 << 20}
	b.Run("Kanri", func(b *testing.B) {
		dir := b.TempDir()
		env := &backupEnv{data: filepath.Join(dir, "data"), blobs: filepath.Join(dir, "blobs")}
		env.seed(b, sz)
		p := backupPhase{Step: "Full", Data: env.data, Blobs: env.blobs, Tenant: env.tenant, JobID: env.jobID, Out: filepath.Join(dir, "full.json")}
		if profile := os.Getenv("KANRI_BENCH_BACKUP_PROFILE"); profile != "" {
			p.Profile = filepath.Join(profile, "peer-Full")
		}
		runBackupChild(b, p)
	})
	b.Run("PocketBase", func(b *testing.B) {
		bin, dir := buildPocketBase(b), b.TempDir()
		seedPocketBase(b, bin, dir, "-messages", strconv.Itoa(sz.messages), "-files", strconv.Itoa(sz.files), "-file-size", strconv.FormatInt(sz.fileSize, 10))
		s := startPocketBase(b, bin, dir)
		token := pocketBaseSignIn(b, s.base)
		cpu0, start := s.cpu(b), time.Now()
		pocketBaseCall(b, http.MethodPost, s.base+"/api/backups", token, map[string]string{"name": "bench.zip"}, nil)
		wall, cpu := time.Since(start), s.cpu(b)-cpu0
		fi, err := os.Stat(filepath.Join(dir, "backups", "bench.zip"))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(wall.Seconds(), "wall_s")
		b.ReportMetric(cpu.Seconds(), "cpu_s")
		b.ReportMetric(float64(fi.Size())/(1<<20), "archive_MiB")
	})
}
