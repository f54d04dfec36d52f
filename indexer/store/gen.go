package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/ontoindex/ontoindex/objects"
	bolt "go.etcd.io/bbolt"
)

// Gen is one generation of an object type inside one transaction: its
// buckets, valid while the transaction is open.
type Gen struct {
	root, objects, files, fileIDs, fileKeys, manifests, dirty, meta *bolt.Bucket
	layout                                                          uint64
}

// openGen opens every bucket of a generation, creating them (and the
// type's bucket) with create.
func openGen(tx *bolt.Tx, name string, gen int, create bool) (*Gen, error) {
	tb, err := typeBucket(tx, name, create)
	if err != nil {
		return nil, err
	}
	if tb == nil {
		return nil, fmt.Errorf("object type %s has no stored state", name)
	}
	var g Gen
	if create {
		if g.root, err = tb.CreateBucketIfNotExists(genName(gen)); err != nil {
			return nil, err
		}
		for _, x := range []struct {
			b    **bolt.Bucket
			name []byte
		}{{&g.objects, bucketObjects}, {&g.files, bucketFiles}, {&g.fileIDs, bucketFileIDs}, {&g.fileKeys, bucketFileKeys},
			{&g.manifests, bucketManifests}, {&g.dirty, bucketDirty}, {&g.meta, bucketMeta}} {
			if *x.b, err = g.root.CreateBucketIfNotExists(x.name); err != nil {
				return nil, err
			}
		}
		if g.meta.Get(keyLayout) == nil {
			if err := g.meta.Put(keyLayout, binary.AppendUvarint(nil, Layout)); err != nil {
				return nil, err
			}
		}
		g.layout = Layout
		return &g, nil
	}
	if g.root = tb.Bucket(genName(gen)); g.root == nil {
		return nil, fmt.Errorf("object type %s: generation %d is missing from the store", name, gen)
	}
	g.objects, g.files, g.fileIDs, g.fileKeys = g.root.Bucket(bucketObjects), g.root.Bucket(bucketFiles), g.root.Bucket(bucketFileIDs), g.root.Bucket(bucketFileKeys)
	g.manifests, g.dirty, g.meta = g.root.Bucket(bucketManifests), g.root.Bucket(bucketDirty), g.root.Bucket(bucketMeta)
	if g.objects == nil || g.files == nil || g.fileIDs == nil || g.fileKeys == nil || g.manifests == nil || g.meta == nil {
		return nil, fmt.Errorf("object type %s: generation %d is incomplete in the store", name, gen)
	}
	g.layout, _ = binary.Uvarint(g.meta.Get(keyLayout))
	if g.layout == Layout && g.dirty == nil {
		return nil, fmt.Errorf("object type %s: generation %d is incomplete in the store", name, gen)
	}
	return &g, nil
}

// readGen opens the buckets a reader of objects needs: objects and meta.
func readGen(tx *bolt.Tx, name string, gen int) (*Gen, error) {
	root := tx.Bucket(bucketTypes)
	if root == nil {
		return nil, fmt.Errorf("object type %s has no stored state", name)
	}
	tb := root.Bucket([]byte(name))
	if tb == nil {
		return nil, fmt.Errorf("object type %s has no stored state", name)
	}
	g := &Gen{root: tb.Bucket(genName(gen))}
	if g.root == nil {
		return nil, fmt.Errorf("object type %s: generation %d is missing from the store", name, gen)
	}
	g.objects, g.meta = g.root.Bucket(bucketObjects), g.root.Bucket(bucketMeta)
	if g.objects == nil || g.meta == nil {
		return nil, fmt.Errorf("object type %s: generation %d is incomplete in the store", name, gen)
	}
	g.layout, _ = binary.Uvarint(g.meta.Get(keyLayout))
	return g, nil
}

// Count is the number of objects of the generation.
func (g *Gen) Count() int64 {
	v, _ := binary.Varint(g.meta.Get(keyCount))
	return v
}

// Version is the version of the generation's objects: every commit that
// changes them increments it, and the index snapshot that reflects them
// carries the same number.
func (g *Gen) Version() uint64 {
	v, _ := binary.Uvarint(g.meta.Get(keyVersion))
	return v
}

// Layout is the layout the generation was written in; below Layout it is
// served read-only until a full build replaces it.
func (g *Gen) Layout() uint64 { return g.layout }

// Object returns the object with the encoded key, or nil when there is none.
func (g *Gen) Object(key []byte) (*objects.Object, error) {
	v := g.objects.Get(key)
	if v == nil {
		return nil, nil
	}
	return g.decode(v)
}

func (g *Gen) decode(v []byte) (*objects.Object, error) {
	r, err := g.record(v)
	if err != nil {
		return nil, err
	}
	return objects.DecodeObject(r.encoded)
}

// Scan calls fn for the objects with keys after `after` (all when nil), in
// primary-key order, until fn returns false.
func (g *Gen) Scan(after []byte, fn func(key []byte, o *objects.Object) bool) error {
	c := g.objects.Cursor()
	var k, val []byte
	if after == nil {
		k, val = c.First()
	} else if k, val = c.Seek(after); k != nil && bytes.Equal(k, after) {
		k, val = c.Next()
	}
	for ; k != nil; k, val = c.Next() {
		o, err := g.decode(val)
		if err != nil {
			return fmt.Errorf("object %x: %w", k, err)
		}
		if !fn(k, o) {
			return nil
		}
	}
	return nil
}

// EachDoc calls fn with every stored object and its document, in key
// order, and returns the first document number no object holds.
// Generations of an older layout number their objects in key order.
func (g *Gen) EachDoc(ctx context.Context, fn func(doc uint32, key []byte, o *objects.Object) error) (uint32, error) {
	var next uint32
	c := g.objects.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if next&0xfff == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		r, err := g.record(v)
		if err != nil {
			return 0, fmt.Errorf("object %x: %w", k, err)
		}
		if g.layout < Layout {
			r.doc = next
		}
		o, err := objects.DecodeObject(r.encoded)
		if err != nil {
			return 0, fmt.Errorf("object %x: %w", k, err)
		}
		if err := fn(r.doc, k, o); err != nil {
			return 0, fmt.Errorf("object %x: %w", k, err)
		}
		next = max(next, r.doc+1)
	}
	return next, nil
}

// HasDirty reports whether the generation lists its dirty documents
// (generations of an older layout do not).
func (g *Gen) HasDirty() bool { return g.dirty != nil }

// Dirty counts the dirty documents of the generation and calls fn with
// those changed after version since: the object and its key, or none when
// the document is now free.
func (g *Gen) Dirty(ctx context.Context, since uint64, fn func(doc uint32, key []byte, o *objects.Object) error) (int, error) {
	if g.dirty == nil {
		return 0, nil
	}
	n := 0
	c := g.dirty.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		n++
		if err := ctx.Err(); err != nil {
			return n, err
		}
		ver, m := binary.Uvarint(v)
		if len(k) != 4 || m <= 0 {
			return n, fmt.Errorf("dirty document %x: %w", k, objects.ErrCorrupt)
		}
		if ver <= since {
			continue // in the file already
		}
		doc := binary.BigEndian.Uint32(k)
		key := v[m:]
		if len(key) == 0 {
			if err := fn(doc, nil, nil); err != nil {
				return n, err
			}
			continue
		}
		// A later delete or reuse of the document would have rewritten its
		// entry: the key is there, at this document.
		rv := g.objects.Get(key)
		if rv == nil {
			return n, fmt.Errorf("dirty document %d: key %x is not in the store", doc, key)
		}
		r, err := g.record(rv)
		if err != nil {
			return n, err
		}
		if r.doc != doc {
			return n, fmt.Errorf("dirty document %d: key %x is document %d in the store", doc, key, r.doc)
		}
		o, err := objects.DecodeObject(r.encoded)
		if err != nil {
			return n, fmt.Errorf("object %x: %w", key, err)
		}
		if err := fn(doc, key, o); err != nil {
			return n, err
		}
	}
	return n, nil
}
