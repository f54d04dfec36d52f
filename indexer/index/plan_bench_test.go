package index

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/cputime"

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
		}{
			{"auto", searchOptions{}}, {"walk", searchOptions{plan: PlanWalk}}, {"collect", searchOptions{plan: PlanCollect}},
			// The ways to count a walk bounded by the range (search.go).
			{"walk-test", searchOptions{plan: PlanWalk, count: countTest}},
			{"walk-dense", searchOptions{plan: PlanWalk, count: countDense}},
			{"walk-bins", searchOptions{plan: PlanWalk, count: countBins}},
		} {
			b.Run(opt.name+"/width="+strconv.Itoa(int(width)), func(b *testing.B) {
				r := rand.New(rand.NewPCG(3, 4))
				var plan Plan
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				cpu := cputime.Thread(b)
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
				cputime.PerOp(b, cpu, cputime.Thread)
				b.Log(plan)
			})
		}
	}
}

// BenchmarkOrderBins_Count measures counting the bench's residual (a city
// and not active, as a dense bitset) along a range of balance's order by
// position, through the order's bins (order_bins.go), and from a cached
// filter's prefix sums over the bins (filter_cache.go), alternately.
func BenchmarkOrderBins_Count(b *testing.B) {
	s := benchSnap()
	x := &exec{ctx: b.Context(), s: s}
	defer x.release()
	c := &compiler{s: s}
	res, err := c.compile(query.And(query.Eq("city", benchCity[0]), query.Eq("active", false)))
	if err != nil {
		b.Fatal(err)
	}
	w, ok, err := x.denseNode(res, true)
	if err != nil || !ok {
		b.Fatal("no dense residual", err)
	}
	o := s.property("balance").order
	bins := s.binsOf(o)
	span := o.len() / 20
	for round := range 3 {
		f := &cachedFilter{bits: w}
		f.binPrefix(bins)
		prefix := f.binPrefix(bins)
		for _, way := range []string{"positions", "bins", "prefix"} {
			b.Run(way+"/"+strconv.Itoa(round), func(b *testing.B) {
				r := rand.New(rand.NewPCG(5, 6))
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				cpu := cputime.Thread(b)
				for b.Loop() {
					lo := r.IntN(o.len() - span)
					switch way {
					case "bins":
						bins.countIn(o, run{lo, lo + span}, w, nil)
					case "prefix":
						bins.countIn(o, run{lo, lo + span}, w, prefix)
					default:
						countRunsIn(o, []run{{lo, lo + span}}, w)
					}
				}
				cputime.PerOp(b, cpu, cputime.Thread)
			})
		}
	}
}

// BenchmarkOrderBins_Build measures making the bins of balance's order,
// what the first count through them after a build or a change pays.
func BenchmarkOrderBins_Build(b *testing.B) {
	s := benchSnap()
	o := s.property("balance").order
	for b.Loop() {
		newOrderBins(o, s.maxDoc, binStretch)
	}
}
