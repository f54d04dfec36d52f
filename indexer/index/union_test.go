package index

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// TestExec_splitUnion checks which filters count as a union of sets and
// one range, on an updated snapshot.
func TestExec_splitUnion(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	typ := testType(t)
	want := randState(r, 3000)
	s, _ := mustEdit(t, r, mustBuild(t, typ, want), want, editMix{deleted: 1, rewritten: 2, outOf: 6})
	for _, tt := range []struct {
		name string
		f    *query.Filter
		ok   bool
	}{
		{"set or range", query.Or(query.Eq("city", "Oslo"), query.Compare(query.OpGt, "visits", int64(40))), true},
		{"two sets or range", query.Or(query.Eq("city", "Oslo"), query.Eq("active", true), query.Compare(query.OpLt, "balance", -100.0)), true},
		{"two ranges", query.Or(query.Compare(query.OpGt, "visits", int64(40)), query.Compare(query.OpLt, "balance", -100.0)), false},
		{"sets only", query.Or(query.Eq("city", "Oslo"), query.Eq("active", true)), false},
		{"and", query.And(query.Eq("city", "Oslo"), query.Compare(query.OpGt, "visits", int64(40))), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := &exec{ctx: t.Context(), s: s}
			defer x.release()
			n, err := (&compiler{s: s}).compile(tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := x.splitUnion(n); ok != tt.ok {
				t.Fatalf("splitUnion(%v) = %v, want %v (node %T)", tt.f, ok, tt.ok, n)
			}
		})
	}
}

// TestSnapshot_SearchUnion checks unions of sets and a range, which a walk
// counts by inclusion and exclusion, against the oracle: every page, its
// order and the total, walked and collected, after rounds of edits.
func TestSnapshot_SearchUnion(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	typ := testType(t)
	want := randState(r, 3000)
	s := mustBuild(t, typ, want)
	var keys map[uint32][]byte
	or := &oracle{t: typ}
	for round := range 3 {
		// Each round edits a third of the objects and deletes some, so
		// that the structures are updated ones.
		s, keys = mustEdit(t, r, s, want, editMix{deleted: 1, rewritten: 2, outOf: 6})
		for i := range oracleCases(60) {
			sets := []*query.Filter{query.Eq("city", testCities[r.IntN(len(testCities))])}
			if r.IntN(2) == 0 {
				sets = append(sets, query.Eq("active", r.IntN(2) == 0))
			}
			ranges := []*query.Filter{
				query.Compare(query.OpGt, "visits", int64(r.IntN(60)-5)),
				query.Compare(query.OpLte, "balance", float64(r.IntN(2000)-1000)/4),
				query.Compare(query.OpGte, "day", randValue(r, typ.Properties[7], want, 7)),
			}
			f := query.Or(append(sets, ranges[r.IntN(len(ranges))])...)
			var sort []query.Sort
			if r.IntN(2) == 0 {
				sort = randSort(r, typ)
			}
			q := query.Search{Filter: f, Sort: sort, PageSize: []int{1, 7, 100}[r.IntN(3)]}
			exp := or.sorted(want, keys, f, q.Sort)
			for _, opt := range []searchOptions{{}, {plan: PlanWalk}, {plan: PlanWalk, noPairs: true}, {plan: PlanWalk, noUnionSplit: true}, {plan: PlanCollect}} {
				got, total, err := pageAll(t, s, q, opt)
				if err != nil {
					t.Fatalf("round %d, %d: %v %+v: %v", round, i, f, opt, err)
				}
				if total != int64(len(exp)) || !slices.Equal(got, exp) {
					t.Fatalf("round %d, %d: %v sort %v %+v: total %d, want %d\ngot  %v\nwant %v", round, i, f, q.Sort, opt, total, len(exp), head(got), head(exp))
				}
			}
		}
	}
}
