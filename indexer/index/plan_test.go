package index

import (
	"math/rand/v2"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// mustCustomers builds a snapshot of n benchmark customers: visits
// uniform in [0, 100), balance uniform in [0, 1e6), active half.
func mustCustomers(tb testing.TB, n int) *Snapshot {
	tb.Helper()
	typ := customerType()
	r := rand.New(rand.NewPCG(5, 6))
	want := state{}
	for i := range n {
		want[uint32(i)] = &objects.Object{Values: []any{int64(i),
			benchFirst[r.IntN(len(benchFirst))] + " " + benchLast[r.IntN(len(benchLast))],
			benchCity[r.IntN(len(benchCity))], r.Float64() * 1e6, int64(r.IntN(100)), r.IntN(2) == 0}}
	}
	return mustBuild(tb, typ, want)
}

// TestSnapshot_choose checks the planner's choice where one plan is
// clearly cheaper: walking the order wins when matches are dense along
// it, collecting when they are few. Both plans answer alike (see
// TestSnapshot_Search); this test is about cost.
func TestSnapshot_choose(t *testing.T) {
	s := mustCustomers(t, 20_000)
	byBalance := []query.Sort{{Property: "balance"}}
	for _, tc := range []struct {
		name    string
		filter  *query.Filter
		sort    []query.Sort
		want    Plan
		bounded bool // the walk is bounded by a range on the sort property
	}{
		{"no filter, sorted", nil, byBalance, PlanWalk, false},
		{"no filter, key order", nil, nil, PlanWalk, false},
		{"half the objects, sorted", query.Eq("active", true), byBalance, PlanWalk, false},
		{"an eighth of the objects, key order", query.Eq("city", "Lima"), nil, PlanWalk, false},
		{"range on the sort property only", query.And(query.Compare(query.OpGte, "balance", 400_000.0),
			query.Compare(query.OpLt, "balance", 450_000.0)), byBalance, PlanWalk, true},
		{"range on the sort property and a dense filter", query.And(query.Compare(query.OpGte, "balance", 100_000.0),
			query.Eq("active", false)), []query.Sort{{Property: "balance", Desc: true}}, PlanWalk, true},
		{"a few keys, sorted", query.Keys(mustIDKey(t, 7), mustIDKey(t, 70), mustIDKey(t, 700)), byBalance, PlanCollect, false},
		{"one percent of the objects, sorted elsewhere", query.Compare(query.OpLt, "visits", int64(1)), byBalance, PlanCollect, false},
		{"a rare pair of terms, key order", query.Text(query.OpAllTerms, "name", "ada zuse"), nil, PlanCollect, false},
		{"two sort fields", nil, []query.Sort{{Property: "city"}, {Property: "balance"}}, PlanCollect, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.filter
			x := &exec{ctx: t.Context(), s: s}
			defer x.release()
			root, err := (&compiler{s: s}).compile(f)
			if err != nil {
				t.Fatal(err)
			}
			so, err := newSorter(s, tc.sort)
			if err != nil {
				t.Fatal(err)
			}
			got := s.choose(x, root, so, 101, "")
			if got.plan != tc.want {
				t.Fatalf("plan %s, want %s (estimated matches %.0f of %.0f)", got.plan, tc.want, root.est(), float64(s.aliveCount()))
			}
			if got.plan == PlanWalk && got.bounded != tc.bounded {
				t.Fatalf("walk bounded %v, want %v (range [%d, %d))", got.bounded, tc.bounded, got.lo, got.hi)
			}
			// The search reports the plan it ran.
			res := mustSearch(t, s, &query.Search{Filter: f, Sort: tc.sort, PageSize: 100})
			if res.Plan != tc.want {
				t.Fatalf("search ran %s, planner chose %s", res.Plan, tc.want)
			}
		})
	}
}

func mustIDKey(tb testing.TB, id int64) []byte {
	tb.Helper()
	return mustKey(tb, customerType(), &objects.Object{Values: []any{id, nil, nil, nil, nil, nil}})
}
