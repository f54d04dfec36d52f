package indexer

import (
	"bytes"
	"context"
	"fmt"

	"github.com/ontoindex/ontoindex/objects"
	bolt "go.etcd.io/bbolt"
)

// syncBatch is the number of documents per search-index batch: each batch
// becomes a segment, so bigger batches mean fewer merges.
const syncBatch = 2500

// syncSearch applies the pending keys of a generation to its search index
// and clears them: a key the store holds is (re)indexed, a key it lacks is
// deleted. Safe to repeat.
func (ix *Indexer) syncSearch(ctx context.Context, g *generation, t *objects.Type) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var keys [][]byte
		batch := g.index.NewBatch()
		err := ix.db.View(func(tx *bolt.Tx) error {
			b, err := openGen(tx, g.name, g.n, false)
			if err != nil {
				return err
			}
			c := b.pending.Cursor()
			for k, _ := c.First(); k != nil && len(keys) < syncBatch; k, _ = c.Next() {
				keys = append(keys, bytes.Clone(k))
				id := objects.DocID(k)
				v := b.objects.Get(k)
				if v == nil {
					batch.Delete(id)
					continue
				}
				_, _, enc, err := objectRecord(v)
				if err != nil {
					return err
				}
				o, err := objects.DecodeObject(enc)
				if err != nil {
					return err
				}
				if len(o.Values) != len(t.Properties) {
					return fmt.Errorf("stored object has %d values, type %s has %d properties", len(o.Values), t.APIName, len(t.Properties))
				}
				if err := batch.Index(id, searchDoc(t, o)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("object type %s: sync search index: %w", g.name, err)
		}
		if len(keys) == 0 {
			return nil
		}
		if err := g.index.Batch(batch); err != nil {
			return fmt.Errorf("object type %s: write search index: %w", g.name, err)
		}
		err = ix.db.Update(func(tx *bolt.Tx) error {
			b, err := openGen(tx, g.name, g.n, false)
			if err != nil {
				return err
			}
			for _, k := range keys {
				if err := b.pending.Delete(k); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("object type %s: clear pending keys: %w", g.name, err)
		}
	}
}

// markAllPending marks every object of a generation for (re)indexing, to
// rebuild a search index from the store.
func (ix *Indexer) markAllPending(name string, n int) error {
	var after []byte
	for {
		done := true
		err := ix.db.Update(func(tx *bolt.Tx) error {
			b, err := openGen(tx, name, n, false)
			if err != nil {
				return err
			}
			c := b.objects.Cursor()
			k, _ := c.First()
			if after != nil {
				if k, _ = c.Seek(after); k != nil && bytes.Equal(k, after) {
					k, _ = c.Next()
				}
			}
			for i := 0; k != nil; k, _ = c.Next() {
				if i == 50_000 {
					done = false
					return nil
				}
				if err := b.pending.Put(k, nil); err != nil {
					return err
				}
				after = bytes.Clone(k)
				i++
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("object type %s: mark objects for reindexing: %w", name, err)
		}
		if done {
			return nil
		}
	}
}
