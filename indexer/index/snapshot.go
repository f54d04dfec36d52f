package index

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/vector"
	"github.com/ontoindex/ontoindex/objects"
)

// Snapshot is one immutable state of the index of one generation: what
// the store held at one version. Readers use it without locks; a build
// derives the next snapshot from it, sharing every part it does not
// change.
type Snapshot struct {
	typ        *objects.Type
	version    uint64
	maxDoc     uint32           // document numbers are below maxDoc
	alive      *roaring.Bitmap  // the documents that hold an object
	keys       *keyColumn       // document -> encoded primary key
	keyOrder   *order           // documents by primary key
	properties []*propertyIndex // by property position
	// bitsets recycles the dense bitsets of queries; shared by the
	// snapshots of one generation.
	bitsets *sync.Pool
	// aliveBits is alive as a dense bitset, made on first use.
	aliveOnce sync.Once
	aliveBits dense
	// pairs are the pair counts made so far (pairs.go).
	pairsMu sync.Mutex
	pairs   map[pairKey]*pairTable
	// orderBins are the bins of orders made so far (order_bins.go).
	orderBins orderBinsCache
	// filters are the residual filters' bitsets kept so far (filter_cache.go).
	filters filterCache
	// joins are the joins with links' sources made so far (link_join.go).
	joins joinCache
	// counted is alive's cardinality + 1 once aliveCount has counted it (0:
	// not yet): every query's planner reads it, several times, and at ten
	// million documents counting reads 153 cold containers (3 µs).
	counted atomic.Uint64
}

// propertyIndex is what the index holds for one property.
type propertyIndex struct {
	property    objects.Property
	position    int
	elementType objects.DataType // the element type of arrays, else the type
	isList      bool
	nulls       *roaring.Bitmap // documents whose value is null
	column      *column         // scalar values (searchable or fixed-width ones)
	listColumn  *listColumn     // array elements (searchable arrays)
	order       *order          // sortable properties
	dict        *dict           // searchable properties with few values
	text        *terms          // text properties
	geo         *geoIndex       // geopoint and geoshape properties (geo.go)
	vectors     *vector.Index   // vector properties (vectors.go)
}

// keyColumn is the encoded primary key of each document, packed per
// chunk (build holds them while a builder fills a chunk).
type keyColumn struct {
	chunks []*keyChunk
}

type keyChunk struct {
	packed *packedStrings
	build  []string
}

func (k *keyColumn) get(d uint32) string {
	i := int(d >> chunkShift)
	if i >= len(k.chunks) {
		return ""
	}
	if ch := k.chunks[i]; ch.packed != nil {
		return ch.packed.get(int(d & chunkMask))
	} else {
		return ch.build[d&chunkMask]
	}
}

// set writes a key in place, for builders; freeze packs them.
func (k *keyColumn) set(d uint32, key string) {
	i := int(d >> chunkShift)
	for len(k.chunks) <= i {
		k.chunks = append(k.chunks, &keyChunk{build: make([]string, chunkDocs)})
	}
	k.chunks[i].build[d&chunkMask] = key
}

// touch reads the keys of docs (see Snapshot.Prefetch).
func (k *keyColumn) touch(docs []uint32) uint64 {
	var x uint64
	for _, d := range docs {
		if i := int(d >> chunkShift); i < len(k.chunks) {
			if p := k.chunks[i].packed; p != nil {
				x += p.touch(int(d & chunkMask))
			}
		}
	}
	return x
}

func (k *keyColumn) freeze() {
	for i := range k.chunks {
		k.freezeChunk(i)
	}
}

// freezeChunk packs the keys of chunk i, once a builder has set them all.
func (k *keyColumn) freezeChunk(i int) {
	if ch := k.chunks[i]; ch.build != nil {
		ch.packed, ch.build = packStrings(ch.build), nil
	}
}

func (k *keyColumn) with(set map[uint32]string) *keyColumn {
	out := &keyColumn{chunks: slices.Clone(k.chunks)}
	copied := map[int]*keyChunk{}
	for d, key := range set {
		i := int(d >> chunkShift)
		for len(out.chunks) <= i {
			out.chunks = append(out.chunks, &keyChunk{packed: packStrings(make([]string, chunkDocs))})
		}
		ch := copied[i]
		if ch == nil {
			ch = &keyChunk{build: out.chunks[i].packed.unpack()}
			copied[i] = ch
			out.chunks[i] = ch
		}
		ch.build[d&chunkMask] = key
	}
	for _, ch := range copied {
		ch.packed, ch.build = packStrings(ch.build), nil
	}
	return out
}

// structures decides which structures a property gets.
func structures(p objects.Property) (values, sorted, text bool) {
	if p.Type.Kind == objects.KindVector {
		return false, false, false // in the snapshot's vector index (vectors.go)
	}
	et := p.Type.Primitive()
	list := p.Type.Kind == objects.KindList
	searchable := p.Searchable()
	// Values of role none are kept when they are small (not strings).
	small := et.Kind != objects.KindString && et.Kind != objects.KindUUID
	values = searchable || (!list && small)
	return values, searchable && !list, p.Search == objects.SearchText
}

// Type is the object type the snapshot indexes.
func (s *Snapshot) Type() *objects.Type { return s.typ }

// Version is the store version the snapshot reflects.
func (s *Snapshot) Version() uint64 { return s.version }

// Objects is the number of objects.
func (s *Snapshot) Objects() int64 { return int64(s.aliveCount()) }

// aliveCount is alive's cardinality, counted once: a snapshot's documents
// do not change once it is made (a Builder forgets a count taken before
// Finish, the only time they do).
func (s *Snapshot) aliveCount() uint64 {
	if n := s.counted.Load(); n > 0 {
		return n - 1
	}
	n := s.alive.GetCardinality()
	s.counted.Store(n + 1)
	return n
}

// Key returns the encoded primary key of a document.
func (s *Snapshot) Key(d uint32) []byte { return []byte(s.keys.get(d)) }

// AppendKey appends the encoded primary key of a document to b: Key
// without its allocation, for a page's rows rendered one after another.
func (s *Snapshot) AppendKey(b []byte, d uint32) []byte { return append(b, s.keys.get(d)...) }

// Lookup returns the document of an encoded primary key. The primary
// key's order is sorted by (pre, key): the first entry with the key's pre
// is the key's when the pre is unique, as the pre of a number key always
// is; keys that share their first bytes are bisected among by key.
func (s *Snapshot) Lookup(key []byte) (uint32, bool) {
	pre := keyPre(string(key))
	bi, j := s.keyOrder.seekPre(pre)
	if bi == len(s.keyOrder.blocks) || s.keyOrder.blocks[bi].pre[j] != pre {
		return 0, false // no key has the pre
	}
	d := s.keyOrder.blocks[bi].doc[j]
	switch c := strings.Compare(s.keys.get(d), string(key)); {
	case c == 0:
		return d, true
	case c > 0:
		return 0, false // the first key with the pre is after the key
	}
	return s.lookupTied(string(key))
}

// lookupTied is Lookup among keys that share their pre.
func (s *Snapshot) lookupTied(k string) (uint32, bool) {
	p := s.keyOrder.lowerBound(keyTies{s.keys}, valueKey{pre: keyPre(k), exact: k}, false)
	if p < s.keyOrder.len() {
		if d := s.keyOrder.doc(p); s.keys.get(d) == k {
			return d, true
		}
	}
	return 0, false
}

// propTies breaks ties in the order of one property.
type propertyTies struct {
	col  *column
	keys *keyColumn
}

func (t propertyTies) exactOf(d uint32) string {
	if !t.col.exact {
		return ""
	}
	return t.col.get(d).exact
}
func (t propertyTies) keyOf(d uint32) string { return t.keys.get(d) }
func (t propertyTies) exactParts() bool      { return t.col.exact }

// keyTies breaks ties in the primary-key order: the exact part is the key.
type keyTies struct{ keys *keyColumn }

func (t keyTies) exactOf(d uint32) string { return t.keys.get(d) }
func (t keyTies) keyOf(d uint32) string   { return t.keys.get(d) }
func (keyTies) exactParts() bool          { return true }

func keyEntry(key string, d uint32) entry {
	return entry{value: valueKey{pre: keyPre(key), exact: key}, key: key, doc: d}
}

func (s *Snapshot) ties(pi *propertyIndex) ties { return propertyTies{col: pi.column, keys: s.keys} }

// prop returns the index of a property by apiName.
func (s *Snapshot) property(name string) *propertyIndex {
	i := s.typ.PropertyIndex(name)
	if i < 0 {
		return nil
	}
	return s.properties[i]
}

// isKey reports whether pi is the property that is the whole primary key.
func (s *Snapshot) isKey(pi *propertyIndex) bool {
	return len(s.typ.PrimaryKey) == 1 && pi.property.APIName == s.typ.PrimaryKey[0]
}

// compareKeys orders two documents by primary key.
func (s *Snapshot) compareKeys(a, b uint32) int {
	return strings.Compare(s.keys.get(a), s.keys.get(b))
}

// Allocator hands out free document numbers for new objects: the lowest
// numbers no object holds, then numbers above every used one.
type Allocator struct {
	free []uint32
	next uint32
}

// NewAllocator returns an allocator over the free numbers of s.
func (s *Snapshot) NewAllocator() *Allocator {
	a := &Allocator{next: s.maxDoc}
	if n := uint64(s.maxDoc); n > s.aliveCount() {
		used := s.alive.Clone()
		used.Flip(0, n)
		a.free = used.ToArray()
	}
	return a
}

// Next returns a free document number.
func (a *Allocator) Next() uint32 {
	if len(a.free) > 0 {
		d := a.free[0]
		a.free = a.free[1:]
		return d
	}
	a.next++
	return a.next - 1
}
