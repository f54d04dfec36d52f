package index

import (
	"encoding/binary"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
)

// A dict holds, for a property with few distinct values (keywords,
// booleans, small integers), a bitmap of the documents of each value: an
// equality filter is then a bitmap, a count a cardinality, and a group-by
// an intersection per value. Properties with more distinct values than
// dictMax have none; their equality filters cut the order instead.
const dictMax = 1024

type dict struct {
	values map[string]*roaring.Bitmap // dictKey -> documents
	// dense holds the dense bitsets of the values that hold many documents,
	// made when a query first needs one (denseOf). A dict is immutable, so
	// they stay right for as long as it is used.
	dense      sync.Map // *roaring.Bitmap -> dense
	denseCount atomic.Int32
	// counts are the values' cardinalities, counted on first use: at ten
	// million documents a value held by half of them is 153 containers,
	// cold, and a query asked for its count two or three times (3-5 µs).
	counts sync.Map // *roaring.Bitmap -> uint64
}

// count returns the documents of bm, a bitmap of d.
func (d *dict) count(bm *roaring.Bitmap) uint64 {
	if n, ok := d.counts.Load(bm); ok {
		return n.(uint64)
	}
	n := bm.GetCardinality()
	d.counts.Store(bm, n)
	return n
}

// maxDense bounds the dense bitsets a dict keeps, of maxDoc/8 bytes each:
// a million documents and the 8 values of a keyword, 1 MiB.
const maxDense = 64

// denseOf returns a bitmap of d as a dense bitset to read, never to
// modify, or nil when it holds less than one document in 64 (its bitset
// would then be larger than the bitmap for little gain). Equality filters
// on keywords and booleans are the most common sets, and the dense form
// makes both their intersections (words) and their tests (one bit) cheap
// without copying the bitmap into a bitset on every query.
func (d *dict) denseOf(bm *roaring.Bitmap, maxDoc uint32) dense {
	if d.count(bm)*64 < uint64(maxDoc) {
		return nil
	}
	if w, ok := d.dense.Load(bm); ok {
		return w.(dense)
	}
	if d.denseCount.Load() >= maxDense {
		return nil
	}
	w := make(dense, (maxDoc+63)/64)
	bm.WriteDenseTo(w)
	if prev, loaded := d.dense.LoadOrStore(bm, w); loaded {
		return prev.(dense)
	}
	d.denseCount.Add(1)
	return w
}

// dictKey identifies a value in a dict.
func dictKey(vk valueKey) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], vk.pre)
	return string(b[:]) + vk.exact
}

func valueKeyOfDict(k string) valueKey {
	return valueKey{pre: binary.BigEndian.Uint64([]byte(k[:8])), exact: k[8:]}
}

// get returns the documents of a value (nil when none has it). The
// bitmap is shared: callers must not modify it.
func (d *dict) get(vk valueKey) *roaring.Bitmap {
	return d.values[dictKey(vk)]
}

// dictBuilder collects the documents of each value until there are too
// many values.
type dictBuilder struct {
	m    map[string]*roaring.Bitmap
	over bool
	key  []byte // the dictKey being looked up: a lookup allocates nothing
}

func newDictBuilder() *dictBuilder { return &dictBuilder{m: map[string]*roaring.Bitmap{}} }

func (b *dictBuilder) add(d uint32, vk valueKey) {
	if b.over {
		return
	}
	b.key = append(binary.BigEndian.AppendUint64(b.key[:0], vk.pre), vk.exact...)
	bm := b.m[string(b.key)]
	if bm == nil {
		if len(b.m) == dictMax {
			b.over, b.m = true, nil
			return
		}
		bm = roaring.New()
		b.m[dictKey(vk)] = bm
	}
	bm.Add(d)
}

func (b *dictBuilder) finish() *dict {
	if b.over {
		return nil
	}
	for _, bm := range b.m {
		bm.RunOptimize()
	}
	return &dict{values: b.m}
}

// with returns a copy of d after removing and adding documents of values;
// bitmaps it does not touch are shared. It returns nil when the property
// now has too many values for a dict.
func (d *dict) with(remove, add map[string][]uint32) *dict {
	m := maps.Clone(d.values)
	touched := map[string]*roaring.Bitmap{}
	get := func(k string) *roaring.Bitmap {
		if bm, ok := touched[k]; ok {
			return bm
		}
		var bm *roaring.Bitmap
		if old := m[k]; old != nil {
			bm = old.Clone()
		} else {
			bm = roaring.New()
		}
		touched[k] = bm
		m[k] = bm
		return bm
	}
	for k, docs := range remove {
		bm := get(k)
		for _, d := range docs {
			bm.Remove(d)
		}
	}
	for k, docs := range add {
		get(k).AddMany(docs)
	}
	for k, bm := range touched {
		if bm.IsEmpty() {
			delete(m, k)
		}
	}
	if len(m) > 2*dictMax {
		return nil
	}
	return &dict{values: m}
}
