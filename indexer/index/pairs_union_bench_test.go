package index

import (
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// The pair counts (pairs.go) and the union split (union.go) were written
// for two queries of bench search: "count by city where active" and "city
// = X or visits > Y". These benchmarks measure them on other queries of
// the same shapes against the path the engine takes without them, for the
// figures in their doc comments.

// BenchmarkSnapshot_AggregatePairs counts grouped by one property over a
// value or range of another: by the pair counts, and through the matches
// (a bitmap of the filter intersected with each value's).
func BenchmarkSnapshot_AggregatePairs(b *testing.B) {
	s := benchSnap()
	count := []query.Metric{{Kind: query.Count}}
	for _, bc := range []struct {
		name string
		q    *query.Aggregate
	}{
		{"active by visits range", &query.Aggregate{Metrics: count, Groups: []query.Group{{Kind: query.Exact, Property: "active"}},
			Filter: query.And(query.Compare(query.OpGte, "visits", int64(20)), query.Compare(query.OpLt, "visits", int64(30)))}},
		{"visits by city value", &query.Aggregate{Metrics: count, Groups: []query.Group{{Kind: query.Exact, Property: "visits"}},
			Filter: query.Eq("city", "Lima")}},
	} {
		for _, way := range []struct {
			name string
			opt  aggregateOptions
		}{{"pairs", aggregateOptions{}}, {"matches", aggregateOptions{noPairs: true}}} {
			b.Run(bc.name+"/"+way.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := s.aggregate(b.Context(), bc.q, nil, way.opt); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSnapshot_SearchUnion walks a page of a union of a set and a
// range and counts its total: split as |S| + |R| - |R ∩ S| with |R ∩ S|
// from the pair counts or read along R's order, or through a dense bitset
// of the matches.
func BenchmarkSnapshot_SearchUnion(b *testing.B) {
	s := benchSnap()
	for _, bc := range []struct {
		name string
		f    *query.Filter
	}{
		{"inactive or few visits", query.Or(query.Eq("active", false), query.Compare(query.OpLt, "visits", int64(3)))},
		{"city or top balance", query.Or(query.Eq("city", "Osaka"), query.Compare(query.OpGte, "balance", 990_000.0))},
		{"city or high balance", query.Or(query.Eq("city", "Osaka"), query.Compare(query.OpGte, "balance", 900_000.0))},
	} {
		for _, way := range []struct {
			name string
			opt  searchOptions
		}{
			{"split", searchOptions{plan: PlanWalk}},
			{"split without pairs", searchOptions{plan: PlanWalk, noPairs: true}},
			{"bitset", searchOptions{plan: PlanWalk, noUnionSplit: true}},
		} {
			b.Run(bc.name+"/"+way.name, func(b *testing.B) {
				q := &query.Search{PageSize: 100, Filter: bc.f}
				for b.Loop() {
					if _, err := s.search(b.Context(), q, way.opt); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
