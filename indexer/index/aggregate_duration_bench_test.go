package index

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Orders of the duration benchmark: a long key, a timestamp over two
// years (like the search bench's orders) and a double amount.
var benchOrders = sync.OnceValue(func() *Snapshot {
	typ := &objects.Type{APIName: "Order", PrimaryKey: []string{"id"}, TitleProperty: "id", Properties: []objects.Property{
		{APIName: "id", Type: objects.DataType{Kind: objects.KindLong}, Search: objects.SearchNumeric},
		{APIName: "placedAt", Type: objects.DataType{Kind: objects.KindTimestampTZ}, Search: objects.SearchDate},
		{APIName: "amount", Type: objects.DataType{Kind: objects.KindDouble}, Search: objects.SearchNumeric},
	}}
	r := rand.New(rand.NewPCG(5, 6))
	epoch := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	b := NewBuilder(typ)
	o := &objects.Object{Values: make([]any, 3)}
	for i := range *benchRows {
		o.Values[0] = int64(i)
		o.Values[1] = time.UnixMicro(epoch + r.Int64N(2*365*86_400_000_000)).UTC()
		o.Values[2] = float64(r.IntN(100_000)) / 100
		k, _ := typ.Key(o)
		if err := b.Add(uint32(i), k, o); err != nil {
			panic(err)
		}
	}
	return b.Finish(1)
})

// BenchmarkSnapshot_AggregateDuration groups every order by month of
// placedAt: the engine's side of the search bench's duration row.
func BenchmarkSnapshot_AggregateDuration(b *testing.B) {
	s := benchOrders()
	month := query.Group{Kind: query.Duration, Property: "placedAt", Unit: query.Months, Every: 1}
	for _, bc := range []struct {
		name    string
		metrics []query.Metric
	}{
		{"count", []query.Metric{{Kind: query.Count}}},
		{"count and sum", []query.Metric{{Kind: query.Count}, {Kind: query.Sum, Property: "amount"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			q := &query.Aggregate{Metrics: bc.metrics, Groups: []query.Group{month}}
			for b.Loop() {
				res, err := s.Aggregate(b.Context(), q, nil)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Groups) != 24 {
					b.Fatalf("%d groups, want 24", len(res.Groups))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(*benchRows), "ns/object")
		})
	}
}
