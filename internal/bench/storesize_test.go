package bench

import (
	"cmp"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/kanri/kanri/internal/bolt"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
)

// BenchmarkStoreSize measures what the embedded store takes on disk for
// KANRI_BENCH_STORE_MESSAGES short messages (50,000 unless set) in one
// channel (with a reaction on every 20th, as BenchmarkMessagingChannelPage
// writes them): the file's bytes per message, the bytes of keys and
// values the messaging container's documents and each of its indexes
// hold, how full its pages are, and the file up to its last page in use
// (used_MiB; the file has up to 1 MiB more, room to grow). `kanri check`
// reports the same of a real store.
//
// Beside it (sub-benchmarks PocketBase and PocketBase+FTS5), PocketBase's
// database for the same messages and reactions (internal/bench/pocketbase:
// the messages indexed by channel and number, the reactions by message),
// without and with a full-text index of the messages' text (SQLite's FTS5,
// kept by a trigger), which Kanri's search index does the work of.
func BenchmarkStoreSize(b *testing.B) {
	n := envInt("KANRI_BENCH_STORE_MESSAGES", 50_000)
	b.Run("Kanri", func(b *testing.B) { kanriStoreSize(b, n) })
	pb := buildPocketBase(b)
	for _, peer := range []struct {
		name string
		args []string
	}{
		{"PocketBase", nil},
		{"PocketBase+FTS5", []string{"-search"}},
	} {
		b.Run(peer.name, func(b *testing.B) {
			for b.Loop() {
				got := seedPocketBase(b, pb, b.TempDir(), append(peer.args, "-messages", strconv.Itoa(n))...)
				b.ReportMetric(float64(got.DataBytes)/float64(n), "file_B/message")
				b.ReportMetric(float64(got.DataBytes)/(1<<20), "file_MiB")
				b.ReportMetric(0, "ns/op")
			}
		})
	}
}

func kanriStoreSize(b *testing.B, n int) {
	for b.Loop() {
		dir := b.TempDir()
		p := startInProcessAt(b, dir, false)
		t := p.messagingTenant(b, "size", 1)
		ctx := system()
		owner, err := p.newUser(ctx, t, "owner")
		if err != nil {
			b.Fatal(err)
		}
		c, err := p.svcs.Messaging.CreateChannel(ctx, t.ID, messaging.Person{UserID: owner.ID, Name: "owner"}, messaging.ChannelInput{Name: "size"})
		if err != nil {
			b.Fatal(err)
		}
		loadChannel(b, p.st, t.ID, c.ID, owner.ID, n)
		rep, err := p.bs.Check(false)
		if err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, bolt.FileName))
		if err != nil {
			b.Fatal(err)
		}
		space := rep.Space[kanri.ContainerMessaging]
		var keysAndValues int64
		for _, u := range space {
			keysAndValues += u.Bytes
		}
		pages := rep.Pages[kanri.ContainerMessaging]
		b.ReportMetric(float64(fi.Size())/float64(n), "file_B/message")
		b.ReportMetric(float64(keysAndValues)/float64(n), "data_B/message")
		b.ReportMetric(float64(pages.InUse)/float64(max(pages.Alloc, 1)), "page_fill")
		b.ReportMetric(float64(fi.Size())/(1<<20), "file_MiB")
		b.ReportMetric(float64(rep.Size)/(1<<20), "used_MiB")
		b.ReportMetric(0, "ns/op")
		b.Logf("pages: messaging %.1f of %.1f MiB in use, expiry keys %.1f of %.1f MiB", mib(uint64(pages.InUse)), mib(uint64(pages.Alloc)), mib(uint64(rep.ExpiryPages.InUse)), mib(uint64(rep.ExpiryPages.Alloc)))
		for _, ix := range slices.SortedFunc(maps.Keys(space), func(a, b string) int { return cmp.Compare(space[b].Bytes, space[a].Bytes) }) {
			u := space[ix]
			name := ix
			if name == "" {
				name = "(documents)"
			}
			b.Logf("%-32s %8d entries %10d bytes (%.0f a message)", name, u.Entries, u.Bytes, float64(u.Bytes)/float64(n))
		}
	}
}
