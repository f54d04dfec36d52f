package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortRanked compares the radix sort with slices.SortFunc on random
// pairs of every shape the builder makes: unique ranks (a permutation of
// a subset), pres from one value to all distinct, sharing high bytes,
// and lengths on both sides of the cutoff.
func TestSortRanked(t *testing.T) {
	pres := map[string]func(r *rand.Rand) uint64{
		"one value":     func(r *rand.Rand) uint64 { return 42 },
		"two values":    func(r *rand.Rand) uint64 { return uint64(r.IntN(2)) },
		"small numbers": func(r *rand.Rand) uint64 { return uint64(r.IntN(1000)) },
		"random":        func(r *rand.Rand) uint64 { return r.Uint64() },
		"shared high":   func(r *rand.Rand) uint64 { return 0xabcd<<48 | uint64(r.IntN(1<<20))<<8 },
		"extremes": func(r *rand.Rand) uint64 {
			return []uint64{0, 1, 1 << 63, 1<<64 - 1, 1<<63 - 1}[r.IntN(5)]
		},
	}
	for name, pre := range pres {
		for _, n := range []int{0, 1, 2, radixCutoff, radixCutoff + 1, 1000, 70_000} {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(n), 7))
				ranks := r.Perm(3 * n)[:n] // a subset of the key order
				ps := make([]rankedPair, n)
				for i := range ps {
					// An odd multiplier keeps ranks unique and spreads
					// them over all four bytes.
					ps[i] = rankedPair{pre: pre(r), rank: uint32(ranks[i]) * 2654435761, doc: uint32(r.IntN(1 << 30))}
				}
				want := slices.Clone(ps)
				slices.SortFunc(want, compareRanked)
				sortRanked(ps)
				if !slices.Equal(ps, want) {
					for i := range ps {
						if ps[i] != want[i] {
							t.Fatalf("at %d: got %+v, want %+v", i, ps[i], want[i])
						}
					}
				}
			})
		}
	}
}

// BenchmarkSortRanked measures the sort of a property's pairs at
// -index.bench-rows, against slices.SortFunc.
func BenchmarkSortRanked(b *testing.B) {
	n := *benchRows
	r := rand.New(rand.NewPCG(1, 2))
	ranks := r.Perm(n)
	src := make([]rankedPair, n)
	for _, shape := range []struct {
		name string
		pre  func() uint64
	}{
		{"balance", func() uint64 { return 1<<63 | uint64(r.IntN(1_000_000)) }},
		{"random", r.Uint64},
	} {
		for i := range src {
			src[i] = rankedPair{pre: shape.pre(), rank: uint32(ranks[i]), doc: uint32(i)}
		}
		ps := make([]rankedPair, n)
		for _, sorter := range []struct {
			name string
			sort func([]rankedPair)
		}{
			{"radix", sortRanked},
			{"SortFunc", func(ps []rankedPair) { slices.SortFunc(ps, compareRanked) }},
		} {
			b.Run(shape.name+"/"+sorter.name, func(b *testing.B) {
				for b.Loop() {
					copy(ps, src)
					sorter.sort(ps)
				}
			})
		}
	}
}
