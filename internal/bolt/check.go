package bolt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	bbolt "go.etcd.io/bbolt"
)

// Report is what Check found in a data file.
type Report struct {
	Documents    int
	IndexEntries int
	ExpiryKeys   int
	// Problems describes each inconsistency (at most maxProblems); Count
	// is how many there were.
	Problems []string
	Count    int
	// Repaired lists the containers whose indexes were rebuilt and
	// expiry entries mended.
	Repaired []string
	// Space is what each container's documents and each of its indexes
	// take, by container, then by index ("" for the documents).
	Space map[string]map[string]*Usage
	// Pages is, by container, the pages of its two buckets (documents and
	// indexes): allocated and in use, in bytes; ExpiryPages those of the
	// expiry keys of every container.
	Pages       map[string]Pages
	ExpiryPages Pages
	// Size is the bytes of the file up to its last page in use; the file
	// has up to growBy more, room to grow.
	Size int64
}

// Usage is the entries of a container's documents or of one index, and
// their keys' and values' bytes (an index's blocks', see blocks.go).
type Usage struct {
	Entries int
	Bytes   int64
}

// Pages is the bytes of a container's buckets' pages: allocated, and
// holding data.
type Pages struct {
	Alloc, InUse int64
}

// use counts entries of container's documents or index, which take size
// bytes.
func (r *Report) use(container, index string, entries int, size int) {
	if r.Space == nil {
		r.Space = map[string]map[string]*Usage{}
	}
	if r.Space[container] == nil {
		r.Space[container] = map[string]*Usage{}
	}
	u := r.Space[container][index]
	if u == nil {
		u = &Usage{}
		r.Space[container][index] = u
	}
	u.Entries += entries
	u.Bytes += int64(size)
}

const maxProblems = 50

func (r *Report) problem(format string, args ...any) {
	r.Count++
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// Check verifies the store offline: every index entry has its document
// and is one the document makes, every document has all of its index
// entries, and the expiry index holds exactly the expiring documents. With
// repair, it rebuilds the indexes of each container found wrong and mends
// its expiry entries, then checks again.
func (s *Store) Check(repair bool) (Report, error) {
	var rep Report
	bad := map[string]bool{}
	err := s.db.View(func(tx *bbolt.Tx) error {
		rep.Size = tx.Size()
		for name, c := range s.containers {
			n := rep.Count
			if err := c.check(tx, &rep); err != nil {
				return err
			}
			if rep.Count > n {
				bad[name] = true
			}
		}
		return s.checkExpiry(tx, &rep, bad)
	})
	if err != nil || !repair || rep.Count == 0 {
		return rep, err
	}
	for name := range bad {
		c := s.containers[name]
		if err := s.rebuild(c, signature(c.indexes), s.log); err != nil {
			return rep, err
		}
		rep.Repaired = append(rep.Repaired, name)
	}
	if len(bad) > 0 {
		if err := s.rebuildExpiry(); err != nil {
			return rep, err
		}
	}
	again, err := s.Check(false)
	again.Repaired = rep.Repaired
	return again, err
}

// check verifies one container's documents against its indexes, both ways.
func (c *container) check(tx *bbolt.Tx, rep *Report) error {
	docs, idx := tx.Bucket(c.name), tx.Bucket(indexBucket(c.name))
	if rep.Pages == nil {
		rep.Pages = map[string]Pages{}
	}
	ds, is := docs.Stats(), idx.Stats()
	rep.Pages[string(c.name)] = Pages{
		Alloc: int64(ds.BranchAlloc + ds.LeafAlloc + is.BranchAlloc + is.LeafAlloc),
		InUse: int64(ds.BranchInuse + ds.LeafInuse + is.BranchInuse + is.LeafInuse),
	}
	err := docs.ForEach(func(k, v []byte) error {
		rep.Documents++
		rep.use(string(c.name), "", 1, len(k)+len(v))
		_, body, err := c.s.readRecord(v)
		if err != nil {
			rep.problem("%s: document %q is not a record: %v", c.name, k, err)
			return nil
		}
		keys, err := c.indexKeys(k, body)
		if err != nil {
			rep.problem("%s: document %q is not JSON: %v", c.name, k, err)
			return nil
		}
		for _, ik := range keys {
			if ok, err := hasEntry(idx, byIndex, ik); err != nil || !ok {
				rep.problem("%s: document %q lacks its index entry %q", c.name, k, ik)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	byTag := map[string]*index{}
	for i := range c.indexes {
		byTag[string([]byte{c.indexes[i].tag})] = &c.indexes[i]
	}
	checkBlocks(idx, byIndex, func(bk, bv []byte, entries int) {
		name := string(byIndex(bk))
		if _, rest, ok := bytes.Cut(bk, []byte{0}); ok && len(rest) > 0 && byTag[string(rest[:1])] != nil {
			name = byTag[string(rest[:1])].name
		}
		rep.use(string(c.name), name, entries, len(bk)+len(bv))
	}, func(format string, args ...any) {
		rep.problem(string(c.name)+": "+format, args...)
	}, func(ik []byte) {
		c.checkEntry(tx, rep, byTag, ik)
	})
	return nil
}

// checkBlocks walks the blocks of bucket b (blocks.go), grouped by group:
// each block's size and entries go to use, what is wrong with it to
// problem (it decodes, holds entries of its group, in order, at or above
// its key and above the block before), and each entry to entry.
func checkBlocks(b *bbolt.Bucket, group grouping, use func(bk, bv []byte, entries int), problem func(format string, args ...any), entry func(k []byte)) {
	var prev []byte // the previous block's last entry
	cur := b.Cursor()
	for bk, bv := cur.First(); bk != nil; bk, bv = cur.Next() {
		entries, err := decodeBlock(bv)
		if err == nil && len(entries) == 0 {
			err = errCorruptBlock
		}
		use(bk, bv, len(entries))
		if err != nil {
			problem("block %q: %v", bk, err)
			continue
		}
		for i, k := range entries {
			switch {
			case i == 0 && bytes.Compare(bk, k) > 0, !bytes.Equal(group(k), group(bk)):
				problem("block %q holds %q, outside it", bk, k)
			case prev != nil && bytes.Compare(prev, k) >= 0:
				problem("entry %q is out of order", k)
			}
			prev = k
			entry(k)
		}
	}
}

// checkEntry verifies that index entry ik is one its document makes.
func (c *container) checkEntry(tx *bbolt.Tx, rep *Report, byTag map[string]*index, ik []byte) {
	rep.IndexEntries++
	pk, rest, ok1 := bytes.Cut(ik, []byte{0})
	tag, values, ok2 := bytes.Cut(rest, []byte{0})
	ix := byTag[string(tag)]
	if !ok1 || !ok2 || ix == nil {
		rep.problem("%s: index entry %q names no index", c.name, ik)
		return
	}
	id := values
	for range ix.fields {
		var err error
		if id, err = skipIndexValue(id); err != nil {
			rep.problem("%s: index entry %q is malformed", c.name, ik)
			return
		}
	}
	key := itemKey(string(pk), string(id))
	v := tx.Bucket(c.name).Get(key)
	if v == nil {
		rep.problem("%s: index entry %q has no document %q", c.name, ik, id)
		return
	}
	_, body, err := c.s.readRecord(v)
	if err != nil {
		return // reported with the documents
	}
	keys, _ := c.indexKeys(key, body)
	for _, k := range keys {
		if bytes.Equal(k, ik) {
			return
		}
	}
	rep.problem("%s: index entry %q does not match its document %q", c.name, ik, id)
}

// checkExpiry verifies the expiry index against the documents' expiry
// times, both ways, marking the containers it finds wrong in bad.
func (s *Store) checkExpiry(tx *bbolt.Tx, rep *Report, bad map[string]bool) error {
	exp := tx.Bucket(expiryBucket)
	es := exp.Stats()
	rep.ExpiryPages = Pages{Alloc: int64(es.BranchAlloc + es.LeafAlloc), InUse: int64(es.BranchInuse + es.LeafInuse)}
	checkBlocks(exp, whole, func([]byte, []byte, int) {}, func(format string, args ...any) {
		rep.problem("expiry "+format, args...)
		for name := range s.containers {
			bad[name] = true // a damaged block: which documents it holds is lost
		}
	}, func(k []byte) {
		s.checkExpiryEntry(tx, rep, bad, k)
	})
	for name, c := range s.containers {
		err := tx.Bucket(c.name).ForEach(func(k, v []byte) error {
			r, err := decodeRecord(v)
			if err != nil || r.expiry == 0 {
				return nil
			}
			if ok, err := hasEntry(exp, whole, expiryKey(r.expiry, c.name, k)); err != nil || !ok {
				rep.problem("%s: document %q expires but has no expiry entry", name, k)
				bad[name] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// checkExpiryEntry verifies that expiry entry k is its document's.
func (s *Store) checkExpiryEntry(tx *bbolt.Tx, rep *Report, bad map[string]bool, k []byte) {
	rep.ExpiryKeys++
	if len(k) < 9 {
		rep.problem("expiry entry %q is malformed", k)
		return
	}
	name, key, _ := bytes.Cut(k[8:], []byte{0})
	b := tx.Bucket(name)
	if s.containers[string(name)] == nil || b == nil {
		rep.problem("expiry entry %q names no container", k)
		return
	}
	v := b.Get(key)
	r, err := decodeRecord(v)
	if v == nil || err != nil || r.expiry != int64(binary.BigEndian.Uint64(k[:8])) {
		rep.problem("%s: expiry entry of %q does not match its document", name, key)
		bad[string(name)] = true
	}
}

// rebuildExpiry writes the expiry index again from the documents of every
// container.
func (s *Store) rebuildExpiry() error {
	return s.db.Update(func(tx *bbolt.Tx) error {
		var keys [][]byte
		for _, c := range s.containers {
			err := tx.Bucket(c.name).ForEach(func(k, v []byte) error {
				if r, err := decodeRecord(v); err == nil && r.expiry != 0 {
					keys = append(keys, expiryKey(r.expiry, c.name, k))
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		slices.SortFunc(keys, bytes.Compare)
		keys = slices.CompactFunc(keys, bytes.Equal)
		if err := tx.DeleteBucket(expiryBucket); err != nil {
			return err
		}
		exp, err := tx.CreateBucket(expiryBucket)
		if err != nil {
			return err
		}
		return appendBlocks(exp, keys)
	})
}
