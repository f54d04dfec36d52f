package vector

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// Hit is a document and its score (Metric.Score: larger is nearer).
type Hit struct {
	Doc   uint32
	Score float64
}

// Search returns the k documents nearest q among allow (nil: all), nearest
// first, ties by document. The search is exact when the index or the
// filter is small or selective enough that a scan costs less than the
// graph walk, else approximate.
func (ix *Index) Search(ctx context.Context, q []float32, k int, allow *roaring.Bitmap) ([]Hit, error) {
	if len(q) != ix.dim {
		return nil, fmt.Errorf("query vector has %d elements, the property's dimension is %d", len(q), ix.dim)
	}
	if k <= 0 || ix.Len() == 0 {
		return nil, nil
	}
	pq := newQuery(ix.metric.prepare(q))
	docs := ix.present
	if allow != nil {
		docs = roaring.And(ix.present, allow)
	}
	if ix.exactCheaper(int(docs.GetCardinality())) {
		return ix.exact(ctx, pq, k, docs)
	}
	var accept func(uint32) bool // nil: every node
	switch {
	case allow != nil:
		accept = func(n uint32) bool { d := ix.docOf(n); return ix.nodeOf(d) == n && allow.Contains(d) }
	case ix.count > ix.Len():
		accept = ix.live // tombstones are walked, not returned
	}
	hits := ix.graphSearch(pq, k, accept)
	if len(hits) < k && len(hits) < int(docs.GetCardinality()) {
		return ix.exact(ctx, pq, k, docs) // the walk ran out of reachable matches
	}
	return hits, nil
}

// exactCheaper decides between a scan of n vectors and a graph walk,
// which reads about efSearch·2M·log₂(nodes) vectors divided by the share
// of nodes a filter lets through.
func (ix *Index) exactCheaper(n int) bool {
	if n <= ix.params.ExactBelow {
		return true
	}
	walk := float64(ix.params.EfSearch*ix.m0) * math.Log2(float64(ix.count)+2)
	share := float64(n) / float64(ix.count)
	return float64(n) <= walk/share
}

// graphSearch walks the graph: greedy from the entry down to level 1,
// then a search of max(efSearch, k) candidates on level 0, keeping the
// nodes accept allows.
func (ix *Index) graphSearch(q query, k int, accept func(uint32) bool) []Hit {
	vs := ix.visitSet()
	defer ix.visited.Put(vs)
	ep := candidate{dist: ix.distance(q, ix.entry), node: ix.entry}
	for l := ix.top; l > 0; l-- {
		ep = ix.greedy(q, ep, l)
	}
	found := ix.searchLayer(q, []candidate{ep}, max(ix.params.EfSearch, k), 0, vs, accept)
	near := sortedNear(found)
	if len(near) > k {
		near = near[:k]
	}
	hits := make([]Hit, len(near))
	for i, c := range near {
		hits[i] = Hit{Doc: ix.docOf(c.node), Score: ix.metric.Score(c.dist)}
	}
	return hits
}

// greedy moves from ep to the nearest of its links at a level until none
// is nearer.
func (ix *Index) greedy(q query, ep candidate, level int) candidate {
	for changed := true; changed; {
		changed = false
		for _, n := range ix.links(ep.node, level) {
			if d := ix.distance(q, n); d < ep.dist {
				ep, changed = candidate{dist: d, node: n}, true
			}
		}
	}
	return ep
}

// searchLayer is the beam search of one level (the paper's algorithm 2):
// it expands the nearest unexpanded candidate until that is farther than
// the farthest of ef results. accept (nil: all) says which nodes may be
// results; the others are walked through.
func (ix *Index) searchLayer(q query, entries []candidate, ef, level int, vs *visitSet, accept func(uint32) bool) farHeap {
	vs.reset(ix.count)
	var cands nearHeap
	results := make(farHeap, 0, ef+1)
	for _, e := range entries {
		if vs.visit(e.node) {
			continue
		}
		cands.push(e)
		if accept == nil || accept(e.node) {
			results.push(e)
		}
	}
	for len(results) > ef {
		results.pop()
	}
	for len(cands) > 0 {
		c := cands.pop()
		if len(results) >= ef && c.dist > results.top().dist {
			break
		}
		for _, n := range ix.links(c.node, level) {
			if vs.visit(n) {
				continue
			}
			d := ix.distance(q, n)
			if len(results) < ef || d < results.top().dist {
				cands.push(candidate{dist: d, node: n})
				if accept == nil || accept(n) {
					results.push(candidate{dist: d, node: n})
					if len(results) > ef {
						results.pop()
					}
				}
			}
		}
	}
	return results
}

// exact scores every document of docs and keeps the k nearest.
func (ix *Index) exact(ctx context.Context, q query, k int, docs *roaring.Bitmap) ([]Hit, error) {
	best := make(farHeap, 0, k+1)
	it := docs.Iterator()
	for i := 0; it.HasNext(); i++ {
		if i&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		d := it.Next()
		dist := ix.distance(q, ix.nodeOf(d))
		if len(best) < k {
			best.push(candidate{dist: dist, node: d})
		} else if c := best.top(); dist < c.dist || (dist == c.dist && d < c.node) {
			best.pop()
			best.push(candidate{dist: dist, node: d})
		}
	}
	near := sortedNear(best)
	slices.SortStableFunc(near, byDistance) // ties by document
	hits := make([]Hit, len(near))
	for i, c := range near {
		hits[i] = Hit{Doc: c.node, Score: ix.metric.Score(c.dist)}
	}
	return hits, nil
}

// Exact is the exact k nearest documents among allow (nil: all): the
// oracle of tests and benchmarks.
func (ix *Index) Exact(ctx context.Context, q []float32, k int, allow *roaring.Bitmap) ([]Hit, error) {
	if len(q) != ix.dim {
		return nil, fmt.Errorf("query vector has %d elements, the property's dimension is %d", len(q), ix.dim)
	}
	docs := ix.present
	if allow != nil {
		docs = roaring.And(ix.present, allow)
	}
	return ix.exact(ctx, newQuery(ix.metric.prepare(q)), k, docs)
}

// visitSet marks the nodes a search has seen: a stamp per node, so that
// a reset is a counter bump, not a clear.
type visitSet struct {
	marks []uint16
	stamp uint16
}

func (ix *Index) visitSet() *visitSet {
	if v, ok := ix.visited.Get().(*visitSet); ok {
		return v
	}
	return &visitSet{}
}

func (v *visitSet) reset(n int) {
	if len(v.marks) < n {
		v.marks = append(v.marks, make([]uint16, n-len(v.marks)+n/8)...)
	}
	v.stamp++
	if v.stamp == 0 {
		clear(v.marks)
		v.stamp = 1
	}
}

// visit marks n and reports whether it was marked already.
func (v *visitSet) visit(n uint32) bool {
	if v.marks[n] == v.stamp {
		return true
	}
	v.marks[n] = v.stamp
	return false
}
