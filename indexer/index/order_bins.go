package index

import (
	"slices"
	"sync"
)

// orderBins cut an order's positions into bins of width consecutive
// positions and hold each bin's documents sorted by document. A count
// along a range of the order (a walk bounded by a range whose residual is
// a dense bitset) reads the range's documents in value order, so each
// test of the bitset is a cache miss once the bitset outgrows the caches
// (1.25 MB at ten million documents): the count then costs twice as much
// per document at ten million as at one. Through the bins, the whole bins
// of the range are read a stretch of 65,536 documents at a time, so that
// the 8 KB of the bitset a stretch tests stays in the first-level cache;
// the ends of the range are counted by position as before. The documents
// are laid out by stretch, then by bin, so that the whole bins of a range
// are one slice in each stretch, read as a stream (at ten million, a
// count of 500,000 documents read 3,800 pieces of 25 bins before, at 1.8x
// the CPU). The bins cost 4 bytes a document of the order and 4 bytes
// per bin and stretch (0.03 a document at ten million); they are made on
// first use per order (about 0.1 s at ten million), carried by Apply
// while the order is unchanged, and not saved.
type orderBins struct {
	width     int // positions a bin
	bins      int
	stretch   int // documents a stretch
	stretches int
	// docs holds, stretch after stretch, the documents of each bin in
	// that stretch, ascending; the documents of bin i in stretch k are
	// docs[starts[k*bins+i]:starts[k*bins+i+1]].
	docs   []uint32
	starts []uint32
}

const (
	binsPerOrder = 512
	binWidthMin  = 64
)

// binsWorth reports whether a count along an order goes through its
// bins: when the snapshot's bitsets outgrow the second-level cache's
// share. At a million documents (a 125 KB bitset) the bins count as fast
// as positions do (BenchmarkOrderBins_Count), at ten million twice as fast.
func binsWorth(s *Snapshot, o *order) bool {
	return s.maxDoc >= binsMinDocs && o.len() >= binsPerOrder*binWidthMin
}

// binsMinDocs is the documents from which bins count: a 256 KB bitset.
const binsMinDocs = 1 << 21

// newOrderBins makes the bins of an order whose documents are below
// maxDoc, cut in stretches of that many documents.
func newOrderBins(o *order, maxDoc uint32, stretch int) *orderBins {
	n := o.len()
	b := &orderBins{width: max(n/binsPerOrder, binWidthMin), stretch: stretch}
	b.bins = (n + b.width - 1) / b.width
	b.stretches = (int(maxDoc) + stretch - 1) / stretch
	// Each document's bin, then the documents in document order placed
	// in their stretch's piece of their bin: counting sort, where sorting
	// each bin costs n log n.
	binOf := make([]int32, maxDoc)
	for i := range binOf {
		binOf[i] = -1
	}
	p := 0
	o.eachBlock(0, n, func(docs []uint32) bool {
		for _, d := range docs {
			binOf[d] = int32(p / b.width)
			p++
		}
		return true
	})
	b.starts = make([]uint32, b.stretches*b.bins+1)
	for d, bi := range binOf {
		if bi >= 0 {
			b.starts[d/stretch*b.bins+int(bi)+1]++
		}
	}
	for i := 1; i < len(b.starts); i++ {
		b.starts[i] += b.starts[i-1]
	}
	next := slices.Clone(b.starts[:len(b.starts)-1])
	b.docs = make([]uint32, n)
	for d, bi := range binOf {
		if bi >= 0 {
			f := d/stretch*b.bins + int(bi)
			b.docs[next[f]] = uint32(d)
			next[f]++
		}
	}
	return b
}

// countIn counts the documents of positions [r.lo, r.hi) of o whose bit
// is set in w: the whole bins by document, a stretch at a time, so that
// the stretch of w they test stays in the first-level cache, or from
// prefix, the prefix sums of w's documents over the bins, when given
// (cachedFilter.binPrefix); the ends by position.
func (b *orderBins) countIn(o *order, r run, w dense, prefix []int64) int64 {
	first, last := (r.lo+b.width-1)/b.width, r.hi/b.width // whole bins [first, last)
	if first >= last {
		return countRunsIn(o, []run{r}, w)
	}
	var n int64
	if prefix != nil {
		n = prefix[last] - prefix[first]
	} else {
		for k := range b.stretches {
			n += int64(countBits(b.docs[b.starts[k*b.bins+first]:b.starts[k*b.bins+last]], w))
		}
	}
	return n + countRunsIn(o, []run{{r.lo, first * b.width}, {last * b.width, r.hi}}, w)
}

// binStretch is the documents whose bits countIn tests together: 8 KB
// of a dense bitset.
const binStretch = 1 << 16

// binsCost is what counting span positions of an order through its bins
// costs beyond the dense bitset, against costScan a position otherwise.
func binsCost(o *order, span float64) float64 {
	width := float64(max(o.len()/binsPerOrder, binWidthMin))
	return span*costBinScan + 2*width*costScan
}

// orderBinsCache holds a snapshot's bins per order; Apply carries those
// of the orders it leaves as they were.
type orderBinsCache struct {
	mu   sync.Mutex
	bins map[*order]*orderBins
}

// binsOf returns the bins of an order, making them on first use.
func (s *Snapshot) binsOf(o *order) *orderBins {
	c := &s.orderBins
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.bins[o]; b != nil {
		return b
	}
	b := newOrderBins(o, s.maxDoc, binStretch)
	if c.bins == nil {
		c.bins = map[*order]*orderBins{}
	}
	c.bins[o] = b
	return b
}

// carryBins gives n the bins of s whose orders n still holds.
func (s *Snapshot) carryBins(n *Snapshot) {
	s.orderBins.mu.Lock()
	defer s.orderBins.mu.Unlock()
	for _, pi := range n.properties {
		if b := s.orderBins.bins[pi.order]; pi.order != nil && b != nil {
			if n.orderBins.bins == nil {
				n.orderBins.bins = map[*order]*orderBins{}
			}
			n.orderBins.bins[pi.order] = b
		}
	}
}
