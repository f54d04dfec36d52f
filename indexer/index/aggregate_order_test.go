package index

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// TestSnapshot_AggregateByOrder checks counts by duration bucket and by
// range that searches in the grouped property's order find (over every
// object, and over ranges of that property) against the oracle and the
// column walk, through rounds of edits, and that the order did answer
// them.
func TestSnapshot_AggregateByOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	typ := testType(t)
	want := randState(r, 3000)
	s := mustBuild(t, typ, want)
	keys := mustKeys(t, typ, want)
	or := &oracle{t: typ}
	// The test's dates span 100 days and its timestamps 1,000 seconds:
	// groupings of a few buckets to as many as the values (the column
	// walk's, then).
	groups := []query.Group{
		{Property: "day", Unit: query.Days, Every: 1}, {Property: "day", Unit: query.Days, Every: 3},
		{Property: "day", Unit: query.Weeks, Every: 1}, {Property: "day", Unit: query.Months, Every: 1},
		{Property: "day", Unit: query.Quarters, Every: 1}, {Property: "day", Unit: query.Years, Every: 2},
		{Property: "at", Unit: query.Seconds, Every: 1}, {Property: "at", Unit: query.Seconds, Every: 10},
		{Property: "at", Unit: query.Minutes, Every: 1}, {Property: "at", Unit: query.Minutes, Every: 7},
		{Property: "at", Unit: query.Hours, Every: 1}, {Property: "at", Unit: query.Milliseconds, Every: 60_000},
		{Property: "at", Unit: query.Days, Every: 1},
	}
	answered := map[query.GroupKind]int{}
	for round := range 4 {
		if round > 0 {
			s, keys = mustEdit(t, r, s, want, editMix{deleted: 1, rewritten: 2, outOf: 5})
		}
		for i := range 80 {
			g := groups[r.IntN(len(groups))]
			g.Kind = query.Duration
			if i%2 == 1 {
				g = query.Group{Kind: query.Ranges, Property: []string{"day", "at", "visits", "balance", "amount"}[r.IntN(5)]}
			}
			p, _ := typ.Property(g.Property)
			pos := typ.PropertyIndex(g.Property)
			if g.Kind == query.Ranges {
				for range 1 + r.IntN(4) {
					lo, hi := randValue(r, p, want, pos), randValue(r, p, want, pos)
					switch r.IntN(4) {
					case 0:
						lo = nil
					case 1:
						hi = nil
					}
					g.Ranges = append(g.Ranges, query.Range{Start: lo, End: hi})
				}
			}
			var f *query.Filter
			other := false // a filter of another property
			switch r.IntN(4) {
			case 1:
				if v := randValue(r, p, want, pos); v != nil {
					f = query.Compare([]query.Op{query.OpGt, query.OpGte, query.OpLt, query.OpLte}[r.IntN(4)], g.Property, v)
				}
			case 2:
				lo, hi := randValue(r, p, want, pos), randValue(r, p, want, pos)
				if lo != nil && hi != nil {
					f = query.And(query.Compare(query.OpGte, g.Property, lo), query.Compare(query.OpLt, g.Property, hi))
				}
			case 3: // another property's filter: the column walk answers
				f, other = query.Eq("city", testCities[r.IntN(len(testCities))]), true
			}
			if r.IntN(5) == 0 {
				g.MaxGroupCount = 1 + r.IntN(4)
			}
			q := &query.Aggregate{Filter: f, Metrics: []query.Metric{{Kind: query.Count}}, Groups: []query.Group{g}}
			what := "round " + strconv.Itoa(round) + ", " + strconv.Itoa(i) + ": " + f.String()
			exp := or.aggregate(want, keys, q)
			for _, opt := range []aggregateOptions{{}, {noOrderCounts: true}} {
				res, err := s.aggregate(t.Context(), q, nil, opt)
				if err != nil {
					t.Fatalf("%s %+v: %v", what, opt, err)
				}
				checkAggregate(t, what, typ, q, res, or.aggregate(want, keys, q))
			}
			res, err := s.aggregate(t.Context(), q, nil, aggregateOptions{onlyOrderCounts: true})
			switch {
			case errors.Is(err, errNotByOrder):
				if other {
					continue
				}
			case err != nil:
				t.Fatalf("%s: %v", what, err)
			default:
				if other {
					t.Fatalf("%s: the order answered a filter of another property", what)
				}
				answered[g.Kind]++
				checkAggregate(t, what+" (the order)", typ, q, res, exp)
			}
		}
	}
	if answered[query.Duration] < 50 || answered[query.Ranges] < 50 {
		t.Fatalf("the order answered %d groupings by duration and %d by ranges of 160 each, want at least 50 each",
			answered[query.Duration], answered[query.Ranges])
	}
}

// TestSnapshot_AggregateByOrder_noValues groups a type without objects,
// and one whose grouped property is null everywhere: no groups, from the
// order's path as from the column walk.
func TestSnapshot_AggregateByOrder_noValues(t *testing.T) {
	typ := testType(t)
	nulls := randState(rand.New(rand.NewPCG(33, 34)), 200)
	day := typ.PropertyIndex("day")
	for _, o := range nulls {
		o.Values[day] = nil
	}
	for name, want := range map[string]state{"empty": {}, "nulls": nulls} {
		t.Run(name, func(t *testing.T) {
			s := mustBuild(t, typ, want)
			for _, g := range []query.Group{
				{Kind: query.Duration, Property: "day", Unit: query.Months, Every: 1},
				{Kind: query.Ranges, Property: "day", Ranges: []query.Range{{Start: nil, End: nil}}},
			} {
				q := &query.Aggregate{Metrics: []query.Metric{{Kind: query.Count}}, Groups: []query.Group{g}}
				for _, opt := range []aggregateOptions{{}, {noOrderCounts: true}} {
					res, err := s.aggregate(t.Context(), q, nil, opt)
					if err != nil {
						t.Fatalf("%v %+v: %v", g.Kind, opt, err)
					}
					if len(res.Groups) != 0 {
						t.Fatalf("%v %+v: %d groups, want none", g.Kind, opt, len(res.Groups))
					}
				}
			}
		})
	}
}
