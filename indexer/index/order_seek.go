package index

import "sort"

// seekPre returns the block and offset of the first entry whose pre is
// >= pre, or (len(o.blocks), 0) when there is none. It interpolates
// (lowerBoundPre), which suits the orders looked up by value alone: the
// primary key's, whose pres (the keys' first bytes) spread evenly enough
// that a guess from a range's ends lands within a few entries.
func (o *order) seekPre(pre uint64) (int, int) {
	bi := lowerBoundPre(o.lastPre, pre)
	if bi == len(o.blocks) {
		return bi, 0
	}
	return bi, lowerBoundPre(o.blocks[bi].pre, pre)
}

// lowerBoundPre is the first index of sorted xs whose value is >= x
// (len(xs) when none), as sort.Search finds it. It guesses the place by
// interpolation between the ends of the range left, a few times, then
// bisects what remains: at a million documents a block's pres are cold,
// and each of binary search's ten probes there is a cache miss, where
// evenly spread values take one or two guesses. Skewed values cost at
// most maxGuesses probes more than bisection.
func lowerBoundPre(xs []uint64, x uint64) int {
	const maxGuesses = 3
	lo, hi := 0, len(xs) // the answer is in [lo, hi]: xs[:lo] < x <= xs[hi:]
	for range maxGuesses {
		if hi-lo <= 16 {
			break
		}
		a, b := xs[lo], xs[hi-1]
		if x <= a {
			return lo
		}
		if x > b {
			return hi
		}
		// a < x <= b, so b > a and the guess is in [lo, hi-1].
		m := lo + int(float64(x-a)/float64(b-a)*float64(hi-1-lo))
		m = min(max(m, lo), hi-1)
		if xs[m] < x {
			lo = m + 1
			// An exact guess: the answer is m+1 when xs[m+1] >= x.
			if lo < hi && xs[lo] >= x {
				return lo
			}
		} else {
			hi = m
			if lo < hi && xs[hi-1] < x {
				return hi
			}
		}
	}
	return lo + sort.Search(hi-lo, func(i int) bool { return xs[lo+i] >= x })
}
