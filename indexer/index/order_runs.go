package index

import (
	"sort"
	"strings"
)

// runsOf returns the runs of positions that hold each of the sorted,
// distinct values vks, empty runs left out, in one pass over the blocks: a
// cursor moves forward through the order, and each bound is found by
// galloping from it, since a link's keys (thousands, each on a few
// entries) are near one another.
func (o *order) runsOf(t ties, vks []valueKey) []run {
	out := make([]run, 0, len(vks))
	bi, j := 0, 0 // the cursor: block and offset
	for _, v := range vks {
		lo := 0
		if bi, j, lo = o.gallop(t, v, false, bi, j); bi == len(o.blocks) {
			break
		}
		var hi int
		bi, j, hi = o.gallop(t, v, true, bi, j)
		if hi > lo {
			out = append(out, run{lo, hi})
		}
	}
	return out
}

// gallop returns the first entry at or after the cursor (bi, j) that does
// not order before v (with after, that orders after v): its block, offset
// and position; bi is len(blocks) when there is none.
func (o *order) gallop(t ties, v valueKey, after bool, bi, j int) (int, int, int) {
	for ; bi < len(o.blocks); bi, j = bi+1, 0 {
		b := o.blocks[bi]
		n := len(b.doc)
		if beforeValue(t, v, after, b, n-1) {
			continue // the whole block is before v
		}
		// Widen a step from j until it passes v, then search the last step.
		step, lo := 1, j
		if !beforeValue(t, v, after, b, lo) {
			return bi, lo, o.starts[bi] + lo
		}
		for lo+step < n && beforeValue(t, v, after, b, lo+step) {
			lo += step
			step *= 2
		}
		hi := min(lo+step, n)
		k := lo + sort.Search(hi-lo, func(k int) bool { return !beforeValue(t, v, after, b, lo+k) })
		return bi, k, o.starts[bi] + k
	}
	return bi, 0, o.len()
}

// beforeValue reports whether entry j of block b orders before v (with
// after, whether it is at or before v), as lowerBound compares.
func beforeValue(t ties, v valueKey, after bool, b *orderBlock, j int) bool {
	if pre := b.pre[j]; pre != v.pre {
		return pre < v.pre
	}
	c := strings.Compare(t.exactOf(b.doc[j]), v.exact)
	if after {
		return c <= 0
	}
	return c < 0
}
