package index

import (
	"cmp"
	"math"
	"math/big"
	"reflect"
	"slices"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// result orders the groups: maxGroupCount first keeps, per exact
// grouping, the values with most objects; then groups are ordered by the
// first metric with an order, else by count descending, then by their
// values.
func (a *aggregation) result() *query.AggregateResult {
	groups := make([]*groupAccumulator, 0, len(a.accumulators))
	for _, g := range a.accumulators {
		groups = append(groups, g)
	}
	for gi, gs := range a.groups {
		if gs.MaxGroupCount == 0 {
			continue
		}
		totals := map[string]int64{}
		first := map[string]*groupAccumulator{}
		for _, g := range groups {
			totals[g.ids[gi]] += g.count
			first[g.ids[gi]] = g
		}
		if len(totals) <= gs.MaxGroupCount {
			continue
		}
		ids := make([]string, 0, len(totals))
		for id := range totals {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(x, y string) int {
			if c := cmp.Compare(totals[y], totals[x]); c != 0 {
				return c
			}
			return compareGroupAt(first[x], first[y], gi)
		})
		keep := map[string]bool{}
		for _, id := range ids[:gs.MaxGroupCount] {
			keep[id] = true
		}
		groups = slices.DeleteFunc(groups, func(g *groupAccumulator) bool { return !keep[g.ids[gi]] })
	}
	orderBy := -1
	for i, m := range a.metrics {
		if m.Order != 0 {
			orderBy = i
			break
		}
	}
	values := func(g *groupAccumulator) []any {
		out := make([]any, len(a.metrics))
		for i, m := range a.metrics {
			out[i] = g.metrics[i].value(m, g.count)
		}
		return out
	}
	type row struct {
		g    *groupAccumulator
		vals []any
	}
	rows := make([]row, len(groups))
	for i, g := range groups {
		rows[i] = row{g, values(g)}
	}
	slices.SortFunc(rows, func(x, y row) int {
		if orderBy >= 0 {
			// Groups without a value come last in both directions.
			xv, yv := x.vals[orderBy], y.vals[orderBy]
			switch {
			case xv == nil && yv != nil:
				return 1
			case yv == nil && xv != nil:
				return -1
			}
			c := compareMetric(xv, yv)
			if a.metrics[orderBy].Order < 0 {
				c = -c
			}
			if c != 0 {
				return c
			}
		} else if c := cmp.Compare(y.g.count, x.g.count); c != 0 {
			return c
		}
		for gi := range a.groups {
			if c := compareGroupAt(x.g, y.g, gi); c != 0 {
				return c
			}
		}
		return 0
	})
	res := &query.AggregateResult{Groups: make([]query.GroupResult, 0, len(rows))}
	for _, g := range groups {
		for i := range g.metrics {
			res.Approximate = res.Approximate || g.metrics[i].sketch != nil
		}
	}
	for _, r := range rows {
		res.Groups = append(res.Groups, query.GroupResult{Keys: r.g.keys, Count: r.g.count, Metrics: r.vals})
	}
	return res
}

// compareGroupAt orders two groups by the value of one grouping: values by
// their order, the null group last; values of different kinds (the
// default group among values) by their identity.
func compareGroupAt(x, y *groupAccumulator, gi int) int {
	a, b := x.sorts[gi], y.sorts[gi]
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	if av, ok := a.(int); ok { // range indexes
		if bv, ok := b.(int); ok {
			return cmp.Compare(av, bv)
		}
	}
	if sameType(a, b) {
		return objects.Compare(a, b)
	}
	return cmp.Compare(x.ids[gi], y.ids[gi])
}

func sameType(a, b any) bool { return reflect.TypeOf(a) == reflect.TypeOf(b) }

// compareMetric orders metric values: numbers numerically, other values
// in their order; absent values last.
func compareMetric(x, y any) int {
	switch {
	case x == nil && y == nil:
		return 0
	case x == nil:
		return 1
	case y == nil:
		return -1
	}
	_, fx := x.(float64)
	if _, fy := y.(float64); fx && fy {
		return objects.Compare(x, y) // doubles in total order: -0 before 0, NaN last
	}
	nx, okx := metricNumber(x)
	ny, oky := metricNumber(y)
	if okx && oky {
		return nx.Cmp(ny)
	}
	return objects.Compare(x, y)
}

// metricNumber is the exact value of a finite numeric metric.
func metricNumber(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false // compared by objects.Compare's total order
		}
		return new(big.Rat).SetFloat64(x), true
	case *big.Int:
		return new(big.Rat).SetInt(x), true
	case objects.Decimal:
		return x.Rat(), true
	}
	return nil, false
}
