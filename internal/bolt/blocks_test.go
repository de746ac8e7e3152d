package bolt

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/kanri/kanri/internal/docstore"
)

// TestBlocksBehaveAsSeparateKeys puts and deletes random index keys of a
// few partitions and indexes in an index bucket, in blocks (stored at
// once in even rounds, held until the end of the transaction in odd
// ones), and checks
// after each batch that the entries and every cursor move are what a
// sorted set of the same keys gives, and that the blocks keep their
// invariants (each within its group, at or above its key, below the
// next block's key, within maxBlockBytes unless a single entry).
func TestBlocksBehaveAsSeparateKeys(t *testing.T) {
	st, err := Open(t.TempDir(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	key := func() []byte {
		k := fmt.Appendf(nil, "p%d\x00%c\x00", rng.IntN(3), byte(1+rng.IntN(2)))
		k = encodeValue(k, fmt.Sprintf("term%02d", rng.IntN(20)), true)
		k = encodeValue(k, float64(rng.IntN(300)), true)
		return fmt.Appendf(k, "msg_%013d_%012d", 1795429541835+rng.IntN(1000), rng.IntN(1000))
	}
	var model [][]byte
	bucket := []byte("_idx:test")
	for round := range 40 {
		err := st.db.Update(func(tx *bbolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists(bucket)
			if err != nil {
				return err
			}
			var w *blockWrites
			if round%2 == 1 {
				w = &blockWrites{}
			}
			for range 100 {
				if len(model) > 0 && rng.IntN(3) == 0 {
					var k []byte
					if rng.IntN(4) == 0 {
						k = key() // most likely absent
					} else {
						k = model[rng.IntN(len(model))]
					}
					if err := w.delete(b, byIndex, k); err != nil {
						return err
					}
					if i, ok := slices.BinarySearchFunc(model, k, bytes.Compare); ok {
						model = slices.Delete(model, i, i+1)
					}
					continue
				}
				k := key()
				if err := w.put(b, byIndex, k); err != nil {
					return err
				}
				if i, ok := slices.BinarySearchFunc(model, k, bytes.Compare); !ok {
					model = slices.Insert(model, i, k)
				}
			}
			return w.flush()
		})
		if err != nil {
			t.Fatal(err)
		}
		st.db.View(func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucket)
			assertBlocks(t, b, round)
			cur := newIndexCursor(b)
			var got [][]byte
			for k := cur.First(); k != nil; k = cur.Next() {
				got = append(got, k)
			}
			if !slices.EqualFunc(got, model, bytes.Equal) {
				t.Fatalf("round %d: walked %d entries, want %d", round, len(got), len(model))
			}
			var back [][]byte
			for k := cur.Last(); k != nil; k = cur.Prev() {
				back = append(back, k)
			}
			slices.Reverse(back)
			if !slices.EqualFunc(back, model, bytes.Equal) {
				t.Fatalf("round %d: walked %d entries backwards, want %d", round, len(back), len(model))
			}
			for range 200 {
				probe := key()
				if rng.IntN(2) == 0 && len(model) > 0 {
					probe = model[rng.IntN(len(model))]
				}
				i, _ := slices.BinarySearchFunc(model, probe, bytes.Compare)
				var want []byte
				if i < len(model) {
					want = model[i]
				}
				if got := cur.Seek(probe); !bytes.Equal(got, want) {
					t.Fatalf("round %d: Seek(%q) = %q, want %q", round, probe, got, want)
				}
				// A step either way from there.
				if rng.IntN(2) == 0 {
					want = nil
					if i+1 < len(model) {
						want = model[i+1]
					}
					if got := cur.Next(); i < len(model) && !bytes.Equal(got, want) {
						t.Fatalf("round %d: Next after Seek(%q) = %q, want %q", round, probe, got, want)
					}
				} else {
					want = nil
					if i > 0 {
						want = model[i-1]
					}
					if got := cur.Prev(); !bytes.Equal(got, want) {
						t.Fatalf("round %d: Prev after Seek(%q) = %q, want %q", round, probe, got, want)
					}
				}
				ok, err := hasEntry(b, byIndex, probe)
				_, want2 := slices.BinarySearchFunc(model, probe, bytes.Compare)
				if err != nil || ok != want2 {
					t.Fatalf("round %d: hasEntry(%q) = %t, %v; want %t", round, probe, ok, err, want2)
				}
			}
			return nil
		})
	}
	if len(model) < 500 {
		t.Fatalf("the model holds %d keys: too few to split blocks", len(model))
	}
}

// assertBlocks fails t unless the blocks of index bucket b keep their
// invariants.
func assertBlocks(t *testing.T, b *bbolt.Bucket, round int) {
	t.Helper()
	var prevLast []byte
	blocks, compressed := 0, 0
	b.ForEach(func(bk, bv []byte) error {
		blocks++
		entries, err := decodeBlock(bv)
		if err != nil || len(entries) == 0 {
			t.Fatalf("round %d: block %q: %d entries, %v", round, bk, len(entries), err)
		}
		if v, _ := openBlock(bv); len(v) > maxBlockBytes && len(entries) > 1 {
			t.Errorf("round %d: block %q has %d bytes", round, bk, len(v))
		}
		if bv[0] == 2 {
			compressed++
		}
		if bytes.Compare(bk, entries[0]) > 0 {
			t.Errorf("round %d: block %q starts at %q, below its key", round, bk, entries[0])
		}
		for i, e := range entries {
			if !bytes.Equal(byIndex(e), byIndex(bk)) {
				t.Errorf("round %d: block %q holds %q of another group", round, bk, e)
			}
			if i > 0 && bytes.Compare(entries[i-1], e) >= 0 {
				t.Errorf("round %d: block %q out of order", round, bk)
			}
		}
		if prevLast != nil && bytes.Compare(prevLast, bk) >= 0 {
			t.Errorf("round %d: block %q begins at or before the previous block's last entry", round, bk)
		}
		prevLast = bytes.Clone(entries[len(entries)-1])
		return nil
	})
	if blocks < 2 || compressed == 0 {
		t.Errorf("round %d: %d blocks, %d of them compressed", round, blocks, compressed)
	}
}

// TestBlockEncodingIsPinned pins the bytes of a block: a change fails
// here and must come with a new indexFormat.
func TestBlockEncodingIsPinned(t *testing.T) {
	got := fmt.Sprintf("%x", encodeBlock([][]byte{[]byte("p\x00\x01\x00ab"), []byte("p\x00\x01\x00ac"), []byte("p\x00\x01\x00b")}))
	if want := "0103" + "0006700001006162" + "050163" + "040162"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestExpiryKeysOfTheFormerFormatAreRewritten opens a store whose expiry
// keys are one bbolt key each, as stores before blocks kept them: the
// open rewrites them in blocks, check finds them all, and purge deletes
// the expired documents, in more than one transaction.
func TestExpiryKeysOfTheFormerFormatAreRewritten(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	opts := Options{Now: func() time.Time { return now }}
	st, err := Open(dir, dictSpecs, opts)
	if err != nil {
		t.Fatal(err)
	}
	// More than Purge deletes in one transaction.
	for chunk := 0; chunk < 2400; chunk += 100 {
		var ops []docstore.Op
		for i := chunk; i < chunk+100; i++ {
			ttl := 60
			if i%3 == 0 {
				ttl = 3600
			}
			ops = append(ops, docstore.Op{Kind: docstore.OpCreate, Body: fmt.Appendf(nil, `{"id":"d%04d","tenantId":"p","type":"t","n":%d,"ttl":%d}`, i, i, ttl)})
		}
		if _, err := st.Container("c").Batch(context.Background(), "p", ops); err != nil {
			t.Fatal(err)
		}
	}
	err = st.db.Update(func(tx *bbolt.Tx) error {
		var keys [][]byte
		cur := newIndexCursor(tx.Bucket(expiryBucket))
		for k := cur.First(); k != nil; k = cur.Next() {
			keys = append(keys, k)
		}
		if err := tx.DeleteBucket(expiryBucket); err != nil {
			return err
		}
		old, err := tx.CreateBucket(expiryBucket)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := old.Put(k, nil); err != nil {
				return err
			}
		}
		return tx.Bucket(metaBucket).Delete(expiryFormatKey)
	})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = Open(dir, dictSpecs, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if rep, err := st.Check(false); err != nil || rep.Count != 0 || rep.ExpiryKeys != 2400 {
		t.Fatalf("after the rewrite: %d expiry keys, problems %v, %v", rep.ExpiryKeys, rep.Problems, err)
	}
	now = now.Add(2 * time.Minute)
	if n, err := st.Purge(); err != nil || n != 1600 {
		t.Fatalf("purge: %d, %v; want 1600", n, err)
	}
	if rep, err := st.Check(false); err != nil || rep.Count != 0 || rep.ExpiryKeys != 800 || rep.Documents != 800 {
		t.Fatalf("after the purge: %+v, %v", rep, err)
	}
}
