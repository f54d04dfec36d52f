package index

import (
	"math"
	"runtime"
	"sort"
	"strings"
)

// runsOf returns the runs of positions that hold each of the sorted,
// distinct values vks, empty runs left out, in one pass over the blocks: a
// cursor moves forward through the order, and each bound is found by
// galloping from it, since a link's keys (thousands, each on a few
// entries) are near one another.
func (o *order) runsOf(t ties, vks []valueKey) []run {
	if !t.exactParts() {
		pres := make([]uint64, len(vks))
		for i, v := range vks {
			pres[i] = v.pre
		}
		return o.runsOfPres(pres)
	}
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

// runsOfPres is runsOf for an order whose values are their pres alone
// (numbers, dates: no exact parts), so that its bounds are searches of
// pres, not comparisons through the ties. A large link's keys (a hundred
// thousand customers' ids among ten million orders) fall on most blocks
// of the order, each on a cold line: the lines where the next keys are
// guessed to fall are read first, a batch at a time, in a loop whose
// loads do not wait on one another (the processor overlaps the misses),
// and each search then starts from its guess, warm.
func (o *order) runsOfPres(pres []uint64) []run {
	const batch = 128
	out := make([]run, 0, len(pres))
	bi, j := 0, 0 // the cursor: block and offset
	for start := 0; start < len(pres); start += batch {
		next := pres[start:min(start+batch, len(pres))]
		o.touchGuesses(next, bi)
		for _, pre := range next {
			var lo, hi int
			if bi, j, lo = o.seekFrom(bi, j, pre); bi == len(o.blocks) {
				return out
			}
			switch end, ok := o.runEnd(bi, j, pre); {
			case ok:
				j, hi = end, o.starts[bi]+end
			case pre == math.MaxUint64:
				hi = o.len()
			default:
				bi, j, hi = o.seekFrom(bi, j, pre+1)
			}
			if hi > lo {
				out = append(out, run{lo, hi})
			}
		}
	}
	return out
}

// runEnd returns the offset after the entries of pre that start at
// offset j of block bi, when they end within a few entries of the same
// block: a link's key is on one or two entries, which a search for the
// next pre would find only after a gallop and a bisection.
func (o *order) runEnd(bi, j int, pre uint64) (int, bool) {
	const scan = 8
	xs := o.blocks[bi].pre
	for k := j; k < min(j+scan, len(xs)); k++ {
		if xs[k] != pre {
			return k, true
		}
	}
	return 0, false
}

// seekFrom returns the first entry at or after the cursor (bi, j) whose
// pre is at least pre: its block, offset and position; bi is len(blocks)
// when there is none.
func (o *order) seekFrom(bi, j int, pre uint64) (int, int, int) {
	for bi < len(o.blocks) && o.lastPre[bi] < pre {
		bi, j = bi+1, 0
	}
	if bi == len(o.blocks) {
		return bi, 0, o.len()
	}
	// The block's last pre is at least pre, so k < len(b.pre).
	k := j + seekPre(o.blocks[bi].pre[j:], pre, o.guess(bi, pre)-j)
	return bi, k, o.starts[bi] + k
}

// touchGuesses reads the entries around where each of pres is guessed to
// fall, from block bi on (see runsOfPres).
func (o *order) touchGuesses(pres []uint64, bi int) {
	var x uint64
	for _, p := range pres {
		for bi < len(o.blocks) && o.lastPre[bi] < p {
			bi++
		}
		if bi == len(o.blocks) {
			break
		}
		// A guess is off by the spread of the values: about the square
		// root of the block's length, a line or two either side.
		pre, m := o.blocks[bi].pre, o.guess(bi, p)
		x += pre[max(m-32, 0)] + pre[max(m-16, 0)] + pre[m] + pre[min(m+16, len(pre)-1)] + pre[min(m+32, len(pre)-1)]
	}
	runtime.KeepAlive(x) // a use of the loads, so that they are not optimized away
}

// guess is the offset in block bi where pre would fall if the block's
// pres spread evenly between the previous block's last and its own last:
// those and the block's length are in o.lastPre and o.starts, so the
// guess reads nothing of the block.
func (o *order) guess(bi int, pre uint64) int {
	if bi == 0 {
		return 0
	}
	first, last, n := o.lastPre[bi-1], o.lastPre[bi], o.starts[bi+1]-o.starts[bi]
	if pre <= first || last <= first {
		return 0
	}
	if pre >= last {
		return n - 1
	}
	return min(int(float64(pre-first)/float64(last-first)*float64(n)), n-1)
}

// gallop returns the first entry at or after the cursor (bi, j) that does
// not order before v (with after, that orders after v): its block, offset
// and position; bi is len(blocks) when there is none.
func (o *order) gallop(t ties, v valueKey, after bool, bi, j int) (int, int, int) {
	for ; bi < len(o.blocks); bi, j = bi+1, 0 {
		if entryBefore(t, v, after, o.lastPre[bi], o.lastDoc[bi]) {
			continue // the whole block is before v
		}
		b := o.blocks[bi]
		n := len(b.doc)
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
	return entryBefore(t, v, after, b.pre[j], b.doc[j])
}

// entryBefore is beforeValue of the entry (pre, doc).
func entryBefore(t ties, v valueKey, after bool, pre uint64, doc uint32) bool {
	if pre != v.pre {
		return pre < v.pre
	}
	c := strings.Compare(t.exactOf(doc), v.exact)
	if after {
		return c <= 0
	}
	return c < 0
}

// seekPre is the first index of sorted xs whose value is >= x (len(xs)
// when none), searched from a guess m: it gallops from m towards the
// answer, so a guess a few entries off reads only the lines around it,
// and a wrong one costs twice a binary search at most.
func seekPre(xs []uint64, x uint64, m int) int {
	n := len(xs)
	if n == 0 || x <= xs[0] {
		return 0
	}
	if x > xs[n-1] {
		return n
	}
	// xs[0] < x <= xs[n-1]: the answer is in [1, n-1].
	m = min(max(m, 1), n-1)
	lo, hi := 0, n-1 // xs[lo] < x <= xs[hi]
	if xs[m] < x {
		lo = m
		for step := 1; ; step *= 2 {
			if lo+step >= hi || xs[lo+step] >= x {
				hi = min(lo+step, hi)
				break
			}
			lo += step
		}
	} else {
		hi = m
		for step := 1; ; step *= 2 {
			if hi-step <= lo || xs[hi-step] < x {
				lo = max(hi-step, lo)
				break
			}
			hi -= step
		}
	}
	// xs[lo] < x <= xs[hi]
	return lo + 1 + sort.Search(hi-lo-1, func(i int) bool { return xs[lo+1+i] >= x })
}
