package index

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// TestSnapshot_Distinct compares the distinct values of each scalar
// property among random filters' matches with the objects', before and
// after updates.
func TestSnapshot_Distinct(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	typ := testType(t)
	want := randState(r, 2000)
	s := mustBuild(t, typ, want)
	s, keys := mustEdit(t, r, s, want, editMix{deleted: 0, rewritten: 1, outOf: 5})
	or := &oracle{t: typ}
	props := []string{"id", "city", "code", "balance", "visits", "amount", "day", "at", "active"}
	lazy := 0 // sets of keys left for a join to read (link_join.go)
	for i := range 150 {
		f := randFilter(r, typ, want, keys, 2)
		p := props[i%len(props)]
		pos := typ.PropertyIndex(p)
		var exp []any
		for d, o := range want {
			if or.match(f, o, keys[d]) && o.Values[pos] != nil {
				exp = append(exp, o.Values[pos])
			}
		}
		slices.SortFunc(exp, oracleCompare)
		exp = slices.CompactFunc(exp, func(a, b any) bool { return oracleCompare(a, b) == 0 })
		set, err := s.Distinct(t.Context(), f, query.Limits{}, p)
		if err != nil {
			t.Fatalf("%d: distinct %s of %v: %v", i, p, f, err)
		}
		if v, ok := set.(*valueSet); ok && v.keys != nil {
			lazy++
		}
		got := set.Values()
		if set.Len() != len(got) {
			t.Fatalf("%d: distinct %s of %v: Len %d, %d values", i, p, f, set.Len(), len(got))
		}
		if !slices.EqualFunc(got, exp, func(a, b any) bool { return oracleCompare(a, b) == 0 }) {
			t.Fatalf("%d: distinct %s of %v:\n got %d values %v\nwant %d values %v", i, p, f, len(got), got, len(exp), exp)
		}
		// The values found are the ones an in filter finds again.
		if len(got) > 0 {
			back := mustSearch(t, s, &query.Search{Filter: query.And(query.In(p, got...), f), PageSize: 1})
			all := mustSearch(t, s, &query.Search{Filter: query.And(query.Not(query.IsNull(p, true)), f), PageSize: 1})
			if back.Total != all.Total {
				t.Fatalf("%d: %s in its distinct values of %v matches %d, the filter %d non-null", i, p, f, back.Total, all.Total)
			}
		}
	}
	if lazy < 3 {
		t.Fatalf("%d sets of keys left unread, want 3", lazy)
	}
	for _, p := range []string{"tags", "nope"} {
		if _, err := s.Distinct(t.Context(), nil, query.Limits{}, p); err == nil {
			t.Fatalf("distinct of %s: no error", p)
		}
	}
}
