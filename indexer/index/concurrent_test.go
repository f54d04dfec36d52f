package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// TestSnapshot_concurrentReads runs searches and aggregations on one
// snapshot, and on the next one that shares its dicts, from several
// goroutines: what queries cache on a snapshot (dense bitsets of dict
// values and of the alive documents, pooled bitsets) must be safe to share
// (go test -race) and give the answers of a sequential run.
func TestSnapshot_concurrentReads(t *testing.T) {
	s1 := mustCustomers(t, 8000)
	key := mustIDKey(t, 3)
	s2, err := s1.Apply([]Change{{Doc: 3, Key: key, Object: &objects.Object{Values: []any{int64(3), "ada zuse", "Lima", 1.5, int64(7), true}}}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 10))
	type job struct {
		s    *Snapshot
		q    *query.Search
		want []uint32
		agg  *query.Aggregate
		aggs string
	}
	var jobs []job
	for i := range 60 {
		s := []*Snapshot{s1, s2}[i%2]
		city := benchCity[r.IntN(len(benchCity))]
		f := []*query.Filter{
			query.Eq("city", city),
			query.And(query.Eq("city", city), query.Not(query.Eq("active", true))),
			query.Or(query.Eq("city", city), query.Compare(query.OpGt, "visits", int64(90))),
			query.And(query.Compare(query.OpGte, "balance", r.Float64()*5e5), query.Eq("active", false)),
		}[i%4]
		q := &query.Search{Filter: f, Sort: []query.Sort{{Property: "balance", Desc: i%3 == 0}}, PageSize: 50}
		a := &query.Aggregate{Filter: f, Metrics: []query.Metric{{Kind: query.Count}, {Kind: query.Avg, Property: "balance"}}, Groups: []query.Group{{Kind: query.Exact, Property: "city"}}}
		res := mustSearch(t, s, q)
		ar, err := s.Aggregate(t.Context(), a, nil)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job{s: s, q: q, want: res.Docs, agg: a, aggs: fmt.Sprint(ar)})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Go(func() {
			for i := range 3 * len(jobs) {
				j := jobs[(i*7+g)%len(jobs)]
				res, err := j.s.Search(t.Context(), j.q)
				if err != nil {
					errs <- err
					return
				}
				j.s.Prefetch(res.Docs)
				j.s.PrefetchProperties(res.Docs, []int{-1, 0, 2, 99}) // positions out of range are skipped
				if !slices.Equal(res.Docs, j.want) {
					errs <- fmt.Errorf("search %v: got %v, want %v", j.q.Filter, head(res.Docs), head(j.want))
					return
				}
				ar, err := j.s.Aggregate(t.Context(), j.agg, nil)
				if err != nil {
					errs <- err
					return
				}
				if got := fmt.Sprint(ar); got != j.aggs {
					errs <- fmt.Errorf("aggregate %v: got %s, want %s", j.agg.Filter, got, j.aggs)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
