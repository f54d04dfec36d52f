package index

import (
	"encoding/binary"
	"slices"
	"strings"
	"sync"
)

// A filterCache keeps a snapshot's dense bitsets of the residual filters
// that are intersections of dictionary values (city = X and not active),
// as a search engine keeps its frequent filters' document sets (Lucene's
// query cache): a sorted page walks its range and tests such a residual
// on every document it counts, and making the bitset costs two passes
// over maxDoc/64 words (115 µs of 600 at ten million documents) that a
// repeated filter need not pay again. Beside the bitset, the entry keeps
// how many of its documents each bin of an order holds, once the filter
// has been counted along that order twice, so that the count of a range
// adds the whole bins' counts and reads only the ends (orderBins.countIn
// reads every document of the range: 360 µs for 500,000).
//
// The bitsets are read only: the queries that hit an entry share it. A
// snapshot's cache starts empty (its documents are its own) and holds at
// most maxCachedFilters entries, maxDoc/8 bytes each, the least recently
// used going first: 20 MB at ten million documents.
type filterCache struct {
	mu      sync.Mutex
	entries map[string]*cachedFilter
	clock   uint64
}

// maxCachedFilters bounds a snapshot's cached filters.
const maxCachedFilters = 16

// cachedFilter is one residual's documents and, per order, the prefix
// sums of its documents over the order's bins.
type cachedFilter struct {
	bits dense  // read only
	used uint64 // the cache's clock when last used (under filterCache.mu)

	mu sync.Mutex
	// prefix holds, per order's bins, the documents of bins [0, i) at i;
	// nil for bins counted along once so far.
	prefix map[*orderBins][]int64
}

// filterKey names an intersection of dictionary values, negated or not,
// whatever the order of its kids: false when a kid is anything else.
func filterKey(sets []node) (string, bool) {
	parts := make([]string, 0, len(sets))
	for _, k := range sets {
		s, neg, ok := setOf(k)
		if !ok || s.dictProperty == nil {
			return "", false
		}
		b := binary.AppendUvarint(nil, uint64(s.dictProperty.position))
		if neg {
			b = append(b, '!')
		} else {
			b = append(b, '=')
		}
		parts = append(parts, string(binary.AppendUvarint(b, uint64(len(s.dictValue))))+s.dictValue)
	}
	slices.Sort(parts)
	return strings.Join(parts, ""), true
}

// get returns the entry of key, made by compute on a miss. Two queries
// that miss at once both compute; the last one's entry stays.
func (c *filterCache) get(key string, compute func() (dense, error)) (*cachedFilter, error) {
	c.mu.Lock()
	c.clock++
	if f := c.entries[key]; f != nil {
		f.used = c.clock
		c.mu.Unlock()
		return f, nil
	}
	c.mu.Unlock()
	w, err := compute()
	if err != nil {
		return nil, err
	}
	f := &cachedFilter{bits: w}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]*cachedFilter{}
	}
	if _, ok := c.entries[key]; !ok && len(c.entries) >= maxCachedFilters {
		var oldest string
		var used uint64
		for k, e := range c.entries {
			if used == 0 || e.used < used {
				oldest, used = k, e.used
			}
		}
		delete(c.entries, oldest)
	}
	f.used = c.clock
	c.entries[key] = f
	return f, nil
}

// binPrefix returns the prefix sums of f's documents over b's bins once f
// has been counted along b before (nil until then: a filter used once is
// not worth a pass over the whole order).
func (f *cachedFilter) binPrefix(b *orderBins) []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, counted := f.prefix[b]
	if p != nil {
		return p
	}
	if f.prefix == nil {
		f.prefix = map[*orderBins][]int64{}
	}
	if !counted {
		f.prefix[b] = nil
		return nil
	}
	p = make([]int64, b.bins+1)
	for i := range b.bins {
		var n uint64
		for k := range b.stretches {
			n += countBits(b.docs[b.starts[k*b.bins+i]:b.starts[k*b.bins+i+1]], f.bits)
		}
		p[i+1] = p[i] + int64(n)
	}
	f.prefix[b] = p
	return p
}

// residualDense is denseNode for the residual of a walk, which the walk
// and its count only read: an intersection of dictionary values comes
// from the snapshot's filter cache (f is its entry, nil otherwise).
func (x *exec) residualDense(n node, force bool) (w dense, f *cachedFilter, ok bool, err error) {
	if a, isAnd := n.(*andNode); isAnd && !x.sparse && !x.noFilterCache && x.andWantsDense(a, force) {
		if sets, others := a.plan(); len(others) == 0 && len(sets) > 1 {
			if key, cacheable := filterKey(sets); cacheable {
				f, err := x.s.filters.get(key, func() (dense, error) {
					w, err := a.dense(x)
					return slices.Clone(w), err // the query's buffer goes back to the pool
				})
				if err != nil {
					return nil, nil, false, err
				}
				return f.bits, f, true, nil
			}
		}
	}
	w, ok, err = x.denseNode(n, force)
	return w, nil, ok, err
}
