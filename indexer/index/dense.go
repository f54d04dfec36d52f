package index

import (
	"math/bits"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// dense is a bitset over document numbers. Runs of an order list their
// documents in value order, not document order; a dense bitset takes them
// at a few nanoseconds each, and is then intersected with sets by testing
// bits in document order.
type dense []uint64

// dense returns a zeroed bitset over the snapshot's documents. At a
// million documents a bitset is 128 KiB, and a query makes a few: they
// come from the snapshot's pool and go back when the query ends (release).
func (x *exec) dense() dense {
	w := x.buffer()
	clear(w)
	return w
}

// denseCopy is a copy of v the query may modify.
func (x *exec) denseCopy(v dense) dense {
	w := x.buffer()
	clear(w[copy(w, v):])
	return w
}

// buffer is a bitset of the query with any content.
func (x *exec) buffer() dense {
	n := int(x.s.maxDoc+63) / 64
	if p, _ := x.s.bitsets.Get().(*dense); p != nil && cap(*p) >= n {
		w := (*p)[:n]
		x.bitsets = append(x.bitsets, w)
		return w
	}
	w := make(dense, n)
	x.bitsets = append(x.bitsets, w)
	return w
}

// release gives the query's bitsets back. Nothing built on them (bitmaps
// made by FromDense alias them) may outlive the query.
func (x *exec) release() {
	for _, w := range x.bitsets {
		x.s.bitsets.Put(&w)
	}
	x.bitsets = nil
}

// bit is 1 when d's bit is set, else 0: added up without a branch, as
// whether a bit is set is unpredictable.
func (w dense) bit(d uint32) uint64 {
	if j := int(d >> 6); j < len(w) {
		return w[j] >> (d & 63) & 1
	}
	return 0
}

// countBits counts the docs whose bit is set in w, four at a time into
// four sums, so that no test waits on another's sum.
func countBits(docs []uint32, w dense) uint64 {
	var n0, n1, n2, n3 uint64
	k := 0
	for ; k+4 <= len(docs); k += 4 {
		d := docs[k : k+4 : k+4]
		n0 += w.bit(d[0])
		n1 += w.bit(d[1])
		n2 += w.bit(d[2])
		n3 += w.bit(d[3])
	}
	for _, d := range docs[k:] {
		n0 += w.bit(d)
	}
	return n0 + n1 + n2 + n3
}

func (w dense) has(d uint32) bool {
	i := d >> 6
	return int(i) < len(w) && w[i]&(1<<(d&63)) != 0
}

func (w dense) count() int64 {
	n := 0
	for _, x := range w {
		n += bits.OnesCount64(x)
	}
	return int64(n)
}

// eachBlock calls fn with the documents of positions [lo, hi), a block
// at a time, in order, until it returns false.
func (o *order) eachBlock(lo, hi int, fn func(docs []uint32) bool) {
	if lo >= hi {
		return
	}
	bi, j := o.locate(lo)
	for p := lo; p < hi && bi < len(o.blocks); bi, j = bi+1, 0 {
		docs := o.blocks[bi].doc[j:]
		if n := hi - p; len(docs) > n {
			docs = docs[:n]
		}
		if !fn(docs) {
			return
		}
		p += len(docs)
	}
}

// denseRuns is the documents of runs of an order as a dense bitset.
func (x *exec) denseRuns(o *order, runs []run) dense {
	w := x.dense()
	for _, r := range runs {
		o.eachBlock(r.lo, r.hi, func(docs []uint32) bool {
			for _, d := range docs {
				w[d>>6] |= 1 << (d & 63)
			}
			return true
		})
	}
	return w
}

// runsBitmap is the documents of runs as a bitmap, sorted rather than set
// in a dense bitset: for runs much smaller than the snapshot.
func runsBitmap(o *order, runs []run) *roaring.Bitmap {
	var docs []uint32
	for _, r := range runs {
		o.eachBlock(r.lo, r.hi, func(ds []uint32) bool {
			docs = append(docs, ds...)
			return true
		})
	}
	slices.Sort(docs)
	bm := roaring.New()
	bm.AddMany(docs)
	return bm
}

// countRunsTest counts the documents of runs that pass test.
func countRunsTest(x *exec, o *order, runs []run, test func(uint32) bool) (int64, error) {
	var n int64
	var err error
	for _, r := range runs {
		o.eachBlock(r.lo, r.hi, func(docs []uint32) bool {
			if err = x.tick(); err != nil {
				return false
			}
			for _, d := range docs {
				if test(d) {
					n++
				}
			}
			return true
		})
	}
	return n, err
}

// countRunsIn counts the documents of runs whose bit is set in w.
func countRunsIn(o *order, runs []run, w dense) int64 {
	var n uint64
	for _, r := range runs {
		o.eachBlock(r.lo, r.hi, func(docs []uint32) bool {
			n += countBits(docs, w)
			return true
		})
	}
	return int64(n)
}

// countIn counts the documents of bm whose bit is set in w.
func countIn(bm *roaring.Bitmap, w dense) int64 {
	var n int64
	it := bm.ManyIterator()
	buf := make([]uint32, 256)
	for k := it.NextMany(buf); k > 0; k = it.NextMany(buf) {
		for _, d := range buf[:k] {
			if w.has(d) {
				n++
			}
		}
	}
	return n
}

// filterIn keeps the documents of bm whose bit is set in w.
func filterIn(bm *roaring.Bitmap, w dense) *roaring.Bitmap {
	out := roaring.New()
	it := bm.ManyIterator()
	buf := make([]uint32, 256)
	keep := make([]uint32, 0, 256)
	for k := it.NextMany(buf); k > 0; k = it.NextMany(buf) {
		keep = keep[:0]
		for _, d := range buf[:k] {
			if w.has(d) {
				keep = append(keep, d)
			}
		}
		out.AddMany(keep)
	}
	return out
}

// denseOf is a bitmap as a dense bitset.
func (x *exec) denseOf(bm *roaring.Bitmap) dense {
	w := x.dense()
	bm.WriteDenseTo(w)
	return w
}

// setDense is the documents of a set as a dense bitset the query may
// modify.
func (x *exec) setDense(k *setNode) dense {
	if k.bits == nil {
		return x.denseOf(k.bm)
	}
	return x.denseCopy(k.bits)
}

// setView is the documents of a set as a dense bitset to read only.
func (x *exec) setView(k *setNode) dense {
	if k.bits != nil {
		return k.bits
	}
	return x.denseOf(k.bm)
}

// aliveDense is the alive documents as a dense bitset the query may
// modify (the start of every negation).
func (x *exec) aliveDense() dense {
	s := x.s
	s.aliveOnce.Do(func() { s.aliveBits = make(dense, (s.maxDoc+63)/64); s.alive.WriteDenseTo(s.aliveBits) })
	return x.denseCopy(s.aliveBits)
}

func (w dense) and(v dense) {
	for i := range w {
		if i < len(v) {
			w[i] &= v[i]
		} else {
			w[i] = 0
		}
	}
}

func (w dense) andNot(v dense) {
	for i := range min(len(w), len(v)) {
		w[i] &^= v[i]
	}
}

// each calls fn for every set bit in order until it returns false.
func (w dense) each(fn func(d uint32) bool) {
	for i, x := range w {
		for x != 0 {
			t := bits.TrailingZeros64(x)
			if !fn(uint32(i<<6 | t)) {
				return
			}
			x &= x - 1
		}
	}
}

// keep clears the bits whose document fails test.
func (w dense) keep(test func(uint32) bool) {
	for i, x := range w {
		for y := x; y != 0; y &= y - 1 {
			if d := uint32(i<<6 | bits.TrailingZeros64(y)); !test(d) {
				x &^= 1 << (d & 63)
			}
		}
		w[i] = x
	}
}

// denseNode returns the matches of n as a dense bitset when that is
// cheap to compute and worth it: n is large (testing a bit beats a bitmap
// lookup, counting is a popcount) and made of sets and ranges. With force,
// intersections of sets are made dense even when roaring would intersect
// them faster: a walk bounded by a range tests and counts along that range
// with the bitset.
func (x *exec) denseNode(n node, force bool) (dense, bool, error) {
	words := float64(x.s.maxDoc) / 64
	if x.sparse {
		return nil, false, nil
	}
	switch k := n.(type) {
	case *andNode:
		if !x.andWantsDense(k, force) {
			return nil, false, nil
		}
		w, err := k.dense(x)
		return w, err == nil, err
	case *setNode:
		if k.bm == nil || k.est() < words {
			return nil, false, nil
		}
		return x.setDense(k), true, nil
	case allNode:
		return nil, false, nil
	case *notNode:
		if s, ok := k.kid.(*setNode); ok && s.bm != nil {
			w := x.aliveDense()
			w.andNot(x.setView(s))
			return w, true, nil
		}
	case *runsNode:
		if k.est() >= words {
			return x.denseRuns(k.pi.order, k.runs), true, nil
		}
	case *joinNode:
		if k.est() >= words {
			return k.dense(x), true, nil
		}
	case *orNode:
		if k.est() < words {
			return nil, false, nil
		}
		var w dense
		for _, kid := range k.kids {
			kw, ok, err := x.denseNode(kid, force)
			if err != nil {
				return nil, false, err
			}
			if r, isRuns := kid.(*runsNode); !ok && isRuns {
				// Into the bitset directly, not through a bitmap.
				kw, ok = x.denseRuns(r.pi.order, r.runs), true
			}
			if !ok {
				bm, err := kid.bitmap(x)
				if err != nil {
					return nil, false, err
				}
				kw = x.denseOf(bm)
			}
			if w == nil {
				w = kw
			} else {
				w.or(kw)
			}
		}
		return w, true, nil
	}
	return nil, false, nil
}

// andWantsDense reports whether denseNode makes an intersection's bitset:
// when its costs say so, or when force asks and it holds at least one
// document in 256.
func (x *exec) andWantsDense(k *andNode, force bool) bool {
	return k.useDense() || force && k.est() >= float64(x.s.maxDoc)/64/4
}

func (w dense) or(v dense) {
	for i := range min(len(w), len(v)) {
		w[i] |= v[i]
	}
}
