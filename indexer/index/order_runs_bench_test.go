package index

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/cputime"
)

// BenchmarkOrder_runsOf finds the runs of a key every 100 values in an
// order of -index.bench-rows entries of random values, about one entry a
// value: a link from 1% of the customers to their orders. At ten million
// entries (a cold order), it measures how well the guessed lines' reads
// overlap.
func BenchmarkOrder_runsOf(b *testing.B) {
	n := *benchRows
	r := rand.New(rand.NewPCG(1, 2))
	ps := make([]rankedPair, n)
	for i := range ps {
		ps[i] = rankedPair{pre: uint64(r.IntN(n)) ^ signBit, rank: uint32(i), doc: uint32(i)}
	}
	sortRanked(ps)
	o := orderOfSorted(ps, func(p rankedPair) (uint64, uint32) { return p.pre, p.doc })
	var pres []uint64
	for v := 0; v < n; v += 100 {
		pres = append(pres, uint64(v)^signBit)
	}
	want := o.runsOfPres(pres)
	if !slices.IsSortedFunc(want, func(a, b run) int { return a.lo - b.lo }) || len(want) == 0 {
		b.Fatalf("runs %v", want[:min(len(want), 5)])
	}
	cpu := cputime.Process(b)
	for b.Loop() {
		o.runsOfPres(pres)
	}
	cputime.PerOp(b, cpu, cputime.Process)
}
