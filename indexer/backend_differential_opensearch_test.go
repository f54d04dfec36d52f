//go:build integration_opensearch

package indexer_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
)

// randomFilter is a random filter of Item's properties.
func randomFilter(r *rand.Rand, depth int) *query.Filter {
	if depth > 0 && r.IntN(3) == 0 {
		kids := make([]*query.Filter, r.IntN(3)+1)
		for i := range kids {
			kids[i] = randomFilter(r, depth-1)
		}
		switch r.IntN(3) {
		case 0:
			return query.And(kids...)
		case 1:
			return query.Or(kids...)
		}
		return query.Not(kids[0])
	}
	cmp := []query.Op{query.OpEq, query.OpGt, query.OpGte, query.OpLt, query.OpLte}
	switch r.IntN(8) {
	case 0:
		return query.IsNull([]string{"city", "score", "qty", "flag"}[r.IntN(4)], r.IntN(2) == 0)
	case 1:
		return query.Compare(cmp[r.IntN(len(cmp))], "city", itemCities[r.IntN(len(itemCities))])
	case 2:
		return query.In("city", itemCities[r.IntN(len(itemCities))], itemCities[r.IntN(len(itemCities))])
	case 3:
		return query.Compare(cmp[r.IntN(len(cmp))], "score", float64(r.IntN(80)-20)/4)
	case 4:
		return query.Compare(cmp[r.IntN(len(cmp))], "qty", int64(r.IntN(30)))
	case 5:
		return query.Eq("flag", r.IntN(2) == 0)
	case 6:
		return query.Text(query.OpStartsWith, "city", []string{"L", "O", "Os", "Q"}[r.IntN(4)])
	}
	return query.Compare(cmp[r.IntN(len(cmp))], "id", int64(r.IntN(400)))
}

// randomSort is zero to two sort properties.
func randomSort(r *rand.Rand) []query.Sort {
	var out []query.Sort
	for _, p := range []string{"city", "score", "qty", "flag", "id"} {
		if len(out) < 2 && r.IntN(4) == 0 {
			out = append(out, query.Sort{Property: p, Desc: r.IntN(2) == 0})
		}
	}
	return out
}

// randomAggregate is a random aggregation the backend computes.
func randomAggregate(r *rand.Rand) *query.Aggregate {
	q := &query.Aggregate{Filter: randomFilter(r, 2)}
	if r.IntN(4) == 0 {
		q.Filter = nil
	}
	pick := func(names ...string) string { return names[r.IntN(len(names))] }
	for range 1 + r.IntN(3) {
		m := query.Metric{Kind: []query.MetricKind{query.Count, query.Min, query.Max, query.Avg, query.Sum, query.ExactDistinct}[r.IntN(6)]}
		switch m.Kind {
		case query.Min, query.Max:
			m.Property = pick("id", "score", "qty", "city", "flag")
		case query.Avg, query.Sum:
			m.Property = pick("id", "score", "qty")
		case query.ExactDistinct:
			m.Property = pick("city", "qty", "flag", "score")
		}
		if r.IntN(4) == 0 {
			m.Order = []int{1, -1}[r.IntN(2)]
		}
		q.Metrics = append(q.Metrics, m)
	}
	for _, p := range []string{"city", "flag", "qty"} {
		if r.IntN(3) == 0 {
			g := query.Group{Kind: query.Exact, Property: p, IncludeNull: r.IntN(2) == 0}
			if r.IntN(3) == 0 {
				g.MaxGroupCount = 1 + r.IntN(4)
			}
			q.Groups = append(q.Groups, g)
		}
	}
	return q
}

// pageKeys are the keys of a page.
func pageKeys(p *indexer.Page) []string {
	out := make([]string, p.Len())
	for j := range out {
		out[j] = string(p.Key(j))
	}
	return out
}

// checkBackend compares the view's answers from the backend with its
// embedded index's (the oracle's, when the fixture has one): every page
// of random searches with their objects, random aggregations, and the
// count of every object. Every answer must come from the backend (no
// fallback).
func (f *backendFixture) checkBackend(t *testing.T, label string) {
	t.Helper()
	v, err := f.ix.View("Item")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	embeddedSearch := func(q *query.Search) (*indexer.Page, error) { return indexer.EmbeddedSearch(f.ctx, v, q) }
	embeddedAggregate := func(q *query.Aggregate) (*query.AggregateResult, error) {
		return indexer.EmbeddedAggregate(f.ctx, v, q)
	}
	if f.oracle != nil {
		ov, err := f.oracle.View("Item")
		if err != nil {
			t.Fatal(err)
		}
		defer ov.Release()
		embeddedSearch = func(q *query.Search) (*indexer.Page, error) { return ov.Search(f.ctx, q) }
		embeddedAggregate = func(q *query.Aggregate) (*query.AggregateResult, error) { return ov.Aggregate(f.ctx, q) }
	}
	all, err := v.Search(f.ctx, &query.Search{PageSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total != v.Count() || v.Count() != int64(len(f.ids)) {
		t.Fatalf("%s: backend total %d, view count %d, table rows %d", label, all.Total, v.Count(), len(f.ids))
	}
	for i := range 40 {
		q := &query.Search{Filter: randomFilter(f.rng, 2), Sort: randomSort(f.rng), PageSize: 1 + f.rng.IntN(60)}
		eq := *q
		for page := 0; ; page++ {
			got, err := v.Search(f.ctx, q)
			if err != nil {
				t.Fatalf("%s: search %d %v: %v", label, i, q.Filter, err)
			}
			want, err := embeddedSearch(&eq)
			if err != nil {
				t.Fatalf("%s: embedded search %d %v: %v", label, i, q.Filter, err)
			}
			if g, w := pageKeys(got), pageKeys(want); !slices.Equal(g, w) || got.Total != want.Total {
				t.Fatalf("%s: search %d (filter %v, sort %v, size %d) page %d:\nbackend  %d total, keys %x\nembedded %d total, keys %x",
					label, i, q.Filter, q.Sort, q.PageSize, page, got.Total, g, want.Total, w)
			}
			for j := range got.Len() {
				if g, w := got.Object(j), want.Object(j); !reflect.DeepEqual(g, w) {
					t.Fatalf("%s: search %d page %d: object %x is %v, embedded %v", label, i, page, got.Key(j), g, w)
				}
			}
			if (got.Next == nil) != (want.Next == nil) {
				t.Fatalf("%s: search %d page %d: backend next %v, embedded next %v", label, i, page, got.Next != nil, want.Next != nil)
			}
			if got.Next == nil || page+1 == f.maxPages {
				break
			}
			q.After, eq.After = got.Next, want.Next
		}
	}
	for i := range 25 {
		q := randomAggregate(f.rng)
		got, err := v.Aggregate(f.ctx, q)
		if err != nil {
			t.Fatalf("%s: aggregate %d: %v", label, i, err)
		}
		want, err := embeddedAggregate(q)
		if err != nil {
			t.Fatalf("%s: embedded aggregate %d: %v", label, i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: aggregate %d (filter %v, metrics %+v, groups %+v):\nbackend  %+v\nembedded %+v", label, i, q.Filter, q.Metrics, q.Groups, got, want)
		}
	}
	st, err := f.ix.Status("Item")
	if err != nil {
		t.Fatal(err)
	}
	if st.Backend == nil || st.Backend.Fallbacks != 0 {
		t.Fatalf("%s: backend status %+v, want no fallback", label, st.Backend)
	}
}

// noted is how many objects the backend finds with note.
func (f *backendFixture) noted(t *testing.T, note string) int64 {
	t.Helper()
	v, err := f.ix.View("Item")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	p, err := v.Search(f.ctx, &query.Search{Filter: query.Eq("note", note), PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	return p.Total
}
