package index

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
)

// Result is one page of a search.
type Result struct {
	Docs  []uint32 // the page, in order
	Next  []byte   // cursor of the next page; nil on the last page
	Total int64    // every match, on every page
	Plan  Plan     // how the page was found

	// Scores are the relevance scores of Docs, in a relevance search.
	Scores []float64
}

// Plan is how a search found its page.
type Plan string

// Plans.
const (
	// PlanWalk walks the order of the sort field (or of the primary key)
	// from the cursor and tests each document, stopping after a page: the
	// cost follows the page, not the matches.
	PlanWalk Plan = "walk"
	// PlanCollect materializes the matches and keeps the best page in a
	// heap: the cost follows the matches, not the table.
	PlanCollect Plan = "collect"
)

// Search returns one page of a search.
func (s *Snapshot) Search(ctx context.Context, q *query.Search) (*Result, error) {
	return s.search(ctx, q, searchOptions{})
}

// searchOptions force choices the planner makes, for tests that compare
// every way to an answer.
type searchOptions struct {
	plan          Plan // when set and applicable
	sparse        bool // no dense bitsets
	noPairs       bool // no pair counts
	noUnionSplit  bool // count a union through a bitset of its matches (union.go)
	noFilterCache bool // make a walk's residual bitset, not the cached one (filter_cache.go)
	joins         joinUse
	count         boundedCount
}

// boundedCount is how a walk bounded by a range counts its matches.
type boundedCount int

const (
	countAuto  boundedCount = iota // as the costs say
	countTest                      // test the residual on each document of the range
	countDense                     // a dense bitset of the residual, read along the range
	countBins                      // the same bitset, read through the order's bins (order_bins.go)
)

func (s *Snapshot) search(ctx context.Context, q *query.Search, opt searchOptions) (*Result, error) {
	if q.PageSize < 1 {
		return nil, fmt.Errorf("page size %d: must be positive", q.PageSize)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := &exec{ctx: ctx, s: s, sparse: opt.sparse, noPairs: opt.noPairs, noFilterCache: opt.noFilterCache}
	defer x.release()
	c := &compiler{ctx: ctx, s: s, limits: q.Limits, joins: opt.joins}
	root, err := c.compile(q.Filter)
	if err != nil {
		return nil, err
	}
	if q.Relevance {
		return s.searchRelevance(x, c, q, root)
	}
	so, err := newSorter(s, q.Sort)
	if err != nil {
		return nil, err
	}
	var after *position
	if q.After != nil {
		if after, err = decodeCursor(q.After, len(so.fields)); err != nil {
			return nil, err
		}
	}
	k := q.PageSize + 1
	walkK := k // what a walk takes: it costs what it takes
	if q.Enough > 0 && q.Enough < q.PageSize {
		walkK = q.Enough + 1
	}
	var docs []uint32
	var total int64
	pl := s.choose(x, root, so, walkK, opt.plan)
	switch pl.plan {
	case PlanWalk:
		k = walkK
		if q.NoTotal {
			if docs, err = s.walk(x, pl, so, after, k); err != nil {
				return nil, err
			}
			break
		}
		if c, ok := countInPlace(pl.residual); ok && !pl.bounded {
			// Counted without materializing: the residual tests itself.
			if docs, err = s.walk(x, pl, so, after, k); err != nil {
				return nil, err
			}
			total = c
			break
		}
		if u, ok := x.splitUnion(pl.residual); ok && !pl.bounded && !opt.noUnionSplit {
			pl.residual = u.node(s)
			if docs, err = s.walk(x, pl, so, after, k); err != nil {
				return nil, err
			}
			total = u.count()
			break
		}
		way := countAuto
		if pl.bounded {
			if way = opt.count; way == countAuto {
				way, _ = boundedCountPlan(s, pl)
			}
		}
		if way == countTest {
			// A narrow range: counted by testing its documents, which
			// costs the range, where a dense residual costs the table.
			if docs, err = s.walk(x, pl, so, after, k); err != nil {
				return nil, err
			}
			if total, err = countRunsTest(x, pl.pi.order, []run{{pl.lo, pl.hi}}, pl.residual.test); err != nil {
				return nil, err
			}
			break
		}
		// A residual that is cheap as a dense bitset is tested by bits,
		// and counted along the walked range.
		rw, cached, ok, err := x.residualDense(pl.residual, pl.bounded)
		if err != nil {
			return nil, err
		}
		if ok {
			pl.residual = &setNode{bm: nil, bits: rw}
		}
		if docs, err = s.walk(x, pl, so, after, k); err != nil {
			return nil, err
		}
		switch {
		case ok && way == countBins:
			bins := s.binsOf(pl.pi.order)
			var prefix []int64
			if cached != nil {
				prefix = cached.binPrefix(bins)
			}
			total = bins.countIn(pl.pi.order, run{pl.lo, pl.hi}, rw, prefix)
		case ok && pl.bounded:
			total = countRunsIn(pl.pi.order, []run{{pl.lo, pl.hi}}, rw)
		case ok:
			total = rw.count()
		default:
			if total, err = x.countNode(root); err != nil {
				return nil, err
			}
		}
	default:
		if w, ok, err := x.denseNode(root, false); err != nil {
			return nil, err
		} else if ok {
			total = w.count()
			docs = x.topKDense(w, so, after, k)
			break
		}
		bm, err := root.bitmap(x)
		if err != nil {
			return nil, err
		}
		total = int64(bm.GetCardinality())
		if docs, err = x.topK(bm, so, after, k); err != nil {
			return nil, err
		}
	}
	if q.NoTotal {
		total = 0
	}
	res := &Result{Total: total, Plan: pl.plan}
	if len(docs) == k {
		docs = docs[:k-1]
		p := so.positionOf(docs[len(docs)-1])
		res.Next = p.encode()
	}
	res.Docs = docs
	return res, nil
}

// walkPlan is a chosen plan; for walks, the order walked, the part of
// it the filter allows, and what is left to test.
type walkPlan struct {
	plan       Plan
	pi         *propertyIndex // nil: the primary-key order
	descending bool
	lo, hi     int
	residual   node
	nulls      bool // documents with a null sort value may match
	bounded    bool // [lo, hi) is the range the filter puts on pi
}

// choose picks between walking the sort order and collecting, from the
// estimated matches and costs.
func (s *Snapshot) choose(x *exec, root node, so *sorter, k int, force Plan) walkPlan {
	collect := walkPlan{plan: PlanCollect}
	if len(so.fields) > 1 || force == PlanCollect {
		return collect
	}
	w := walkPlan{plan: PlanWalk, residual: root, nulls: true}
	o := s.keyOrder
	if len(so.fields) == 1 {
		f := so.fields[0]
		w.pi, w.descending, o = f.pi, f.descending, f.pi.order
	}
	w.lo, w.hi = 0, o.len()
	// Ranges on the walked property bound the walk instead of being tested.
	if w.pi != nil {
		kids := []node{root}
		if a, ok := root.(*andNode); ok {
			kids = a.kids
		}
		var rest []node
		for _, kid := range kids {
			if r, ok := kid.(*runsNode); ok && r.pi == w.pi && len(r.runs) == 1 {
				w.lo, w.hi = max(w.lo, r.runs[0].lo), min(w.hi, r.runs[0].hi)
				w.nulls, w.bounded = false, true
				continue
			}
			rest = append(rest, kid)
		}
		switch len(rest) {
		case 0:
			w.residual = allNode{s}
		case 1:
			w.residual = rest[0]
		default:
			if len(rest) != len(kids) {
				w.residual = newAnd(s, rest)
			}
		}
	}
	if isAll(root) || force == PlanWalk {
		return w
	}
	span := float64(max(w.hi-w.lo, 0))
	sel := 1.0
	if !isAll(w.residual) {
		alive := math.Max(float64(x.s.aliveCount()), 1)
		sel = math.Max(w.residual.est()/alive, 1/alive)
	}
	walked := math.Min(span, float64(k)/sel)
	walkCost := walked * (w.residual.tcost() + costScan)
	if walked >= span && w.nulls {
		walkCost += w.residual.mcost() // the null phase collects
	}
	collectCost := root.mcost() + root.est()*(costHeap+costColumn) // each match's sort value is read
	count := countCost(root)
	if w.bounded {
		_, count = boundedCountPlan(s, w) // as search counts it
	}
	if walkCost+count < collectCost {
		return w
	}
	return collect
}

// boundedCountPlan is how a walk bounded by a range counts its matches,
// the cheapest way, and what that costs: testing the residual on each
// document of the range, or a dense bitset of the residual over the
// snapshot whose bits are read along the range, by position or through
// the order's bins where it has them (the cheaper of the two).
func boundedCountPlan(s *Snapshot, w walkPlan) (boundedCount, float64) {
	span := float64(max(w.hi-w.lo, 0))
	test := span * (w.residual.tcost() + costScan)
	way, along := countDense, span*costScan
	if binsWorth(s, w.pi.order) {
		if bins := binsCost(w.pi.order, span); bins < along {
			way, along = countBins, bins
		}
	}
	if dense := float64(s.maxDoc)/64*costDenseWord*2 + along; dense <= test {
		return way, dense
	}
	return countTest, test
}

// costDenseWord is a word of a pass that copies or combines dense bitsets
// (a residual of two sets is two passes). Measured with
// BenchmarkSnapshot_SortedPlans, a range of 0.5% of the values: testing
// along it cost 2x the bitset at a million documents and 3.5x at ten
// million, where costWord (a word cleared, filled and converted) had the
// test chosen.
const costDenseWord = 2

// countCost is what counting a node costs beyond what walking it shares.
func countCost(n node) float64 {
	switch k := n.(type) {
	case allNode, *setNode, *runsNode, *joinNode:
		return 0
	case *notNode:
		return countCost(k.kid)
	}
	return n.mcost()
}

// walk collects up to k documents along the plan's order.
func (s *Snapshot) walk(x *exec, w walkPlan, so *sorter, after *position, k int) ([]uint32, error) {
	var docs []uint32
	var err error
	take := func(_ int, d uint32) bool {
		if err = x.tick(); err != nil {
			return false
		}
		if w.residual.test(d) {
			if len(docs) == cap(docs) {
				// Doubled up to k: append's growth by a quarter allocated
				// five times the page when a derived evaluation reads every
				// object (a heap profile at a million).
				docs = slices.Grow(docs, min(max(len(docs), 64), k-len(docs)))
			}
			docs = append(docs, d)
		}
		return len(docs) < k
	}
	if w.pi == nil {
		from := w.lo
		if after != nil {
			from = s.keyOrder.afterEntry(keyTies{s.keys}, valueKey{pre: keyPre(after.key), exact: after.key}, after.key)
		}
		s.keyOrder.forEach(from, w.hi, take)
		return docs, err
	}
	o, t := w.pi.order, s.ties(w.pi)
	inNulls := after != nil && after.null[0]
	if !inNulls {
		switch {
		case !w.descending:
			from := w.lo
			if after != nil {
				from = max(from, o.afterEntry(t, after.values[0], after.key))
			}
			o.forEach(from, w.hi, take)
		default:
			walkDesc(o, t, run{w.lo, w.hi}, after, take)
		}
		if err != nil || len(docs) == k || !w.nulls {
			return docs, err
		}
	}
	// Documents whose sort value is null come last, by primary key.
	rest, err := w.residual.bitmap(x)
	if err != nil {
		return nil, err
	}
	rest = roaring.And(rest, w.pi.nulls)
	more, err := x.topK(rest, so, after, k-len(docs))
	return append(docs, more...), err
}

// walkDesc walks the positions of span of an order by descending value,
// each run of equal values by ascending key, starting after the cursor.
func walkDesc(o *order, t ties, span run, after *position, fn func(int, uint32) bool) {
	lo, hi := span.lo, span.hi
	p := hi
	if after != nil {
		v := after.values[0]
		gs, ge := o.lowerBound(t, v, false), o.lowerBound(t, v, true)
		from := max(o.afterEntry(t, v, after.key), lo)
		if !o.forEach(from, min(ge, hi), fn) {
			return
		}
		p = min(p, gs)
	}
	if p <= lo {
		return
	}
	c := o.cursor(p - 1)
	for p > lo {
		// The run of equal values that ends at p-1 (c): step back over a
		// few equal entries, then search for the run's start.
		pre, ex := c.pre(), t.exactOf(c.doc())
		gs, g := p-1, c
		for steps := 0; gs > lo; steps++ {
			prev := g.prev()
			if prev.pre() != pre || t.exactOf(prev.doc()) != ex {
				break
			}
			if steps == 16 {
				gs = max(o.lowerBound(t, valueKey{pre: pre, exact: ex}, false), lo)
				g = o.cursor(gs)
				break
			}
			gs, g = gs-1, prev
		}
		if gs == p-1 {
			if !fn(gs, c.doc()) {
				return
			}
		} else if !o.forEach(gs, p, fn) {
			return
		}
		p = gs
		if p > lo {
			c = g.prev()
		}
	}
}

// orderCursor is a position in an order that moves by one in O(1).
type orderCursor struct {
	o             *order
	block, offset int
}

func (o *order) cursor(p int) orderCursor {
	bi, j := o.locate(p)
	return orderCursor{o: o, block: bi, offset: j}
}

func (c orderCursor) pre() uint64 { return c.o.blocks[c.block].pre[c.offset] }
func (c orderCursor) doc() uint32 { return c.o.blocks[c.block].doc[c.offset] }

// prev is the position before c; c must not be the first.
func (c orderCursor) prev() orderCursor {
	if c.offset > 0 {
		return orderCursor{o: c.o, block: c.block, offset: c.offset - 1}
	}
	return orderCursor{o: c.o, block: c.block - 1, offset: len(c.o.blocks[c.block-1].doc) - 1}
}
