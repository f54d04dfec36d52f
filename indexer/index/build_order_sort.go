package index

import "slices"

// sortRanked sorts ps by (pre, rank), the order compareRanked defines, with
// an in-place most-significant-digit radix sort (American flag sort) over
// the twelve bytes of the pair's key, pre's eight then rank's four.
//
// A full build sorts one such slice per sortable property and one for the
// keys: at ten million documents slices.SortFunc spent about 2 s of CPU on
// each (20 s of a 132 s build, all of it after the last row was read, so
// the whole of it delayed the first search). The radix sort reads each
// pair a few times instead of log2(n) times through a comparison function,
// and needs no second buffer: the build's peak memory stays where it was.
// Ranks are unique within a slice, so keys are too, and the sort need not
// be stable.
func sortRanked(ps []rankedPair) {
	sortRankedFrom(ps, 0)
}

// rankedDigits is the number of bytes of a pair's key.
const rankedDigits = 12

// radixCutoff is the length below which a bucket is sorted by comparison:
// a pass over 256 counters costs more than sorting a few dozen pairs.
const radixCutoff = 64

// digit is byte k of the pair's key, most significant first.
func (p rankedPair) digit(k int) uint8 {
	if k < 8 {
		return uint8(p.pre >> (56 - 8*k))
	}
	return uint8(p.rank >> (24 - 8*(k-8)))
}

// sortRankedFrom sorts ps, whose keys share their first k bytes.
func sortRankedFrom(ps []rankedPair, k int) {
	for {
		if len(ps) <= radixCutoff || k == rankedDigits {
			slices.SortFunc(ps, compareRanked)
			return
		}
		var counts [256]int
		for _, p := range ps {
			counts[p.digit(k)]++
		}
		if counts[ps[0].digit(k)] == len(ps) {
			// One bucket (a byte every key shares, such as the high
			// bytes of small numbers): nothing to move.
			k++
			continue
		}
		var starts, ends [256]int
		sum := 0
		for b, c := range counts {
			starts[b], sum = sum, sum+c
			ends[b] = sum
		}
		permute(ps, k, starts, ends)
		for b, c := range counts {
			if c > 1 {
				sortRankedFrom(ps[starts[b]:ends[b]], k+1)
			}
		}
		return
	}
}

// permute moves every pair of ps into its bucket of byte k, whose bounds
// are starts and ends: each pair out of place is swapped into the next
// free slot of its bucket until the slot being filled gets one of its own.
func permute(ps []rankedPair, k int, starts, ends [256]int) {
	next := starts
	for b := range next {
		for next[b] < ends[b] {
			p := ps[next[b]]
			for d := int(p.digit(k)); d != b; d = int(p.digit(k)) {
				ps[next[d]], p = p, ps[next[d]]
				next[d]++
			}
			ps[next[b]] = p
			next[b]++
		}
	}
}
