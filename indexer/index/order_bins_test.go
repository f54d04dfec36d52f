package index

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// TestOrderBins_CountIn checks the bins of every order against the
// positions they cut, and their counts along random ranges against
// counting each position, with stretches small enough that a count
// reads the bins in several, and from a cached filter's prefix sums over
// the bins.
func TestOrderBins_CountIn(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	typ := testType(t)
	want := randState(r, 3000)
	s := mustBuild(t, typ, want)
	s, _ = mustEdit(t, r, s, want, editMix{deleted: 1, rewritten: 1, outOf: 5})
	for _, pi := range s.properties {
		if pi.order == nil {
			continue
		}
		o := pi.order
		b := newOrderBins(o, s.maxDoc, binStretch)
		for i := range b.bins {
			bin := binDocs(b, i)
			lo, hi := i*b.width, min((i+1)*b.width, o.len())
			var at []uint32
			o.eachBlock(lo, hi, func(docs []uint32) bool {
				at = append(at, docs...)
				return true
			})
			slices.Sort(at)
			if !slices.Equal(bin, at) {
				t.Fatalf("%s: bin %d holds %v, its positions %v", pi.property.APIName, i, head(bin), head(at))
			}
		}
		for _, stretch := range []int{64, 1000, binStretch} {
			b := newOrderBins(o, s.maxDoc, stretch)
			for range 50 {
				w := make(dense, (s.maxDoc+63)/64)
				for i := range w {
					w[i] = r.Uint64() & r.Uint64()
				}
				lo := r.IntN(o.len() + 1)
				hi := lo + r.IntN(o.len()+1-lo)
				rn := run{lo, hi}
				exp := countRunsIn(o, []run{rn}, w)
				if got := b.countIn(o, rn, w, nil); got != exp {
					t.Fatalf("%s: stretch %d, [%d, %d): %d, want %d", pi.property.APIName, stretch, lo, hi, got, exp)
				}
				f := &cachedFilter{bits: w}
				if p := f.binPrefix(b); p != nil {
					t.Fatalf("%s: prefix sums on a filter's first count", pi.property.APIName)
				}
				if got := b.countIn(o, rn, w, f.binPrefix(b)); got != exp {
					t.Fatalf("%s: stretch %d, [%d, %d) from prefix sums: %d, want %d", pi.property.APIName, stretch, lo, hi, got, exp)
				}
			}
		}
	}
}

// binDocs is the documents of bin i, ascending.
func binDocs(b *orderBins, i int) []uint32 {
	var out []uint32
	for k := range b.stretches {
		out = append(out, b.docs[b.starts[k*b.bins+i]:b.starts[k*b.bins+i+1]]...)
	}
	return out
}

// TestSnapshot_SearchBoundedCount checks the search bench's shape, a range
// on the sort property and more filters, with each way to count a walk
// bounded by the range, against the oracle, on a built snapshot, an
// edited one, and one that Apply carried the bins to.
func TestSnapshot_SearchBoundedCount(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	typ := testType(t)
	want := randState(r, 3000)
	s := mustBuild(t, typ, want)
	keys := mustKeys(t, typ, want)
	or := &oracle{t: typ}
	sorted := []string{"balance", "visits", "amount", "day", "at", "code"}
	check := func(t *testing.T, s *Snapshot, keys map[uint32][]byte) {
		for i := range oracleCases(60) {
			p := sorted[r.IntN(len(sorted))]
			pos := typ.PropertyIndex(p)
			a, b := randValue(r, typ.Properties[pos], want, pos), randValue(r, typ.Properties[pos], want, pos)
			f := query.And(query.Compare(query.OpGte, p, a), query.Compare(query.OpLt, p, b), randFilter(r, typ, want, keys, 2))
			q := query.Search{Filter: f, Sort: []query.Sort{{Property: p, Desc: r.IntN(2) == 0}}, PageSize: []int{1, 10, 100}[r.IntN(3)]}
			exp := or.sorted(want, keys, f, q.Sort)
			for _, opt := range []searchOptions{{}, {plan: PlanWalk, count: countTest}, {plan: PlanWalk, count: countDense}, {plan: PlanWalk, count: countBins}, {count: countBins}} {
				got, total, err := pageAll(t, s, q, opt)
				if err != nil {
					t.Fatalf("%d: %v sort %v %+v: %v", i, f, q.Sort, opt, err)
				}
				if total != int64(len(exp)) || !slices.Equal(got, exp) {
					t.Fatalf("%d: %v sort %v %+v: total %d, want %d\ngot  %v\nwant %v", i, f, q.Sort, opt, total, len(exp), head(got), head(exp))
				}
			}
		}
	}
	t.Run("built", func(t *testing.T) { check(t, s, keys) })
	s, keys = mustEdit(t, r, s, want, editMix{deleted: 1, rewritten: 2, outOf: 6})
	t.Run("edited", func(t *testing.T) { check(t, s, keys) })
	carried, err := s.Apply(nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(carried.orderBins.bins) == 0 {
		t.Fatal("Apply without changes carried no bins")
	}
	t.Run("carried", func(t *testing.T) { check(t, carried, keys) })
}
