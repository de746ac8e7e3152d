package bolt

import (
	"bytes"
	"context"

	"go.etcd.io/bbolt"

	"github.com/kanri/kanri/internal/docstore"
)

// Dump passes every live document of partition pk in the named containers
// to fn, in id order, from one read transaction: a snapshot of the
// partition that does not block writers.
func (s *Store) Dump(ctx context.Context, pk string, containers []string, fn func(string, docstore.Item) error) (bool, error) {
	if err := docstore.CheckKey(pk, "x"); err != nil {
		return false, err
	}
	now := s.now().Unix()
	prefix := itemKey(pk, "")
	return true, s.db.View(func(tx *bbolt.Tx) error {
		for _, name := range containers {
			c, ok := s.containers[name]
			if !ok {
				panic("bolt: unknown container " + name)
			}
			cur := tx.Bucket(c.name).Cursor()
			for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
				if err := ctx.Err(); err != nil {
					return err
				}
				r, err := decodeRecord(v)
				if err != nil {
					return err
				}
				if !r.live(now) {
					continue
				}
				body, err := s.body(r)
				if err != nil {
					return err
				}
				if err := fn(name, docstore.Item{ID: string(k[len(prefix):]), PartitionKey: pk, ETag: r.ETag(), Body: body}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
