package index

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// TestCompiler_inSet follows links between two snapshots of random objects
// as a searchAround does: the distinct values of a property of one (a
// valueSet) filter a property of the other. The filter with the set, read
// as the index holds it where the types agree, must match what the same
// filter with the set's boxed values matches, and what the oracle matches;
// where the types differ the set is boxed and converted like any values.
func TestCompiler_inSet(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	typ := testType(t)
	// The target is the source edited, so that most values are in both.
	sourceObjects := randState(r, 1200)
	targetObjects := maps.Clone(sourceObjects)
	source, target := mustBuild(t, typ, sourceObjects), mustBuild(t, typ, targetObjects)
	target, targetKeys := mustEdit(t, r, target, targetObjects, editMix{deleted: 1, rewritten: 1, outOf: 6})
	sourceKeys := mustKeys(t, typ, sourceObjects)
	or := &oracle{t: typ}
	// Read as the index holds them: a long key (id) and a decimal (exact
	// parts); the others go the way of boxed values: properties with a
	// dictionary (few distinct values), without an order, of another type.
	links := []struct{ from, to string }{
		{"id", "id"}, {"visits", "id"}, {"amount", "amount"}, {"id", "id"}, {"amount", "amount"},
		{"id", "visits"}, {"city", "code"}, {"name", "city"}, {"balance", "weight"}, {"day", "day"},
		{"at", "at"}, {"active", "active"}, {"id", "balance"},
	}
	indexed := map[bool]int{} // by whether the values are pres alone
	cases := oracleCases(156)
	for i := range cases {
		l := links[i%len(links)]
		f := randFilter(r, typ, sourceObjects, sourceKeys, 1)
		set, err := source.Distinct(t.Context(), f, query.Limits{}, l.from)
		if err != nil {
			t.Fatalf("%d: distinct %s of %v: %v", i, l.from, f, err)
		}
		if set.Len() == 0 {
			continue
		}
		viaSet := &query.Filter{Op: query.OpIn, Property: l.to, Set: set}
		viaValues := &query.Filter{Op: query.OpIn, Property: l.to, Values: set.Values()}
		if n, ok, err := (&compiler{s: target}).inSet(target.property(l.to), set); err == nil && ok {
			indexed[set.(*valueSet).pres != nil]++
			// Its test and its bitmap, document by document.
			bm, err := n.bitmap(&exec{ctx: t.Context(), s: target})
			if err != nil {
				t.Fatal(err)
			}
			for d, o := range targetObjects {
				if want := or.match(viaValues, o, targetKeys[d]); n.test(d) != want || bm.Contains(d) != want {
					t.Fatalf("%d: %s -> %s, document %d: test %v, bitmap %v, the oracle %v", i, l.from, l.to, d, n.test(d), bm.Contains(d), want)
				}
			}
		}
		extra := randFilter(r, typ, targetObjects, targetKeys, 1)
		for _, where := range []*query.Filter{viaSet, query.And(viaSet, extra), query.Or(viaSet, extra), query.Not(viaSet)} {
			same := renameSet(where, viaSet, viaValues)
			got, gotErr := target.Search(t.Context(), &query.Search{Filter: where, PageSize: 50, Sort: []query.Sort{{Property: "id"}}})
			want, wantErr := target.Search(t.Context(), &query.Search{Filter: same, PageSize: 50, Sort: []query.Sort{{Property: "id"}}})
			if (gotErr != nil) != (wantErr != nil) {
				t.Fatalf("%d: %s -> %s: with the set %v, with its values %v", i, l.from, l.to, gotErr, wantErr)
			}
			if gotErr != nil {
				continue
			}
			if got.Total != want.Total || !slices.Equal(got.Docs, want.Docs) {
				t.Fatalf("%d: %s -> %s, %v: with the set %d %v, with its values %d %v", i, l.from, l.to, where, got.Total, got.Docs, want.Total, want.Docs)
			}
			var exp int64
			for d, o := range targetObjects {
				if or.match(same, o, targetKeys[d]) {
					exp++
				}
			}
			if got.Total != exp {
				t.Fatalf("%d: %s -> %s, %v: %d matches, the oracle %d", i, l.from, l.to, where, got.Total, exp)
			}
		}
	}
	// 20 and 8 of the 156 cases of a full run, fewer in a short one.
	wantPres, wantExact := 20*cases/156, 8*cases/156
	if indexed[true] < wantPres || indexed[false] < wantExact {
		t.Fatalf("links read as the index holds them: %d of pres alone, %d with exact parts; want %d and %d", indexed[true], indexed[false], wantPres, wantExact)
	}
}

// renameSet is f with the node from replaced by to.
func renameSet(f, from, to *query.Filter) *query.Filter {
	if f == from {
		return to
	}
	if len(f.Kids) == 0 {
		return f
	}
	c := *f
	c.Kids = make([]*query.Filter, len(f.Kids))
	for i, k := range f.Kids {
		c.Kids[i] = renameSet(k, from, to)
	}
	return &c
}
