package index

import (
	"cmp"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// andNode is the intersection of its kids. To materialize it, precomputed
// sets (and their complements) are intersected first, which costs
// container operations whatever their sizes; then every other kid either
// filters the documents left one by one, or is materialized and
// intersected, whichever its costs say is cheaper. So a range over 50,000
// documents ANDed with two keyword values costs the few thousand
// documents the keywords leave, tested in document order.
type andNode struct {
	s    *Snapshot
	kids []node
	// tests is the kids in the order test tries them: cheap and selective
	// first.
	tests []node
}

func newAnd(s *Snapshot, kids []node) *andNode {
	n := &andNode{s: s, kids: kids, tests: slices.Clone(kids)}
	total := math.Max(float64(s.aliveCount()), 1)
	slices.SortStableFunc(n.tests, func(a, b node) int {
		// Expected cost to reject: tcost / probability of rejecting.
		ra := a.tcost() / math.Max(1-a.est()/total, 1e-3)
		rb := b.tcost() / math.Max(1-b.est()/total, 1e-3)
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	})
	return n
}

func (n *andNode) est() float64 {
	total := math.Max(float64(n.s.aliveCount()), 1)
	e := total
	for _, k := range n.kids {
		e *= k.est() / total
	}
	return e
}

func (n *andNode) test(d uint32) bool {
	for _, k := range n.tests {
		if !k.test(d) {
			return false
		}
	}
	return true
}

func (n *andNode) tcost() float64 {
	t := 0.0
	for _, k := range n.kids {
		t += k.tcost()
	}
	return t
}

// setOf returns the precomputed set of a kid, and whether it is negated.
func setOf(k node) (*setNode, bool, bool) {
	switch x := k.(type) {
	case *setNode:
		return x, false, true
	case *notNode:
		if s, ok := x.kid.(*setNode); ok {
			return s, true, true
		}
	}
	return nil, false, false
}

// plan splits the kids into precomputed sets (smallest first, negations
// last) and the others (smallest estimate first).
func (n *andNode) plan() (sets []node, others []node) {
	for _, k := range n.kids {
		if _, _, ok := setOf(k); ok {
			sets = append(sets, k)
		} else {
			others = append(others, k)
		}
	}
	slices.SortStableFunc(sets, func(a, b node) int {
		_, na, _ := setOf(a)
		_, nb, _ := setOf(b)
		if na != nb {
			if na {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.est(), b.est())
	})
	slices.SortStableFunc(others, func(a, b node) int { return cmp.Compare(a.est(), b.est()) })
	return sets, others
}

// driver returns the first of others when it is a range so much smaller
// than the smallest set that intersecting from its documents is cheaper
// than intersecting the sets: a narrow range ANDed with keywords then
// costs the range, not the keywords' sizes, whatever the table's size.
func (n *andNode) driver(sets, others []node) *runsNode {
	if len(others) == 0 {
		return nil
	}
	r, ok := others[0].(*runsNode)
	if !ok {
		return nil
	}
	smallest := float64(n.s.aliveCount())
	for _, k := range sets {
		if _, neg, _ := setOf(k); !neg {
			smallest = math.Min(smallest, k.est())
		}
	}
	if r.est()*4 >= smallest {
		return nil
	}
	return r
}

func (n *andNode) mcost() float64 {
	sets, others := n.plan()
	total := math.Max(float64(n.s.aliveCount()), 1)
	card, cost := -1.0, 0.0
	if d := n.driver(sets, others); d != nil {
		card, cost = d.est(), math.Min(d.est()*costSort, float64(n.s.maxDoc)/64*costWord+d.est()*costSet)
		for _, k := range sets {
			cost += card * costContains
			card *= k.est() / total
		}
		sets, others = nil, others[1:]
	}
	for _, k := range sets {
		if card < 0 {
			card = k.est()
		} else {
			cost += (card + k.est()) / 64
			card *= k.est() / total
		}
	}
	for _, k := range others {
		if card < 0 {
			card, cost = k.est(), k.mcost()
			continue
		}
		if _, ok := k.(*runsNode); ok {
			// As eval does: the documents left are looked up in a dense
			// bitset of the range, one by one.
			cost += math.Min(card*k.tcost(), k.mcost()+card*costScan)
		} else {
			cost += math.Min(card*k.tcost(), k.mcost()+card/8)
		}
		card *= k.est() / total
	}
	return cost
}

func (n *andNode) bitmap(x *exec) (*roaring.Bitmap, error) {
	if !x.sparse && n.useDense() {
		w, err := n.dense(x)
		if err != nil {
			return nil, err
		}
		return roaring.FromDense(w, false), nil
	}
	bm, _, err := n.eval(x, false)
	return bm, err
}

// useDense reports whether the intersection is cheaper as dense bitsets.
// Roaring intersects its bitmap containers (sets denser than 1/16) by
// words, but its array containers element by element at a few ns each; a
// dense bitset costs a word per 64 documents to clear and intersect,
// whatever the sets hold, plus a bit set per element of an array.
func (n *andNode) useDense() bool {
	words := math.Max(float64(n.s.maxDoc)/64, 1)
	sets, others := n.plan()
	if len(sets) == 0 || n.driver(sets, others) != nil {
		return false
	}
	denseCost, sparseCost := 0.0, 0.0
	for _, k := range sets {
		card := k.est()
		if card*16 < float64(n.s.maxDoc) {
			sparseCost += card * 3
			denseCost += 2*words + card
		} else {
			sparseCost += 2 * words
			denseCost += 3 * words
		}
	}
	for _, k := range others {
		if _, ok := k.(*runsNode); ok {
			denseCost += words + k.est()*costSet
			sparseCost += k.est() * costSet * 2
		}
	}
	return denseCost < sparseCost
}

// dense computes the intersection as a dense bitset: sets by words, ranges
// by setting their documents' bits, other kids by testing the documents
// left (or intersecting their bitmaps, when that is cheaper).
func (n *andNode) dense(x *exec) (dense, error) {
	sets, others := n.plan()
	var w dense
	for _, k := range sets {
		s, neg, _ := setOf(k)
		switch {
		case w == nil && !neg:
			w = x.setDense(s)
		case w == nil:
			w = x.aliveDense()
			w.andNot(x.setView(s))
		case neg:
			w.andNot(x.setView(s))
		default:
			w.and(x.setView(s))
		}
	}
	for _, k := range others {
		if r, ok := k.(*runsNode); ok {
			if w == nil {
				w = x.denseRuns(r.pi.order, r.runs)
			} else {
				w.and(x.denseRuns(r.pi.order, r.runs))
			}
			continue
		}
		if w == nil {
			bm, err := k.bitmap(x)
			if err != nil {
				return nil, err
			}
			w = x.denseOf(bm)
			continue
		}
		if c := float64(w.count()); c*k.tcost() <= k.mcost()+c/8 {
			w.keep(k.test)
			continue
		}
		bm, err := k.bitmap(x)
		if err != nil {
			return nil, err
		}
		w.and(x.denseOf(bm))
	}
	if w == nil {
		w = x.aliveDense()
	}
	return w, x.ctx.Err()
}

// eval materializes the intersection, or only counts it when countOnly
// (the last step then counts instead of building a bitmap).
func (n *andNode) eval(x *exec, countOnly bool) (*roaring.Bitmap, int64, error) {
	sets, others := n.plan()
	var base *roaring.Bitmap
	if d := n.driver(sets, others); d != nil {
		// The sets then intersect the range's few documents.
		bm, err := d.bitmap(x)
		if err != nil {
			return nil, 0, err
		}
		base, others = bm, others[1:]
		if len(sets) == 0 && len(others) == 0 {
			return base, int64(base.GetCardinality()), nil
		}
	}
	for i, k := range sets {
		s, neg, _ := setOf(k)
		bm := s.bm
		last := countOnly && i == len(sets)-1 && len(others) == 0
		switch {
		case base == nil && !neg:
			base = bm
		case base == nil:
			base = roaring.AndNot(n.s.alive, bm)
		case last && !neg:
			return nil, int64(base.AndCardinality(bm)), nil
		case last:
			return nil, int64(base.GetCardinality() - base.AndCardinality(bm)), nil
		case !neg:
			base = roaring.And(base, bm)
		default:
			base = roaring.AndNot(base, bm)
		}
	}
	for i, k := range others {
		if base == nil {
			bm, err := k.bitmap(x)
			if err != nil {
				return nil, 0, err
			}
			base = bm
			continue
		}
		card := float64(base.GetCardinality())
		last := countOnly && i == len(others)-1
		if r, ok := k.(*runsNode); ok && !x.sparse && r.est()*costSet+card*costScan < card*k.tcost() {
			// A range: intersect through a dense bitset of the smaller side.
			if last {
				if r.est() <= card {
					return nil, countRunsIn(r.pi.order, r.runs, dense(base.ToDense())), nil
				}
				return nil, countIn(base, x.denseRuns(r.pi.order, r.runs)), nil
			}
			base = filterIn(base, x.denseRuns(r.pi.order, r.runs))
			continue
		}
		if card*k.tcost() <= k.mcost()+card/8 {
			if last {
				c, err := x.count(base, k.test)
				return nil, c, err
			}
			bm, err := x.filter(base, k.test)
			if err != nil {
				return nil, 0, err
			}
			base = bm
			continue
		}
		bm, err := k.bitmap(x)
		if err != nil {
			return nil, 0, err
		}
		if last {
			return nil, int64(base.AndCardinality(bm)), nil
		}
		base = roaring.And(base, bm)
	}
	if base == nil {
		base = n.s.alive
	}
	return base, int64(base.GetCardinality()), nil
}

// count counts the documents of bm that pass test.
func (x *exec) count(bm *roaring.Bitmap, test func(uint32) bool) (int64, error) {
	var c int64
	it := bm.Iterator()
	for it.HasNext() {
		if err := x.tick(); err != nil {
			return 0, err
		}
		if test(it.Next()) {
			c++
		}
	}
	return c, nil
}

// countNode counts the matches of a node as cheaply as its kind allows.
func (x *exec) countNode(n node) (int64, error) {
	if c, ok := countInPlace(n); ok {
		return c, nil
	}
	switch k := n.(type) {
	case allNode:
		return int64(x.s.aliveCount()), nil
	case *runsNode:
		return int64(k.est()), nil
	case *notNode:
		c, err := x.countNode(k.kid)
		return int64(x.s.aliveCount()) - c, err
	case *geoNode:
		return k.count(x)
	case *geoDisjointNode:
		return k.count(x)
	case *andNode:
		if !x.sparse && k.useDense() {
			w, err := k.dense(x)
			return w.count(), err
		}
		_, c, err := k.eval(x, true)
		return c, err
	}
	bm, err := n.bitmap(x)
	if err != nil {
		return 0, err
	}
	return int64(bm.GetCardinality()), nil
}

// countInPlace counts the nodes whose count needs no bitmap or bitset of
// their matches: a set, by its cardinality. (A walk counts an OR of sets
// and a range without one too: union.go.)
func countInPlace(n node) (int64, bool) {
	switch k := n.(type) {
	case *setNode:
		if k.bm != nil {
			return int64(k.cardinality()), true
		}
	case *joinNode:
		return k.count, true
	}
	return 0, false
}
