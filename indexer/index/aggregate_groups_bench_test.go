package index

import (
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// BenchmarkSnapshot_AggregateManyGroups groups the orders by exact amount
// (up to 100,000 values): the cut to a grouping's MaxGroupCount values and
// the order of what is kept (query.GroupOrder) are most of such a query.
func BenchmarkSnapshot_AggregateManyGroups(b *testing.B) {
	s := benchOrders()
	amount := func(n int) []query.Group {
		return []query.Group{{Kind: query.Exact, Property: "amount", MaxGroupCount: n}}
	}
	for _, bc := range []struct {
		name string
		q    *query.Aggregate
	}{
		{"10k groups by count", &query.Aggregate{Metrics: []query.Metric{{Kind: query.Count}}, Groups: amount(10_000)}},
		{"10k groups by sum", &query.Aggregate{Metrics: []query.Metric{{Kind: query.Sum, Property: "amount", Order: -1}}, Groups: amount(10_000)}},
		{"100 groups by count", &query.Aggregate{Metrics: []query.Metric{{Kind: query.Count}}, Groups: amount(100)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			want := bc.q.Groups[0].MaxGroupCount
			for b.Loop() {
				res, err := s.Aggregate(b.Context(), bc.q, nil)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Groups) != want {
					b.Fatalf("%d groups, want %d", len(res.Groups), want)
				}
			}
		})
	}
}
