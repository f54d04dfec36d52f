package indexer

import (
	"bytes"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/ontoindex/ontoindex/objects"
	bolt "go.etcd.io/bbolt"
)

// View is a read handle on the serving generation of one object type. It
// stays valid across builds: a full rebuild swaps in a new generation, and
// the old one is removed only after its last view is released.
type View struct {
	ix  *Indexer
	gen *generation
	cp  *Checkpoint
}

// View opens a read handle on an object type. It returns ErrNotBuilt when
// the type has no generation to serve yet. Call Release when done.
func (ix *Indexer) View(name string) (*View, error) {
	ts, err := ix.state(name)
	if err != nil {
		return nil, err
	}
	for range 3 {
		ts.mu.RLock()
		cp, gen := ts.cp, ts.gen
		ts.mu.RUnlock()
		if cp == nil || gen == nil {
			return nil, fmt.Errorf("object type %s: %w", name, ErrNotBuilt)
		}
		if gen.acquire() {
			return &View{ix: ix, gen: gen, cp: cp}, nil
		}
		// The generation was retired between the two steps; take the new one.
	}
	return nil, fmt.Errorf("object type %s: generation changed during read", name)
}

// Release gives the handle back.
func (v *View) Release() { v.gen.release() }

// Type is the object type as of the view's checkpoint.
func (v *View) Type() *objects.Type { return v.cp.Type }

// Checkpoint is the checkpoint the view was opened at.
func (v *View) Checkpoint() *Checkpoint { return v.cp }

// Generation is the generation the view reads.
func (v *View) Generation() int { return v.gen.n }

// Index is the search index of the generation.
func (v *View) Index() bleve.Index { return v.gen.index }

func (v *View) read(fn func(b *genBuckets) error) error {
	return v.ix.db.View(func(tx *bolt.Tx) error {
		b, err := openGen(tx, v.gen.name, v.gen.n, false)
		if err != nil {
			return err
		}
		return fn(b)
	})
}

func decodeStored(val []byte) (*objects.Object, error) {
	_, _, enc, err := objectRecord(val)
	if err != nil {
		return nil, err
	}
	return objects.DecodeObject(enc)
}

// Get returns the object with the encoded key, or nil when there is none.
func (v *View) Get(key []byte) (*objects.Object, error) {
	var o *objects.Object
	err := v.read(func(b *genBuckets) error {
		val := b.objects.Get(key)
		if val == nil {
			return nil
		}
		var err error
		o, err = decodeStored(val)
		return err
	})
	return o, err
}

// GetMany returns the objects of the keys, in order; nil where absent.
func (v *View) GetMany(keys [][]byte) ([]*objects.Object, error) {
	out := make([]*objects.Object, len(keys))
	err := v.read(func(b *genBuckets) error {
		for i, k := range keys {
			if val := b.objects.Get(k); val != nil {
				o, err := decodeStored(val)
				if err != nil {
					return fmt.Errorf("object %x: %w", k, err)
				}
				out[i] = o
			}
		}
		return nil
	})
	return out, err
}

// Count is the number of objects.
func (v *View) Count() (int64, error) {
	var n int64
	err := v.read(func(b *genBuckets) error {
		n = b.count()
		return nil
	})
	return n, err
}

// Scan calls fn for the objects with keys after `after` (all when nil), in
// primary-key order, until fn returns false.
func (v *View) Scan(after []byte, fn func(key []byte, o *objects.Object) bool) error {
	return v.read(func(b *genBuckets) error {
		c := b.objects.Cursor()
		var k, val []byte
		if after == nil {
			k, val = c.First()
		} else if k, val = c.Seek(after); k != nil && bytes.Equal(k, after) {
			k, val = c.Next()
		}
		for ; k != nil; k, val = c.Next() {
			o, err := decodeStored(val)
			if err != nil {
				return fmt.Errorf("object %x: %w", k, err)
			}
			if !fn(k, o) {
				return nil
			}
		}
		return nil
	})
}
