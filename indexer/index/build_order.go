package index

import (
	"cmp"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// How a Builder makes its orders. An order is sorted by (pre, exact part,
// primary key). Comparing exact parts and keys reads the columns at random,
// a cache miss per comparison once a table is larger than the caches, and a
// sort makes n log n comparisons: at ten million documents that was more
// than half the CPU of a full build. So the builder first makes the key
// order, and with it each document's rank (its position there); it then
// sorts each property's (pre, rank, document) triples, which compare
// without reading anything else, and sorts by exact part only the runs of
// equal pres whose exact parts differ (strings sharing their first 8
// bytes), stably, so that equal exact parts stay in key order.

// rankedPair is an entry of an order being built.
type rankedPair struct {
	pre  uint64
	rank uint32 // the document's position in the key order (for the key order itself: the document)
	doc  uint32
}

func compareRanked(a, b rankedPair) int {
	if c := cmp.Compare(a.pre, b.pre); c != 0 {
		return c
	}
	return cmp.Compare(a.rank, b.rank)
}

// rankedOrder sorts ps by (pre, exact part, rank) and cuts them into
// blocks; exactOf (nil: no exact parts) gives a document's exact part.
func rankedOrder(ps []rankedPair, exactOf func(d uint32) string) *order {
	sortRanked(ps)
	if exactOf != nil {
		for i := 0; i < len(ps); {
			j := i + 1
			for j < len(ps) && ps[j].pre == ps[i].pre {
				j++
			}
			if run := ps[i:j]; len(run) > 1 && !sameExact(run, exactOf) {
				slices.SortStableFunc(run, func(a, b rankedPair) int { return strings.Compare(exactOf(a.doc), exactOf(b.doc)) })
			}
			i = j
		}
	}
	return orderOfSorted(ps, func(p rankedPair) (uint64, uint32) { return p.pre, p.doc })
}

// sameExact reports whether the documents of run share one exact part.
func sameExact(run []rankedPair, exactOf func(d uint32) string) bool {
	first := exactOf(run[0].doc)
	for _, p := range run[1:] {
		if exactOf(p.doc) != first {
			return false
		}
	}
	return true
}

// pairBuffers hands the orders of a Finish the buffers they sort in, so
// that each worker allocates one for all the orders it makes instead of
// leaving one as garbage per property (16 bytes a document each).
type pairBuffers chan []rankedPair

func (pb pairBuffers) get(n uint64) []rankedPair {
	select {
	case ps := <-pb:
		if uint64(cap(ps)) >= n {
			return ps[:0]
		}
	default:
	}
	return make([]rankedPair, 0, n)
}

// put keeps a buffer for the next order, or drops it when enough are kept.
func (pb pairBuffers) put(ps []rankedPair) {
	select {
	case pb <- ps:
	default:
	}
}

// buildKeyOrder makes the primary-key order of the builder's documents
// and the rank of each document in it.
func (s *Snapshot) buildKeyOrder(bufs pairBuffers) (*order, []uint32) {
	ps := bufs.get(s.alive.GetCardinality())
	defer func() { bufs.put(ps) }()
	eachDocs(s.alive, func(docs []uint32) bool {
		for _, d := range docs {
			ps = append(ps, rankedPair{pre: keyPre(s.keys.get(d)), rank: d, doc: d})
		}
		return true
	})
	o := rankedOrder(ps, s.keys.get)
	rank := make([]uint32, s.maxDoc)
	p := uint32(0)
	for _, b := range o.blocks {
		for _, d := range b.doc {
			rank[d] = p
			p++
		}
	}
	return o, rank
}

// buildPropertyOrder makes the order of a sortable scalar property from
// its column: every document with a non-null value.
func (s *Snapshot) buildPropertyOrder(pi *propertyIndex, rank []uint32, bufs pairBuffers) *order {
	present := roaring.AndNot(s.alive, pi.nulls)
	ps := bufs.get(present.GetCardinality())
	defer func() { bufs.put(ps) }()
	c := pi.column
	eachDocs(present, func(docs []uint32) bool {
		for _, d := range docs {
			ps = append(ps, rankedPair{pre: c.chunks[d>>chunkShift].pre[d&chunkMask], rank: rank[d], doc: d})
		}
		return true
	})
	var exactOf func(uint32) string
	if c.exact {
		exactOf = func(d uint32) string { return c.get(d).exact }
	}
	return rankedOrder(ps, exactOf)
}

// eachDocs calls fn with the documents of bm in increasing order, a few
// thousand at a time, until fn returns false: a loop over a batch that
// does nothing but read lets the processor overlap its cache misses.
func eachDocs(bm *roaring.Bitmap, fn func(docs []uint32) bool) {
	it := bm.ManyIterator()
	buf := make([]uint32, 4096)
	for {
		n := it.NextMany(buf)
		if n == 0 || !fn(buf[:n]) {
			return
		}
	}
}
