package index

import (
	"context"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// A compiled filter is a tree of nodes. Every node can give its matches as
// a bitmap and can test one document; the planner uses the estimates and
// costs below to pick, per AND, which kids to materialize and which to
// test on the documents left, and, per search, whether to walk the sort
// order or to collect and sort. Costs are rough nanoseconds per document.
const (
	costContains = 8   // a bitmap membership test
	costColumn   = 12  // a column read and compare, random access
	costSet      = 4   // setting a bit of a dense bitset
	costScan     = 3   // iterating a bitmap, sequential column reads
	costBinScan  = 1   // testing a bit of a dense bitset in ascending documents (order_bins.go)
	costVerify   = 400 // analyzing a stored text to check a phrase
	costHeap     = 12  // a top-k heap step
	costSort     = 20  // sorting a document into a bitmap (n log n, small n)
	costWord     = 6   // clearing, filling and converting a word of a dense bitset
)

type node interface {
	// est is the estimated number of matches; exact for sets and runs.
	est() float64
	// bitmap returns the matches. The result may be shared: never modify it.
	bitmap(x *exec) (*roaring.Bitmap, error)
	// test reports whether an alive document matches.
	test(d uint32) bool
	// mcost and tcost are the costs of bitmap and of one test.
	mcost() float64
	tcost() float64
}

// exec is one query's evaluation context.
type exec struct {
	ctx           context.Context
	s             *Snapshot
	steps         int
	sparse        bool    // never use dense bitsets (tests compare both ways)
	noPairs       bool    // never use pair counts (tests and benchmarks compare both ways)
	noFilterCache bool    // never use the snapshot's filter cache (filter_cache.go), likewise
	bitsets       []dense // bitsets to give back when the query ends
}

// tick checks for cancellation every so often in long loops.
func (x *exec) tick() error {
	if x.steps++; x.steps&0xffff == 0 {
		return x.ctx.Err()
	}
	return nil
}

// filter keeps the documents of bm that pass test.
func (x *exec) filter(bm *roaring.Bitmap, test func(uint32) bool) (*roaring.Bitmap, error) {
	out := roaring.New()
	var buf []uint32
	it := bm.Iterator()
	for it.HasNext() {
		d := it.Next()
		if err := x.tick(); err != nil {
			return nil, err
		}
		if test(d) {
			buf = append(buf, d)
			if len(buf) == 4096 {
				out.AddMany(buf)
				buf = buf[:0]
			}
		}
	}
	out.AddMany(buf)
	return out, nil
}

// allNode matches every object.
type allNode struct{ s *Snapshot }

func (n allNode) est() float64                          { return float64(n.s.aliveCount()) }
func (n allNode) bitmap(*exec) (*roaring.Bitmap, error) { return n.s.alive, nil }
func (allNode) test(uint32) bool                        { return true }
func (allNode) mcost() float64                          { return 0 }
func (allNode) tcost() float64                          { return 0 }

func isAll(n node) bool { _, ok := n.(allNode); return ok }

// setNode is a precomputed set: a dict value, nulls, a posting, keys. A
// walk sets w instead, a dense form of its residual filter, to test by
// bits.
type setNode struct {
	bm *roaring.Bitmap
	// w is the documents as a dense bitset, never modified: the only form
	// when bm is nil, else the one a dict keeps of a large bitmap.
	bits dense
	// count is bm's cardinality when counted says a dict knew it.
	counted bool
	count   uint64
	// of and key name the dict value the set is, when it is one (the
	// pair counts of pairs.go know its intersections).
	dictProperty *propertyIndex
	dictValue    string
}

func noneNode() node { return &setNode{bm: roaring.New()} }

func isNone(n node) bool { s, ok := n.(*setNode); return ok && s.bm != nil && s.bm.IsEmpty() }

func (n *setNode) bitmap(*exec) (*roaring.Bitmap, error) {
	if n.bm == nil {
		return roaring.FromDense(n.bits, false), nil
	}
	return n.bm, nil
}

func (n *setNode) test(d uint32) bool {
	if n.bits != nil {
		return n.bits.has(d)
	}
	return n.bm.Contains(d)
}

func (n *setNode) est() float64 {
	if n.bm == nil {
		return float64(n.bits.count())
	}
	return float64(n.cardinality())
}

// cardinality is the documents of bm, a set's bitmap.
func (n *setNode) cardinality() uint64 {
	if n.counted {
		return n.count
	}
	return n.bm.GetCardinality()
}

func (*setNode) mcost() float64 { return 0 }
func (*setNode) tcost() float64 { return costContains }

// phraseNode is the documents of cand whose text verify accepts.
type phraseNode struct {
	cand   node
	verify func(d uint32) bool
}

func (n *phraseNode) est() float64       { return n.cand.est() / 2 }
func (n *phraseNode) test(d uint32) bool { return n.cand.test(d) && n.verify(d) }
func (n *phraseNode) tcost() float64     { return n.cand.tcost() + costVerify }
func (n *phraseNode) mcost() float64     { return n.cand.mcost() + n.cand.est()*costVerify }

func (n *phraseNode) bitmap(x *exec) (*roaring.Bitmap, error) {
	bm, err := n.cand.bitmap(x)
	if err != nil {
		return nil, err
	}
	return x.filter(bm, n.verify)
}

// run is the positions [lo, hi) of an order.
type run struct{ lo, hi int }

// runsNode is the documents of some runs of a property's order, whose
// values are those in accepts.
type runsNode struct {
	pi   *propertyIndex
	runs []run
	in   func(vk valueKey) bool
	cost float64 // of one in
}

func (n *runsNode) est() float64 {
	t := 0
	for _, r := range n.runs {
		t += r.hi - r.lo
	}
	return float64(t)
}

func (n *runsNode) bitmap(x *exec) (*roaring.Bitmap, error) {
	if n.sparse(x.s) {
		return runsBitmap(n.pi.order, n.runs), nil
	}
	return roaring.FromDense(x.denseRuns(n.pi.order, n.runs), false), nil
}

// sparse reports whether the runs hold so few documents that sorting them
// costs less than a dense bitset of the whole snapshot, which is what
// keeps a narrow range's cost off the table's size.
func (n *runsNode) sparse(s *Snapshot) bool {
	return n.est()*costSort < float64(s.maxDoc)/64*costWord
}

func (n *runsNode) test(d uint32) bool {
	return !n.pi.nulls.Contains(d) && n.in(n.pi.column.get(d))
}
func (n *runsNode) mcost() float64 { return n.est() * costSet }
func (n *runsNode) tcost() float64 { return costColumn + n.cost }

// predNode tests the values of a property one by one: arrays (any
// element), and text forms of keyword values. With a dict it is exact and
// cheap to materialize; without, it scans.
type predNode struct {
	s         *Snapshot
	pi        *propertyIndex
	in        func(vk valueKey) bool
	cost      float64
	estimated float64
	buf       []valueKey
}

func (n *predNode) est() float64 { return n.estimated }

func (n *predNode) test(d uint32) bool {
	if n.pi.nulls.Contains(d) {
		return false
	}
	if n.pi.listColumn == nil {
		return n.in(n.pi.column.get(d))
	}
	n.buf = n.pi.listColumn.get(d, n.buf)
	return slices.ContainsFunc(n.buf, n.in)
}

func (n *predNode) bitmap(x *exec) (*roaring.Bitmap, error) {
	if n.pi.dict != nil {
		var bms []*roaring.Bitmap
		for k, bm := range n.pi.dict.values {
			if n.in(valueKeyOfDict(k)) {
				bms = append(bms, bm)
			}
		}
		return roaring.FastOr(bms...), nil
	}
	return x.filter(n.s.alive, n.test)
}

func (n *predNode) mcost() float64 {
	if n.pi.dict != nil {
		return float64(len(n.pi.dict.values)) * n.cost
	}
	return float64(n.s.aliveCount()) * (costColumn + n.cost)
}
func (n *predNode) tcost() float64 { return costColumn + n.cost }

// estimate sets the estimate of a predicate: exact from a dict, else from
// a sample of documents.
func (n *predNode) estimate() {
	if n.pi.dict != nil {
		t := 0.0
		for k, bm := range n.pi.dict.values {
			if n.in(valueKeyOfDict(k)) {
				t += float64(bm.GetCardinality())
			}
		}
		n.estimated = t
		return
	}
	total := n.s.aliveCount()
	if total == 0 {
		return
	}
	const samples = 128
	step := max(total/samples, 1)
	hit, seen := 0, 0
	for i := uint64(0); i < total; i += step {
		d, err := n.s.alive.Select(uint32(i))
		if err != nil {
			break
		}
		seen++
		if n.test(d) {
			hit++
		}
	}
	n.estimated = float64(total) * float64(hit) / float64(max(seen, 1))
}

// notNode is the complement of its kid.
type notNode struct {
	s   *Snapshot
	kid node
}

func (n *notNode) est() float64 { return math.Max(0, float64(n.s.aliveCount())-n.kid.est()) }
func (n *notNode) bitmap(x *exec) (*roaring.Bitmap, error) {
	bm, err := n.kid.bitmap(x)
	if err != nil {
		return nil, err
	}
	return roaring.AndNot(n.s.alive, bm), nil
}
func (n *notNode) test(d uint32) bool { return !n.kid.test(d) }
func (n *notNode) mcost() float64     { return n.kid.mcost() + float64(n.s.aliveCount())/64 }
func (n *notNode) tcost() float64     { return n.kid.tcost() }

// orNode is the union of its kids.
type orNode struct {
	s    *Snapshot
	kids []node
}

func (n *orNode) est() float64 {
	t := 0.0
	for _, k := range n.kids {
		t += k.est()
	}
	return math.Min(t, float64(n.s.aliveCount()))
}

func (n *orNode) bitmap(x *exec) (*roaring.Bitmap, error) {
	bms := make([]*roaring.Bitmap, 0, len(n.kids))
	for _, k := range n.kids {
		bm, err := k.bitmap(x)
		if err != nil {
			return nil, err
		}
		bms = append(bms, bm)
	}
	return roaring.FastOr(bms...), nil
}

func (n *orNode) test(d uint32) bool {
	for _, k := range n.kids {
		if k.test(d) {
			return true
		}
	}
	return false
}

func (n *orNode) mcost() float64 {
	t := 0.0
	for _, k := range n.kids {
		t += k.mcost() + k.est()/8
	}
	return t
}

func (n *orNode) tcost() float64 {
	t := 0.0
	for _, k := range n.kids {
		t += k.tcost()
	}
	return t
}
