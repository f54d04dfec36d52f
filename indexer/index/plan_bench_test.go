package index

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// BenchmarkSnapshot_SortedPlans measures the sorted, filtered page of the
// search bench with each plan forced and with the planner's choice, so
// that the planner's costs can be checked against what each plan costs
// at a size (-index.bench-rows): the choice should be the faster one.
func BenchmarkSnapshot_SortedPlans(b *testing.B) {
	s := benchSnap()
	runtime.GC() // the build's garbage, not the first plan's
	for _, width := range []float64{5_000, 50_000, 200_000} {
		for _, opt := range []struct {
			name string
			opt  searchOptions
		}{{"auto", searchOptions{}}, {"walk", searchOptions{plan: PlanWalk}}, {"collect", searchOptions{plan: PlanCollect}}} {
			b.Run(opt.name+"/width="+strconv.Itoa(int(width)), func(b *testing.B) {
				r := rand.New(rand.NewPCG(3, 4))
				var plan Plan
				for b.Loop() {
					lo := r.Float64() * (1e6 - width)
					q := &query.Search{PageSize: 100, Sort: []query.Sort{{Property: "balance", Desc: true}}, Filter: query.And(
						query.Eq("city", benchCity[r.IntN(8)]), query.Compare(query.OpGte, "balance", lo), query.Compare(query.OpLt, "balance", lo+width),
						query.Eq("active", false))}
					res, err := s.search(b.Context(), q, opt.opt)
					if err != nil {
						b.Fatal(err)
					}
					plan = res.Plan
				}
				b.Log(plan)
			})
		}
	}
}
