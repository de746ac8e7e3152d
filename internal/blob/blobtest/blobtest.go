// Package blobtest is the contract suite of the blob port: every blob.Driver
// passes it through a blob.Bucket (the local directory in package disk,
// Azure Blob Storage on Azurite in package azureblob), so that the
// application sees one behaviour whichever backend it runs on.
package blobtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/blob"
	"github.com/kanri/kanri/internal/kanri"
)

// Open returns an empty bucket for one test; the suite closes it.
type Open func(t *testing.T) *blob.Bucket

// Run runs every case of the contract, each on a new bucket from open.
func Run(t *testing.T, open Open) {
	cases := []struct {
		name string
		run  func(t *testing.T, ctx context.Context, b *blob.Bucket)
	}{
		{"PutAndReadBack", testPutAndReadBack},
		{"PutEmpty", testPutEmpty},
		{"PutReplaces", testPutReplaces},
		{"FailedPutLeavesNothing", testFailedPutLeavesNothing},
		{"CanceledPutLeavesNothing", testCanceledPutLeavesNothing},
		{"PutSpanningManyBlocks", testPutSpanningManyBlocks},
		{"Missing", testMissing},
		{"Ranges", testRanges},
		{"BlockSize", testBlockSize},
		{"StagedBlocksCommitInOrder", testStagedBlocksCommitInOrder},
		{"RestagingReplacesABlock", testRestagingReplacesABlock},
		{"CommitOfAnUnstagedBlockFails", testCommitOfAnUnstagedBlockFails},
		{"CommitReplacesAndForgetsUnlisted", testCommitReplacesAndForgetsUnlisted},
		{"DiscardBlocks", testDiscardBlocks},
		{"DiscardKeepsACommittedBlob", testDiscardKeepsACommittedBlob},
		{"DeleteRemovesTheBlob", testDeleteRemovesTheBlob},
		{"ListByPrefixInNameOrder", testListByPrefixInNameOrder},
		{"BadNamesAndBlockIDs", testBadNamesAndBlockIDs},
		{"ConcurrentPutsOfOneName", testConcurrentPutsOfOneName},
		{"Tiers", testTiers},
		{"SyncedBlocksCommit", testSyncedBlocksCommit},
		{"File", testFile},
		{"BatchCommits", testBatchCommits},
		{"BatchLeavesNothingPartial", testBatchLeavesNothingPartial},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := open(t)
			t.Cleanup(func() {
				if err := b.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			c.run(t, ctx, b)
		})
	}
}

// random returns n random bytes.
func random(t *testing.T, n int) []byte {
	t.Helper()
	p := make([]byte, n)
	if _, err := rand.Read(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func sum(p []byte) string {
	h := sha256.Sum256(p)
	return hex.EncodeToString(h[:])
}

// put stores data as name and checks what Put reports.
func put(t *testing.T, ctx context.Context, b *blob.Bucket, name string, data []byte) {
	t.Helper()
	res, err := b.Put(ctx, name, bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Put(%s): %v", name, err)
	}
	if got, want := res, (blob.Result{Size: int64(len(data)), SHA256: sum(data)}); got != want {
		t.Fatalf("Put(%s) = %+v, want %+v", name, got, want)
	}
}

// read returns the whole blob name.
func read(t *testing.T, ctx context.Context, b *blob.Bucket, name string) []byte {
	t.Helper()
	return readRange(t, ctx, b, name, 0, -1)
}

func readRange(t *testing.T, ctx context.Context, b *blob.Bucket, name string, off, n int64) []byte {
	t.Helper()
	r, err := b.NewRangeReader(ctx, name, off, n)
	if err != nil {
		t.Fatalf("NewRangeReader(%s, %d, %d): %v", name, off, n, err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	return got
}

// equal fails unless got and want are the same bytes.
func equal(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: got %d bytes (sha256 %s), want %d bytes (sha256 %s)", what, len(got), sum(got)[:12], len(want), sum(want)[:12])
	}
}

// absent fails unless name is not a blob.
func absent(t *testing.T, ctx context.Context, b *blob.Bucket, name string) {
	t.Helper()
	if info, err := b.Stat(ctx, name); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Fatalf("Stat(%s) = %+v, %v; want ENOTFOUND", name, info, err)
	}
	for info, err := range b.List(ctx, "") {
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if info.Name == name {
			t.Fatalf("List yields %s, which should not exist", name)
		}
	}
}

func testPutAndReadBack(t *testing.T, ctx context.Context, b *blob.Bucket) {
	data := random(t, 300_000)
	start := time.Now().Add(-time.Minute)
	put(t, ctx, b, "files/t1/f1", data)
	equal(t, "read back", read(t, ctx, b, "files/t1/f1"), data)
	info, err := b.Stat(ctx, "files/t1/f1")
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "files/t1/f1" || info.Size != int64(len(data)) {
		t.Errorf("Stat = %+v, want name files/t1/f1 and size %d", info, len(data))
	}
	if info.ModTime.Before(start) || info.ModTime.After(time.Now().Add(time.Minute)) {
		t.Errorf("Stat ModTime = %v, want about now", info.ModTime)
	}
}

func testPutEmpty(t *testing.T, ctx context.Context, b *blob.Bucket) {
	put(t, ctx, b, "empty", nil)
	if got := read(t, ctx, b, "empty"); len(got) != 0 {
		t.Errorf("read %d bytes of an empty blob", len(got))
	}
	info, err := b.Stat(ctx, "empty")
	if err != nil || info.Size != 0 {
		t.Errorf("Stat = %+v, %v; want size 0", info, err)
	}
}

func testPutReplaces(t *testing.T, ctx context.Context, b *blob.Bucket) {
	put(t, ctx, b, "x", random(t, 5000))
	second := random(t, 100)
	put(t, ctx, b, "x", second)
	equal(t, "after the second Put", read(t, ctx, b, "x"), second)
}

// failingReader yields n bytes, then fails.
type failingReader struct {
	data []byte
}

var errBroken = errors.New("the client went away")

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errBroken
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func testFailedPutLeavesNothing(t *testing.T, ctx context.Context, b *blob.Bucket) {
	if _, err := b.Put(ctx, "new", &failingReader{random(t, 100_000)}); err == nil {
		t.Fatal("Put from a failing reader succeeded")
	}
	absent(t, ctx, b, "new")

	old := random(t, 1000)
	put(t, ctx, b, "old", old)
	if _, err := b.Put(ctx, "old", &failingReader{random(t, 6<<20)}); err == nil {
		t.Fatal("Put from a failing reader succeeded")
	}
	equal(t, "the earlier blob after a failed Put", read(t, ctx, b, "old"), old)
}

func testCanceledPutLeavesNothing(t *testing.T, ctx context.Context, b *blob.Bucket) {
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := b.Put(cctx, "canceled", bytes.NewReader(random(t, 10_000))); err == nil {
		t.Fatal("Put with a canceled context succeeded")
	}
	absent(t, ctx, b, "canceled")
}

func testPutSpanningManyBlocks(t *testing.T, ctx context.Context, b *blob.Bucket) {
	data := random(t, 9<<20+123) // more than two of any backend's upload blocks
	put(t, ctx, b, "big", data)
	equal(t, "read back", read(t, ctx, b, "big"), data)
	equal(t, "a range across a block boundary", readRange(t, ctx, b, "big", 4<<20-10, 20), data[4<<20-10:4<<20+10])
}

func testMissing(t *testing.T, ctx context.Context, b *blob.Bucket) {
	if _, err := b.Stat(ctx, "nothing/here"); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("Stat: %v, want ENOTFOUND", err)
	}
	if _, err := b.NewRangeReader(ctx, "nothing/here", 0, -1); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("NewRangeReader: %v, want ENOTFOUND", err)
	}
	if err := b.Delete(ctx, "nothing/here"); err != nil {
		t.Errorf("Delete of a missing blob: %v, want nil", err)
	}
	if err := b.DiscardBlocks(ctx, "nothing/here"); err != nil {
		t.Errorf("DiscardBlocks with nothing staged: %v, want nil", err)
	}
}

func testRanges(t *testing.T, ctx context.Context, b *blob.Bucket) {
	data := random(t, 1000)
	put(t, ctx, b, "r", data)
	for _, c := range []struct {
		off, n int64
		want   []byte
	}{
		{0, 10, data[:10]},
		{990, 10, data[990:]},
		{500, -1, data[500:]},
		{995, 100, data[995:]}, // cut at the end
		{1000, -1, nil},        // at the end: empty
		{1000, 5, nil},
		{0, 0, nil},
		{123, 1, data[123:124]},
	} {
		equal(t, fmt.Sprintf("range %d+%d", c.off, c.n), readRange(t, ctx, b, "r", c.off, c.n), c.want)
	}
	for _, off := range []int64{1001, -1} {
		if _, err := b.NewRangeReader(ctx, "r", off, 1); !kanri.IsCode(err, kanri.EINVALID) {
			t.Errorf("NewRangeReader at %d: %v, want EINVALID", off, err)
		}
	}
}

// stage stages data as the block id of name.
func stage(t *testing.T, ctx context.Context, b *blob.Bucket, name, id string, data []byte) {
	t.Helper()
	if err := b.StageBlock(ctx, name, id, data); err != nil {
		t.Fatalf("StageBlock(%s, %s): %v", name, id, err)
	}
}

func commit(t *testing.T, ctx context.Context, b *blob.Bucket, name string, ids ...string) int64 {
	t.Helper()
	n, err := b.CommitBlocks(ctx, name, ids)
	if err != nil {
		t.Fatalf("CommitBlocks(%s, %v): %v", name, ids, err)
	}
	return n
}

func testBlockSize(t *testing.T, ctx context.Context, b *blob.Bucket) {
	size := b.BlockSize()
	if size <= 0 || size > blob.MaxBlockSize {
		t.Fatalf("BlockSize() = %d, want 1 to %d", size, blob.MaxBlockSize)
	}
	data := random(t, size)
	if err := b.StageBlock(ctx, "up/size", "b0", data); err != nil {
		t.Fatalf("StageBlock of BlockSize() bytes: %v", err)
	}
	if n := commit(t, ctx, b, "up/size", "b0"); n != int64(size) {
		t.Errorf("committed %d bytes, want %d", n, size)
	}
}

func testStagedBlocksCommitInOrder(t *testing.T, ctx context.Context, b *blob.Bucket) {
	parts := [][]byte{random(t, 1<<20), random(t, 777), random(t, blob.MaxBlockSize)}
	// Staged out of order, from different goroutines, as parallel PATCHes
	// of different uploads would.
	var wg sync.WaitGroup
	for _, i := range []int{2, 0, 1} {
		wg.Go(func() {
			if err := b.StageBlock(ctx, "up/1", fmt.Sprintf("b%05d", i), parts[i]); err != nil {
				t.Errorf("StageBlock %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	absent(t, ctx, b, "up/1") // staged blocks are not a blob
	n := commit(t, ctx, b, "up/1", "b00000", "b00001", "b00002")
	want := slices.Concat(parts...)
	if n != int64(len(want)) {
		t.Errorf("CommitBlocks size = %d, want %d", n, len(want))
	}
	equal(t, "committed blob", read(t, ctx, b, "up/1"), want)
	// A block list may repeat a block.
	stage(t, ctx, b, "up/2", "a", []byte("ab"))
	stage(t, ctx, b, "up/2", "c", []byte("cd"))
	commit(t, ctx, b, "up/2", "a", "c", "a")
	equal(t, "a repeated block", read(t, ctx, b, "up/2"), []byte("abcdab"))
}

func testRestagingReplacesABlock(t *testing.T, ctx context.Context, b *blob.Bucket) {
	stage(t, ctx, b, "up", "b0", []byte("first"))
	stage(t, ctx, b, "up", "b0", []byte("second"))
	commit(t, ctx, b, "up", "b0")
	equal(t, "restaged block", read(t, ctx, b, "up"), []byte("second"))
}

func testCommitOfAnUnstagedBlockFails(t *testing.T, ctx context.Context, b *blob.Bucket) {
	stage(t, ctx, b, "up", "b0", []byte("zero"))
	if _, err := b.CommitBlocks(ctx, "up", []string{"b0", "b1"}); err == nil {
		t.Fatal("a commit naming a block never staged succeeded")
	}
	absent(t, ctx, b, "up")
}

func testCommitReplacesAndForgetsUnlisted(t *testing.T, ctx context.Context, b *blob.Bucket) {
	put(t, ctx, b, "up", []byte("old contents"))
	stage(t, ctx, b, "up", "b0", []byte("new "))
	stage(t, ctx, b, "up", "b1", []byte("unlisted"))
	stage(t, ctx, b, "up", "b2", []byte("contents"))
	if n := commit(t, ctx, b, "up", "b0", "b2"); n != 12 {
		t.Errorf("size = %d, want 12", n)
	}
	equal(t, "committed", read(t, ctx, b, "up"), []byte("new contents"))
	// The commit forgot the staged blocks: committing again with one of
	// them fails and changes nothing.
	if _, err := b.CommitBlocks(ctx, "up", []string{"b1"}); err == nil {
		t.Error("a block left out of the commit could still be committed")
	}
	equal(t, "after the refused commit", read(t, ctx, b, "up"), []byte("new contents"))
}

func testDiscardBlocks(t *testing.T, ctx context.Context, b *blob.Bucket) {
	stage(t, ctx, b, "up", "b0", []byte("zero"))
	stage(t, ctx, b, "up", "b1", []byte("one"))
	if err := b.DiscardBlocks(ctx, "up"); err != nil {
		t.Fatalf("DiscardBlocks: %v", err)
	}
	absent(t, ctx, b, "up")
	if _, err := b.CommitBlocks(ctx, "up", []string{"b0"}); err == nil {
		t.Error("a discarded block could still be committed")
	}
	absent(t, ctx, b, "up")
	// The name can be staged and committed afresh.
	stage(t, ctx, b, "up", "b0", []byte("again"))
	commit(t, ctx, b, "up", "b0")
	equal(t, "after a discard", read(t, ctx, b, "up"), []byte("again"))
}

func testDiscardKeepsACommittedBlob(t *testing.T, ctx context.Context, b *blob.Bucket) {
	stage(t, ctx, b, "up", "b0", []byte("kept"))
	commit(t, ctx, b, "up", "b0")
	stage(t, ctx, b, "up", "b1", []byte("dropped"))
	if err := b.DiscardBlocks(ctx, "up"); err != nil {
		t.Fatalf("DiscardBlocks: %v", err)
	}
	equal(t, "the committed blob", read(t, ctx, b, "up"), []byte("kept"))
	if _, err := b.CommitBlocks(ctx, "up", []string{"b1"}); err == nil {
		t.Error("a discarded block could still be committed")
	}
	equal(t, "after the refused commit", read(t, ctx, b, "up"), []byte("kept"))
}

func testDeleteRemovesTheBlob(t *testing.T, ctx context.Context, b *blob.Bucket) {
	put(t, ctx, b, "d", []byte("bytes"))
	if err := b.Delete(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	absent(t, ctx, b, "d")
	if err := b.Delete(ctx, "d"); err != nil {
		t.Errorf("a second Delete: %v, want nil", err)
	}
	// A committed blob deleted and made again from new blocks.
	stage(t, ctx, b, "d", "b0", []byte("again"))
	commit(t, ctx, b, "d", "b0")
	equal(t, "after Delete and a new commit", read(t, ctx, b, "d"), []byte("again"))
}

func testListByPrefixInNameOrder(t *testing.T, ctx context.Context, b *blob.Bucket) {
	names := []string{"files/t1/b", "files/t1/a", "files/t10/a", "files/t2/c", "thumbs/t1/a", "files/t1/a.256"}
	for i, name := range names {
		put(t, ctx, b, name, make([]byte, i))
	}
	stage(t, ctx, b, "files/t1/staged", "b0", []byte("not a blob"))
	list := func(prefix string) []string {
		t.Helper()
		var got []string
		for info, err := range b.List(ctx, prefix) {
			if err != nil {
				t.Fatalf("List(%q): %v", prefix, err)
			}
			if want := int64(slices.Index(names, info.Name)); info.Size != want {
				t.Errorf("List(%q): %s has size %d, want %d", prefix, info.Name, info.Size, want)
			}
			got = append(got, info.Name)
		}
		return got
	}
	for _, c := range []struct {
		prefix string
		want   []string
	}{
		{"files/t1/", []string{"files/t1/a", "files/t1/a.256", "files/t1/b"}},
		{"files/t1", []string{"files/t1/a", "files/t1/a.256", "files/t1/b", "files/t10/a"}},
		{"", []string{"files/t1/a", "files/t1/a.256", "files/t1/b", "files/t10/a", "files/t2/c", "thumbs/t1/a"}},
		{"none/", nil},
	} {
		if got := list(c.prefix); !slices.Equal(got, c.want) {
			t.Errorf("List(%q) = %q, want %q", c.prefix, got, c.want)
		}
	}
	// Stopping early stops the listing.
	n := 0
	for range b.List(ctx, "") {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("an early break yielded %d, want 2", n)
	}
}

func testBadNamesAndBlockIDs(t *testing.T, ctx context.Context, b *blob.Bucket) {
	for _, name := range []string{"", "/x", "x/", "x//y", "../x", "x/../y", ".x", "X", "x y", "x\x00", "日本", string(make([]byte, 513))} {
		if _, err := b.Put(ctx, name, bytes.NewReader([]byte("x"))); !kanri.IsCode(err, kanri.EINVALID) {
			t.Errorf("Put(%q): %v, want EINVALID", name, err)
		}
		if _, err := b.Stat(ctx, name); !kanri.IsCode(err, kanri.EINVALID) {
			t.Errorf("Stat(%q): %v, want EINVALID", name, err)
		}
	}
	for _, id := range []string{"", "a/b", "a=", "x" + string(make([]byte, 48))} {
		if err := b.StageBlock(ctx, "up", id, []byte("x")); !kanri.IsCode(err, kanri.EINVALID) {
			t.Errorf("StageBlock(%q): %v, want EINVALID", id, err)
		}
	}
	if err := b.StageBlock(ctx, "up", "b0", make([]byte, blob.MaxBlockSize+1)); !kanri.IsCode(err, kanri.EINVALID) {
		t.Errorf("StageBlock of an oversized block: %v, want EINVALID", err)
	}
	// Azure refuses block ids of different lengths for one blob, even
	// staged; the port refuses them in a commit before any backend sees
	// them.
	stage(t, ctx, b, "up", "b0", []byte("x"))
	if _, err := b.CommitBlocks(ctx, "up", []string{"b0", "b01"}); !kanri.IsCode(err, kanri.EINVALID) {
		t.Errorf("CommitBlocks with ids of different lengths: %v, want EINVALID", err)
	}
	for info, err := range b.List(ctx, "../") {
		if !kanri.IsCode(err, kanri.EINVALID) {
			t.Errorf("List(../) = %+v, %v; want EINVALID", info, err)
		}
	}
}

func testConcurrentPutsOfOneName(t *testing.T, ctx context.Context, b *blob.Bucket) {
	versions := make([][]byte, 4)
	for i := range versions {
		versions[i] = random(t, 512<<10)
	}
	var wg sync.WaitGroup
	for _, v := range versions {
		wg.Go(func() {
			if _, err := b.Put(ctx, "same", bytes.NewReader(v)); err != nil {
				t.Errorf("Put: %v", err)
			}
		})
	}
	wg.Wait()
	got := read(t, ctx, b, "same")
	if !slices.ContainsFunc(versions, func(v []byte) bool { return bytes.Equal(v, got) }) {
		t.Errorf("after concurrent Puts the blob is none of them whole (%d bytes)", len(got))
	}
}

// testTiers: a blob moved to the archive tier says so (on a store with
// tiers), and moved back it is hot or on its way there, and readable once
// there; a store without tiers keeps it readable throughout. A missing
// blob or an unknown tier is refused.
func testTiers(t *testing.T, ctx context.Context, b *blob.Bucket) {
	data := random(t, 1000)
	put(t, ctx, b, "tiers/a", data)
	info, err := b.Stat(ctx, "tiers/a")
	if err != nil {
		t.Fatal(err)
	}
	tiered := info.Tier != ""
	if tiered && info.Tier != blob.TierHot {
		t.Errorf("a new blob is in tier %q; want hot", info.Tier)
	}
	if err := b.SetTier(ctx, "tiers/a", blob.TierArchive); err != nil {
		t.Fatal(err)
	}
	if info, err = b.Stat(ctx, "tiers/a"); err != nil {
		t.Fatal(err)
	}
	if got := info.Tier; tiered && got != blob.TierArchive {
		t.Errorf("after SetTier(archive) the tier is %q", got)
	}
	if !tiered {
		equal(t, "an archived blob without tiers", read(t, ctx, b, "tiers/a"), data)
	}
	if err := b.SetTier(ctx, "tiers/a", blob.TierHot); err != nil {
		t.Fatal(err)
	}
	if info, err = b.Stat(ctx, "tiers/a"); err != nil {
		t.Fatal(err)
	}
	t.Logf("tiers: %v; after SetTier(hot): tier %q, rehydrating %v", tiered, info.Tier, info.Rehydrating)
	if tiered && info.Tier != blob.TierHot && !info.Rehydrating {
		t.Errorf("after SetTier(hot) the tier is %q, not rehydrating", info.Tier)
	}
	if !info.Rehydrating {
		equal(t, "a rehydrated blob", read(t, ctx, b, "tiers/a"), data)
	}
	if err := b.SetTier(ctx, "tiers/missing", blob.TierArchive); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("SetTier of a missing blob: %v; want ENOTFOUND", err)
	}
	if err := b.SetTier(ctx, "tiers/a", "frozen"); !kanri.IsCode(err, kanri.EINVALID) {
		t.Errorf("SetTier(frozen): %v; want EINVALID", err)
	}
}

// testSyncedBlocksCommit: blocks staged in order across syncs (an upload's
// PATCHes) commit to their concatenation; a sync with nothing staged is
// no error, and a blob committed from no block is empty.
func testSyncedBlocksCommit(t *testing.T, ctx context.Context, b *blob.Bucket) {
	if err := b.SyncBlocks(ctx, "up/none"); err != nil {
		t.Errorf("SyncBlocks with nothing staged: %v", err)
	}
	var want []byte
	var ids []string
	for patch := range 3 {
		for blk := range 2 {
			data := random(t, 100_000+patch*1000+blk)
			id := fmt.Sprintf("p%db%d", patch, blk)
			stage(t, ctx, b, "up/synced", id, data)
			want, ids = append(want, data...), append(ids, id)
		}
		if err := b.SyncBlocks(ctx, "up/synced"); err != nil {
			t.Fatalf("SyncBlocks after patch %d: %v", patch, err)
		}
	}
	if n := commit(t, ctx, b, "up/synced", ids...); n != int64(len(want)) {
		t.Errorf("size = %d, want %d", n, len(want))
	}
	equal(t, "the committed upload", read(t, ctx, b, "up/synced"), want)
	// Staged again after the commit: a new staging, from nothing.
	stage(t, ctx, b, "up/synced", "again", []byte("again"))
	commit(t, ctx, b, "up/synced", "again")
	equal(t, "a second commit", read(t, ctx, b, "up/synced"), []byte("again"))
}

// testFile: a store that keeps blobs as local files opens a blob's file,
// which reads as the blob; a missing blob is ENOTFOUND. Another store
// opens none.
func testFile(t *testing.T, ctx context.Context, b *blob.Bucket) {
	data := random(t, 70_000)
	put(t, ctx, b, "files/a", data)
	f, err := b.File(ctx, "files/a")
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		if _, err := b.File(ctx, "files/missing"); err != nil {
			t.Errorf("File of a missing blob on a store without files: %v", err)
		}
		return
	}
	got, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "the blob's file", got, data)
	if _, err := b.File(ctx, "files/missing"); !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Errorf("File of a missing blob: %v; want ENOTFOUND", err)
	}
}

// testBatchCommits: blobs put in a batch, one replacing a blob, are
// complete under their names once Commit returns, with their SHA-256;
// the batch then takes more.
func testBatchCommits(t *testing.T, ctx context.Context, b *blob.Bucket) {
	put(t, ctx, b, "batch/b", random(t, 10))
	want := map[string][]byte{"batch/a": random(t, 300_000), "batch/b": random(t, 1000), "other/c": nil}
	bt := b.NewBatch()
	for _, name := range []string{"batch/a", "batch/b", "other/c"} {
		res, err := bt.Put(ctx, name, bytes.NewReader(want[name]))
		if err != nil {
			t.Fatal(err)
		}
		if res.Size != int64(len(want[name])) || res.SHA256 != sum(want[name]) {
			t.Errorf("%s: Put = %+v, want %d bytes of SHA-256 %s", name, res, len(want[name]), sum(want[name]))
		}
	}
	if err := bt.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for name, data := range want {
		equal(t, name+" after Commit", read(t, ctx, b, name), data)
	}
	more := random(t, 5000)
	if _, err := bt.Put(ctx, "batch/d", bytes.NewReader(more)); err != nil {
		t.Fatal(err)
	}
	if err := bt.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	equal(t, "a second Commit's blob", read(t, ctx, b, "batch/d"), more)
}

// testBatchLeavesNothingPartial: a failed Put leaves nothing, and a
// discarded batch leaves each of its blobs absent or whole (a store
// without batches stores them at once), never partial.
func testBatchLeavesNothingPartial(t *testing.T, ctx context.Context, b *blob.Bucket) {
	bt := b.NewBatch()
	if _, err := bt.Put(ctx, "batch/broken", &failingReader{random(t, 100_000)}); err == nil {
		t.Fatal("Put from a failing reader succeeded")
	}
	data := random(t, 200_000)
	if _, err := bt.Put(ctx, "batch/kept", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	bt.Discard()
	if err := bt.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	absent(t, ctx, b, "batch/broken")
	if got, err := b.NewRangeReader(ctx, "batch/kept", 0, -1); err == nil {
		all, err := io.ReadAll(got)
		got.Close()
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "a discarded blob that is there", all, data)
	} else if !kanri.IsCode(err, kanri.ENOTFOUND) {
		t.Fatal(err)
	}
}
